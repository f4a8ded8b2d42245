//! `warrant validate`: schema and semantic checks of artefacts.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use serde_json::Value;
use warrant_cpl::{TIERED_DIALECT_MESSAGE, is_tiered_dialect, load_pack, load_policy};
use warrant_evidence::{Context, DocKind, Document, Issue};
use warrant_graph::schema::pointer_to_arrow_path;
use warrant_graph::{Diagnostic, check_graph};

use crate::cli::{Format, Kind, ValidateArgs};
use crate::commands::print_json;
use crate::error::{CliError, CliResult};
use crate::io::{display_name, read_text};

/// A located finding, as reported.
#[derive(Debug, Clone, Serialize)]
struct Finding {
    path: String,
    message: String,
    /// The finding code, for Agent Evidence documents (`AEV-…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'static str>,
}

impl Finding {
    /// The message as printed: prefixed with its code when it has one.
    fn text(&self) -> String {
        match self.code {
            Some(code) => format!("{code}: {}", self.message),
            None => self.message.clone(),
        }
    }
}

impl From<&Diagnostic> for Finding {
    fn from(d: &Diagnostic) -> Self {
        Self { path: d.path.clone(), message: d.message.clone(), code: None }
    }
}

impl From<&Issue> for Finding {
    fn from(i: &Issue) -> Self {
        Self { path: i.path.clone(), message: i.message.clone(), code: Some(i.code.as_str()) }
    }
}

/// What Agent Evidence documents resolve against: the other evidence documents named on the
/// command line (those that pass their schema), and the previous version (`--previous`).
#[derive(Debug, Default)]
struct EvidenceSet {
    docs: Vec<(String, Document)>,
    previous: Option<Document>,
}

/// Keys of PredicateGraphs and CPL artefacts: a document with one is never taken for Agent
/// Evidence, so their detection is unchanged.
const NON_EVIDENCE_KEYS: [&str; 12] = [
    "output_id",
    "text",
    "entities",
    "operations",
    "tool_calls",
    "citations",
    "code_blocks",
    "discourse_acts",
    "pack_id",
    "policy_id",
    "verifier_id",
    "rules",
];

/// The report for one file.
#[derive(Debug, Clone, Serialize)]
struct FileReport {
    file: String,
    kind: Option<&'static str>,
    valid: bool,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// What the document turned out to be, when that is not the kind itself (a CKF benchmark
    /// projection checked as one).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// How the first error reads in the upstream validator's style (text output only).
    #[serde(skip)]
    headline: Option<String>,
}

fn detect(v: &Value) -> Option<Kind> {
    let o = v.as_object()?;
    if !NON_EVIDENCE_KEYS.iter().any(|k| o.contains_key(*k))
        && !is_tiered_dialect(v)
        && let Some(k) = DocKind::detect(v)
    {
        return Some(Kind::from_evidence(k));
    }
    if o.contains_key("schema_version") || o.contains_key("output_id") {
        Some(Kind::Predicategraph)
    } else if o.contains_key("pack_id") {
        Some(Kind::PolicyPack)
    } else if o.contains_key("policy_id") || is_tiered_dialect(v) {
        Some(Kind::CplPolicy)
    } else if o.contains_key("verifier_id") {
        Some(Kind::VerifierRubric)
    } else if warrant_ckf::validate::looks_like_package(v) {
        Some(Kind::CkfPackage)
    } else {
        None
    }
}

fn finding(path: &str, message: impl Into<String>) -> Finding {
    Finding { path: path.to_string(), message: message.into(), code: None }
}

/// True when `name` (a file as given on the command line) is what `reference` points at: the
/// same path, or a path ending in it.
fn names_file(name: &str, reference: &str) -> bool {
    name == reference || Path::new(name).ends_with(reference)
}

