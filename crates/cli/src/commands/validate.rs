//! `warrant validate`: schema and semantic checks of artefacts (the checks themselves are
//! `warrant-validate`'s; this reads files and prints reports).

use std::path::Path;
use std::process::ExitCode;

use warrant::validate::{Validator, data_root, validate_as};
use warrant_graph::pointer_to_arrow_path;
use warrant_validate::FileReport;

use crate::cli::{Format, ValidateArgs};
use crate::error::{CliError, CliResult};
use crate::io::display_name;
use crate::out::{Out, outln};

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
    if args.all {
        if args.files.len() > 1 {
            return Err(CliError::input("--all takes at most one directory"));
        }
        let root = args.files.first().map_or(".", String::as_str);
        return run_all(Path::new(root), &args);
    }
    if args.previous.is_some() && args.files.len() != 1 {
        return Err(CliError::input("--previous takes exactly one FILE"));
    }
    let validator = Validator::for_files(&args.files, args.kind, args.strict, args.previous.as_deref())?;
    let mut out = Out::new();
    let mut reports = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let r = validator.validate_file(file)?;
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

fn run_all(root: &Path, args: &ValidateArgs) -> CliResult<ExitCode> {
    let sections = data_root(root)?;
    let (mut passed, mut failed) = (0, 0);
    let mut out = Out::new();
    let mut reports = Vec::new();
    for section in sections {
        if args.format == Format::Text {
            outln!(out, "\n[{}]", section.title)?;
        }
        for (name, path) in &section.files {
            let r = validate_as(path, name, section.kind, args.strict)?;
            if r.valid {
                passed += 1;
            } else {
                failed += 1;
            }
            if args.format == Format::Text {
                print_text(&mut out, &r, "  ", name)?;
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
