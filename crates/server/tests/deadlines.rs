//! Deadlines a client cannot stretch (issue 17): a request head that never ends, a body that
//! stalls or is declared too large, an idle kept-alive connection, and shutdown with
//! half-open connections. The timeouts here bound how long a test waits for what must happen;
//! nothing is timed for speed.

mod harness;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use harness::Server;

fn store_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    // How long the test waits for what must happen, not a measurement.
    s.set_read_timeout(Some(Duration::from_secs(20))).expect("read timeout");
    s
}

/// Reads until the server closes the connection; what it sent. Panics when the test's wait
/// runs out first (the connection was left open).
fn read_until_closed(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return out,
            Err(e) => panic!("the server left the connection open ({e}); got {:?}", String::from_utf8_lossy(&out)),
        }
    }
}

fn status_of(raw: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(raw);
    text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("no status line in {text:?}"))
}

fn head(addr: SocketAddr, token: &str, length: u64) -> String {
    format!(
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
}

#[test]
fn a_body_declared_over_the_limit_is_413_at_once() {
    let dir = store_dir();
    // A body that never comes would take the body timeout (10 min here) to refuse.
    let server = Server::start(dir.path(), |c| {
        c.max_body = 1000;
        c.body_timeout = Duration::from_secs(600);
    });
    let mut s = connect(server.addr);
    s.write_all(head(server.addr, "secret-token", 1 << 30).as_bytes()).expect("write");
    let raw = read_until_closed(&mut s);
    assert_eq!(status_of(&raw), 413, "{}", String::from_utf8_lossy(&raw));
    assert!(String::from_utf8_lossy(&raw).contains("payload_too_large"));
}

#[test]
fn a_body_that_stalls_is_408() {
    let dir = store_dir();
    let server = Server::start(dir.path(), |c| c.body_timeout = Duration::from_millis(300));
    let mut s = connect(server.addr);
    s.write_all(head(server.addr, "secret-token", 100).as_bytes()).expect("write");
    s.write_all(b"{\"answer\": ").expect("write");
    let raw = read_until_closed(&mut s);
    assert_eq!(status_of(&raw), 408, "{}", String::from_utf8_lossy(&raw));
    assert!(String::from_utf8_lossy(&raw).contains("\"code\":\"request_timeout\""));
    // The server is still there for everyone else.
    assert_eq!(server.get("/healthz").status, 200);
}

#[test]
fn a_request_head_that_never_ends_is_closed_after_the_header_timeout() {
    let dir = store_dir();
    let server = Server::start(dir.path(), |c| c.header_timeout = Duration::from_millis(300));
    let mut s = connect(server.addr);
    s.write_all(b"POST /v1/check HTTP/1.1\r\nHost: x\r\nX-Slow: ").expect("write");
    read_until_closed(&mut s);
    assert_eq!(server.get("/healthz").status, 200);
}

#[test]
fn an_idle_kept_alive_connection_is_closed_after_the_idle_timeout() {
    let dir = store_dir();
    let server = Server::start(dir.path(), |c| c.idle_timeout = Duration::from_millis(300));
    let mut s = connect(server.addr);
    // One request on a kept-alive connection is answered; then the connection idles.
    s.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).expect("write");
    let raw = read_until_closed(&mut s);
    assert_eq!(status_of(&raw), 200, "{}", String::from_utf8_lossy(&raw));
    // A connection that never sends anything is closed too.
    let mut quiet = connect(server.addr);
    assert!(read_until_closed(&mut quiet).is_empty());
}

#[test]
fn shutdown_drops_half_open_connections_at_the_deadline() {
    let dir = store_dir();
    // Head and body timeouts far away: only the shutdown deadline can end these connections.
    let server = Server::start(dir.path(), |c| {
        c.header_timeout = Duration::from_secs(600);
        c.body_timeout = Duration::from_secs(600);
        c.idle_timeout = Duration::from_secs(600);
        c.shutdown_timeout = Duration::from_millis(500);
    });
    let addr = server.addr;
    let mut open = Vec::new();
    for i in 0..20 {
        let mut s = connect(addr);
        if i % 2 == 0 {
            // Part of a header.
            s.write_all(b"POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-").expect("write");
        } else {
            // A whole head and part of its body: a request in flight.
            s.write_all(head(addr, "secret-token", 100).as_bytes()).expect("write");
            s.write_all(b"{\"answer\"").expect("write");
        }
        open.push(s);
    }
    // Every connection is being served before shutdown begins.
    assert_eq!(server.get("/healthz").status, 200);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        server.shutdown();
        let _ = done_tx.send(());
    });
    done_rx.recv_timeout(Duration::from_secs(30)).expect("the server shut down despite 20 half-open connections");
    for s in &mut open {
        read_until_closed(s);
    }
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_err(), "still accepting after shutdown");
}
