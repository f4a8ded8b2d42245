//! Warrant as a service: every capability behind an HTTP API, as thin as the CLI — the same
//! library calls, the same JSON.
//!
//! - `POST /v1/validate`, `/v1/extract`, `/v1/policy/eval`, `/v1/check` (one answer, or
//!   `{"items": […]}`), `/v1/ingest`, `/v1/search`, `/v1/ask`, `/v1/compile`; `GET /v1/packs`, `/v1/openapi.json`,
//!   `/metrics` (Prometheus), `/healthz` and `/readyz`.
//! - Bearer-token auth on every route but the health checks; errors as
//!   `{"error": {"code", "message", "details"}}` with their status (400 bad JSON or shape,
//!   401, 404, 408 body too slow, 413 (at once when the declared length is over the limit),
//!   415, 422 semantically invalid, 429 overloaded, 503 timeout or not ready).
//! - CPU-bound work runs on the blocking pool ([`extract::Work`]), at most
//!   `max_concurrency` requests at once (more are refused with 429, never queued without
//!   bound); the store is shared (a pool of read connections, one writer).
//! - Deadlines a client cannot stretch: the request head must arrive within
//!   `header_timeout`, the body within `body_timeout` (408), an idle kept-alive connection is
//!   closed after `idle_timeout`.
//! - Graceful shutdown: [`serve`] stops accepting when its shutdown future resolves, reports
//!   not ready, finishes the requests in flight, and drops the connections still open after
//!   `shutdown_timeout` (half-sent requests included).
//!
//! The OpenAPI document is generated from the request and response types and handler
//! annotations (utoipa), and the router is built from the same declarations, so the document
//! lists exactly the routes served; the errors the middleware answers are added to every route
//! it guards ([`routes`]).

#![warn(missing_docs)]

mod api;
mod conn;
mod error;
mod extract;
mod metrics;

pub use api::ckf_schemas;
pub use error::{ApiError, ErrorBody, ErrorDetail};
pub use extract::parse_body;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;
use utoipa::OpenApi;
use warrant_store::Store;

use crate::extract::Slot;
use crate::metrics::{Metrics, StoreGauges};

/// Default largest request body, in bytes.
pub const DEFAULT_MAX_BODY: usize = 16 * 1024 * 1024;
/// Default request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default number of requests handled at once.
pub const DEFAULT_MAX_CONCURRENCY: usize = 256;
/// Default time for a request head to arrive, from its first byte.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time for a request body to arrive, once its head has.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time a kept-alive connection may sit idle.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default time shutdown waits for open connections before dropping them.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Routes that never need a token, a concurrency slot or a timeout.
const OPEN_ROUTES: [&str; 2] = ["/healthz", "/readyz"];

/// Server settings (`warrant serve`'s flags).
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// The store directory.
    pub store: PathBuf,
    /// The bearer token; `None` accepts every caller (loopback only).
    pub token: Option<String>,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Longest a request may take.
    pub timeout: Duration,
    /// Requests handled at once; more are refused with 429.
    pub max_concurrency: usize,
    /// Longest a request head may take to arrive, from its first byte (then the connection is
    /// closed).
    pub header_timeout: Duration,
    /// Longest a request body may take to arrive (then 408).
    pub body_timeout: Duration,
    /// Longest a kept-alive connection may sit without a request (then it is closed).
    pub idle_timeout: Duration,
    /// Longest shutdown waits for open connections before dropping them.
    pub shutdown_timeout: Duration,
}

impl Config {
    /// Settings with the defaults, for `store`.
    pub fn new(store: impl Into<PathBuf>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            store: store.into(),
            token: None,
            max_body: DEFAULT_MAX_BODY,
            timeout: DEFAULT_TIMEOUT,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }

