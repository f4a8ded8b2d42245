//! `warrant check`: one answer, or a JSONL batch checked in parallel.

use std::process::ExitCode;

use serde_json::{Value, json};
use warrant::check::{CheckRequest, ItemError, Session, SourceFiles};
use warrant::inputs::AnswerInput;
use warrant::{Env, Gate, Report};
use warrant_check::{html, text};

use crate::cli::{CheckArgs, CheckFormat, FailOn};
use crate::error::{CliError, CliResult};
use crate::io::{Limit, Lines, display_name, read_text_within, write_atomic};
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
    if args.batch.is_none() {
        // One answer: its patterns are compiled on first use, ~30 ms of a one-shot check. A
        // second core compiles the common ones meanwhile (the thread ends with the process).
        std::thread::spawn(warrant_check::warm_up);
    }
    let tools = match &args.tools {
        Some(t) => Some(warrant::inputs::tools_file(t)?.0),
        None => None,
    };
    let model = args.llm.stage(args.llm_verify, "--llm-verify")?;
    let packs = warrant::inputs::pack_specs(&args.packs)?;
    let vocab = warrant::inputs::vocabulary(args.vocab.as_deref())?;
    let context = args.input.context.as_deref().map(warrant::inputs::context_file).transpose()?;
    // `--store DIR`: claims are held against the chunks retrieved for them; `--sources`:
    // against the whole documents of an in-memory store built for this check. Without either,
    // the store `$WARRANT_STORE` or `./.warrant` names, when there is one, as every other
    // command does.
    let env = match (&args.store, args.sources.is_empty()) {
        (Some(dir), _) => Env::open_store(std::path::Path::new(dir), &format!("--store {dir}"))?,
        (None, false) => Env::new(),
        (None, true) => Env::discover()?,
    };
    let env = env.with_vocabulary(std::sync::Arc::new(vocab)).with_model(model);
    let req = CheckRequest {
        question: args.question.clone(),
        tools,
        context,
        strict: args.strict,
        min_support: args.min_support,
        explain: args.explain,
        input_format: args.input.input_format.into(),
        ..CheckRequest::default()
    };
    let files = SourceFiles { paths: std::mem::take(&mut args.sources), max_bytes: args.max_source_bytes };
    let mut session = Session::with_packs(&env, &req, Some(&files), Some(packs))?.max_answer_bytes(args.input.max_bytes);
    if let Some(dir) = &args.store {
        session = session.naming_store(warrant_store::redact(&format!("--store {dir}")));
    }
    if let Some(batch) = &args.batch {
        // A line holds an answer and, optionally, its own sources.
        let line_limit =
            Limit::new((args.input.max_bytes as u64).saturating_add(args.max_source_bytes), "--max-bytes and --max-source-bytes");
        let code = run_batch(batch, line_limit, &session, args.fail_on)?;
        args.llm.write_replay_case(session.model(), warrant_evidence::Scope::answer(display_name(batch)))?;
        return Ok(code);
    }
    let path = args.answer.as_deref().unwrap_or("-");
    let raw = read_text_within(path, Limit::new(args.input.max_bytes, "--max-bytes"))?;
    let report = session.check_answer(&AnswerInput::Text(raw), Some(display_name(path)), None)?;
    if let Some(out) = &args.evidence_pack {
        let created_at = match timestamp::requested("--created-at", args.created_at.as_deref())? {
            Some(t) => t,
            None => timestamp::requested("--created-at", Some("now"))?.unwrap_or_default(),
        };
        let calls = crate::args::model_calls(session.model());
        let cache = args.llm.config()?.cache.map(|c| c.display().to_string());
        let pack = warrant_check::evidence_pack_with_model_calls(&report, &created_at, &calls, cache.as_deref())
            .map_err(|e| CliError::input(format!("--evidence-pack {out}: {e}")))?;
        let text = serde_json::to_string_pretty(&pack).map_err(|e| CliError::input(format!("cannot serialise: {e}")))? + "\n";
        write_atomic(out, text.as_bytes())?;
    }
    args.llm.write_replay_case(session.model(), warrant_evidence::Scope::answer(report.output_id.clone()))?;
    warn_degraded(&report, display_name(path));
    let written = match args.format {
        CheckFormat::Json => serde_json::to_string_pretty(&report)
            .map(|s| s + "\n")
            .map_err(|e| CliError::input(format!("cannot serialise: {e}")))?,
        CheckFormat::Text => text::render(&report),
        CheckFormat::Html => html::render(&report),
    };
    let mut out = Out::new();
    out.print(&written)?;
    out.finish()?;
    Ok(if fails(report.gate, args.fail_on) { ExitCode::from(1) } else { ExitCode::SUCCESS })
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

/// One batch line's output line: its report, or `{"id", "line", "error"}`.
fn render_line(line_no: usize, checked: Result<Report, ItemError>) -> Outcome {
    match checked {
        Ok(report) => {
            warn_degraded(&report, &report.output_id);
            match serde_json::to_string(&report) {
                Ok(line) => Outcome::Report(line, report.gate),
                Err(e) => error_line(Value::String(report.output_id.clone()), line_no, format!("cannot serialise: {e}")),
            }
        }
        Err(e) => error_line(e.id, line_no, e.message),
    }
}

/// A second opinion asked for but not given (`--llm-verify` with a failing model) is said on
/// stderr as well as in the report: the rules' result stood for these claims.
fn warn_degraded(report: &Report, name: &str) {
    for c in &report.claims {
        if let Some(why) = c.second_opinion.as_ref().and_then(|op| op.degraded.as_deref()) {
            eprintln!("warning: {name}: {}: --llm-verify degraded, the rules' result stands: {why}", c.claim_id);
        }
    }
}

/// True when the gate is at or past the `--fail-on` level.
fn fails(gate: Gate, fail_on: FailOn) -> bool {
    match fail_on {
        FailOn::Block => gate == Gate::Block,
        FailOn::Review => gate >= Gate::Review,
    }
}

/// Checks a JSON Lines batch, read and checked block by block (memory holds one block of
/// lines, whatever the size of the file), writing one line per input line in order.
fn run_batch(path: &str, limit: Limit, session: &Session, fail_on: FailOn) -> CliResult<ExitCode> {
    let mut lines = Lines::open(path, limit)?;
    let mut out = Out::new();
    let (mut blocked, mut errors) = (false, false);
    let next = || -> CliResult<_> {
        loop {
            match lines.next_line()? {
                Some((_, Ok(l))) if l.trim().is_empty() => {}
                other => return Ok(other),
            }
        }
    };
    session.stream(next, render_line, |outcome| {
        let line = match outcome {
            Outcome::Report(s, gate) => {
                blocked |= fails(gate, fail_on);
                s
            }
            Outcome::Error(s) => {
                errors = true;
                s
            }
        };
        outln!(out, "{line}")
    })?;
    out.finish()?;
    // The worst outcome decides: an error line 2, an answer at the --fail-on gate 1.
    Ok(ExitCode::from(if errors { 2 } else { u8::from(blocked) }))
}
