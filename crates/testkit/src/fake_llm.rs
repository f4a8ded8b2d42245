//! A fake OpenAI-compatible chat-completions server on loopback, for tests (no network).
//!
//! The server answers from scripted rules: the first rule whose `when` text occurs in the
//! request's prompt (the last message's content), or a rule without `when`, gives its next
//! reply; a rule's last reply repeats. Every request is recorded (body and headers) for
//! assertions. Each connection is served on its own thread with `Connection: close`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// HTTP 200 with a chat completion whose message content is this text.
    Content(String),
    /// This status and body (for 429, 500, 401, …).
    Status(u16, String),
    /// HTTP 429 with a `Retry-After: 0` header.
    RateLimited,
    /// Wait, then give the inner reply (longer than the client's timeout: a timeout).
    Delay(Duration, Box<Reply>),
    /// Echo the request's headers (`authorization: Bearer …` included), as a misconfigured
    /// endpoint or proxy does: in an error body for a status other than 200, as the
    /// completion's content for 200.
    EchoHeaders(u16),
}

impl Reply {
    /// A chat completion carrying `v` serialised as its content.
    pub fn json(v: &Value) -> Self {
        Self::Content(v.to_string())
    }
}

/// A rule: replies for prompts containing `when` (any prompt when `None`).
#[derive(Debug, Clone)]
pub struct Rule {
    /// Text the prompt must contain.
    pub when: Option<String>,
    /// Replies in order; the last repeats.
    pub replies: Vec<Reply>,
}

impl Rule {
    /// A rule for prompts containing `text`.
    pub fn when(text: &str, replies: Vec<Reply>) -> Self {
        Self { when: Some(text.to_string()), replies }
    }

    /// A rule for any prompt.
    pub fn any(replies: Vec<Reply>) -> Self {
        Self { when: None, replies }
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Request path.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
}

impl Received {
    /// The prompt: the last message's content.
    pub fn prompt(&self) -> &str {
        self.body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("")
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

struct State {
    rules: Vec<(Rule, usize)>,
    received: Vec<Received>,
}

/// The running server; stops when dropped.
pub struct FakeLlm {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl FakeLlm {
    /// Starts a server on 127.0.0.1 with these rules.
    pub fn start(rules: Vec<Rule>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(State { rules: rules.into_iter().map(|r| (r, 0)).collect(), received: Vec::new() }));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = s.clone();
                std::thread::spawn(move || serve(conn, &s));
            }
        });
        Self { addr, state, stop }
    }

    /// The base URL to configure (`http://127.0.0.1:<port>/v1`).
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.state.lock().map(|s| s.received.clone()).unwrap_or_default()
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.received().len()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(mut conn: TcpStream, state: &Mutex<State>) {
    let Some(req) = read_request(&conn) else { return };
    let echo: Vec<String> = req.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let reply = {
        let Ok(mut s) = state.lock() else { return };
        let prompt = req.prompt().to_string();
        s.received.push(req);
        let pick = s.rules.iter_mut().find(|(r, _)| r.when.as_deref().is_none_or(|w| prompt.contains(w)));
        match pick {
            Some((rule, next)) if !rule.replies.is_empty() => {
                let i = (*next).min(rule.replies.len() - 1);
                *next += 1;
                rule.replies[i].clone()
            }
            _ => Reply::Status(404, "{\"error\":\"no scripted reply for this prompt\"}".into()),
        }
    };
    let reply = match reply {
        Reply::EchoHeaders(200) => Reply::Content(format!("you sent:\n{}", echo.join("\n"))),
        Reply::EchoHeaders(status) => Reply::Status(
            status,
            json!({"error": {"message": format!("bad request; you sent:\n{}", echo.join("\n"))}}).to_string(),
        ),
        other => other,
    };
    respond(&mut conn, reply);
}

fn respond(conn: &mut TcpStream, reply: Reply) {
    let (status, body, extra) = match reply {
        Reply::Delay(d, inner) => {
            std::thread::sleep(d);
            return respond(conn, *inner);
        }
        Reply::Content(c) => {
            let body = json!({
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": c}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
            });
            (200, body.to_string(), "")
        }
        Reply::Status(s, b) => (s, b, ""),
        Reply::RateLimited => (429, "{\"error\":\"rate limited\"}".into(), "Retry-After: 0\r\n"),
        // Turned into a status or a completion by `serve`, which knows the request.
        Reply::EchoHeaders(s) => (s, String::new(), ""),
    };
    let head = format!(
        "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(body.as_bytes())).and_then(|()| conn.flush());
}

fn read_request(conn: &TcpStream) -> Option<Received> {
    let mut r = BufReader::new(conn.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Received { path, headers, body })
}
