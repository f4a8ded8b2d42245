//! `warrant serve` end to end: the binary on an ephemeral loopback port answers with the same
//! JSON the CLI prints, refuses unsafe settings, and shuts down gracefully on SIGTERM.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "../../store/tests/backends/mod.rs"]
mod backends;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use warrant_testkit::{warrant, warrant_std, workspace_root};

const TOKEN: &str = "t0ken-for-tests";

/// A `warrant serve` process; killed on drop if still running.
struct Serve {
    child: Child,
    addr: SocketAddr,
}

impl Serve {
    fn start(store: &Path, extra: &[&str]) -> Serve {
        Serve::start_on(store.as_os_str(), &store.with_extension("token"), extra)
    }

    /// A server on `store` (a folder or a PostgreSQL URL), its token written to `token_file`.
    fn start_on(store: &std::ffi::OsStr, token_file: &Path, extra: &[&str]) -> Serve {
        std::fs::write(token_file, format!("  {TOKEN}\n")).unwrap();
        let mut child = warrant_std()
            .args(["serve", "--addr", "127.0.0.1:0", "--store"])
            .arg(store)
            .arg("--token-file")
            .arg(token_file)
            .args(extra)
            .env("WARRANT_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().rsplit("http://").next().unwrap().parse().unwrap_or_else(|_| panic!("no address in {line:?}"));
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request on its own connection: (status, body).
fn call(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, Vec<u8>) {
    try_call(addr, method, path, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// [`call`], with a failure to connect, send or read (or a malformed response) as an error
/// rather than a panic, for the load test, which counts every failure.
fn try_call(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(120))).map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| format!("send: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| format!("read: {e}"))?;
    let malformed = || format!("malformed response: {:?}", String::from_utf8_lossy(&raw[..raw.len().min(200)]));
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(malformed)?;
    let status = raw.get(9..12).and_then(|c| String::from_utf8_lossy(c).parse().ok()).ok_or_else(malformed)?;
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    if head.contains("transfer-encoding: chunked") {
        return Err("a chunked response: responses have a length".into());
    }
    Ok((status, raw[end + 4..].to_vec()))
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> Value {
    let (status, b) = call(addr, "POST", path, Some(body));
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&b));
    json_of(&b)
}

/// The CLI's JSON output for `args` (exit code ignored: 1 means a failed check, not an error).
fn cli_json(args: &[&str], cwd: &Path) -> Value {
    let out = warrant().current_dir(cwd).args(args).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c < 2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    json_of(&out.stdout)
}

#[test]
fn serve_refuses_unsafe_or_broken_settings() {
    let dir = tempfile::tempdir().unwrap();
    warrant()
        .args(["serve", "--addr", "0.0.0.0:0", "--store"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("refusing to listen on 0.0.0.0:0 without a token"));
    let empty = dir.path().join("empty.token");
    std::fs::write(&empty, "\n").unwrap();
    warrant()
        .args(["serve", "--addr", "127.0.0.1:0", "--token-file"])
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the token file is empty"));
    warrant().args(["serve", "--timeout", "0"]).assert().code(2).stderr(predicates::str::contains("greater than 0"));
    warrant().args(["serve", "--token", "a", "--token-file", "b"]).assert().code(2);
}

#[test]
fn the_api_answers_with_the_json_the_cli_prints() {
    let root = workspace_root();
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    let addr = server.addr;
    let answer_path = "examples/check/answer.md";
    let answer = std::fs::read_to_string(root.join(answer_path)).unwrap();

    // extract
    let cli = cli_json(&["extract", answer_path], &root);
    assert_eq!(post(addr, "/v1/extract", &json!({"answer": answer})), cli);

    // policy eval (an answer, then the graph itself)
    let cli = cli_json(&["policy", "eval", "--pack", "warrant.arithmetic.v1", "--format", "json", answer_path], &root);
    assert_eq!(post(addr, "/v1/policy/eval", &json!({"packs": ["warrant.arithmetic.v1"], "input": answer})), cli);
    let graph_file = dir.path().join("graph.json");
    std::fs::write(&graph_file, serde_json::to_string(&post(addr, "/v1/extract", &json!({"answer": answer}))).unwrap()).unwrap();
    let cli =
        cli_json(&["policy", "eval", "--pack", "core.tool-use.v1", "--format", "json", graph_file.to_str().unwrap()], &root);
    let graph: Value = serde_json::from_str(&std::fs::read_to_string(&graph_file).unwrap()).unwrap();
    assert_eq!(post(addr, "/v1/policy/eval", &json!({"packs": ["core.tool-use.v1"], "input": graph})), cli);

    // check against sources (ids as the CLI names them)
    let mut sources = Vec::new();
    for name in ["pricing.md", "security.md", "support.md"] {
        let id = format!("examples/check/sources/{name}");
        sources.push(json!({"id": id, "text": std::fs::read_to_string(root.join(&id)).unwrap()}));
    }
    let cli = cli_json(&["check", "--sources", "examples/check/sources", "--format", "json", answer_path], &root);
    let api = post(addr, "/v1/check", &json!({"answer": answer, "sources": sources}));
    assert_eq!(api, cli);
    assert_eq!(api["gate"], "block", "the demo has a contradicted number");

    // validate
    let cli = cli_json(&["validate", "--format", "json", graph_file.to_str().unwrap()], &root);
    let api = post(addr, "/v1/validate", &json!({"document": graph, "name": graph_file.to_str().unwrap()}));
    assert_eq!(api, cli);

    // packs
    let cli = cli_json(&["policy", "packs", "--format", "json"], &root);
    let (status, body) = call(addr, "GET", "/v1/packs", None);
    assert_eq!((status, json_of(&body)), (200, cli));

    // compile: the same source through the CLI and the API
    let src = dir.path().join("refunds.md");
    std::fs::write(&src, "# Refunds\n\nRefunds must be approved within 5 days. Never refund cash.\n").unwrap();
    let cli = cli_json(&["compile", "--format", "json", src.to_str().unwrap()], &root);
    let api = post(
        addr,
        "/v1/compile",
        &json!({"sources": [{"name": src.to_str().unwrap(), "text": std::fs::read_to_string(&src).unwrap()}]}),
    );
    assert_eq!(api, cli);

    // ingest and search: the same records through the CLI (another store) and the API
    let records = json!([
        {"id": "auth", "text": "Session tokens expire after 15 minutes of inactivity.", "version": "2.0"},
        {"id": "plans", "text": "The Team plan costs $12 per user per month."}
    ]);
    let file = dir.path().join("records.json");
    std::fs::write(&file, records.to_string()).unwrap();
    let cli_store = dir.path().join("cli-store");
    let cli = cli_json(&["ingest", "--format", "json", "--store", cli_store.to_str().unwrap(), file.to_str().unwrap()], &root);
    assert_eq!(post(addr, "/v1/ingest", &json!({"documents": records})), cli);
    let cli = cli_json(&["search", "--format", "json", "--store", cli_store.to_str().unwrap(), "session", "tokens"], &root);
    assert_eq!(post(addr, "/v1/search", &json!({"query": "session tokens"})), cli);
    let q = "When do session tokens expire?";
    let cli = cli_json(&["ask", "--format", "json", "--store", cli_store.to_str().unwrap(), q], &root);
    let api = post(addr, "/v1/ask", &json!({"question": q}));
    assert_eq!(api, cli);
    assert_eq!(api["verdict"], "supported", "{api}");

    // research: both stores' run logs are fresh, so the run ids agree too
    let topic = "session tokens expire";
    let now = "2026-06-02T18:30:45Z";
    let cli = cli_json(&["research", "--format", "json", "--now", now, "--store", cli_store.to_str().unwrap(), topic], &root);
    let api = post(addr, "/v1/research", &json!({"topic": topic, "now": now}));
    assert_eq!(api, cli);
    assert!(api["run_id"].as_str().is_some_and(|id| id.starts_with("rg_")), "{api}");
    assert!(api["synthesis"].as_str().is_some_and(|s| s.contains("Session tokens expire after 15 minutes")), "{api}");
}

/// The same check through the library, the CLI and HTTP gives the same bytes: the library's
/// report serialised compactly is the HTTP body, pretty-printed it is the CLI's output.
#[test]
fn check_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::check::{CheckRequest, CheckResponse};
    use warrant::inputs::{AnswerInput, SourceInput};
    let root = workspace_root();
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    let answer_path = "examples/check/answer.md";
    let answer = std::fs::read_to_string(root.join(answer_path)).unwrap();
    let names = ["pricing.md", "security.md", "support.md"];
    let paths: Vec<String> = names.iter().map(|n| format!("examples/check/sources/{n}")).collect();
    let sources: Vec<SourceInput> = paths
        .iter()
        .map(|id| SourceInput {
            id: id.clone(),
            text: std::fs::read_to_string(root.join(id)).unwrap(),
            version: None,
            title: None,
        })
        .collect();

    // The library, with the sources in the request (the CLI reads the same files).
    let req = CheckRequest {
        answer: Some(AnswerInput::Text(answer.clone())),
        sources: Some(sources.clone()),
        ..CheckRequest::default()
    };
    let CheckResponse::Report(report) = warrant::check::check(&warrant::Env::new(), &req, 1 << 24).unwrap() else {
        panic!("one answer gives one report")
    };
    let compact = serde_json::to_vec(&report).unwrap();
    let pretty = serde_json::to_string_pretty(&report).unwrap() + "\n";
    let mut args = vec!["check", "--format", "json", "--sources"];
    args.extend(paths.iter().map(String::as_str));
    args.push(answer_path);
    let out = warrant().current_dir(&root).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the demo blocks: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), pretty, "CLI output differs from the library's");

    let body = serde_json::json!({"answer": answer, "sources": sources.iter().map(|s| json!({"id": s.id, "text": s.text})).collect::<Vec<_>>()});
    let (status, bytes) = call(server.addr, "POST", "/v1/check", Some(&body));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(bytes, compact, "HTTP body differs from the library's");
}

/// The CLI's stdout for `args` run in `cwd` (exit code ignored: 1 is a failed evaluation).
fn cli_stdout(args: &[&str], cwd: &Path) -> Vec<u8> {
    let out = warrant().current_dir(cwd).args(args).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c < 2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The three shells agree byte for byte: the library's value serialised compactly is the HTTP
/// body, pretty-printed (with a newline) it is the CLI's output.
fn assert_same_bytes<T: serde::Serialize>(what: &str, library: &T, cli: &[u8], http: (u16, Vec<u8>)) {
    let pretty = serde_json::to_string_pretty(library).unwrap() + "\n";
    assert_eq!(String::from_utf8_lossy(cli), pretty, "{what}: CLI output differs from the library's");
    assert_eq!(http.0, 200, "{what}: {}", String::from_utf8_lossy(&http.1));
    assert_eq!(
        String::from_utf8_lossy(&http.1),
        serde_json::to_string(library).unwrap(),
        "{what}: HTTP body differs from the library's"
    );
}

fn demo_answer() -> (std::path::PathBuf, &'static str, String) {
    let root = workspace_root();
    let path = "examples/check/answer.md";
    let answer = std::fs::read_to_string(root.join(path)).unwrap();
    (root, path, answer)
}

#[test]
fn extract_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::extract::ExtractRequest;
    use warrant::inputs::{AnswerInput, InputFormat};
    let (root, path, answer) = demo_answer();
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    let req = ExtractRequest {
        answer: AnswerInput::Text(answer.clone()),
        context: None,
        tools: None,
        output_id: None,
        input_format: InputFormat::Auto,
    };
    let (graph, _) = warrant::extract::extract(&req, 1 << 24).unwrap();
    let cli = cli_stdout(&["extract", path], &root);
    let http = call(server.addr, "POST", "/v1/extract", Some(&json!({"answer": answer})));
    assert_same_bytes("extract", &graph, &cli, http);
}

#[test]
fn policy_eval_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::inputs::{InputFormat, PackRef};
    use warrant::policy::PolicyEvalRequest;
    let (root, path, answer) = demo_answer();
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    let req = PolicyEvalRequest {
        packs: vec![PackRef::Id("warrant.arithmetic.v1".into()), PackRef::Id("warrant.grounding.v1".into())],
        input: Value::String(answer.clone()),
        tools: None,
        rubrics: Vec::new(),
        strict: true,
        context: None,
        input_format: InputFormat::Auto,
    };
    let result = warrant::policy::eval(&req, 1 << 24).unwrap();
    let args = [
        "policy",
        "eval",
        "--pack",
        "warrant.arithmetic.v1",
        "--pack",
        "warrant.grounding.v1",
        "--strict",
        "--format",
        "json",
        path,
    ];
    let cli = cli_stdout(&args, &root);
    let body = json!({"packs": ["warrant.arithmetic.v1", "warrant.grounding.v1"], "input": answer, "strict": true});
    let http = call(server.addr, "POST", "/v1/policy/eval", Some(&body));
    assert_same_bytes("policy eval", &result, &cli, http);
}

