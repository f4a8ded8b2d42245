//! Connections: the accept loop, and the deadlines a client cannot stretch.
//!
//! - **Header read timeout**: from the first byte of a request to the end of its head.
//! - **Idle timeout**: a kept-alive connection with no request in flight and no byte of a new
//!   one is closed.
//! - **Shutdown deadline**: when shutdown begins the server stops accepting, asks every
//!   connection to close after its request in flight, and drops whatever is still open when
//!   the deadline passes (half-sent requests included).
//!
//! The body deadline (408) and the declared-length refusal (413) are per request, in the
//! middleware ([`crate::read_body`]).

use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// The connection deadlines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadlines {
    pub header: Duration,
    pub idle: Duration,
    pub shutdown: Duration,
}

/// What a connection is doing, as seen by its reads, writes and requests.
struct Activity(Mutex<State>);

struct State {
    /// Requests handed to the application and not yet answered.
    in_flight: usize,
    /// When the connection last made progress with nothing in flight (accepted, answered,
    /// wrote).
    since: Instant,
    /// When the first byte of the next request head arrived, while it is incomplete.
    head_started: Option<Instant>,
}

impl Activity {
    fn new() -> Self {
        Self(Mutex::new(State { in_flight: 0, since: Instant::now(), head_started: None }))
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    fn read(&self) {
        self.with(|s| {
            if s.in_flight == 0 && s.head_started.is_none() {
                s.head_started = Some(Instant::now());
            }
        });
    }

    fn wrote(&self) {
        self.with(|s| s.since = Instant::now());
    }

    /// A request head is complete and handed to the application.
    fn begin(self: &Arc<Self>) -> InFlight {
        self.with(|s| {
            s.in_flight += 1;
            s.head_started = None;
        });
        InFlight(Arc::clone(self))
    }

    /// When the connection is to be closed, if nothing happens before; `None` while a request
    /// is in flight (its own timeouts apply).
    fn deadline(&self, d: &Deadlines) -> Option<Instant> {
        self.with(|s| match (s.in_flight, s.head_started) {
            (0, Some(t)) => Some(t + d.header),
            (0, None) => Some(s.since + d.idle),
            _ => None,
        })
    }
}

/// A request in flight; its end restarts the idle clock.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.with(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            s.since = Instant::now();
        });
    }
}

/// A socket that reports its reads and writes to its [`Activity`].
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Resolves when the connection has passed its header or idle deadline.
async fn expired(activity: &Activity, d: Deadlines) {
    loop {
        match activity.deadline(&d) {
            Some(at) if at <= Instant::now() => return,
            Some(at) => tokio::time::sleep_until(at.into()).await,
            None => tokio::time::sleep(d.header.min(d.idle)).await,
        }
    }
}

/// Serves one connection until it ends, passes a deadline, or is dropped at shutdown.
async fn connection(stream: TcpStream, app: Router, d: Deadlines, mut draining: watch::Receiver<bool>) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched { stream, activity: Arc::clone(&activity) });
    let service = Tracked { app, activity: Arc::clone(&activity) };
    let conn = hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(io, service);
    let mut conn = pin!(conn);
    let mut timer = pin!(expired(&activity, d));
    let mut closing = false;
    if *draining.borrow() {
        conn.as_mut().graceful_shutdown();
        closing = true;
    }
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            () = timer.as_mut() => return,
            _ = draining.changed(), if !closing => {
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}

/// The application as a hyper service that marks each request in flight until answered.
struct Tracked {
    app: Router,
    activity: Arc<Activity>,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Tracked {
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, req: hyper::Request<Incoming>) -> Self::Future {
        let in_flight = self.activity.begin();
        // A router is always ready: calling it without `poll_ready` is what axum does too.
        let fut = tower_service::Service::call(&mut self.app.clone(), req);
        Box::pin(async move {
            let out = fut.await;
            drop(in_flight);
            out
        })
    }
}

/// Accepts connections until `shutdown` resolves, then drains them until the shutdown
/// deadline and drops the rest. `on_drain` runs when shutdown begins.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    d: Deadlines,
    shutdown: impl std::future::Future<Output = ()>,
    on_drain: impl FnOnce(),
) {
    let (drain_tx, drain_rx) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            () = shutdown.as_mut() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tasks.spawn(connection(stream, app.clone(), d, drain_rx.clone()));
                }
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(e) => {
                    tracing::warn!(target: "warrant::http", error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    drop(listener);
    on_drain();
    let _ = drain_tx.send(true);
    let mut deadline = pin!(tokio::time::sleep(d.shutdown));
    loop {
        tokio::select! {
            next = tasks.join_next() => if next.is_none() { return },
            () = deadline.as_mut() => {
                tracing::warn!(target: "warrant::http", connections = tasks.len(), "shutdown deadline passed: dropping the connections still open");
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                return;
            }
        }
    }
}
