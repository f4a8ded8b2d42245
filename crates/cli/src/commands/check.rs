//! `warrant check`: one answer, or a JSONL batch checked in parallel.

use std::io::Write;
use std::process::ExitCode;

use serde_json::{Value, json};
use warrant_check::batch::{par_map, parse_item};
use warrant_check::{Checker, Gate, Request, render};
use warrant_cpl::Engine;
use warrant_verify::Corpus;

use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::extract::answer_from_text;
use crate::commands::policy::{load_packs, load_tools};
use crate::error::{CliError, CliResult};
use crate::io::{display_name, read_json, read_text};

/// Runs `warrant check`. Exit codes: 0 allow or review, 1 block, 2 bad input; a batch exits
/// with the worst line (2 if any line was an error).
pub fn run(mut args: CheckArgs) -> CliResult<ExitCode> {
    if args.answer.is_none() && args.batch.is_none() {
        // `--sources a b answer.md`: the variadic flag took the answer too.
        if args.sources.len() >= 2 {
            args.answer = args.sources.pop();
        } else {
            return Err(CliError::input("expected ANSWER (a file, or - for stdin) or --batch FILE"));
        }
    }
    if args.store.is_some() {
        return Err(CliError::input("--store: not available in this build yet; use --sources"));
    }
    let tools_doc = match &args.tools {
        Some(t) => Some(read_json(t)?),
        None => None,
    };
    let checker = Checker {
        engine: Engine { strict: args.strict, tools: load_tools(args.tools.as_deref())?, ..Engine::default() },
        packs: if args.packs.is_empty() { None } else { Some(load_packs(&args.packs)?) },
    };
    let sources =
        warrant_check::sources::read_sources(&args.sources, args.max_source_bytes).map_err(|e| CliError::input(e.to_string()))?;
    let corpus = Corpus::new(sources);
    if let Some(batch) = &args.batch {
        return run_batch(batch, &checker, &corpus, tools_doc.as_ref());
    }
    let path = args.answer.as_deref().unwrap_or("-");
    let raw = read_text(path)?;
    let answer = answer_from_text(path, &raw, &args.input, tools_doc.as_ref())?;
    let report = checker
        .check(&Request { answer: &answer, question: args.question.as_deref(), output_id: None }, &corpus)
        .map_err(|e| CliError::input(format!("{}: {e}", display_name(path))))?;
    if let Some(out) = &args.evidence_pack {
        return Err(CliError::input(format!("--evidence-pack {out}: not available in this build yet")));
    }
    let mut stdout = std::io::stdout().lock();
    let written = match args.format {
        CheckFormat::Json => serde_json::to_string_pretty(&report)
            .map(|s| s + "\n")
            .map_err(|e| CliError::input(format!("cannot serialise: {e}")))?,
        CheckFormat::Text => render::text::render(&report),
        CheckFormat::Html => render::html::render(&report),
    };
    stdout.write_all(written.as_bytes()).map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    Ok(if report.gate == Gate::Block { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What one batch line came to.
enum Outcome {
    /// A report, with its gate.
    Report(String, Gate),
    /// An error line.
    Error(String),
}

fn error_line(id: Value, line_no: usize, message: String) -> Outcome {
    Outcome::Error(json!({"id": id, "line": line_no, "error": message}).to_string())
}

/// Checks one batch line into its output line (a report, or `{"id", "line", "error"}`).
fn check_line(checker: &Checker, corpus: &Corpus, line_no: usize, line: &str, tools: Option<&Value>) -> Outcome {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error_line(Value::Null, line_no, format!("invalid JSON: {e}")),
    };
    let id_guess = v.get("id").cloned().unwrap_or(Value::Null);
    let item = match parse_item(&v, tools) {
        Ok(i) => i,
        Err(e) => return error_line(id_guess, line_no, e),
    };
    match checker.check_item(&item, corpus) {
        Ok(report) => match serde_json::to_string(&report) {
            Ok(s) => Outcome::Report(s, report.gate),
            Err(e) => error_line(Value::String(item.id), line_no, format!("cannot serialise: {e}")),
        },
        Err(e) => error_line(Value::String(item.id), line_no, e.to_string()),
    }
}

/// Lines per parallel block: output stays in input order and memory stays bounded.
const BLOCK: usize = 512;

fn run_batch(path: &str, checker: &Checker, corpus: &Corpus, tools: Option<&Value>) -> CliResult<ExitCode> {
    let text = read_text(path)?;
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    let workers = std::thread::available_parallelism().map_or(1, usize::from).max(1);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut blocked, mut errors) = (false, false);
    for block in lines.chunks(BLOCK) {
        let results = par_map(block, workers, |(line_no, line)| check_line(checker, corpus, *line_no, line, tools));
        for r in results {
            let line = match r {
                Outcome::Report(s, gate) => {
                    blocked |= gate == Gate::Block;
                    s
                }
                Outcome::Error(s) => {
                    errors = true;
                    s
                }
            };
            writeln!(out, "{line}").map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
        }
    }
    out.flush().map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
    // The worst outcome decides: an error line 2, a blocked answer 1.
    Ok(ExitCode::from(if errors { 2 } else { u8::from(blocked) }))
}
