//! Request plumbing: the JSON body extractor (400 with a JSON pointer for a body of the wrong
//! shape, 413 past `--max-body`) and [`Work`], which runs CPU-bound library calls off the
//! async runtime while holding the request's concurrency slot.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::sync::OwnedSemaphorePermit;

use crate::AppState;
use crate::error::ApiError;

/// A JSON request body of type `T`.
pub struct JsonBody<T>(pub T);

/// A serde path as a JSON pointer (`items[0].answer` → `/items/0/answer`).
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => out.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1"))),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// True for `application/json` and `application/*+json` (parameters allowed).
fn is_json(parts: &Parts) -> bool {
    let Some(ct) = parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else { return false };
    let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// Parses a JSON body into `T`: a syntax error names the line and column, a shape error the
/// JSON pointer.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let at = pointer(e.path());
        let inner = e.into_inner();
        if inner.is_data() {
            let ptr = if at.is_empty() { "/".to_string() } else { at };
            ApiError::bad_request(format!("the request body does not have the expected shape at {ptr}: {inner}"))
                .with_details(json!({"pointer": ptr, "line": inner.line(), "column": inner.column()}))
        } else {
            ApiError::bad_request(format!("the request body is not valid JSON: {inner}"))
                .with_details(json!({"line": inner.line(), "column": inner.column()}))
        }
    })?;
    de.end().map_err(|e| {
        ApiError::bad_request(format!("the request body is not valid JSON: {e}"))
            .with_details(json!({"line": e.line(), "column": e.column()}))
    })?;
    Ok(value)
}

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let (parts, body) = req.into_parts();
        if !is_json(&parts) {
            return Err(ApiError::unsupported_media_type());
        }
        let limit = state.config().max_body;
        let bytes = Bytes::from_request(Request::from_parts(parts, body), state).await.map_err(|rej| {
            if rej.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large(limit)
            } else {
                ApiError::bad_request(format!("cannot read the request body: {}", rej.body_text()))
            }
        })?;
        parse_body(&bytes).map(JsonBody)
    }
}

/// The request's concurrency slot, handed to CPU-bound work so that a request that timed out
/// keeps its slot until its work really ends (the server never runs more work than
/// `--max-concurrency`).
#[derive(Clone)]
pub struct Slot(#[allow(dead_code)] pub Arc<OwnedSemaphorePermit>); // held, never read: dropping it frees the slot

/// Runs CPU-bound work on the blocking pool.
pub struct Work(Option<Slot>);

impl<S: Send + Sync> FromRequestParts<S> for Work {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Work(parts.extensions.get::<Slot>().cloned()))
    }
}

impl Work {
    /// Runs `f` on the blocking pool and returns what it returns.
    pub async fn run<R: Send + 'static>(self, f: impl FnOnce() -> R + Send + 'static) -> Result<R, ApiError> {
        let slot = self.0;
        tokio::task::spawn_blocking(move || {
            let out = f();
            drop(slot);
            out
        })
        .await
        .map_err(|e| ApiError::internal(format!("the work failed: {e}")))
    }
}
