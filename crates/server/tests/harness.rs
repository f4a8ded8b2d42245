//! A server on an ephemeral loopback port, and a minimal HTTP/1.1 client (std only) so the
//! tests see exactly the bytes a caller sees.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use warrant_server::{AppState, Config};

/// A running server; shut down (gracefully) on drop.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    pub token: Option<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Starts a server over the store in `dir` with settings adjusted by `adjust`.
    pub fn start(dir: &Path, adjust: impl FnOnce(&mut Config)) -> Server {
        let mut config = Config::new(dir);
        config.addr = "127.0.0.1:0".parse().expect("addr");
        config.token = Some("secret-token".into());
        adjust(&mut config);
        config.check().expect("config");
        let token = config.token.clone();
        let store = warrant_store::SqliteStore::open(dir).expect("open store");
        let state = AppState::new(config.clone(), store);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let st = state.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind(config.addr).await.expect("bind");
                addr_tx.send(listener.local_addr().expect("addr")).expect("send addr");
                warrant_server::serve(listener, st, async move {
                    let _ = rx.await;
                })
                .await
                .expect("serve");
            });
        });
        let addr = addr_rx.recv_timeout(Duration::from_secs(30)).expect("server started");
        Server { addr, state, token, stop: Some(tx), thread: Some(thread) }
    }

    /// Begins a graceful shutdown and waits for the server to finish.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Sends a request with the server's token.
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Response {
        let token = self.token.clone();
        let body = body.map(|b| b.to_string());
        request(self.addr, method, path, token.as_deref(), body.as_deref().map(|b| ("application/json", b.as_bytes())))
    }

    pub fn get(&self, path: &str) -> Response {
        self.call("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.call("POST", path, Some(body))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// A response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The error code of an error response (asserting the error shape).
    pub fn error_code(&self) -> String {
        let v = self.json();
        let e = &v["error"];
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "error without a message: {v}");
        assert!(e.get("details").is_some(), "error without details: {v}");
        e["code"].as_str().unwrap_or_else(|| panic!("not an error body: {v}")).to_string()
    }
}

/// One HTTP/1.1 request on its own connection.
pub fn request(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<(&str, &[u8])>) -> Response {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if let Some((ct, b)) = body {
        head.push_str(&format!("Content-Type: {ct}\r\nContent-Length: {}\r\n", b.len()));
    }
    head.push_str("\r\n");
    let _ = s.write_all(head.as_bytes());
    if let Some((_, b)) = body {
        // The server may answer (413) and close before reading everything.
        let _ = s.write_all(b);
    }
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Response {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("no response: {raw:?}"));
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).expect("status line");
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())).collect();
    let mut body = raw[end + 4..].to_vec();
    if headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked")) {
        body = dechunk(&body);
    }
    Response { status, headers, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(nl) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..nl]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + size]);
        b = &b[nl + 2 + size + 2..];
    }
    out
}
