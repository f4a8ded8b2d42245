//! OpenAI-compatible chat completions over HTTP (hosted APIs, vLLM, Ollama, llama.cpp server).
//!
//! `POST <endpoint>/chat/completions` with the canonical body ([`crate::request_body`]); the
//! reply's `choices[0].message.content` is the completion. An endpoint that already ends in
//! `/chat/completions` is used as given.
//!
//! - **Timeouts**: one per attempt (whole request, connect to last byte).
//! - **Retries**: 429, 5xx, timeouts and connection failures are retried up to `max_retries`
//!   times, waiting `backoff × 2^attempt` (capped at 30 s), or the server's `Retry-After`
//!   seconds when it sends them (same cap). Other statuses fail at once.
//! - **Concurrency**: at most `concurrency` requests in flight per client; callers beyond
//!   that wait.
//! - **API key**: sent as `Authorization: Bearer …` when configured. It is kept out of
//!   `Debug`, errors and the cache, and every text the endpoint sends back (an error body that
//!   echoes the request's headers, a reply, a transport error) is [`redact`]ed first, so a key
//!   reflected by the endpoint goes no further.

use std::fmt;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

pub use crate::parse_chat_completion;
use crate::redact::redact;
use crate::{Completion, CompletionOptions, LlmClient, LlmError, Origin, request_body, request_key};

/// Longest wait between attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Characters of an error body kept in an error message.
const BODY_EXCERPT: usize = 300;

/// Settings of an [`HttpClient`].
#[derive(Clone)]
pub struct HttpSettings {
    /// Base URL (`http://localhost:11434/v1`) or the full chat-completions URL.
    pub endpoint: String,
    /// Model name.
    pub model: String,
    /// Bearer token, if the endpoint needs one.
    pub api_key: Option<String>,
    /// Per-attempt timeout.
    pub timeout: Duration,
    /// Retries after the first attempt (429, 5xx, timeouts, connection failures).
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
    /// Requests in flight at most.
    pub concurrency: usize,
}

impl fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSettings")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff", &self.backoff)
            .field("concurrency", &self.concurrency)
            .finish()
    }
}

/// A counting semaphore.
struct Slots {
    free: Mutex<usize>,
    cv: Condvar,
}

struct SlotGuard<'a>(&'a Slots);

impl Slots {
    fn acquire(&self) -> SlotGuard<'_> {
        let mut free = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *free -= 1;
        SlotGuard(self)
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *free += 1;
        self.0.cv.notify_one();
    }
}

/// The OpenAI-compatible client.
pub struct HttpClient {
    settings: HttpSettings,
    url: String,
    agent: ureq::Agent,
    slots: Slots,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient").field("settings", &self.settings).finish_non_exhaustive()
    }
}

/// The chat-completions URL of an endpoint, or why it is not one.
pub fn completions_url(endpoint: &str) -> Result<String, LlmError> {
    let e = endpoint.trim();
    if !(e.starts_with("http://") || e.starts_with("https://")) || e.len() <= "https://".len() {
        return Err(LlmError::Config(format!("endpoint \"{e}\": expected an http:// or https:// URL")));
    }
    let base = e.trim_end_matches('/');
    Ok(if base.ends_with("/chat/completions") { base.to_string() } else { format!("{base}/chat/completions") })
}

enum Attempt {
    Done(Completion),
    Retry { wait: Option<Duration>, error: LlmError },
    Fail(LlmError),
}

impl HttpClient {
    /// A client; the endpoint must be an http(s) URL and the model non-empty.
    pub fn new(settings: HttpSettings) -> Result<Self, LlmError> {
        let url = completions_url(&settings.endpoint)?;
        if settings.model.trim().is_empty() {
            return Err(LlmError::Config("model: expected a model name".into()));
        }
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(settings.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("warrant/", env!("CARGO_PKG_VERSION")))
            .build();
        let slots = Slots { free: Mutex::new(settings.concurrency.max(1)), cv: Condvar::new() };
        Ok(Self { agent: config.into(), url, slots, settings })
    }

    /// Upstream text without the key or anything shaped like one.
    fn redacted(&self, text: &str) -> String {
        redact(text, self.settings.api_key.as_deref()).into_owned()
    }

