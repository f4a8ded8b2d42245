//! LLM settings: the `[llm]` section of `warrant.toml`, overridden by command-line flags.
//!
//! ```toml
//! [llm]
//! endpoint = "http://localhost:11434/v1"   # OpenAI-compatible base URL
//! model = "qwen2.5:7b-instruct"
//! api_key_env = "WARRANT_LLM_API_KEY"      # the variable holding the key (default shown)
//! cache = ".warrant/llm-cache"             # record/replay folder
//! timeout_secs = 60
//! max_retries = 2
//! backoff_ms = 500
//! concurrency = 4
//! seed = 0
//! max_tokens = 2048
//! ```
//!
//! The key itself is never in the file: only the name of the environment variable. Unknown
//! keys are errors (a typo must not silently disable a setting).
//!
//! [`LlmConfig::build`] gives no client when neither an endpoint nor a cache is set (no model
//! configured: every stage runs deterministically), a recording client for an endpoint (plus a
//! cache, when set), and a replay-only client for a cache without an endpoint.

use std::path::PathBuf;
use std::sync::Arc;
#[cfg(feature = "http")]
use std::time::Duration;

use serde::Deserialize;

use crate::cache::{Cache, CachedClient};
use crate::{CompletionOptions, Llm, LlmClient, LlmError};

/// Default environment variable for the API key.
pub const DEFAULT_API_KEY_ENV: &str = "WARRANT_LLM_API_KEY";

/// LLM settings (every field optional until [`LlmConfig::build`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// OpenAI-compatible base URL.
    pub endpoint: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// Environment variable holding the API key (default `WARRANT_LLM_API_KEY`).
    pub api_key_env: Option<String>,
    /// Record/replay folder.
    pub cache: Option<PathBuf>,
    /// Per-attempt timeout in seconds (default 60).
    pub timeout_secs: Option<u64>,
    /// Retries on 429, 5xx, timeouts and connection failures (default 2).
    pub max_retries: Option<u32>,
    /// First backoff in milliseconds, doubled per retry (default 500).
    pub backoff_ms: Option<u64>,
    /// Requests in flight at most (default 4).
    pub concurrency: Option<usize>,
    /// Sampling seed (default 0).
    pub seed: Option<u64>,
    /// Reply length limit in tokens (default: the provider's).
    pub max_tokens: Option<u32>,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

#[derive(Debug, Deserialize)]
struct File {
    llm: Option<LlmConfig>,
}

impl LlmConfig {
    /// The `[llm]` section of a `warrant.toml` text (other sections are ignored). `name` is
    /// used in error messages.
    pub fn from_toml(text: &str, name: &str) -> Result<Self, LlmError> {
        let file: File = toml::from_str(text).map_err(|e: toml::de::Error| {
            let at = e.span().map(|s| line_of(text, s.start)).map(|l| format!(":{l}")).unwrap_or_default();
            LlmError::Config(format!("{name}{at}: {}", e.message()))
        })?;
        let cfg = file.llm.unwrap_or_default();
        cfg.check().map_err(|m| LlmError::Config(format!("{name}: [llm] {m}")))?;
        Ok(cfg)
    }

    fn check(&self) -> Result<(), String> {
        if self.concurrency == Some(0) {
            return Err("concurrency: expected at least 1".into());
        }
        if self.timeout_secs == Some(0) {
            return Err("timeout_secs: expected at least 1".into());
        }
        if let Some(e) = &self.api_key_env
            && (e.is_empty() || !e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return Err(format!("api_key_env \"{e}\": expected an environment variable name"));
        }
        Ok(())
    }

    /// `self` with every field `over` sets replacing ours (flags over the file).
    pub fn overridden_by(mut self, over: LlmConfig) -> Self {
        macro_rules! take {
            ($($f:ident),*) => { $( if over.$f.is_some() { self.$f = over.$f; } )* };
        }
        take!(endpoint, model, api_key_env, cache, timeout_secs, max_retries, backoff_ms, concurrency, seed, max_tokens);
        self
    }

    /// True when a model (live or replayed) is configured.
    pub fn is_configured(&self) -> bool {
        self.endpoint.is_some() || self.cache.is_some()
    }

    /// The deterministic completion defaults these settings give.
    pub fn defaults(&self) -> CompletionOptions {
        CompletionOptions { seed: Some(self.seed.unwrap_or(0)), max_tokens: self.max_tokens, ..CompletionOptions::default() }
    }

