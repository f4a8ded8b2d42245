//! A provider-agnostic LLM client for Warrant's optional model stages.
//!
//! Everything in Warrant works without a model. When one is configured it is reached through
//! one operation, [`LlmClient::complete`]: a prompt and [`CompletionOptions`] in, raw text out.
//! Parsing and validation happen outside the client ([`json`]).
//!
//! - [`http`] (feature `http`, on by default): OpenAI-compatible chat completions (hosted APIs,
//!   vLLM, Ollama, llama.cpp server), with timeouts, bounded retries with backoff on 429 and
//!   5xx, and a concurrency limit.
//! - [`cache`]: record and replay. Every request is keyed by a hash of what is sent
//!   ([`request_key`]); a replayed run returns the recorded bytes, so it reproduces the
//!   recorded run exactly, offline.
//! - [`config`]: `--llm-endpoint` / `--llm-model` / `--llm-cache` flags and the `[llm]` section
//!   of `warrant.toml`. The API key comes from an environment variable and is never logged
//!   or written anywhere.
//! - [`Llm`]: the handle stages use. It applies the deterministic defaults (temperature 0,
//!   seed 0) and records every call ([`CallRecord`]: stage, request key, whether the output
//!   came from a model or was replayed) for the evidence pack's replay case.
//! - [`json`]: a JSON stage with one repair retry; on failure the caller falls back to its
//!   deterministic stage with a `degraded` reason.
//! - [`prompts`]: the versioned prompt files, embedded.
//! - [`redact`]: the API key and anything shaped like one, removed from every text the
//!   endpoint sends back (error bodies that echo the request's headers, replies) before it is
//!   printed, logged, cached, stored or returned.
#![warn(missing_docs)]

mod cache;
mod config;
#[cfg(feature = "http")]
mod http;
mod json;
pub mod prompts;
#[cfg(feature = "http")]
mod redact;

use std::fmt;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub use cache::{Cache, CacheMode, CachedClient};
pub use cache::{Entry, parse_entry};
pub use config::{DEFAULT_API_KEY_ENV, LlmConfig};
#[cfg(feature = "http")]
pub use http::{HttpClient, HttpSettings};
pub use json::{StageFailure, complete_json, strip_code_fence};
pub use json::{StageOutput, one_line, parse_reply};

/// How the model should format its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Free text.
    #[default]
    Text,
    /// One JSON object (`response_format: {"type": "json_object"}`).
    Json,
}

impl ResponseFormat {
    /// `"text"` or `"json"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
        }
    }
}

/// Settings of one completion. The defaults are deterministic: temperature 0, seed 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompletionOptions {
    /// Model name; `None` uses the client's configured model.
    pub model: Option<String>,
    /// Sampling temperature (default 0).
    pub temperature: f64,
    /// Sampling seed, where the provider honours one (default 0).
    pub seed: Option<u64>,
    /// Reply format.
    pub response_format: ResponseFormat,
    /// Longest reply, in tokens.
    pub max_tokens: Option<u32>,
}

impl Default for CompletionOptions {
    fn default() -> Self {
        Self { model: None, temperature: 0.0, seed: Some(0), response_format: ResponseFormat::Text, max_tokens: None }
    }
}

impl CompletionOptions {
    /// The defaults with a JSON reply.
    pub fn json() -> Self {
        Self { response_format: ResponseFormat::Json, ..Self::default() }
    }
}

/// Where a completion's text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A model produced it during this run.
    Model,
    /// It was read back from the record/replay cache.
    Replayed,
}

impl Origin {
    /// `"model"` or `"replayed"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Replayed => "replayed",
        }
    }
}

/// A model's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The reply text, exactly as received (or recorded).
    pub content: String,
    /// Model or cache.
    pub origin: Origin,
    /// The model that was asked.
    pub model: String,
    /// The request's key ([`request_key`]).
    pub request_key: String,
    /// Prompt tokens, as the provider reported them.
    pub prompt_tokens: Option<u64>,
    /// Completion tokens, as the provider reported them.
    pub completion_tokens: Option<u64>,
}

