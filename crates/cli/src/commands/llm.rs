//! `warrant llm prompts`: the versioned prompts the model stages send.

use std::process::ExitCode;

use warrant_llm::prompts;

use crate::cli::{Format, LlmCommand, PromptsArgs};
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

/// Runs `warrant llm …`.
pub fn run(cmd: LlmCommand) -> CliResult<ExitCode> {
    match cmd {
        LlmCommand::Prompts(a) => run_prompts(&a),
    }
}

fn run_prompts(args: &PromptsArgs) -> CliResult<ExitCode> {
    let mut out = Out::new();
    if let Some(id) = &args.show {
        let p = prompts::get(id).ok_or_else(|| {
            let ids: Vec<&str> = prompts::ALL.iter().map(|p| p.id).collect();
            CliError::input(format!("--show {id}: no such prompt (known: {})", ids.join(", ")))
        })?;
        out.print(p.text)?;
        out.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    match args.format {
        Format::Json => {
            let list: Vec<serde_json::Value> = prompts::ALL
                .iter()
                .map(|p| {
                    serde_json::json!({"id": p.id, "stage": p.stage, "version": p.version(), "sha256": p.sha256(),
                                       "file": format!("crates/llm/prompts/{}", p.file()), "description": p.description})
                })
                .collect();
            out.json(&list)?;
        }
        Format::Text => {
            for p in prompts::ALL {
                outln!(out, "{:<24} v{}  {}  {}", p.id, p.version(), p.sha256(), p.description)?;
            }
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
