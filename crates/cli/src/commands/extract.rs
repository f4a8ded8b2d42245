//! `warrant extract`: model output → PredicateGraph.

use std::process::ExitCode;

use serde_json::Value;
use warrant_extract::{Answer, Extraction, Options, add_tools, answer_from_value, extract, merge_context, parse_input};

use crate::cli::{AnswerArgs, ExtractArgs, InputFormat};
use crate::error::{CliError, CliResult};
use crate::io::{Limit, Lines, display_name, read_json, read_text_within};
use crate::out::{Out, outln};

fn format(f: InputFormat) -> warrant_extract::InputFormat {
    match f {
        InputFormat::Auto => warrant_extract::InputFormat::Auto,
        InputFormat::Text => warrant_extract::InputFormat::Text,
        InputFormat::Json => warrant_extract::InputFormat::Json,
    }
}

/// Reads an answer from a file or stdin and applies `--context` and `--tools`.
pub(crate) fn read_answer(path: &str, args: &AnswerArgs, tools: Option<&Value>) -> CliResult<Answer> {
    let raw = read_text_within(path, max_bytes(args))?;
    answer_from_text(path, &raw, args, tools)
}

/// The ceiling `--max-bytes` sets on an answer.
pub(crate) fn max_bytes(args: &AnswerArgs) -> Limit {
    Limit::new(args.max_bytes, "--max-bytes")
}

/// Parses answer text already read from `path`, then applies `--context` and `--tools`.
pub(crate) fn answer_from_text(path: &str, raw: &str, args: &AnswerArgs, tools: Option<&Value>) -> CliResult<Answer> {
    let mut answer = parse_input(raw, format(args.input_format), args.max_bytes)
        .map_err(|e| CliError::input(format!("{}: {e}", display_name(path))))?;
    apply(&mut answer, args, tools)?;
    Ok(answer)
}

fn apply(answer: &mut Answer, args: &AnswerArgs, tools: Option<&Value>) -> CliResult<()> {
    if let Some(ctx) = &args.context {
        let v = read_json(ctx)?;
        let obj = v.as_object().ok_or_else(|| CliError::input(format!("{ctx}: expected a JSON object of context keys")))?;
        merge_context(answer, obj);
    }
    if let Some(t) = tools {
        add_tools(answer, t);
    }
    Ok(())
}

fn warn(e: &Extraction, label: &str) {
    for d in &e.diagnostics {
        eprintln!("warning: {label}: {d}");
    }
}

/// Runs `warrant extract`.
pub fn run(args: ExtractArgs) -> CliResult<ExitCode> {
    let tools = match &args.tools {
        Some(t) => {
            let v = read_json(t)?;
            let reg = warrant_cpl::ToolRegistry::from_json(&v, warrant_cpl::ToolOrigin::File)
                .map_err(|e| CliError::input(format!("{t}: {}: {}", e.pointer, e.message)))?;
            for w in reg.warnings() {
                eprintln!("warning: {t}: {}: {}", w.pointer, w.message);
            }
            Some(v)
        }
        None => None,
    };
    let llm = args.llm_opts.stage(args.llm, "--llm")?;
    if let Some(batch) = &args.batch {
        let code = run_batch(batch, &args, tools.as_ref(), llm.as_ref())?;
        args.llm_opts.write_replay_case(llm.as_ref(), warrant_evidence::Scope::answer(display_name(batch)))?;
        return Ok(code);
    }
    let input = args.input.as_deref().unwrap_or("-");
    let answer = read_answer(input, &args.answer, tools.as_ref())?;
    let e = extract_maybe_llm(&answer, &Options { output_id: args.output_id.clone() }, llm.as_ref());
    warn(&e, display_name(input));
    let mut out = Out::new();
    out.json(&e.graph)?;
    out.finish()?;
    args.llm_opts.write_replay_case(llm.as_ref(), warrant_evidence::Scope::answer(e.graph.output_id.clone()))?;
    Ok(ExitCode::SUCCESS)
}

/// The deterministic extractor, or the model's claims when a model was asked for.
fn extract_maybe_llm(
    answer: &warrant_extract::Answer,
    opts: &Options,
    llm: Option<&warrant_llm::Llm>,
) -> warrant_extract::Extraction {
    match llm {
        Some(llm) => warrant_extract::extract_with_llm(answer, opts, llm),
        None => extract(answer, opts),
    }
}

fn run_batch(path: &str, args: &ExtractArgs, tools: Option<&Value>, llm: Option<&warrant_llm::Llm>) -> CliResult<ExitCode> {
    let mut lines = Lines::open(path, max_bytes(&args.answer))?;
    // Validate every line first so a bad line fails the run before any output.
    let mut items = Vec::new();
    while let Some((number, line)) = lines.next_line()? {
        let at = format!("{}:{number}", display_name(path));
        let line = line.map_err(|e| CliError::input(format!("{at}: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| CliError::input(format!("{at}: invalid JSON: {e}")))?;
        let id = v
            .get("id")
            .and_then(|x| x.as_str().map(str::to_string).or_else(|| x.as_i64().map(|n| n.to_string())))
            .ok_or_else(|| CliError::input(format!("{at}: expected a string `id`")))?;
        let answer_v = v.get("answer").ok_or_else(|| CliError::input(format!("{at}: expected an `answer` (text or message)")))?;
        let mut answer = answer_from_value(answer_v).map_err(|e| CliError::input(format!("{at}: /answer{e}")))?;
        if let Some(ctx) = v.get("context") {
            let obj = ctx.as_object().ok_or_else(|| CliError::input(format!("{at}: /context: expected an object")))?;
            merge_context(&mut answer, obj);
        }
        apply(&mut answer, &args.answer, tools)?;
        items.push((id, answer));
    }
    let mut out = Out::new();
    for (id, answer) in items {
        let e = extract_maybe_llm(&answer, &Options { output_id: Some(id.clone()) }, llm);
        warn(&e, &id);
        let line = serde_json::to_string(&e.graph).map_err(|e| CliError::input(format!("cannot serialise: {e}")))?;
        outln!(out, "{line}")?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