    /// Refuses settings that cannot work: a non-loopback address without a token, zero
    /// limits, an empty token.
    pub fn check(&self) -> Result<(), ServeError> {
        if self.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(ServeError::Config("the token is empty".into()));
        }
        if !self.addr.ip().is_loopback() && self.token.is_none() {
            return Err(ServeError::Config(format!(
                "refusing to listen on {} without a token: pass --token or --token-file, or listen on a loopback address \
                 (127.0.0.1)",
                self.addr
            )));
        }
        if self.max_body == 0 || self.max_concurrency == 0 || self.timeout.is_zero() {
            return Err(ServeError::Config("--max-body, --max-concurrency and --timeout must be greater than 0".into()));
        }
        if [self.header_timeout, self.body_timeout, self.idle_timeout, self.shutdown_timeout].iter().any(Duration::is_zero) {
            return Err(ServeError::Config(
                "--header-timeout, --body-timeout, --idle-timeout and --shutdown-timeout must be greater than 0".into(),
            ));
        }
        Ok(())
    }
}

/// Why the server cannot start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Bad settings.
    #[error("{0}")]
    Config(String),
    /// The store cannot be opened.
    #[error("{0}")]
    Store(#[from] warrant_store::StoreError),
    /// Binding or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

struct Inner {
    config: Config,
    store: Arc<dyn Store>,
    metrics: Metrics,
    draining: AtomicBool,
    slots: Arc<Semaphore>,
    openapi: OnceLock<String>,
    vocabulary: Arc<warrant_facts::Vocabulary>,
}

/// What every handler shares: settings, the store, metrics, readiness.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl AppState {
    /// State over an open store (SQLite or PostgreSQL).
    pub fn new(config: Config, store: impl Store + 'static) -> Self {
        Self::shared(config, Arc::new(store))
    }

    /// State over a shared open store.
    pub fn shared(config: Config, store: Arc<dyn Store>) -> Self {
        let slots = Arc::new(Semaphore::new(config.max_concurrency));
        Self(Arc::new(Inner {
            config,
            store,
            metrics: Metrics::default(),
            draining: AtomicBool::new(false),
            slots,
            openapi: OnceLock::new(),
            vocabulary: Arc::new(warrant_facts::Vocabulary::builtin()),
        }))
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.0.config
    }

    /// The store.
    pub fn store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.0.store)
    }

    /// The predicate vocabulary facts are read with (the built-in one).
    pub fn vocabulary(&self) -> Arc<warrant_facts::Vocabulary> {
        Arc::clone(&self.0.vocabulary)
    }

    /// What use cases run against: the store and the vocabulary (no model: the server's
    /// checks are deterministic).
    pub fn env(&self) -> warrant::Env {
        warrant::Env::new()
            .with_store(self.store())
            .with_store_dir(warrant::runs_dir(&self.0.config.store))
            .with_vocabulary(self.vocabulary())
    }

    /// The metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.0.metrics
    }

    /// False once shutdown has begun.
    pub fn ready(&self) -> bool {
        !self.0.draining.load(Ordering::SeqCst)
    }

    /// Marks the server as shutting down (`/readyz` answers 503).
    pub fn set_draining(&self) {
        self.0.draining.store(true, Ordering::SeqCst);
    }

    /// The OpenAPI document as served.
    pub fn openapi_json(&self) -> &str {
        self.0.openapi.get().map_or("{}", String::as_str)
    }

    /// The store's size and counts, for `/metrics`.
    pub fn store_gauges(&self) -> Option<StoreGauges> {
        // The size on disk of an SQLite store folder's database; a PostgreSQL store (its size
        // is the server's to report) has no gauges here, as an in-memory store.
        let location = &self.0.config.store;
        if location.to_str().is_some_and(warrant_store::is_postgres_url) {
            return None;
        }
        let file = &location.join(warrant_store::STORE_FILE);
        if !file.is_file() {
            return None;
        }
        let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = file.as_os_str().to_owned();
        wal.push("-wal");
        let stats = self.0.store.stats().ok()?;
        Some(StoreGauges {
            bytes: size(file) + size(std::path::Path::new(&wal)),
            documents: stats.documents,
            chunks: stats.chunks,
            facts: stats.total_facts,
        })
    }
}