/// Why a completion failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The settings are incomplete or wrong.
    #[error("LLM configuration: {0}")]
    Config(String),
    /// The request did not finish in time (after every retry).
    #[error("the LLM request timed out after {attempts} attempt(s)")]
    Timeout {
        /// Attempts made.
        attempts: u32,
    },
    /// The endpoint answered with an error status (after every retry, for 429 and 5xx).
    #[error("the LLM endpoint answered HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The start of the response body.
        body: String,
    },
    /// The endpoint could not be reached.
    #[error("cannot reach the LLM endpoint after {attempts} attempt(s): {message}")]
    Transport {
        /// Attempts made.
        attempts: u32,
        /// What failed.
        message: String,
    },
    /// The reply is not an OpenAI-compatible chat completion.
    #[error("the LLM endpoint's reply is not a chat completion: {0}")]
    BadResponse(String),
    /// Replay only, and this request was never recorded.
    #[error("request {key} is not in the LLM cache {dir} (replay without an endpoint needs a recorded run)")]
    NotInCache {
        /// The request key.
        key: String,
        /// The cache directory.
        dir: String,
    },
    /// The cache could not be read or written.
    #[error("LLM cache: {0}")]
    Cache(String),
}

/// The one operation every provider offers.
pub trait LlmClient: Send + Sync {
    /// Sends `prompt` (one user message) and returns the reply text. `options.model: None`
    /// means the client's configured model.
    fn complete(&self, prompt: &str, options: &CompletionOptions) -> Result<Completion, LlmError>;

    /// The configured model.
    fn model(&self) -> &str;
}

impl<T: LlmClient + ?Sized> LlmClient for Arc<T> {
    fn complete(&self, prompt: &str, options: &CompletionOptions) -> Result<Completion, LlmError> {
        (**self).complete(prompt, options)
    }

    fn model(&self) -> &str {
        (**self).model()
    }
}

/// What is sent for a prompt: the canonical request body (without the endpoint or the key).
/// The cache key and the HTTP body are both derived from it, so they cannot disagree.
pub fn request_body(model: &str, prompt: &str, options: &CompletionOptions) -> Value {
    let mut body = json!({
        "model": options.model.as_deref().unwrap_or(model),
        "messages": [{"role": "user", "content": prompt}],
        "temperature": options.temperature,
    });
    if let Some(seed) = options.seed {
        body["seed"] = json!(seed);
    }
    if let Some(n) = options.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if options.response_format == ResponseFormat::Json {
        body["response_format"] = json!({"type": "json_object"});
    }
    body
}

/// The request key: SHA-256 (hex) of the canonical request body ([`request_body`]), whose
/// keys serde_json writes in sorted order.
pub fn request_key(model: &str, prompt: &str, options: &CompletionOptions) -> String {
    let body = request_body(model, prompt, options);
    hex(&Sha256::digest(body.to_string().as_bytes()))
}

pub(crate) use warrant_text::hash::hex;

/// The reply of a chat-completions call: content and token counts.
pub fn parse_chat_completion(body: &str) -> Result<(String, Option<u64>, Option<u64>), LlmError> {
    let v: Value = serde_json::from_str(body).map_err(|e| LlmError::BadResponse(format!("not JSON: {e}")))?;
    let content = match v.pointer("/choices/0/message/content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => {
            return Err(LlmError::BadResponse("/choices/0/message/content: expected a string".into()));
        }
        Some(_) => return Err(LlmError::BadResponse("/choices/0/message/content: expected a string".into())),
    };
    let tokens = |p: &str| v.pointer(p).and_then(Value::as_u64);
    Ok((content, tokens("/usage/prompt_tokens"), tokens("/usage/completion_tokens")))
}