#[test]
fn validate_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::validate::ValidateRequest;
    let (root, path, _) = demo_answer();
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    // A graph with a dangling reference, so the report has something to say.
    let mut graph: Value = serde_json::from_slice(&cli_stdout(&["extract", path], &root)).unwrap();
    graph["claims"][0]["id"] = json!("renamed");
    let file = dir.path().join("graph.json");
    std::fs::write(&file, serde_json::to_string_pretty(&graph).unwrap()).unwrap();
    let name = file.to_str().unwrap();
    let req = ValidateRequest {
        document: graph.clone(),
        kind: None,
        name: Some(name.into()),
        strict: true,
        previous: None,
        related: Vec::new(),
    };
    let report = warrant::validate::validate(&req).unwrap();
    let cli = cli_stdout(&["validate", "--strict", "--format", "json", name], &root);
    let http = call(server.addr, "POST", "/v1/validate", Some(&json!({"document": graph, "name": name, "strict": true})));
    assert_same_bytes("validate", &report, &cli, http);
}

#[test]
fn compile_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::compile::{CompileRequest, CompileSource, Coverage};
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(&dir.path().join("served"), &[]);
    let src = dir.path().join("refunds.md");
    let text = "# Refunds\n\nVersion 2\n\nRefunds must be approved within 5 days. Never refund cash.\n\n\
                ## Escalation\n\nIf a refund exceeds $500, escalate to a manager.\n";
    std::fs::write(&src, text).unwrap();
    let name = src.to_str().unwrap();
    let req = CompileRequest {
        sources: vec![CompileSource { name: name.into(), text: text.into() }],
        title: Some("Refund policy".into()),
        coverage: Some(Coverage::Complete),
        ..CompileRequest::default()
    };
    let library = warrant::compile::compile(&req, 1 << 24).unwrap();
    let cli =
        cli_stdout(&["compile", "--format", "json", "--title", "Refund policy", "--coverage", "complete", name], dir.path());
    let body = json!({"sources": [{"name": name, "text": text}], "title": "Refund policy", "coverage": "complete"});
    let (status, http) = call(server.addr, "POST", "/v1/compile", Some(&body));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&http));
    // The package is returned as its canonical JSON text, the same bytes everywhere.
    assert_eq!(String::from_utf8_lossy(&cli), library, "CLI output differs from the library's");
    assert_eq!(String::from_utf8_lossy(&http), library, "HTTP body differs from the library's");
}