/// The other documents of the same evidence that `value` resolves against: those of the same
/// `evidence_pack_id` (other versions of a pack excepted), and for a pack, the claim map and
/// source map its `*_map_ref`s name (by id or file).
fn context<'a>(kind: DocKind, value: &Value, file: &str, ev: &'a EvidenceSet) -> Context<'a> {
    let own = value.get("evidence_pack_id").and_then(Value::as_str);
    let reference = |key: &str| value.get(key).and_then(Value::as_str);
    let mut ctx = Context::default();
    for (name, doc) in &ev.docs {
        if name == file {
            continue;
        }
        let same_pack = own.is_some() && doc.evidence_pack_id() == own;
        match doc {
            Document::ClaimMap(m) => {
                let named = reference("claim_map_ref").is_some_and(|r| r == m.claim_map_id || names_file(name, r));
                if same_pack || (kind == DocKind::EvidencePack && named) {
                    ctx.claim_maps.push(m);
                }
            }
            Document::SourceMap(m) => {
                let named = reference("source_map_ref").is_some_and(|r| r == m.source_map_id || names_file(name, r));
                if same_pack || (kind == DocKind::EvidencePack && named) {
                    ctx.source_maps.push(m);
                }
            }
            Document::EvidencePack(p) if same_pack && kind != DocKind::EvidencePack => ctx.packs.push(p),
            Document::Verification(v) if same_pack => ctx.verifications.push(v),
            _ => {}
        }
    }
    ctx
}

/// Both validator passes, plus the review history against `--previous`.
fn check_evidence(report: &mut FileReport, kind: DocKind, value: &Value, file: &str, ev: &EvidenceSet) -> CliResult<()> {
    let r = warrant_evidence::validate_with(kind, value, &context(kind, value, file, ev));
    let mut issues: Vec<Issue> = r.issues().cloned().collect();
    if let (Some(previous), Some(doc)) = (&ev.previous, &r.document) {
        let history =
            warrant_evidence::check_review_history(previous, doc).map_err(|e| CliError::input(format!("--previous: {e}")))?;
        issues.extend(history);
    }
    report.errors = issues.iter().filter(|i| i.is_error()).map(Finding::from).collect();
    report.warnings = issues.iter().filter(|i| !i.is_error()).map(Finding::from).collect();
    Ok(())
}

/// Reads the evidence documents among `files` that pass their schema, for cross-references.
/// Unreadable files are skipped here (and reported when their turn comes); stdin is not read.
fn evidence_set(files: &[String], kind: Option<Kind>) -> Vec<(String, Document)> {
    let mut out = Vec::new();
    for file in files.iter().filter(|f| *f != "-") {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
        let Some(k) = kind.or_else(|| detect(&value)).and_then(Kind::evidence) else { continue };
        if let Some(doc) = warrant_evidence::validate(k, &value).document {
            out.push((file.clone(), doc));
        }
    }
    out
}

/// The previous version given with `--previous`: valid by the schema, of the FILE's kind.
fn previous_version(path: &str, files: &[String], kind: Option<Kind>) -> CliResult<Document> {
    if files.len() != 1 {
        return Err(CliError::input("--previous takes exactly one FILE"));
    }
    let value = crate::io::read_json(path)?;
    let kind = kind
        .or_else(|| detect(&value))
        .and_then(Kind::evidence)
        .filter(|k| matches!(k, DocKind::EvidencePack | DocKind::Verification));
    let Some(kind) = kind else {
        return Err(CliError::input(format!(
            "{}: --previous needs an evidence pack or a verification document",
            display_name(path)
        )));
    };
    let r = warrant_evidence::validate(kind, &value);
    match (r.document, r.schema.first()) {
        (Some(doc), None) => Ok(doc),
        (_, first) => Err(CliError::input(format!(
            "{}: the previous version is not a valid {kind}{}",
            display_name(path),
            first.map(|i| format!(": {} at {}", i.message, crate::io::pointer(&i.path))).unwrap_or_default()
        ))),
    }
}