/// The OpenAPI document's frame: title, version, the bearer scheme; the paths and schemas
/// come from the routes registered in [`app`].
#[derive(OpenApi)]
#[openapi(
    info(title = "Warrant API", description = "Check what AI models say: the HTTP API of `warrant serve`. Bodies are the CLI's JSON.", license(name = "Apache-2.0")),
    servers(
        (url = "/", description = "The server this document was fetched from"),
        (url = "http://127.0.0.1:8080", description = "`warrant serve`'s default address (`--addr`)"),
    ),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    components(schemas(error::ErrorBody, error::ErrorDetail)),
)]
struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "`Authorization: Bearer <token>`, the token given to `warrant serve --token` or `--token-file`. A server \
                 started without a token (loopback only) accepts every caller. `/healthz` and `/readyz` never need one.",
            ))
            .build();
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// Declares the errors the middleware can answer on every route it guards (the handlers
/// declare their own 400, 404 and 422): 401 on every route that needs the token; 408, 413,
/// 429, 503 and 500 on every route that takes a request slot; 415 on every route with a body.
struct ErrorResponses;

impl utoipa::Modify for ErrorResponses {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::PartialSchema;
        use utoipa::openapi::{ContentBuilder, HeaderBuilder, Ref, ResponseBuilder, Type};
        let error = |description: &str, retry: bool| {
            let mut r = ResponseBuilder::new()
                .description(description)
                .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build());
            if retry {
                let seconds = utoipa::openapi::ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0));
                let header = HeaderBuilder::new().schema(seconds).description(Some("Seconds to wait before retrying")).build();
                r = r.header("Retry-After", header);
            }
            r.build()
        };
        let unauthorized = {
            let header = HeaderBuilder::new().schema(String::schema()).description(Some("`Bearer`")).build();
            let mut r = error("No token, or not the server's (`error.code`: `unauthorized`)", false);
            r.headers.insert("WWW-Authenticate".into(), header);
            r
        };
        for (path, item) in doc.paths.paths.iter_mut() {
            let open = OPEN_ROUTES.contains(&path.as_str());
            let guarded = !open && path != "/metrics";
            for op in [&mut item.get, &mut item.post].into_iter().flatten() {
                let has_body = op.request_body.is_some();
                let mut add = |status: &str, response: utoipa::openapi::Response| {
                    op.responses.responses.entry(status.to_string()).or_insert_with(|| response.into());
                };
                if !open {
                    add("401", unauthorized.clone());
                }
                if guarded {
                    add("400", error("The request body cannot be read (`bad_request`)", false));
                    add("408", error("The request body did not arrive within `--body-timeout` (`request_timeout`)", false));
                    add("413", error("The request body is larger than `--max-body` (`payload_too_large`)", false));
                    add("429", error("Every request slot (`--max-concurrency`) is taken (`overloaded`); retry", true));
                    add(
                        "503",
                        error(
                            "The request took longer than `--timeout` (`timeout`), or the store is busy (`not_ready`); retry",
                            true,
                        ),
                    );
                    add("500", error("A failure that is not the caller's (`internal`)", false));
                }
                if has_body {
                    add(
                        "415",
                        error("The body is not declared as `Content-Type: application/json` (`unsupported_media_type`)", false),
                    );
                }
                // Status order, as a reader expects.
                let mut all: Vec<_> = std::mem::take(&mut op.responses.responses).into_iter().collect();
                all.sort_by(|a, b| a.0.cmp(&b.0));
                op.responses.responses.extend(all);
            }
        }
    }
}

/// The routes and the OpenAPI document describing exactly them.
pub fn routes() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    let (router, mut doc) = api::register(utoipa_axum::router::OpenApiRouter::with_openapi(doc)).split_for_parts();
    // After the routes are registered: the derive's modifiers run before there are paths.
    utoipa::Modify::modify(&ErrorResponses, &mut doc);
    if let (Some(components), Some(ckf)) = (doc.components.as_mut(), api::ckf_schemas()) {
        components.schemas.extend(ckf);
    }
    (router, doc)
}

/// The OpenAPI document.
pub fn openapi() -> utoipa::openapi::OpenApi {
    routes().1
}

/// The application: routes, auth, limits, metrics and request logs.
pub fn app(state: AppState) -> Router {
    let (router, doc) = routes();
    let json = doc.to_pretty_json().unwrap_or_else(|_| "{}".into());
    let _ = state.0.openapi.set(json);
    router
        .fallback(|req: Request| async move { ApiError::not_found(req.uri().path()) })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(middleware::from_fn_with_state(state.clone(), auth))
        .layer(DefaultBodyLimit::max(state.config().max_body))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// Counts and logs every request.
async fn observe(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string());
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let start = Instant::now();
    state.metrics().start();
    let resp = next.run(req).await;
    let elapsed = start.elapsed();
    let status = resp.status().as_u16();
    state.metrics().finish(&route, method.as_str(), status, elapsed);
    tracing::info!(
        target: "warrant::http",
        method = %method,
        route = %route,
        path = %path,
        status,
        latency_us = elapsed.as_micros() as u64,
        "request"
    );
    resp
}