    fn attempt(&self, body: &str, model: &str, key: &str, attempts: u32) -> Attempt {
        let mut req = self.agent.post(&self.url).header("Content-Type", "application/json");
        if let Some(k) = &self.settings.api_key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let mut resp = match req.send(body) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => return Attempt::Retry { wait: None, error: LlmError::Timeout { attempts } },
            Err(e) => {
                let error = LlmError::Transport { attempts, message: self.redacted(&e.to_string()) };
                return match e {
                    ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                        Attempt::Retry { wait: None, error }
                    }
                    _ => Attempt::Fail(error),
                };
            }
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|s| s.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = match resp.body_mut().read_to_string() {
            Ok(t) => self.redacted(&t),
            Err(ureq::Error::Timeout(_)) => return Attempt::Retry { wait: None, error: LlmError::Timeout { attempts } },
            Err(e) => {
                return Attempt::Retry {
                    wait: None,
                    error: LlmError::Transport { attempts, message: self.redacted(&e.to_string()) },
                };
            }
        };
        if status == 429 || (500..600).contains(&status) {
            let body = text.chars().take(BODY_EXCERPT).collect();
            return Attempt::Retry { wait: retry_after, error: LlmError::Status { status, attempts, body } };
        }
        if !(200..300).contains(&status) {
            let body = text.chars().take(BODY_EXCERPT).collect();
            return Attempt::Fail(LlmError::Status { status, attempts, body });
        }
        match parse_chat_completion(&text) {
            Ok((content, prompt_tokens, completion_tokens)) => Attempt::Done(Completion {
                content,
                origin: Origin::Model,
                model: model.to_string(),
                request_key: key.to_string(),
                prompt_tokens,
                completion_tokens,
            }),
            Err(e) => Attempt::Fail(e),
        }
    }
}

impl LlmClient for HttpClient {
    fn complete(&self, prompt: &str, options: &CompletionOptions) -> Result<Completion, LlmError> {
        let body = request_body(&self.settings.model, prompt, options);
        let key = request_key(&self.settings.model, prompt, options);
        let model = options.model.clone().unwrap_or_else(|| self.settings.model.clone());
        let body = body.to_string();
        let _slot = self.slots.acquire();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            match self.attempt(&body, &model, &key, attempt) {
                Attempt::Done(c) => return Ok(c),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry { wait, error } => {
                    if attempt > self.settings.max_retries {
                        return Err(error);
                    }
                    let backoff = self.settings.backoff.saturating_mul(1u32 << (attempt - 1).min(16));
                    std::thread::sleep(wait.unwrap_or(backoff).min(MAX_BACKOFF));
                }
            }
        }
    }

    fn model(&self) -> &str {
        &self.settings.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(completions_url("http://h:1/v1/").unwrap(), "http://h:1/v1/chat/completions");
        assert_eq!(completions_url("https://x/v1/chat/completions").unwrap(), "https://x/v1/chat/completions");
        assert!(matches!(completions_url("ftp://x"), Err(LlmError::Config(_))));
        assert!(matches!(completions_url("http://"), Err(LlmError::Config(_))));
    }

    #[test]
    fn chat_completion_replies() {
        let (c, p, n) = parse_chat_completion(
            r#"{"choices":[{"message":{"role":"assistant","content":"{\"a\":1}"}}],"usage":{"prompt_tokens":7,"completion_tokens":3}}"#,
        )
        .unwrap();
        assert_eq!((c.as_str(), p, n), ("{\"a\":1}", Some(7), Some(3)));
        assert!(matches!(parse_chat_completion("{}"), Err(LlmError::BadResponse(m)) if m.contains("/choices/0/message/content")));
        assert!(matches!(parse_chat_completion("<html>"), Err(LlmError::BadResponse(m)) if m.starts_with("not JSON")));
    }

    #[test]
    fn debug_never_shows_the_key() {
        let s = HttpSettings {
            endpoint: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: Some("sk-secret-123".into()),
            timeout: Duration::from_secs(1),
            max_retries: 0,
            backoff: Duration::from_millis(1),
            concurrency: 1,
        };
        let c = HttpClient::new(s).unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("sk-secret-123") && d.contains("<redacted>"), "{d}");
    }
}