#[test]
fn research_is_byte_identical_through_the_library_the_cli_and_http() {
    use warrant::research::ResearchRequest;
    let dir = tempfile::tempdir().unwrap();
    let records = json!([
        {"id": "auth", "text": "Session tokens expire after 15 minutes of inactivity.", "version": "2.0"},
        {"id": "plans", "text": "The Team plan costs $12 per user per month."}
    ]);
    let file = dir.path().join("records.json");
    std::fs::write(&file, records.to_string()).unwrap();
    // Three stores with the same records and fresh run logs, so the run ids agree too.
    let (library_store, cli_store, served) = (dir.path().join("lib"), dir.path().join("cli"), dir.path().join("served"));
    for store in [&library_store, &cli_store, &served] {
        cli_stdout(&["ingest", "--format", "json", "--store", store.to_str().unwrap(), file.to_str().unwrap()], dir.path());
    }
    let server = Serve::start(&served, &[]);
    let (topic, now) = ("session tokens expire", "2026-06-02T18:30:45Z");
    let env = warrant::Env::open_existing(&library_store).unwrap();
    let req = ResearchRequest { topic: topic.into(), now: Some(now.into()), ..ResearchRequest::default() };
    let library = warrant::research::research(&env, &req).unwrap();
    let cli =
        cli_stdout(&["research", "--format", "json", "--now", now, "--store", cli_store.to_str().unwrap(), topic], dir.path());
    let http = call(server.addr, "POST", "/v1/research", Some(&json!({"topic": topic, "now": now})));
    assert_same_bytes("research", &library, &cli, http);
    assert!(library["synthesis"].as_str().is_some_and(|s| s.contains("Session tokens expire after 15 minutes")), "{library}");
}

