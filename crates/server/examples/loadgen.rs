//! A small HTTP/1.1 load generator for `bench/serve/run.sh`: N keep-alive connections send
//! the same request for a fixed time (loopback only), then the throughput and latency
//! percentiles are printed as one JSON line.
//!
//! ```text
//! cargo run --release -p warrant-server --example loadgen -- \
//!     --addr 127.0.0.1:8080 --path /v1/check --body body.json --token T -c 64 -d 20
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Args {
    addr: SocketAddr,
    method: String,
    path: String,
    body: Vec<u8>,
    token: Option<String>,
    connections: usize,
    duration: Duration,
    warmup: Duration,
}

fn usage(msg: &str) -> ! {
    eprintln!("loadgen: {msg}");
    eprintln!("usage: loadgen --addr ADDR --path PATH [--method M] [--body FILE] [--token T] [-c N] [-d SECS] [--warmup SECS]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        addr: "127.0.0.1:8080".parse().unwrap_or_else(|_| usage("bad default address")),
        method: "POST".into(),
        path: String::new(),
        body: Vec::new(),
        token: None,
        connections: 64,
        duration: Duration::from_secs(20),
        warmup: Duration::from_secs(2),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--addr" => a.addr = val().parse().unwrap_or_else(|_| usage("--addr: expected HOST:PORT")),
            "--method" => a.method = val(),
            "--path" => a.path = val(),
            "--body" => a.body = std::fs::read(val()).unwrap_or_else(|e| usage(&format!("--body: {e}"))),
            "--token" => a.token = Some(val()),
            "-c" => a.connections = val().parse().unwrap_or_else(|_| usage("-c: expected a number")),
            "-d" => a.duration = Duration::from_secs_f64(val().parse().unwrap_or_else(|_| usage("-d: expected seconds"))),
            "--warmup" => {
                a.warmup = Duration::from_secs_f64(val().parse().unwrap_or_else(|_| usage("--warmup: expected seconds")))
            }
            other => usage(&format!("unknown flag {other}")),
        }
    }
    if a.path.is_empty() {
        usage("--path is required");
    }
    if !a.addr.ip().is_loopback() {
        usage("loopback addresses only");
    }
    if a.duration > Duration::from_secs(60) {
        usage("-d: at most 60 seconds");
    }
    a
}

/// What one connection saw.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    non_2xx: u64,
    io_errors: u64,
}

/// Reads one response; returns its status.
async fn read_response(s: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<u16> {
    buf.clear();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status: u16 = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| std::io::Error::other("response without content-length"))?;
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(status)
}

async fn connection(addr: SocketAddr, request: std::sync::Arc<Vec<u8>>, start_at: Instant, end_at: Instant) -> Tally {
    let mut t = Tally::default();
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut stream: Option<TcpStream> = None;
    while Instant::now() < end_at {
        if stream.is_none() {
            match TcpStream::connect(addr).await {
                Ok(s) => {
                    let _ = s.set_nodelay(true);
                    stream = Some(s);
                }
                Err(_) => {
                    t.io_errors += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(s) = stream.as_mut() else { continue };
        let sent = Instant::now();
        let outcome = async {
            s.write_all(&request).await?;
            read_response(s, &mut buf).await
        }
        .await;
        let elapsed = sent.elapsed();
        if sent < start_at {
            // Warm-up: not counted.
            if outcome.is_err() {
                stream = None;
            }
            continue;
        }
        match outcome {
            Ok(status) => {
                t.latencies_us.push(elapsed.as_micros().min(u128::from(u32::MAX)) as u32);
                if !(200..300).contains(&status) {
                    t.non_2xx += 1;
                }
            }
            Err(_) => {
                t.io_errors += 1;
                stream = None;
            }
        }
    }
    t
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[i]) / 1000.0
}

fn main() {
    let a = parse_args();
    let mut req = format!("{} {} HTTP/1.1\r\nHost: {}\r\n", a.method, a.path, a.addr);
    if let Some(t) = &a.token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if !a.body.is_empty() || a.method == "POST" {
        req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", a.body.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(&a.body);
    let request = std::sync::Arc::new(bytes);
    // One thread: the generator takes as little CPU from the server as it can.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| usage(&e.to_string()));
    let start_at = Instant::now() + a.warmup;
    let end_at = start_at + a.duration;
    let tallies: Vec<Tally> = rt.block_on(async {
        let tasks: Vec<_> =
            (0..a.connections).map(|_| tokio::spawn(connection(a.addr, request.clone(), start_at, end_at))).collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap_or_default());
        }
        out
    });
    let mut lat: Vec<u32> = tallies.iter().flat_map(|t| t.latencies_us.iter().copied()).collect();
    lat.sort_unstable();
    let non_2xx: u64 = tallies.iter().map(|t| t.non_2xx).sum();
    let io_errors: u64 = tallies.iter().map(|t| t.io_errors).sum();
    let secs = a.duration.as_secs_f64();
    println!(
        "{{\"path\":\"{}\",\"connections\":{},\"duration_s\":{secs},\"requests\":{},\"non_2xx\":{non_2xx},\"io_errors\":{io_errors},\
         \"rps\":{:.0},\"p50_ms\":{:.3},\"p90_ms\":{:.3},\"p99_ms\":{:.3},\"max_ms\":{:.3}}}",
        a.path,
        a.connections,
        lat.len(),
        lat.len() as f64 / secs,
        percentile(&lat, 0.50),
        percentile(&lat, 0.90),
        percentile(&lat, 0.99),
        lat.last().map_or(0.0, |m| f64::from(*m) / 1000.0),
    );
}
