//! Validation of every artefact kind Warrant knows, as `warrant validate` and
//! `POST /v1/validate` report it: the kind (given, or detected from the content), schema and
//! semantic errors located by JSON pointer, warnings, and for Agent Evidence documents the
//! cross-references to the other documents of the same evidence and the append-only review
//! history against a previous version.
//!
//! ```
//! use warrant_validate::{EvidenceSet, Kind, validate_value};
//!
//! let doc = serde_json::json!({"policy_id": "p", "rules": []});
//! let report = validate_value("p.json", &doc, None, false, &EvidenceSet::default())?;
//! assert_eq!(report.kind, Some("cpl_policy"));
//! # Ok::<(), warrant_validate::ValidateError>(())
//! ```
#![warn(missing_docs)]

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warrant_cpl::{TIERED_DIALECT_MESSAGE, is_tiered_dialect, load_pack, load_policy};
use warrant_evidence::{Context, DocKind, Document, Issue};
use warrant_graph::pointer_to_arrow_path;
use warrant_graph::{Diagnostic, check_graph};

/// Why a validation could not be carried out (as opposed to a document found invalid, which
/// is a [`FileReport`] with `valid: false`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    /// The previous version given for the review history is unusable.
    #[error("{0}")]
    Previous(String),
}

/// Artefact kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum), value(rename_all = "snake_case"))]
pub enum Kind {
    /// A PredicateGraph 1.x document.
    Predicategraph,
    /// A standalone CPL policy.
    CplPolicy,
    /// A policy pack.
    PolicyPack,
    /// A verifier rubric.
    VerifierRubric,
    /// A CKF knowledge package (`.ckf.json`, `.ckf.yaml`, `.ckf.md`); CKF benchmark
    /// projections are recognised and their projection shape checked.
    CkfPackage,
    /// An Agent Evidence pack.
    EvidencePack,
    /// An Agent Evidence claim map.
    ClaimMap,
    /// An Agent Evidence source map.
    SourceMap,
    /// An Agent Evidence provenance chain.
    Provenance,
    /// An Agent Evidence verification and review document.
    Verification,
    /// An Agent Evidence replay case.
    Replay,
    /// An Agent Evidence export manifest.
    ExportManifest,
    /// An Agent Evidence event.
    Event,
}

impl Kind {
    /// Every kind, in the order above.
    pub const ALL: [Kind; 13] = [
        Self::Predicategraph,
        Self::CplPolicy,
        Self::PolicyPack,
        Self::VerifierRubric,
        Self::CkfPackage,
        Self::EvidencePack,
        Self::ClaimMap,
        Self::SourceMap,
        Self::Provenance,
        Self::Verification,
        Self::Replay,
        Self::ExportManifest,
        Self::Event,
    ];

    /// The kind's name as written on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Predicategraph => "predicategraph",
            Self::CplPolicy => "cpl_policy",
            Self::PolicyPack => "policy_pack",
            Self::VerifierRubric => "verifier_rubric",
            Self::CkfPackage => "ckf_package",
            other => other.evidence().map_or("", DocKind::name),
        }
    }

    /// The Agent Evidence document kind, for the eight evidence kinds.
    pub fn evidence(self) -> Option<DocKind> {
        Some(match self {
            Self::EvidencePack => DocKind::EvidencePack,
            Self::ClaimMap => DocKind::ClaimMap,
            Self::SourceMap => DocKind::SourceMap,
            Self::Provenance => DocKind::Provenance,
            Self::Verification => DocKind::Verification,
            Self::Replay => DocKind::Replay,
            Self::ExportManifest => DocKind::ExportManifest,
            Self::Event => DocKind::Event,
            Self::Predicategraph | Self::CplPolicy | Self::PolicyPack | Self::VerifierRubric | Self::CkfPackage => return None,
        })
    }

    /// The kind of an Agent Evidence document kind.
    pub fn from_evidence(kind: DocKind) -> Self {
        match kind {
            DocKind::EvidencePack => Self::EvidencePack,
            DocKind::ClaimMap => Self::ClaimMap,
            DocKind::SourceMap => Self::SourceMap,
            DocKind::Provenance => Self::Provenance,
            DocKind::Verification => Self::Verification,
            DocKind::Replay => Self::Replay,
            DocKind::ExportManifest => Self::ExportManifest,
            DocKind::Event => Self::Event,
        }
    }
}

/// A located finding, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Finding {
    /// JSON pointer into the document (empty for the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The finding code, for Agent Evidence documents (`AEV-…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
}

