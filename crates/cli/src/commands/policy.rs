//! `warrant policy eval` and `warrant policy packs`.

use std::process::ExitCode;

use warrant_check::{extract_graph, is_broken_graph, is_graph, load_graph};
use warrant_cpl::RunDiagnostic;
use warrant_cpl::packs::builtin_ids;
use warrant_cpl::{Engine, Pack, RunResult, ToolRegistry};
use warrant_graph::{PredicateGraph, Severity};

use crate::cli::{EvalArgs, Format, PacksArgs};
use crate::error::{CliError, CliResult};
use crate::io::{display_name, parse_json, pointer, read_json, read_text};
use crate::out::{Out, outln};

/// Resolves `--pack` values: an existing file, else a built-in id.
pub(crate) fn load_packs(specs: &[String]) -> CliResult<Vec<Pack>> {
    Ok(warrant::inputs::pack_specs(specs)?)
}

/// Loads a tools file (`--tools`).
pub(crate) fn load_tools(path: Option<&str>) -> CliResult<ToolRegistry> {
    match path {
        Some(path) => Ok(warrant::inputs::tools_file(path)?.1),
        None => Ok(ToolRegistry::new()),
    }
}

/// Reads INPUT: a PredicateGraph (refused with file and JSON pointer when invalid), or a
/// model output that is extracted into one first. Text that tries to be a graph (it names
/// `schema_version`) but is not valid JSON is refused, not read as prose.
pub(crate) fn load_graph_or_answer(
    path: &str,
    answer_args: &crate::cli::AnswerArgs,
    tools: Option<&serde_json::Value>,
) -> CliResult<(PredicateGraph, Vec<RunDiagnostic>)> {
    let text = read_text(path)?;
    let json = serde_json::from_str::<serde_json::Value>(&text).ok();
    let broken_graph = json.is_none() && is_broken_graph(&text);
    if json.as_ref().is_some_and(is_graph) || (answer_args.input_format != crate::cli::InputFormat::Text && broken_graph) {
        let value = parse_json(path, &text)?;
        return load_graph(value)
            .map_err(|e| CliError::input(format!("{}: {}: {}", display_name(path), pointer(&e.pointer), e.message)));
    }
    let answer = crate::commands::extract::answer_from_text(path, &text, answer_args, tools)?;
    Ok(extract_graph(&answer))
}

/// Runs `warrant policy eval`.
pub fn eval(args: EvalArgs) -> CliResult<ExitCode> {
    let packs = load_packs(&args.packs)?;
    let tools = load_tools(args.tools.as_deref())?;
    let mut rubrics = Vec::new();
    for r in &args.rubrics {
        let v = read_json(r)?;
        let rubric =
            warrant_cpl::load_rubric(&v).map_err(|e| CliError::input(format!("{r}: {}: {}", pointer(&e.pointer), e.message)))?;
        rubrics.push(rubric);
    }
    // A configured model is the rubrics' judge; without one their rules are skipped.
    let judge = if rubrics.is_empty() { args.llm.stage(false, "--rubric")? } else { args.llm.build()? };
    let tools_doc = match &args.tools {
        Some(t) => Some(read_json(t)?),
        None => None,
    };
    let (graph, lints) = load_graph_or_answer(&args.input, &args.answer, tools_doc.as_ref())?;
    let packs = if packs.is_empty() { default_packs(&graph, &args.input)? } else { packs };
    let engine = Engine {
        strict: args.strict,
        tools,
        verifiers: Box::new(warrant_cpl::JudgedVerifiers::new(rubrics, judge.clone())),
        ..Engine::default()
    };
    let mut result =
        engine.evaluate(&packs, &graph).map_err(|e| CliError::input(format!("{}: {e}", display_name(&args.input))))?;
    let mut diagnostics = lints;
    diagnostics.append(&mut result.diagnostics);
    result.diagnostics = diagnostics;
    let mut out = Out::new();
    match args.format {
        Format::Json => out.json(&result)?,
        Format::Text => print_report(&mut out, &result)?,
    }
    out.finish()?;
    args.llm.write_replay_case(judge.as_ref(), warrant_evidence::Scope::answer(result.output_id.clone()))?;
    Ok(if result.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The packs run when none is named: the tool-call packs, for input that calls tools.
fn default_packs(graph: &PredicateGraph, input: &str) -> CliResult<Vec<Pack>> {
    if graph.tool_calls.is_empty() {
        let ids: Vec<&str> = builtin_ids().collect();
        return Err(CliError::input(format!(
            "{}: no --pack given, and the input calls no tools (the default packs, {}, check tool calls); name a pack with --pack (built-in: {})",
            display_name(input),
            warrant_cpl::packs::TOOL_CALL_PACKS.join(" and "),
            ids.join(", ")
        )));
    }
    warrant_cpl::packs::tool_call_packs().map_err(CliError::input)
}

fn status(passed: bool) -> &'static str {
    if passed { "passed" } else { "FAILED" }
}

/// The readable report: one line per violation.
pub(crate) fn print_report(out: &mut Out, r: &RunResult) -> CliResult<()> {
    outln!(out, "output {}: {}{}", r.output_id, status(r.passed), if r.strict { " (strict)" } else { "" })?;
    for pack in &r.packs {
        outln!(out, "pack {}: {}", pack.pack_id, status(pack.passed))?;
        for pol in &pack.policy_results {
            let mark = if pol.passed { "✓" } else { "✗" };
            outln!(out, "  {mark} {}", pol.policy_id)?;
            for v in &pol.violations {
                let sev = match v.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                };
                outln!(out, "      [{sev}] {}", v.message)?;
            }
            for s in &pol.skipped_rules {
                outln!(out, "      [skipped] {}: {}", s.rule_id, s.reason)?;
            }
        }
    }
    for v in &r.verifier_runs {
        outln!(out, "verifier {}: score {} (judged by model {}, {})", v.verifier_id, v.score, v.model, v.prompt)?;
        for m in &v.meta_verification {
            let detail = m.detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
            outln!(out, "  meta {} {}{detail}", m.check, m.status)?;
        }
    }
    if !r.diagnostics.is_empty() {
        outln!(out, "notes:")?;
        for d in &r.diagnostics {
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            let at = if d.path.is_empty() { String::new() } else { format!(" {}", d.path) };
            outln!(out, "  {sev} {}{at}: {}", d.source, d.message)?;
        }
    }
    Ok(())
}

/// Runs `warrant policy packs`.
pub fn packs(args: PacksArgs) -> CliResult<ExitCode> {
    let listing = warrant_cpl::packs::listing().map_err(CliError::input)?;
    let mut out = Out::new();
    match args.format {
        Format::Json => out.json(&listing)?,
        Format::Text => {
            for p in &listing {
                let rules: usize = p.policies.iter().map(|x| x.rules.len()).sum();
                outln!(out, "{}  {} (v{}, {} policies, {rules} rules)", p.pack_id, p.name, p.version, p.policies.len())?;
                outln!(out, "    {}", p.description)?;
            }
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
