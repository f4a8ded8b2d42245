//! What the argument groups several commands share resolve to: the model options
//! ([`LlmArgs`]) and the store folder ([`StoreArg`]).
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

use warrant_evidence::Scope;
use warrant_evidence::{ModelCall, model_replay_case};
use warrant_llm::{Llm, LlmConfig, Origin};

use crate::cli::{LlmArgs, StoreArg};
use crate::error::{CliError, CliResult};
use crate::io::read_text;

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
pub fn model_calls(llm: Option<&Llm>) -> Vec<ModelCall> {
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

impl StoreArg {
    /// The store directory: `--store`, else `$WARRANT_STORE`, else `./.warrant`.
    pub fn path(&self) -> PathBuf {
        warrant::store_dir(self.dir.as_deref())
    }

    /// Opens an existing store (a folder or a PostgreSQL URL) for reading; a missing one is
    /// bad input.
    pub fn open(&self) -> CliResult<Box<dyn warrant_store::Store>> {
        warrant_store::open_existing(self.path()).map_err(CliError::store)
    }

    /// The store's location as it may be printed (a URL's password redacted).
    pub fn shown(&self) -> String {
        warrant_store::redact(&self.path().display().to_string())
    }
}
