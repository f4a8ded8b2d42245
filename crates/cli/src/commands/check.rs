//! `warrant check`: one answer, or a JSONL batch checked in parallel.

use std::process::ExitCode;

use serde_json::{Value, json};
use warrant_check::batch::{guarded, parse_item};
use warrant_check::{CheckError, Checker, Gate, Report, Request, render};
use warrant_cpl::Engine;
use warrant_facts::Vocabulary;
use warrant_store::{SqliteStore, Store};
use warrant_verify::Corpus;

use crate::cli::{CheckArgs, CheckFormat, FailOn};
use crate::commands::extract::answer_from_text;
use crate::commands::ingest::load_vocabulary;
use crate::commands::policy::{load_packs, load_tools};
use crate::error::{CliError, CliResult};
use crate::io::{Limit, Lines, display_name, read_json, read_text_within, write_atomic};
use crate::out::{Out, outln};
use crate::timestamp;

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
    let tools_doc = match &args.tools {
        Some(t) => Some(read_json(t)?),
        None => None,
    };
    let second_opinion = args.llm.stage(args.llm_verify, "--llm-verify")?;
    let checker = Checker {
        engine: Engine { strict: args.strict, tools: load_tools(args.tools.as_deref())?, ..Engine::default() },
        packs: if args.packs.is_empty() { None } else { Some(load_packs(&args.packs)?) },
        second_opinion,
        explain: args.explain,
        min_support: args.min_support,
    };
    let vocab = load_vocabulary(args.vocab.as_deref())?;
    // `--store`: claims are held against the chunks retrieved for them; `--sources`: against
    // the whole documents of an in-memory store built for this check. Both add fact signals.
    let (store, corpus) = if let Some(dir) = &args.store {
        let s = SqliteStore::open_existing(dir).map_err(|e| CliError::input(format!("--store {dir}: {e}")))?;
        (Some(s), None)
    } else if args.sources.is_empty() {
        (None, Some(Corpus::new(Vec::new())))
    } else {
        let s = warrant_check::sources::ingest_sources(&args.sources, args.max_source_bytes)
            .map_err(|e| CliError::input(e.to_string()))?;
        let corpus = warrant_check::store::corpus_of_documents(&s).map_err(|e| CliError::input(format!("sources: {e}")))?;
        (Some(s), Some(corpus))
    };
    let against = Against { corpus: corpus.as_ref(), store: store.as_ref().map(|s| (s as &dyn Store, &vocab)) };
    if let Some(batch) = &args.batch {
        // A line holds an answer and, optionally, its own sources.
        let line_limit =
            Limit::new((args.input.max_bytes as u64).saturating_add(args.max_source_bytes), "--max-bytes and --max-source-bytes");
        let code = run_batch(batch, line_limit, &checker, &against, tools_doc.as_ref(), args.fail_on)?;
        args.llm.write_replay_case(checker.second_opinion.as_ref(), warrant_evidence::Scope::answer(display_name(batch)))?;
        return Ok(code);
    }
    let path = args.answer.as_deref().unwrap_or("-");
    let raw = read_text_within(path, crate::commands::extract::max_bytes(&args.input))?;
    let answer = answer_from_text(path, &raw, &args.input, tools_doc.as_ref())?;
    let req = Request { answer: &answer, question: args.question.as_deref(), output_id: None };
    // A panic (a bug) or a bad answer names the answer; a store that cannot be read, the store.
    let checked =
        guarded(|| Ok(against.check(&checker, &req))).map_err(|e| CliError::input(format!("{}: {e}", display_name(path))))?;
    let report = checked.map_err(|e| match (e, &args.store) {
        (CheckError::Store(e), Some(dir)) => CliError::input(format!("--store {dir}: {e}")),
        (CheckError::Store(e), None) => CliError::input(format!("sources: {e}")),
        (e, _) => CliError::input(format!("{}: {e}", display_name(path))),
    })?;
    if let Some(out) = &args.evidence_pack {
        let created_at = match timestamp::requested("--created-at", args.created_at.as_deref())? {
            Some(t) => t,
            None => timestamp::requested("--created-at", Some("now"))?.unwrap_or_default(),
        };
        let calls = crate::commands::llm::model_calls(checker.second_opinion.as_ref());
        let cache = args.llm.config()?.cache.map(|c| c.display().to_string());
        let pack = warrant_check::evidence::evidence_pack_with_model_calls(&report, &created_at, &calls, cache.as_deref())
            .map_err(|e| CliError::input(format!("--evidence-pack {out}: {e}")))?;
        let text = serde_json::to_string_pretty(&pack).map_err(|e| CliError::input(format!("cannot serialise: {e}")))? + "\n";
        write_atomic(out, text.as_bytes())?;
    }
    args.llm.write_replay_case(checker.second_opinion.as_ref(), warrant_evidence::Scope::answer(report.output_id.clone()))?;
    let written = match args.format {
        CheckFormat::Json => serde_json::to_string_pretty(&report)
            .map(|s| s + "\n")
            .map_err(|e| CliError::input(format!("cannot serialise: {e}")))?,
        CheckFormat::Text => render::text::render(&report),
        CheckFormat::Html => render::html::render(&report),
    };
    let mut out = Out::new();
    out.print(&written)?;
    out.finish()?;
    Ok(if fails(report.gate, args.fail_on) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What answers are checked against: a corpus, a store, or both (a store's whole documents).
struct Against<'a> {
    corpus: Option<&'a Corpus>,
    store: Option<(&'a dyn Store, &'a Vocabulary)>,
}

impl Against<'_> {
    fn check(&self, checker: &Checker, req: &Request<'_>) -> Result<Report, CheckError> {
        match (self.store, self.corpus) {
            (Some((store, vocab)), corpus) => checker.check_with_store(req, store, vocab, corpus),
            (None, Some(corpus)) => checker.check(req, corpus),
            (None, None) => checker.check(req, &Corpus::new(Vec::new())),
        }
    }
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
fn check_line(checker: &Checker, against: &Against<'_>, line_no: usize, line: &str, tools: Option<&Value>) -> Outcome {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error_line(Value::Null, line_no, format!("invalid JSON: {e}")),
    };
    let id_guess = v.get("id").cloned().unwrap_or(Value::Null);
    let item = match parse_item(&v, tools) {
        Ok(i) => i,
        Err(e) => return error_line(id_guess, line_no, e),
    };
    let req = Request { answer: &item.answer, question: item.question.as_deref(), output_id: Some(item.id.clone()) };
    // A line's own sources replace the shared ones. A panic (a bug) is this line's error.
    let checked = guarded(|| {
        let report = match &item.sources {
            Some(s) => checker.check(&req, &Corpus::new(s.clone())),
            None => against.check(checker, &req),
        }
        .map_err(|e| e.to_string())?;
        let line = serde_json::to_string(&report).map_err(|e| format!("cannot serialise: {e}"))?;
        Ok((line, report.gate))
    });
    match checked {
        Ok((line, gate)) => Outcome::Report(line, gate),
        Err(e) => error_line(Value::String(item.id.clone()), line_no, e),
    }
}