impl Finding {
    /// The message as printed: prefixed with its code when it has one.
    pub fn text(&self) -> String {
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

/// The report for one document. Field order is the JSON report's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FileReport {
    /// The document's name (a file as given, or a caller's label).
    pub file: String,
    /// Its kind, when given or detected.
    pub kind: Option<&'static str>,
    /// No errors (and, under `strict`, no warnings).
    pub valid: bool,
    /// Errors.
    pub errors: Vec<Finding>,
    /// Warnings.
    pub warnings: Vec<Finding>,
    /// What the document turned out to be, when that is not the kind itself (a CKF benchmark
    /// projection checked as one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the first error reads in the upstream validator's style (text output only).
    #[serde(skip)]
    pub headline: Option<String>,
}

impl FileReport {
    /// The one-line summary: the first error in the upstream validator's style, or `Valid`.
    pub fn headline(&self) -> String {
        if let Some(h) = &self.headline {
            return h.clone();
        }
        match self.errors.first() {
            Some(e) => format!("Validation error at {}: {}", pointer_to_arrow_path(&e.path), e.text()),
            None if !self.valid => "warnings are failures under --strict".to_string(),
            None => "Valid".to_string(),
        }
    }
}

/// What Agent Evidence documents resolve against: the other evidence documents validated
/// together (those that pass their schema), and the previous version of the one being
/// validated (reviews are append-only).
#[derive(Debug, Default)]
pub struct EvidenceSet {
    /// Named documents.
    pub docs: Vec<(String, Document)>,
    /// The previous version.
    pub previous: Option<Document>,
}

impl EvidenceSet {
    /// Adds `value` under `name` when it is an Agent Evidence document (of `kind`, or of the
    /// detected kind) that passes its schema; anything else is left out (and reported when its
    /// own turn comes).
    pub fn add(&mut self, name: &str, value: &Value, kind: Option<Kind>) {
        let Some(k) = kind.or_else(|| detect(value)).and_then(Kind::evidence) else { return };
        if let Some(doc) = warrant_evidence::validate(k, value).document {
            self.docs.push((name.to_string(), doc));
        }
    }
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

/// The kind of a document, from its content; `None` when it cannot be told.
pub fn detect(v: &Value) -> Option<Kind> {
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
    } else if warrant_ckf::looks_like_package(v) {
        Some(Kind::CkfPackage)
    } else {
        None
    }
}

fn finding(path: &str, message: impl Into<String>) -> Finding {
    Finding { path: path.to_string(), message: message.into(), code: None }
}

/// True when `name` (a document's name) is what `reference` points at: the same path, or a
/// path ending in it.
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

/// Both validator passes, plus the review history against the previous version.
fn check_evidence(
    report: &mut FileReport,
    kind: DocKind,
    value: &Value,
    file: &str,
    ev: &EvidenceSet,
) -> Result<(), ValidateError> {
    let r = warrant_evidence::validate_with(kind, value, &context(kind, value, file, ev));
    let mut issues: Vec<Issue> = r.issues().cloned().collect();
    if let (Some(previous), Some(doc)) = (&ev.previous, &r.document) {
        let history = warrant_evidence::check_review_history(previous, doc)
            .map_err(|e| ValidateError::Previous(format!("--previous: {e}")))?;
        issues.extend(history);
    }
    report.errors = issues.iter().filter(|i| i.is_error()).map(Finding::from).collect();
    report.warnings = issues.iter().filter(|i| !i.is_error()).map(Finding::from).collect();
    Ok(())
}

/// The previous version of an evidence pack or verification document (`name` labels it in
/// messages): valid by the schema, of `kind` or the detected kind.
pub fn previous_version(name: &str, value: &Value, kind: Option<Kind>) -> Result<Document, ValidateError> {
    let kind = kind
        .or_else(|| detect(value))
        .and_then(Kind::evidence)
        .filter(|k| matches!(k, DocKind::EvidencePack | DocKind::Verification));
    let Some(kind) = kind else {
        return Err(ValidateError::Previous(format!("{name}: --previous needs an evidence pack or a verification document")));
    };
    let r = warrant_evidence::validate(kind, value);
    match (r.document, r.schema.first()) {
        (Some(doc), None) => Ok(doc),
        (_, first) => Err(ValidateError::Previous(format!(
            "{name}: the previous version is not a valid {kind}{}",
            first
                .map(|i| format!(": {} at {}", i.message, if i.path.is_empty() { "/" } else { i.path.as_str() }))
                .unwrap_or_default()
        ))),
    }
}

/// Validates a document given as text (invalid JSON is a failed report, not an error).
pub fn validate_text(
    file: &str,
    text: &str,
    kind: Option<Kind>,
    strict: bool,
    ev: &EvidenceSet,
) -> Result<FileReport, ValidateError> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => validate_value(file, &value, kind, strict, ev),
        Err(e) if ckf_text(file, text, kind) => match warrant_ckf::parse_any(text) {
            Ok(value) => validate_value(file, &value, kind, strict, ev),
            Err(e2) => Ok(FileReport {
                file: file.to_string(),
                kind: Some(Kind::CkfPackage.name()),
                valid: false,
                errors: vec![finding("", format!("not readable as a JSON, YAML or Markdown package: {e2} (as JSON: {e})"))],
                warnings: vec![],
                note: None,
                headline: Some(format!("Invalid package document: {e2}")),
            }),
        },
        Err(e) => Ok(FileReport {
            file: file.to_string(),
            kind: kind.map(Kind::name),
            valid: false,
            errors: vec![finding("", format!("invalid JSON: {e}"))],
            warnings: vec![],
            note: None,
            headline: Some(format!("Invalid JSON: {e}")),
        }),
    }
}

