//! The model options every LLM-backed stage shares, and `warrant llm prompts`.
//!
//! Settings come from the `[llm]` section of `warrant.toml` (in the working directory, or
//! `--llm-config FILE`), overridden by `--llm-endpoint`, `--llm-model` and `--llm-cache`.
//! The API key is read from the environment variable the configuration names (default
//! `WARRANT_LLM_API_KEY`); it is never printed or written. With no endpoint and no cache, no
//! model is configured and every stage runs its deterministic implementation.
//!
//! `--llm-replay-case FILE` writes the run's Agent Evidence replay case: every model call,
//! and whether its output came from a model or was replayed from the cache.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use warrant_evidence::Scope;
use warrant_evidence::{ModelCall, model_replay_case};
use warrant_llm::{Llm, LlmConfig, Origin, prompts};

use crate::cli::Format;
use crate::error::{CliError, CliResult};
use crate::io::read_text;
use crate::out::{Out, outln};

/// Model options (shared by `ingest`, `extract`, `check`, `policy eval`, `ask`, `research` and `compile`).
#[derive(Debug, Args, Clone, Default)]
pub struct LlmArgs {
    /// OpenAI-compatible endpoint (`http://localhost:11434/v1`); overrides [llm] endpoint.
    #[arg(long = "llm-endpoint", value_name = "URL")]
    pub endpoint: Option<String>,
    /// Model name; overrides [llm] model.
    #[arg(long = "llm-model", value_name = "NAME")]
    pub model: Option<String>,
    /// Record/replay folder: requests are keyed by a hash; without an endpoint, replay only.
    #[arg(long = "llm-cache", value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Configuration file with an [llm] section [default: ./warrant.toml when present].
    #[arg(long = "llm-config", value_name = "FILE")]
    pub config: Option<String>,
    /// Write the run's replay case (which outputs came from a model, which were replayed).
    #[arg(long = "llm-replay-case", value_name = "FILE")]
    pub replay_case: Option<PathBuf>,
}

impl LlmArgs {
    /// The merged settings.
    pub fn config(&self) -> CliResult<LlmConfig> {
        let file = match &self.config {
            Some(p) => Some(p.clone()),
            None => Path::new("warrant.toml").is_file().then(|| "warrant.toml".to_string()),
        };
        let base = match file {
            Some(p) => LlmConfig::from_toml(&read_text(&p)?, &p).map_err(|e| CliError::input(e.to_string()))?,
            None => LlmConfig::default(),
        };
        let flags = LlmConfig {
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
            cache: self.cache.clone(),
            ..LlmConfig::default()
        };
        Ok(base.overridden_by(flags))
    }

    /// The model handle, or `None` when none is configured.
    pub fn build(&self) -> CliResult<Option<Llm>> {
        self.config()?.build().map_err(|e| CliError::input(e.to_string()))
    }

    /// The model handle for a stage the user asked for by `flag`: a configuration is required.
    pub fn require(&self, flag: &str) -> CliResult<Llm> {
        self.build()?.ok_or_else(|| {
            CliError::input(format!(
                "{flag} needs a model: pass --llm-endpoint URL --llm-model NAME (or --llm-cache DIR to replay), or add an [llm] section to warrant.toml"
            ))
        })
    }

    /// The model for a stage the user asks for with `flag` when `asked` (a configuration is
    /// then required). When not asked, an explicitly given `--llm-config` must still load: a
    /// missing or broken file is refused, never silently ignored.
    pub fn stage(&self, asked: bool, flag: &str) -> CliResult<Option<Llm>> {
        if asked {
            return self.require(flag).map(Some);
        }
        if self.config.is_some() {
            self.config()?;
        }
        Ok(None)
    }

    /// Writes the replay case of `llm`'s calls to `--llm-replay-case`, if asked (atomically).
    pub fn write_replay_case(&self, llm: Option<&Llm>, scope: Scope) -> CliResult<()> {
        let Some(path) = &self.replay_case else { return Ok(()) };
        let calls = model_calls(llm);
        let cache = self.config()?.cache.map(|c| c.display().to_string());
        let case = model_replay_case(scope, None, &calls, cache.as_deref()).map_err(|e| CliError::input(e.to_string()))?;
        let mut text = serde_json::to_string_pretty(&case).map_err(|e| CliError::input(format!("cannot serialise: {e}")))?;
        text.push('\n');
        Ok(crate::io::write_atomic(path, text.as_bytes())?)
    }
}

/// The model calls a handle made, for a replay case (empty without a model).
pub(crate) fn model_calls(llm: Option<&Llm>) -> Vec<ModelCall> {
    llm.map(Llm::calls)
        .unwrap_or_default()
        .into_iter()
        .map(|c| ModelCall {
            stage: c.stage,
            request_key: c.request_key,
            model: c.model,
            replayed: c.origin.map(|o| o == Origin::Replayed),
        })
        .collect()
}

/// `warrant llm …`.
#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// List the versioned prompts the model stages send.
    Prompts(PromptsArgs),
}

/// `warrant llm prompts`.
#[derive(Debug, Args)]
pub struct PromptsArgs {
    /// Print this prompt's template instead of the list.
    #[arg(long, value_name = "ID")]
    pub show: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

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