    /// A client, or `None` when no model is configured. The API key is read from the
    /// environment here and kept only inside the HTTP client.
    pub fn build(&self) -> Result<Option<Llm>, LlmError> {
        self.check().map_err(LlmError::Config)?;
        if !self.is_configured() {
            return Ok(None);
        }
        let model = match self.model.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => {
                return Err(LlmError::Config(
                    "a model name is required with an endpoint or a cache (--llm-model, or model in [llm])".into(),
                ));
            }
        };
        let client: Arc<dyn LlmClient> = match (&self.endpoint, &self.cache) {
            (Some(endpoint), cache) => {
                let live = self.http_client(endpoint, &model)?;
                match cache {
                    Some(dir) => Arc::new(CachedClient::record(live, Cache::new(dir))),
                    None => Arc::from(live),
                }
            }
            (None, Some(dir)) => Arc::new(CachedClient::replay_only(model, Cache::new(dir))),
            (None, None) => return Ok(None),
        };
        Ok(Some(Llm::new(client).with_defaults(self.defaults())))
    }

    #[cfg(feature = "http")]
    fn http_client(&self, endpoint: &str, model: &str) -> Result<Box<dyn LlmClient>, LlmError> {
        let var = self.api_key_env.as_deref().unwrap_or(DEFAULT_API_KEY_ENV);
        let api_key = std::env::var(var).ok().filter(|k| !k.trim().is_empty());
        let settings = crate::http::HttpSettings {
            endpoint: endpoint.to_string(),
            model: model.to_string(),
            api_key,
            timeout: Duration::from_secs(self.timeout_secs.unwrap_or(60)),
            max_retries: self.max_retries.unwrap_or(2),
            backoff: Duration::from_millis(self.backoff_ms.unwrap_or(500)),
            concurrency: self.concurrency.unwrap_or(4),
        };
        Ok(Box::new(crate::http::HttpClient::new(settings)?))
    }

    #[cfg(not(feature = "http"))]
    fn http_client(&self, _endpoint: &str, _model: &str) -> Result<Box<dyn LlmClient>, LlmError> {
        Err(LlmError::Config("this build has no HTTP transport (feature `http` of warrant-llm)".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_section_and_overrides() {
        let f = LlmConfig::from_toml(
            "[other]\nx = 1\n[llm]\nendpoint = \"http://h/v1\"\nmodel = \"m\"\nmax_retries = 5\n",
            "warrant.toml",
        )
        .unwrap();
        assert_eq!(f.endpoint.as_deref(), Some("http://h/v1"));
        assert_eq!(f.max_retries, Some(5));
        let merged = f.overridden_by(LlmConfig { model: Some("m2".into()), ..LlmConfig::default() });
        assert_eq!((merged.model.as_deref(), merged.endpoint.as_deref()), (Some("m2"), Some("http://h/v1")));
        assert_eq!(LlmConfig::from_toml("", "w").unwrap(), LlmConfig::default());
    }

    #[test]
    fn bad_files_say_where() {
        let e = LlmConfig::from_toml("[llm]\nendpont = \"x\"\n", "warrant.toml").unwrap_err().to_string();
        assert!(e.contains("warrant.toml") && e.contains("endpont"), "{e}");
        let e = LlmConfig::from_toml("[llm]\nconcurrency = 0\n", "w.toml").unwrap_err().to_string();
        assert!(e.contains("concurrency"), "{e}");
        let e = LlmConfig::from_toml("[llm\n", "w.toml").unwrap_err().to_string();
        assert!(e.starts_with("LLM configuration: w.toml:1"), "{e}");
        let e = LlmConfig::from_toml("[a]\nx = 1\n[llm]\nendpoint = 3\n", "w.toml").unwrap_err().to_string();
        assert_eq!(e, "LLM configuration: w.toml:4: invalid type: integer `3`, expected a string");
    }

    #[test]
    fn build_needs_a_model_and_is_none_without_settings() {
        assert!(LlmConfig::default().build().unwrap().is_none());
        let e = LlmConfig { endpoint: Some("http://h/v1".into()), ..LlmConfig::default() }.build().unwrap_err();
        assert!(e.to_string().contains("model name is required"), "{e}");
        let replay = LlmConfig { cache: Some("/nonexistent".into()), model: Some("m".into()), ..LlmConfig::default() };
        let llm = replay.build().unwrap().unwrap();
        assert_eq!(llm.model(), "m");
        assert_eq!(llm.defaults().seed, Some(0));
        assert_eq!(llm.defaults().temperature, 0.0);
    }
}
