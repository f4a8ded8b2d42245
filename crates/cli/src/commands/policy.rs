//! `warrant policy eval` and `warrant policy packs`.

use std::process::ExitCode;

use warrant::policy::{Evaluation, PolicyFiles, packs_listing};
use warrant_cpl::RunResult;
use warrant_graph::Severity;

use crate::cli::{EvalArgs, Format, PacksArgs};
use crate::error::CliResult;
use crate::out::{Out, outln};

/// Runs `warrant policy eval`.
pub fn eval(args: EvalArgs) -> CliResult<ExitCode> {
    let files = PolicyFiles {
        packs: args.packs.clone(),
        tools: args.tools.clone(),
        rubrics: args.rubrics.clone(),
        context: args.answer.context.clone(),
    };
    let evaluation = Evaluation::from_files(&files, args.strict, args.answer.input_format.into(), args.answer.max_bytes)?;
    // A configured model is the rubrics' judge; without one their rules are skipped.
    let judge = if evaluation.has_rubrics() { args.llm.build()? } else { args.llm.stage(false, "--rubric")? };
    let result = evaluation.eval_file(&args.input, judge.clone())?;
    let mut out = Out::new();
    match args.format {
        Format::Json => out.json(&result)?,
        Format::Text => print_report(&mut out, &result)?,
    }
    out.finish()?;
    args.llm.write_replay_case(judge.as_ref(), warrant_evidence::Scope::answer(result.output_id.clone()))?;
    Ok(if result.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn status(passed: bool) -> &'static str {
    if passed { "passed" } else { "FAILED" }
}

/// The readable report: one line per violation.
fn print_report(out: &mut Out, r: &RunResult) -> CliResult<()> {
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
    let listing = packs_listing()?;
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