/// Validates one document of a known or detected kind.
fn check(file: &str, text: &str, kind: Option<Kind>, strict: bool, ev: &EvidenceSet) -> CliResult<FileReport> {
    let mut report = FileReport {
        file: file.to_string(),
        kind: kind.map(Kind::name),
        valid: false,
        errors: vec![],
        warnings: vec![],
        note: None,
        headline: None,
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) if ckf_text(file, text, kind) => match warrant_ckf::encode::parse_any(text) {
            Ok(v) => v,
            Err(e2) => {
                report.kind = Some(Kind::CkfPackage.name());
                report.headline = Some(format!("Invalid package document: {e2}"));
                report.errors.push(finding("", format!("not readable as a JSON, YAML or Markdown package: {e2} (as JSON: {e})")));
                return Ok(report);
            }
        },
        Err(e) => {
            report.headline = Some(format!("Invalid JSON: {e}"));
            report.errors.push(finding("", format!("invalid JSON: {e}")));
            return Ok(report);
        }
    };
    let Some(kind) = kind.or_else(|| detect(&value)) else {
        report.headline = Some("Error: cannot tell the artefact kind from its content; pass --kind".into());
        report.errors.push(finding(
            "",
            "cannot tell the artefact kind from its content (no schema_version, pack_id, policy_id, verifier_id or CKF package sections); pass --kind",
        ));
        return Ok(report);
    };
    report.kind = Some(kind.name());
    match kind {
        Kind::Predicategraph => {
            let r = check_graph(value);
            report.errors = r.errors.iter().map(Finding::from).collect();
            report.warnings = r.warnings.iter().map(Finding::from).collect();
        }
        Kind::CplPolicy => {
            if is_tiered_dialect(&value) {
                report.headline = Some(TIERED_DIALECT_MESSAGE.to_string());
                report.errors.push(finding("", TIERED_DIALECT_MESSAGE));
            } else {
                match load_policy(&value) {
                    Ok((policy, warnings)) => {
                        report.warnings =
                            warnings.iter().map(|w| finding(&w.pointer, w.message.trim_start_matches("info: "))).collect();
                        for r in &policy.rules {
                            for v in &r.verifiers {
                                report.warnings.push(finding(
                                    "",
                                    format!("rule '{}' uses verifier {v}, which is not registered", r.rule_id),
                                ));
                            }
                        }
                    }
                    Err(e) => report.errors.push(finding(&e.pointer, e.message)),
                }
            }
        }
        Kind::PolicyPack => match load_pack(&value) {
            Ok(pack) => {
                report.warnings =
                    pack.warnings.iter().map(|w| finding(&w.pointer, w.message.trim_start_matches("info: "))).collect();
                for v in pack.verifier_ids() {
                    report.warnings.push(finding("", format!("verifier {v} is not registered")));
                }
                if strict && pack.uses_pack_predicates {
                    report.warnings.push(finding("/custom_predicates", "non-standard extension: pack-level custom_predicates"));
                }
            }
            Err(e) => {
                if is_tiered_dialect(&value) {
                    report.warnings.push(finding("", TIERED_DIALECT_MESSAGE));
                }
                report.errors.push(finding(&e.pointer, e.message));
            }
        },
        Kind::VerifierRubric => {
            if let Err(e) = warrant_cpl::rubric::load_rubric(&value) {
                report.errors.push(finding(&e.pointer, e.message));
            }
        }
        Kind::CkfPackage => {
            // Read mode: write-mode rules are warnings, so `--strict` is write mode (§9).
            let r = warrant_ckf::validate::check(&value, warrant_ckf::validate::Mode::Read);
            report.errors = r.errors.into_iter().map(|f| finding(&f.path, f.message)).collect();
            report.warnings = r.warnings.into_iter().map(|f| finding(&f.path, f.message)).collect();
            if r.shape == warrant_ckf::validate::Shape::BenchmarkProjection {
                report.note = Some(
                    "a CKF-compatible benchmark projection, not a package: package readers decline it (§9.2); its projection shape was checked".into(),
                );
                if report.errors.is_empty() {
                    report.headline = Some("Valid benchmark projection (not a package; package readers decline it)".into());
                }
            }
        }
        other => {
            if let Some(k) = other.evidence() {
                check_evidence(&mut report, k, &value, file, ev)?;
            }
        }
    }
    report.valid = report.errors.is_empty() && (!strict || report.warnings.is_empty());
    Ok(report)
}