/// True when a non-JSON text should be read as a YAML or Markdown package.
fn ckf_text(file: &str, text: &str, kind: Option<Kind>) -> bool {
    let lower = file.to_ascii_lowercase();
    kind == Some(Kind::CkfPackage)
        || lower.ends_with(".ckf.yaml")
        || lower.ends_with(".ckf.yml")
        || lower.ends_with(".ckf.md")
        || text.trim_start().starts_with(warrant_ckf::MD_HEADER)
}

/// Validates one parsed document of a known or detected kind.
pub fn validate_value(
    file: &str,
    value: &Value,
    kind: Option<Kind>,
    strict: bool,
    ev: &EvidenceSet,
) -> Result<FileReport, ValidateError> {
    let mut report = FileReport {
        file: file.to_string(),
        kind: kind.map(Kind::name),
        valid: false,
        errors: vec![],
        warnings: vec![],
        note: None,
        headline: None,
    };
    let Some(kind) = kind.or_else(|| detect(value)) else {
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
            let r = check_graph(value.clone());
            report.errors = r.errors.iter().map(Finding::from).collect();
            report.warnings = r.warnings.iter().map(Finding::from).collect();
        }
        Kind::CplPolicy => {
            if is_tiered_dialect(value) {
                report.headline = Some(TIERED_DIALECT_MESSAGE.to_string());
                report.errors.push(finding("", TIERED_DIALECT_MESSAGE));
            } else {
                match load_policy(value) {
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
        Kind::PolicyPack => match load_pack(value) {
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
                if is_tiered_dialect(value) {
                    report.warnings.push(finding("", TIERED_DIALECT_MESSAGE));
                }
                report.errors.push(finding(&e.pointer, e.message));
            }
        },
        Kind::VerifierRubric => {
            if let Err(e) = warrant_cpl::load_rubric(value) {
                report.errors.push(finding(&e.pointer, e.message));
            }
        }
        Kind::CkfPackage => {
            // Read mode: write-mode rules are warnings, so `strict` is write mode (§9).
            let r = warrant_ckf::check(value, warrant_ckf::Mode::Read);
            report.errors = r.errors.into_iter().map(|f| finding(&f.path, f.message)).collect();
            report.warnings = r.warnings.into_iter().map(|f| finding(&f.path, f.message)).collect();
            if r.shape == warrant_ckf::Shape::BenchmarkProjection {
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
                check_evidence(&mut report, k, value, file, ev)?;
            }
        }
    }
    report.valid = report.errors.is_empty() && (!strict || report.warnings.is_empty());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_each_artefact_family() {
        assert_eq!(detect(&json!({"schema_version": "1.0.0"})), Some(Kind::Predicategraph));
        assert_eq!(detect(&json!({"pack_id": "p"})), Some(Kind::PolicyPack));
        assert_eq!(detect(&json!({"policy_id": "p"})), Some(Kind::CplPolicy));
        assert_eq!(detect(&json!({"verifier_id": "v"})), Some(Kind::VerifierRubric));
        assert_eq!(detect(&json!({"nothing": 1})), None);
        assert_eq!(detect(&json!([1])), None);
    }

    #[test]
    fn unknown_kind_and_bad_json_are_failed_reports() {
        let ev = EvidenceSet::default();
        let r = validate_value("x", &json!({"a": 1}), None, false, &ev).expect("report");
        assert!(!r.valid);
        assert!(r.errors[0].message.contains("pass --kind"));
        let r = validate_text("x", "{", None, false, &ev).expect("report");
        assert!(!r.valid);
        assert!(r.headline().starts_with("Invalid JSON"));
    }

    #[test]
    fn kind_names_round_trip_through_serde() {
        for k in Kind::ALL {
            let v = serde_json::to_value(k).expect("serialise");
            assert_eq!(v, json!(k.name()));
            assert_eq!(serde_json::from_value::<Kind>(v).expect("parse"), k);
        }
    }
}
