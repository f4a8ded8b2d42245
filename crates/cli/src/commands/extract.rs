//! `warrant extract`: model output → PredicateGraph (the use case is `warrant::extract`).

use std::process::ExitCode;

use warrant::extract::{ExtractFiles, Extractor};

use crate::cli::ExtractArgs;
use crate::error::{CliError, CliResult};
use crate::io::display_name;
use crate::out::{Out, outln};

fn warn(diagnostics: &[String], label: &str) {
    for d in diagnostics {
        eprintln!("warning: {label}: {d}");
    }
}

/// Runs `warrant extract`.
pub fn run(args: ExtractArgs) -> CliResult<ExitCode> {
    let files = ExtractFiles { tools: args.tools.clone(), context: args.answer.context.clone() };
    let extractor = Extractor::from_files(&files, args.answer.input_format.into(), args.answer.max_bytes)?;
    for w in extractor.warnings() {
        eprintln!("warning: {w}");
    }
    let extractor = extractor.with_model(args.llm_opts.stage(args.llm, "--llm")?);
    let mut out = Out::new();
    if let Some(batch) = &args.batch {
        let items = extractor.read_batch(batch)?;
        for (id, answer) in items {
            let e = extractor.extract_answer(&answer, Some(id.clone()));
            warn(&e.diagnostics, &id);
            let line = serde_json::to_string(&e.graph).map_err(|e| CliError::input(format!("cannot serialise: {e}")))?;
            outln!(out, "{line}")?;
        }
        out.finish()?;
        args.llm_opts.write_replay_case(extractor.model(), warrant_evidence::Scope::answer(display_name(batch)))?;
        return Ok(ExitCode::SUCCESS);
    }
    let input = args.input.as_deref().unwrap_or("-");
    let e = extractor.extract_file(input, args.output_id.clone())?;
    warn(&e.diagnostics, display_name(input));
    out.json(&e.graph)?;
    out.finish()?;
    args.llm_opts.write_replay_case(extractor.model(), warrant_evidence::Scope::answer(e.graph.output_id.clone()))?;
    Ok(ExitCode::SUCCESS)
}