/// One call a stage made, for the evidence pack's replay case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CallRecord {
    /// The stage (`facts.extract`, `verifier.judge`, …).
    pub stage: String,
    /// The request key.
    pub request_key: String,
    /// The model asked.
    pub model: String,
    /// Model or cache; `None` when the call failed.
    pub origin: Option<Origin>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// Prompt tokens the provider reported (recorded with the reply when replayed).
    pub prompt_tokens: Option<u64>,
    /// Completion tokens the provider reported.
    pub completion_tokens: Option<u64>,
}

/// The handle stages use: a client, the default options, and a log of every call.
/// Cloning shares the client and the log.
#[derive(Clone)]
pub struct Llm {
    client: Arc<dyn LlmClient>,
    defaults: CompletionOptions,
    log: Arc<Mutex<Vec<CallRecord>>>,
}

impl fmt::Debug for Llm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Llm").field("model", &self.client.model()).field("defaults", &self.defaults).finish_non_exhaustive()
    }
}

impl Llm {
    /// A handle over `client` with the deterministic defaults.
    pub fn new(client: Arc<dyn LlmClient>) -> Self {
        Self { client, defaults: CompletionOptions::default(), log: Arc::default() }
    }

    /// Replaces the default options (their response format is set per call).
    pub fn with_defaults(mut self, defaults: CompletionOptions) -> Self {
        self.defaults = defaults;
        self
    }

    /// The configured model.
    pub fn model(&self) -> &str {
        self.client.model()
    }

    /// The default options.
    pub fn defaults(&self) -> &CompletionOptions {
        &self.defaults
    }

    /// Completes `prompt` for `stage` with the defaults and `format`, and logs the call.
    pub fn complete(&self, stage: &str, prompt: &str, format: ResponseFormat) -> Result<Completion, LlmError> {
        let options = CompletionOptions { response_format: format, ..self.defaults.clone() };
        self.complete_with(stage, prompt, &options)
    }

    /// Completes `prompt` for `stage` with explicit options, and logs the call.
    pub fn complete_with(&self, stage: &str, prompt: &str, options: &CompletionOptions) -> Result<Completion, LlmError> {
        let out = self.client.complete(prompt, options);
        let model = options.model.clone().unwrap_or_else(|| self.client.model().to_string());
        let record = match &out {
            Ok(c) => CallRecord {
                stage: stage.into(),
                request_key: c.request_key.clone(),
                model,
                origin: Some(c.origin),
                error: None,
                prompt_tokens: c.prompt_tokens,
                completion_tokens: c.completion_tokens,
            },
            Err(e) => CallRecord {
                stage: stage.into(),
                request_key: request_key(self.client.model(), prompt, options),
                model,
                origin: None,
                error: Some(e.to_string()),
                prompt_tokens: None,
                completion_tokens: None,
            },
        };
        if let Ok(mut log) = self.log.lock() {
            log.push(record);
        }
        out
    }

    /// Every call so far, sorted (stage, key, …) so that parallel stages log deterministically.
    pub fn calls(&self) -> Vec<CallRecord> {
        let mut v = self.log.lock().map(|l| l.clone()).unwrap_or_default();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_body_is_deterministic_and_complete() {
        let o = CompletionOptions { max_tokens: Some(64), ..CompletionOptions::json() };
        let b = request_body("m1", "hi", &o);
        assert_eq!(
            b.to_string(),
            r#"{"max_tokens":64,"messages":[{"content":"hi","role":"user"}],"model":"m1","response_format":{"type":"json_object"},"seed":0,"temperature":0.0}"#
        );
        let k = request_key("m1", "hi", &o);
        assert_eq!(k.len(), 64);
        assert_eq!(k, request_key("m1", "hi", &o));
        assert_ne!(k, request_key("m2", "hi", &o));
        assert_ne!(k, request_key("m1", "hi", &CompletionOptions::default()));
        let explicit = CompletionOptions { model: Some("m2".into()), ..o.clone() };
        assert_eq!(request_key("m1", "hi", &explicit), request_key("m2", "hi", &o));
    }
}