/// Equal in time independent of where the inputs differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Bearer-token auth on every route but the health checks.
async fn auth(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(token) = state.config().token.as_deref() else { return next.run(req).await };
    if OPEN_ROUTES.contains(&req.uri().path()) {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    match given {
        Some(g) if constant_time_eq(g.as_bytes(), token.as_bytes()) => next.run(req).await,
        _ => {
            let mut resp = ApiError::unauthorized().into_response();
            resp.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
            resp
        }
    }
}

/// A concurrency slot (429 when none is free), the body (413 at once when its declared length
/// is over the limit, 408 when it does not arrive in time) and the timeout (503), for every
/// route but the health checks and metrics.
async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if OPEN_ROUTES.contains(&path) || path == "/metrics" {
        return next.run(req).await;
    }
    let max_body = state.config().max_body;
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_body as u64) {
        return ApiError::too_large(max_body).into_response();
    }
    let limit = state.config().max_concurrency;
    let Ok(permit) = Arc::clone(&state.0.slots).try_acquire_owned() else {
        return ApiError::overloaded(limit).into_response();
    };
    let mut req = match read_body(req, max_body, state.config().body_timeout).await {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    req.extensions_mut().insert(Slot(Arc::new(permit)));
    let timeout = state.config().timeout;
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => ApiError::timeout(timeout.as_secs_f64()).into_response(),
    }
}

/// The request with its body read into memory: at most `limit` bytes (413), within `timeout`
/// (408), so that a client that stalls cannot hold its slot longer than that.
async fn read_body(req: Request, limit: usize, timeout: Duration) -> Result<Request, ApiError> {
    use http_body_util::{BodyExt, LengthLimitError, Limited};
    let (parts, body) = req.into_parts();
    match tokio::time::timeout(timeout, Limited::new(body, limit).collect()).await {
        Err(_) => Err(ApiError::body_timeout(timeout.as_secs_f64())),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(ApiError::too_large(limit)),
        Ok(Err(e)) => Err(ApiError::bad_request(format!("cannot read the request body: {e}"))),
        Ok(Ok(collected)) => Ok(Request::from_parts(parts, axum::body::Body::from(collected.to_bytes()))),
    }
}

/// Serves `state` on `listener` until `shutdown` resolves, then reports not ready, stops
/// accepting, finishes the requests in flight and, after `shutdown_timeout`, drops the
/// connections still open. Request heads, bodies and idle connections have their deadlines
/// ([`Config`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = app(state.clone());
    let c = state.config();
    let deadlines = conn::Deadlines { header: c.header_timeout, idle: c.idle_timeout, shutdown: c.shutdown_timeout };
    conn::serve(listener, app, deadlines, shutdown, || {
        state.set_draining();
        tracing::info!(target: "warrant::http", "shutting down: finishing requests in flight");
    })
    .await;
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Runs the server until SIGTERM or Ctrl-C: checks the settings, opens (or creates) the
/// store, binds, then calls `on_listening` with the bound address (the port, when the
/// address asked for port 0).
pub fn run(config: Config, on_listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    config.check()?;
    // A folder is created if missing; a PostgreSQL URL names a migrated database.
    let store: Arc<dyn Store> = Arc::from(warrant_store::open(&config.store)?);
    // A PostgreSQL store closes its connections with a blocking call, which must not run on
    // the runtime: this handle is dropped last, after the runtime has stopped.
    let _last_handle = Arc::clone(&store);
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .max_blocking_threads(workers)
        .thread_name("warrant-serve")
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let state = AppState::shared(config, store);
        on_listening(addr);
        tracing::info!(target: "warrant::http", %addr, "listening");
        serve(listener, state, shutdown_signal()).await?;
        Ok::<(), ServeError>(())
    })?;
    // Work a dropped request started on the blocking pool does not hold the process.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
