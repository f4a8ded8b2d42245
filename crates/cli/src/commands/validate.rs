//! `warrant validate`: schema and semantic checks of artefacts (the checks themselves are
//! `warrant-validate`'s; this reads files and prints reports).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use warrant_graph::pointer_to_arrow_path;
use warrant_validate::{EvidenceSet, FileReport, Kind, previous_version, validate_text};

use crate::cli::{Format, ValidateArgs};
use crate::error::{CliError, CliResult};
use crate::io::{display_name, read_text};
use crate::out::{Out, outln};

/// Reads the evidence documents among `files` that pass their schema, for cross-references.
/// Unreadable files are skipped here (and reported when their turn comes); stdin is not read.
fn evidence_set(files: &[String], kind: Option<Kind>) -> EvidenceSet {
    let mut set = EvidenceSet::default();
    for file in files.iter().filter(|f| *f != "-") {
        let Ok(text) = read_text(file) else { continue };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        set.add(file, &value, kind);
    }
    set
}

/// Validates one document of a known or detected kind.
fn check(file: &str, text: &str, kind: Option<Kind>, strict: bool, ev: &EvidenceSet) -> CliResult<FileReport> {
    validate_text(file, text, kind, strict, ev).map_err(|e| CliError::input(e.to_string()))
}

fn print_text(out: &mut Out, r: &FileReport, indent: &str, name: &str) -> CliResult<()> {
    let mark = if r.valid { "✓" } else { "✗" };
    if indent.is_empty() {
        outln!(out, "{mark} {name}: {}", r.headline())?;
    } else {
        outln!(out, "{indent}{mark} {name}")?;
        if !r.valid {
            outln!(out, "{indent}  {}", r.headline())?;
        }
    }
    for e in r.errors.iter().skip(1) {
        outln!(out, "{indent}  ✗ {}: {}", pointer_to_arrow_path(&e.path), e.text())?;
    }
    for w in &r.warnings {
        outln!(out, "{indent}  ⚠ {}: {}", pointer_to_arrow_path(&w.path), w.text())?;
    }
    Ok(())
}

/// Runs `warrant validate`.
pub fn run(args: ValidateArgs) -> CliResult<ExitCode> {
    let kind = args.kind;
    if args.all {
        if args.files.len() > 1 {
            return Err(CliError::input("--all takes at most one directory"));
        }
        let root = args.files.first().map_or(".", String::as_str);
        return run_all(Path::new(root), &args);
    }
    let mut ev = evidence_set(&args.files, kind);
    if let Some(p) = &args.previous {
        if args.files.len() != 1 {
            return Err(CliError::input("--previous takes exactly one FILE"));
        }
        let value = crate::io::read_json(p)?;
        ev.previous = Some(previous_version(display_name(p), &value, kind).map_err(|e| CliError::input(e.to_string()))?);
    }
    let mut out = Out::new();
    let mut reports = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let text = read_text(file)?;
        let r = check(display_name(file), &text, kind, args.strict, &ev)?;
        if args.format == Format::Text {
            print_text(&mut out, &r, "", display_name(file))?;
        }
        reports.push(r);
    }
    if args.format == Format::Json {
        if reports.len() == 1 {
            out.json(&reports[0])?;
        } else {
            out.json(&reports)?;
        }
    }
    out.finish()?;
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
    let mut out = Out::new();
    let mut reports = Vec::new();
    for (title, kind, files) in sections {
        if args.format == Format::Text {
            outln!(out, "\n[{title}]")?;
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
                print_text(&mut out, &r, "  ", &rel)?;
            }
            reports.push(r);
        }
    }
    match args.format {
        Format::Text => outln!(out, "\nSummary: {passed} passed, {failed} failed")?,
        Format::Json => out.json(&reports)?,
    }
    out.finish()?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