#[test]
fn sigterm_finishes_the_requests_in_flight_then_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Serve::start(&dir.path().join("store"), &[]);
    let addr = server.addr;
    let sources = json!([{"id": "s", "text": "Refunds are processed within 14 days. Canberra is the capital of Australia."}]);
    let items: Vec<Value> = (0..400)
        .map(|i| json!({"id": i, "answer": format!("Refunds are processed within {} days. Canberra is the capital of Australia.", i % 30), "sources": sources}))
        .collect();
    let in_flight = std::thread::spawn(move || call(addr, "POST", "/v1/check", Some(&json!({"items": items}))));
    // Wait until the server is handling it (in flight: that request and the metrics request).
    for _ in 0..2000 {
        let (_, m) = call(addr, "GET", "/metrics", None);
        if String::from_utf8_lossy(&m).contains("warrant_http_requests_in_flight 2") {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let (status, body) = in_flight.join().unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(json_of(&body)["items"].as_array().map(Vec::len), Some(400));
    let exit = server.child.wait().unwrap();
    assert!(exit.success(), "exit status {exit:?}");
    assert!(TcpStream::connect(addr).is_err(), "no longer listening");
}

/// Stateless replicas: two servers on one PostgreSQL store answer alike, and each sees the
/// other's writes on its next request (its cached chunk index follows the store's generation).
#[test]
fn two_replicas_share_one_postgres_store() {
    let Some(fx) = backends::Backend::Postgres.fresh() else { return };
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    let url = std::ffi::OsStr::new(fx.location());
    let (a, b) = (Serve::start_on(url, &token, &[]), Serve::start_on(url, &token, &[]));
    let claim = json!({"answer": "Session tokens expire after 30 minutes of inactivity."});
    // B checks first, over the empty store: nothing to hold the claim against.
    let before = post(b.addr, "/v1/check", &claim);
    assert_eq!(before["summary"]["contradicted"], 0, "{before}");
    let docs = json!({"documents": [{"id": "auth", "text": "Session tokens expire after 15 minutes of inactivity."}]});
    assert_eq!(post(a.addr, "/v1/ingest", &docs)["documents"], 1);
    // A's write is seen by B's next search and check.
    let hits = post(b.addr, "/v1/search", &json!({"query": "session tokens"}));
    assert_eq!(hits[0]["chunkId"], "auth#1", "{hits}");
    let after = post(b.addr, "/v1/check", &claim);
    assert_eq!(after["summary"]["contradicted"], 1, "{after}");
    assert_eq!(post(a.addr, "/v1/check", &claim), after, "both replicas answer alike");
    // Ingesting the same document through B is a no-op: one store, no duplicates.
    assert_eq!(post(b.addr, "/v1/ingest", &docs)["unchanged_documents"], 1);
    assert_eq!(fx.open().stats().unwrap().documents, 1);
}

/// How long the replicas are loaded: 30 s (`WARRANT_LOAD_SECS` shortens it for local runs).
const LOAD_SECS: u64 = 30;
/// Documents per ingest request under load.
const LOAD_BATCH: u64 = 4;

/// Document `n` of load writer `w`, and its chunk count: `1 + n % 3` short paragraphs (one
/// chunk each), each stating a `requires` fact in words no other document and no checked
/// claim uses, so the checks' answers do not depend on how much has been ingested.
fn load_doc(w: usize, n: u64) -> (Value, u64) {
    let paragraphs = 1 + n % 3;
    let text: Vec<String> =
        (0..paragraphs).map(|p| format!("The gateway gw{w}x{n}p{p} requires certificate ct{w}x{n}p{p}.")).collect();
    (json!({"id": format!("load-{w}-{n}"), "text": text.join("\n\n")}), paragraphs)
}

/// Every failure the load generator saw: a request that failed or did not answer 200 (with
/// a body excerpt), or an answer that was wrong.
#[derive(Default)]
struct Failures(std::sync::Mutex<Vec<String>>);

impl Failures {
    fn add(&self, what: String) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(what);
    }

    /// POSTs `body` to replica `r`: the JSON answer, or `None` after recording the failure.
    fn post(&self, r: usize, addr: SocketAddr, path: &str, body: &Value) -> Option<Value> {
        match try_call(addr, "POST", path, Some(body)) {
            Ok((200, b)) => serde_json::from_slice(&b)
                .map_err(|e| self.add(format!("replica {r} {path}: 200 but not JSON ({e}): {}", excerpt(&b))))
                .ok(),
            Ok((status, b)) => {
                self.add(format!("replica {r} {path}: {status} {}", excerpt(&b)));
                None
            }
            Err(e) => {
                self.add(format!("replica {r} {path}: {e}"));
                None
            }
        }
    }
}