/// Lines per parallel block: output stays in input order and memory stays bounded.
const BLOCK: usize = 512;

/// True when the gate is at or past the `--fail-on` level.
fn fails(gate: Gate, fail_on: FailOn) -> bool {
    match fail_on {
        FailOn::Block => gate == Gate::Block,
        FailOn::Review => gate >= Gate::Review,
    }
}

/// The next block of at most [`BLOCK`] non-blank lines (empty at the end of the input).
fn next_block(lines: &mut Lines) -> CliResult<Vec<(usize, Result<String, String>)>> {
    let mut block = Vec::new();
    while block.len() < BLOCK {
        match lines.next_line()? {
            None => break,
            Some((_, Ok(l))) if l.trim().is_empty() => {}
            Some(line) => block.push(line),
        }
    }
    Ok(block)
}

fn run_batch(
    path: &str,
    limit: Limit,
    checker: &Checker,
    against: &Against<'_>,
    tools: Option<&Value>,
    fail_on: FailOn,
) -> CliResult<ExitCode> {
    // Read block by block: memory holds one block of lines, whatever the size of the file.
    let mut lines = Lines::open(path, limit)?;
    let workers = std::thread::available_parallelism().map_or(1, usize::from).max(1);
    let mut out = Out::new();
    let (mut blocked, mut errors) = (false, false);
    loop {
        let block = next_block(&mut lines)?;
        if block.is_empty() {
            break;
        }
        let mut results: Vec<Outcome> = (0..block.len()).map(|_| Outcome::Error(String::new())).collect();
        std::thread::scope(|s| {
            let per = block.len().div_ceil(workers);
            for (part, slots) in block.chunks(per.max(1)).zip(results.chunks_mut(per.max(1))) {
                s.spawn(move || {
                    for ((line_no, line), slot) in part.iter().zip(slots.iter_mut()) {
                        *slot = match line {
                            Ok(line) => check_line(checker, against, *line_no, line, tools),
                            Err(why) => error_line(Value::Null, *line_no, why.clone()),
                        };
                    }
                });
            }
        });
        for r in results {
            let line = match r {
                Outcome::Report(s, gate) => {
                    blocked |= fails(gate, fail_on);
                    s
                }
                Outcome::Error(s) => {
                    errors = true;
                    s
                }
            };
            outln!(out, "{line}")?;
        }
    }
    out.finish()?;
    // The worst outcome decides: an error line 2, an answer at the --fail-on gate 1.
    Ok(ExitCode::from(if errors { 2 } else { u8::from(blocked) }))
}
