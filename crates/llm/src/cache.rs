//! Record and replay (`--llm-cache DIR`).
//!
//! Every request is stored as `DIR/<request key>.json`:
//!
//! ```json
//! {"warrant_llm_cache": 1, "key": "<sha256>", "request": {<canonical body>},
//!  "response": {"content": "...", "prompt_tokens": 12, "completion_tokens": 40}}
//! ```
//!
//! The key is the hash of the canonical request body ([`crate::request_body`]): model,
//! messages, temperature, seed, response format, max tokens. The endpoint and the API key are
//! not part of it (and the key is never written). A hit returns the recorded content byte for
//! byte, marked [`Origin::Replayed`]; so a replayed run reproduces the recorded one exactly.
//!
//! Files are written atomically (a temporary file in the same folder, then a rename), so an
//! interrupted run never leaves a half-written entry.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::{Completion, CompletionOptions, LlmClient, LlmError, Origin, request_body, request_key};

/// Cache file format version.
const FORMAT: u64 = 1;

/// What the cache does on a miss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// Ask the model and record the reply.
    Record,
    /// Fail: replay only, offline.
    ReplayOnly,
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

/// A recorded reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The reply text.
    pub content: String,
    /// Prompt tokens reported when it was recorded.
    pub prompt_tokens: Option<u64>,
    /// Completion tokens reported when it was recorded.
    pub completion_tokens: Option<u64>,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Cache {
    /// A cache in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The recorded reply for `key`, if any. A file that exists but is not a valid entry for
    /// this key is an error naming the file.
    pub fn get(&self, key: &str) -> Result<Option<Entry>, LlmError> {
        let path = self.path(key);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LlmError::Cache(format!("{}: {e}", path.display()))),
        };
        parse_entry(&text, key).map(Some).map_err(|m| LlmError::Cache(format!("{}: {m}", path.display())))
    }

    /// Records a reply (atomically).
    pub fn put(&self, key: &str, request: &Value, entry: &Entry) -> Result<(), LlmError> {
        let err = |e: std::io::Error| LlmError::Cache(format!("{}: {e}", self.dir.display()));
        fs::create_dir_all(&self.dir).map_err(err)?;
        let doc = json!({
            "warrant_llm_cache": FORMAT,
            "key": key,
            "request": request,
            "response": {
                "content": entry.content,
                "prompt_tokens": entry.prompt_tokens,
                "completion_tokens": entry.completion_tokens,
            },
        });
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| LlmError::Cache(e.to_string()))?;
        text.push('\n');
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = self.dir.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            fs::rename(&tmp, self.path(key))
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            err(e)
        })
    }
}

/// Parses a cache file's text and checks it belongs to `key`.
pub fn parse_entry(text: &str, key: &str) -> Result<Entry, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("warrant_llm_cache").and_then(Value::as_u64) != Some(FORMAT) {
        return Err(format!("/warrant_llm_cache: expected {FORMAT}"));
    }
    if v.get("key").and_then(Value::as_str) != Some(key) {
        return Err(format!("/key: expected {key}"));
    }
    let content = v
        .pointer("/response/content")
        .and_then(Value::as_str)
        .ok_or_else(|| "/response/content: expected a string".to_string())?;
    let tokens = |k: &str| v.pointer(&format!("/response/{k}")).and_then(Value::as_u64);
    Ok(Entry {
        content: content.to_string(),
        prompt_tokens: tokens("prompt_tokens"),
        completion_tokens: tokens("completion_tokens"),
    })
}

/// A client that answers from a cache first and, in [`CacheMode::Record`], asks `inner` on a
/// miss and records the reply.
pub struct CachedClient {
    inner: Option<Box<dyn LlmClient>>,
    model: String,
    cache: Cache,
}

impl CachedClient {
    /// Record mode: misses go to `inner`.
    pub fn record(inner: Box<dyn LlmClient>, cache: Cache) -> Self {
        let model = inner.model().to_string();
        Self { inner: Some(inner), model, cache }
    }

    /// Replay only: misses are errors. `model` must be the recorded run's model.
    pub fn replay_only(model: impl Into<String>, cache: Cache) -> Self {
        Self { inner: None, model: model.into(), cache }
    }

    /// The mode.
    pub fn mode(&self) -> CacheMode {
        if self.inner.is_some() { CacheMode::Record } else { CacheMode::ReplayOnly }
    }
}

impl LlmClient for CachedClient {
    fn complete(&self, prompt: &str, options: &CompletionOptions) -> Result<Completion, LlmError> {
        let key = request_key(&self.model, prompt, options);
        let model = options.model.clone().unwrap_or_else(|| self.model.clone());
        if let Some(e) = self.cache.get(&key)? {
            return Ok(Completion {
                content: e.content,
                origin: Origin::Replayed,
                model,
                request_key: key,
                prompt_tokens: e.prompt_tokens,
                completion_tokens: e.completion_tokens,
            });
        }
        let Some(inner) = &self.inner else {
            return Err(LlmError::NotInCache { key, dir: self.cache.dir().display().to_string() });
        };
        let c = inner.complete(prompt, options)?;
        let entry = Entry { content: c.content.clone(), prompt_tokens: c.prompt_tokens, completion_tokens: c.completion_tokens };
        self.cache.put(&key, &request_body(&self.model, prompt, options), &entry)?;
        Ok(Completion { request_key: key, ..c })
    }

    fn model(&self) -> &str {
        &self.model
    }
}