/// True when a non-JSON text should be read as a YAML or Markdown package.
fn ckf_text(file: &str, text: &str, kind: Option<Kind>) -> bool {
    let lower = file.to_ascii_lowercase();
    kind == Some(Kind::CkfPackage)
        || lower.ends_with(".ckf.yaml")
        || lower.ends_with(".ckf.yml")
        || lower.ends_with(".ckf.md")
        || text.trim_start().starts_with(warrant_ckf::encode::MD_HEADER)
}

fn headline(r: &FileReport) -> String {
    if let Some(h) = &r.headline {
        return h.clone();
    }
    match r.errors.first() {
        Some(e) => format!("Validation error at {}: {}", pointer_to_arrow_path(&e.path), e.text()),
        None if !r.valid => "warnings are failures under --strict".to_string(),
        None => "Valid".to_string(),
    }
}

fn print_text(r: &FileReport, indent: &str, name: &str) {
    let mark = if r.valid { "✓" } else { "✗" };
    if indent.is_empty() {
        println!("{mark} {name}: {}", headline(r));
    } else {
        println!("{indent}{mark} {name}");
        if !r.valid {
            println!("{indent}  {}", headline(r));
        }
    }
    for e in r.errors.iter().skip(1) {
        println!("{indent}  ✗ {}: {}", pointer_to_arrow_path(&e.path), e.text());
    }
    for w in &r.warnings {
        println!("{indent}  ⚠ {}: {}", pointer_to_arrow_path(&w.path), w.text());
    }
}

/// Runs `warrant validate`.
pub fn run(args: ValidateArgs) -> CliResult<ExitCode> {
    if args.all {
        if args.files.len() > 1 {
            return Err(CliError::input("--all takes at most one directory"));
        }
        let root = args.files.first().map_or(".", String::as_str);
        return run_all(Path::new(root), &args);
    }
    let mut ev = EvidenceSet::default();
    if let Some(p) = &args.previous {
        ev.previous = Some(previous_version(p, &args.files, args.kind)?);
    }
    ev.docs = evidence_set(&args.files, args.kind);
    let mut reports = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let text = read_text(file)?;
        let r = check(display_name(file), &text, args.kind, args.strict, &ev)?;
        if args.format == Format::Text {
            print_text(&r, "", display_name(file));
        }
        reports.push(r);
    }
    if args.format == Format::Json {
        if reports.len() == 1 {
            print_json(&reports[0])?;
        } else {
            print_json(&reports)?;
        }
    }
    Ok(if reports.iter().all(|r| r.valid) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn sorted_json(dir: &Path) -> CliResult<Vec<PathBuf>> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(out) };
    for e in entries {
        let p = e.map_err(|e| CliError::input(format!("{}: cannot list: {e}", dir.display())))?.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

fn run_all(root: &Path, args: &ValidateArgs) -> CliResult<ExitCode> {
    if !root.is_dir() {
        return Err(CliError::input(format!("{}: not a directory", root.display())));
    }
    let mut sections: Vec<(&str, Kind, Vec<PathBuf>)> = Vec::new();
    let mut graphs = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .map(|it| it.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    dirs.sort();
    for d in dirs {
        graphs.extend(sorted_json(&d)?.into_iter().filter(|p| !p.to_string_lossy().ends_with(".expectations.json")));
    }
    sections.push(("PredicateGraphs", Kind::Predicategraph, graphs));
    sections.push(("Policy Packs", Kind::PolicyPack, sorted_json(&root.join("packs"))?));
    sections.push(("Verifier Rubrics", Kind::VerifierRubric, sorted_json(&root.join("rubrics"))?));
    let (mut passed, mut failed) = (0, 0);
    let mut reports = Vec::new();
    for (title, kind, files) in sections {
        if args.format == Format::Text {
            println!("\n[{title}]");
        }
        for path in files {
            let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            let text = read_text(&path.to_string_lossy())?;
            let r = check(&rel, &text, Some(kind), args.strict, &EvidenceSet::default())?;
            if r.valid {
                passed += 1;
            } else {
                failed += 1;
            }
            if args.format == Format::Text {
                print_text(&r, "  ", &rel);
            }
            reports.push(r);
        }
    }
    match args.format {
        Format::Text => println!("\nSummary: {passed} passed, {failed} failed"),
        Format::Json => print_json(&reports)?,
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
