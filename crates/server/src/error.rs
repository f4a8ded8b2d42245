//! Errors as `{"error": {"code", "message", "details"}}` with their HTTP status.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The error body every failure returns.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// A stable machine-readable code: `bad_request`, `unauthorized`, `not_found`,
    /// `method_not_allowed`, `request_timeout`, `payload_too_large`, `unsupported_media_type`,
    /// `unprocessable`, `overloaded`, `timeout`, `not_ready`, `internal`.
    pub code: String,
    /// What is wrong and what was expected, for a person.
    pub message: String,
    /// Where (a JSON `pointer`, `line` and `column`) and other specifics; `null` when none.
    #[schema(value_type = Object, nullable)]
    pub details: Value,
}

/// A failed request: status, code, message and details.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable code.
    pub code: &'static str,
    /// Message.
    pub message: String,
    /// Details (`Value::Null` when none).
    pub details: Value,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into(), details: Value::Null }
    }

    /// Adds details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// 400: the body is not JSON or does not have the request's shape.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 401: missing or wrong bearer token.
    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", "a valid bearer token is required (Authorization: Bearer <token>)")
    }

    /// 404: no such route.
    pub fn not_found(path: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", format!("no route {path} (see GET /v1/openapi.json)"))
    }

    /// 404: the route exists; what it names does not (a research run id, …).
    pub fn missing(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 405: the route exists, not with this method.
    pub fn method_not_allowed() -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "this route does not take that method")
    }

    /// 413: the body is larger than `--max-body`.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the request body is larger than the limit of {limit} bytes (raise it with --max-body)"),
        )
        .with_details(serde_json::json!({ "limit": limit }))
    }

    /// 408: the request body did not arrive within `--body-timeout`.
    pub fn body_timeout(secs: f64) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!("the request body did not arrive within {secs} s (raise the limit with --body-timeout)"),
        )
        .with_details(serde_json::json!({ "body_timeout_secs": secs }))
    }

    /// 415: the body is not declared as JSON.
    pub fn unsupported_media_type() -> Self {
        Self::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", "expected Content-Type: application/json")
    }

    /// 422: well-formed, but semantically invalid (an invalid graph, an unknown pack).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "unprocessable", message)
    }

    /// 422 with the JSON pointer of what is wrong.
    pub fn unprocessable_at(pointer: &str, message: impl Into<String>) -> Self {
        Self::unprocessable(message).with_details(serde_json::json!({ "pointer": pointer }))
    }

    /// 429: every request slot is taken.
    pub fn overloaded(limit: usize) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "overloaded",
            format!("the server is handling its maximum of {limit} requests; retry shortly"),
        )
        .with_details(serde_json::json!({ "max_concurrency": limit }))
    }

    /// 503: the request took longer than `--timeout`.
    pub fn timeout(secs: f64) -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the request took longer than the limit of {secs} s (raise it with --timeout)"),
        )
        .with_details(serde_json::json!({ "timeout_secs": secs }))
    }

    /// 503: not ready (starting or shutting down).
    pub fn not_ready(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "not_ready", message)
    }

    /// 500: a failure that is not the caller's (a store failure, a bug).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// A store failure: a busy store is 503 (retry), anything else 500.
    pub fn store(e: warrant_store::StoreError) -> Self {
        match e {
            warrant_store::StoreError::Busy => Self::not_ready(e.to_string()),
            warrant_store::StoreError::Invalid(m) => Self::unprocessable(m),
            other => Self::internal(other.to_string()),
        }
    }

    /// The body.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail { code: self.code.to_string(), message: self.message.clone(), details: self.details.clone() },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry = matches!(self.status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE);
        let mut resp = (self.status, axum::Json(self.body())).into_response();
        if retry {
            resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        resp
    }
}

/// A use case's failure: a request of the wrong shape is 400; bad input 422 (both with the
/// JSON pointer when there is one); a busy store 503 (retry); a store or internal failure 500.
impl From<warrant::Error> for ApiError {
    fn from(e: warrant::Error) -> Self {
        use warrant::ErrorKind;
        let pointer = e.location.pointer.clone();
        let problems = (!e.problems.is_empty()).then(|| serde_json::json!({ "errors": e.problems }));
        let err = match e.kind {
            ErrorKind::Usage => Self::bad_request(e.message),
            ErrorKind::Input | ErrorKind::Model => Self::unprocessable(e.message),
            ErrorKind::StoreBusy => Self::not_ready(e.message),
            ErrorKind::Store | ErrorKind::Internal => Self::internal(e.message),
        };
        match (problems, pointer) {
            (Some(list), _) => err.with_details(list),
            (None, Some(p)) if matches!(err.status, StatusCode::UNPROCESSABLE_ENTITY | StatusCode::BAD_REQUEST) => {
                err.with_details(serde_json::json!({ "pointer": p }))
            }
            _ => err,
        }
    }
}

/// Handler results.
pub type ApiResult<T> = Result<T, ApiError>;