fn excerpt(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned()
}

/// Stateless replicas under load: two servers on one PostgreSQL store, for 30 s, take new
/// documents (the same ones through both at once, then again through the other: each is
/// written exactly once) and checks through both alternately. Nothing fails, nothing is lost
/// or stored twice, and both replicas end with the same answer.
#[test]
fn two_replicas_under_concurrent_ingest_and_checks() {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;
    let Some(fx) = backends::Backend::Postgres.fresh() else { return };
    let secs = std::env::var("WARRANT_LOAD_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(LOAD_SECS);
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    let url = std::ffi::OsStr::new(fx.location());
    let replicas = [Serve::start_on(url, &token, &[]), Serve::start_on(url, &token, &[])];
    let addrs = [replicas[0].addr, replicas[1].addr];

    let base = json!({"documents": [{"id": "auth", "text": "Session tokens expire after 15 minutes of inactivity."}]});
    let base_facts = post(addrs[0], "/v1/ingest", &base)["facts"].as_u64().unwrap();
    let claim = json!({"answer": "Session tokens expire after 30 minutes of inactivity."});
    let first = post(addrs[1], "/v1/check", &claim);
    assert_eq!(first["summary"]["contradicted"], 1, "{first}");
    assert_eq!(post(addrs[0], "/v1/check", &claim), first);
    // What every check under load must answer (scores may move as the index grows).
    let verdict = json!([first["gate"], first["summary"]]);

    // The generator is bounded: 2 writers (at most 2 ingests and a search or an ingest in
    // flight each) and 2 checkers, so at most 6 requests at once over both replicas, far
    // below a replica's --max-concurrency (256; more would be refused with 429 by design).
    // Each request is small and ingests take turns on the store's write lock, so none comes
    // near the 30 s --timeout (503 by design). Either status here is therefore a failure.
    let failures = Failures::default();
    let expected: std::sync::Mutex<BTreeMap<String, u64>> = std::sync::Mutex::new(BTreeMap::from([("auth".into(), 1)]));
    let (facts, batches, checks) = (AtomicU64::new(base_facts), AtomicU64::new(0), AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(secs);
    std::thread::scope(|s| {
        for w in 0..2 {
            let (home, other) = (w, 1 - w);
            let (failures, expected, facts, batches) = (&failures, &expected, &facts, &batches);
            s.spawn(move || {
                let mut previous: Option<Value> = None;
                let mut n = 0;
                while Instant::now() < deadline {
                    let docs: Vec<(Value, u64)> = (n..n + LOAD_BATCH).map(|i| load_doc(w, i)).collect();
                    let body = json!({"documents": docs.iter().map(|d| &d.0).collect::<Vec<_>>()});
                    let chunks: u64 = docs.iter().map(|d| d.1).sum();
                    // The same new documents through both replicas at once.
                    let (a, b) = std::thread::scope(|s2| {
                        let b = s2.spawn(|| failures.post(other, addrs[other], "/v1/ingest", &body));
                        (failures.post(home, addrs[home], "/v1/ingest", &body), b.join().unwrap())
                    });
                    if let (Some(a), Some(b)) = (a, b) {
                        let sum = |k: &str| a[k].as_u64().unwrap_or(u64::MAX).saturating_add(b[k].as_u64().unwrap_or(u64::MAX));
                        let got = [sum("documents"), sum("unchanged_documents"), sum("chunks")];
                        if got != [LOAD_BATCH, LOAD_BATCH, chunks] {
                            failures.add(format!(
                                "writer {w}, documents {n}..: [written, unchanged, chunks] over both replicas {got:?}, \
                                 expected [{LOAD_BATCH}, {LOAD_BATCH}, {chunks}]: {a} / {b}"
                            ));
                        }
                        facts.fetch_add(sum("facts"), Ordering::SeqCst);
                    }
                    // Each replica sees what the other wrote, on its next request.
                    let probe = json!({"query": format!("gw{w}x{n}p0")});
                    if let Some(hits) = failures.post(other, addrs[other], "/v1/search", &probe)
                        && hits[0]["chunkId"] != format!("load-{w}-{n}#1")
                    {
                        failures.add(format!("replica {other} did not find load-{w}-{n}#1: {hits}"));
                    }
                    // The previous batch again, through the other replica: nothing to write.
                    if let Some(prev) = previous.replace(body)
                        && let Some(r) = failures.post(other, addrs[other], "/v1/ingest", &prev)
                        && (&r["documents"], &r["unchanged_documents"]) != (&json!(0), &json!(LOAD_BATCH))
                    {
                        failures.add(format!("writer {w}: re-ingest through replica {other} wrote something: {r}"));
                    }
                    let mut e = expected.lock().unwrap();
                    e.extend(docs.iter().map(|(d, c)| (d["id"].as_str().unwrap().to_string(), *c)));
                    drop(e);
                    batches.fetch_add(1, Ordering::SeqCst);
                    n += LOAD_BATCH;
                }
            });
        }
        for c in 0..2 {
            let (failures, checks, claim, verdict) = (&failures, &checks, &claim, &verdict);
            s.spawn(move || {
                let mut i = c;
                while Instant::now() < deadline {
                    let r = i % 2; // both replicas, alternately
                    i += 1;
                    if let Some(report) = failures.post(r, addrs[r], "/v1/check", claim) {
                        let got = json!([report["gate"], report["summary"]]);
                        if got != *verdict {
                            failures.add(format!("replica {r}: check answered {got}, expected {verdict}"));
                        }
                        checks.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    let failures = failures.0.into_inner().unwrap();
    assert!(failures.is_empty(), "{} failures under load:\n{}", failures.len(), failures.join("\n"));
    let expected = expected.into_inner().unwrap();
    let (batches, checks) = (batches.into_inner(), checks.into_inner());
    eprintln!("load: {secs} s, {batches} batches ({} documents), {checks} checks, no failure", expected.len() - 1);
    assert!(batches >= 2 && checks >= 2, "too little load to mean anything: {batches} batches, {checks} checks");

    // Directly in the store: exactly the documents ingested, each chunk once.
    let store = fx.open();
    let ids: BTreeSet<String> = store.documents().unwrap().into_iter().map(|d| d.id).collect();
    assert_eq!(ids.len(), expected.len(), "documents lost or extra");
    assert!(ids.iter().eq(expected.keys()), "the stored document ids are not the ingested ones");
    let mut chunk_ids = Vec::new();
    store.visit_chunks(&mut |c| chunk_ids.push(c.id)).unwrap();
    let want: BTreeSet<String> = expected.iter().flat_map(|(id, n)| (1..=*n).map(move |k| format!("{id}#{k}"))).collect();
    assert_eq!(chunk_ids.len(), want.len(), "as many chunks as the documents have");
    assert_eq!(chunk_ids.into_iter().collect::<BTreeSet<_>>(), want, "each chunk once");
    let stats = store.stats().unwrap();
    let facts = facts.into_inner();
    assert_eq!((stats.documents, stats.chunks, stats.total_facts), (expected.len() as u64, want.len() as u64, facts));
    fx.assert_sound();
    // Through the CLI: every fact once.
    let out = warrant().args(["facts", "--store", fx.location()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count() as u64, facts);

    // Through each replica: every document is there, unchanged; both answer the same check.
    let all: Vec<Value> = expected
        .keys()
        .map(|id| match id.strip_prefix("load-").and_then(|r| r.split_once('-')) {
            Some((w, n)) => load_doc(w.parse().unwrap(), n.parse().unwrap()).0,
            None => base["documents"][0].clone(),
        })
        .collect();
    let all = json!({"documents": all});
    for addr in addrs {
        let again = post(addr, "/v1/ingest", &all);
        assert_eq!((&again["documents"], &again["unchanged_documents"]), (&json!(0), &json!(expected.len())), "{again}");
    }
    let last = post(addrs[0], "/v1/check", &claim);
    assert_eq!(json!([last["gate"], last["summary"]]), verdict);
    assert_eq!(post(addrs[1], "/v1/check", &claim), last, "both replicas answer alike");
}
