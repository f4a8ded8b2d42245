//! The HTTP API end to end: a server on an ephemeral loopback port, every route, auth,
//! errors (bad JSON, wrong shape, oversize bodies, timeouts, overload), ingest atomicity,
//! metrics, readiness and graceful shutdown.

mod harness;

use std::time::{Duration, Instant};

use harness::{Server, request};
use serde_json::{Value, json};

fn store_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn sources() -> Value {
    json!([
        {"id": "refunds.md", "text": "Refunds are processed within 14 days of the return. Store credit never expires."},
        {"id": "geo.md", "text": "Canberra is the capital of Australia. Sydney is its largest city."}
    ])
}

#[test]
fn health_checks_need_no_token_and_everything_else_does() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    for path in ["/healthz", "/readyz"] {
        let r = request(s.addr, "GET", path, None, None);
        assert_eq!(r.status, 200, "{path}");
    }
    assert_eq!(request(s.addr, "GET", "/healthz", None, None).json(), json!({"status": "ok"}));
    assert_eq!(request(s.addr, "GET", "/readyz", None, None).json(), json!({"status": "ready"}));
    let body = json!({"answer": "x"}).to_string();
    for (method, path) in [
        ("GET", "/v1/packs"),
        ("GET", "/v1/openapi.json"),
        ("GET", "/metrics"),
        ("POST", "/v1/check"),
        ("POST", "/v1/ingest"),
        ("GET", "/v1/no-such-route"),
    ] {
        let b = (method == "POST").then_some(("application/json", body.as_bytes()));
        let none = request(s.addr, method, path, None, b);
        assert_eq!(none.status, 401, "{method} {path} without a token");
        assert_eq!(none.error_code(), "unauthorized");
        assert_eq!(none.header("www-authenticate"), Some("Bearer"));
        let wrong = request(s.addr, method, path, Some("secret-tokeN"), b);
        assert_eq!(wrong.status, 401, "{method} {path} with a wrong token");
        let short = request(s.addr, method, path, Some("secret"), b);
        assert_eq!(short.status, 401, "{method} {path} with a prefix of the token");
    }
    assert_eq!(s.get("/v1/packs").status, 200);
}

#[test]
fn unknown_routes_and_methods_are_errors_in_the_error_shape() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let r = s.get("/v1/nothing");
    assert_eq!(r.status, 404);
    assert_eq!(r.error_code(), "not_found");
    let r = s.call("DELETE", "/v1/check", None);
    assert_eq!(r.status, 405);
    assert_eq!(r.error_code(), "method_not_allowed");
}

#[test]
fn malformed_json_wrong_shapes_and_media_types_are_400_and_415() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let token = Some("secret-token");
    for path in ["/v1/check", "/v1/extract", "/v1/policy/eval", "/v1/validate", "/v1/ingest", "/v1/search"] {
        let r = request(s.addr, "POST", path, token, Some(("application/json", b"{\n  oops}")));
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert_eq!(r.error_code(), "bad_request");
        assert_eq!(r.json()["error"]["details"]["line"], 2, "{path}: the line is named");
        let r = request(s.addr, "POST", path, token, Some(("application/json", b"{\"answer\": \"x\"} trailing")));
        assert_eq!(r.status, 400, "{path}: trailing characters");
        let r = request(s.addr, "POST", path, token, Some(("text/plain", b"{}")));
        assert_eq!(r.status, 415, "{path}");
        assert_eq!(r.error_code(), "unsupported_media_type");
        let r = request(s.addr, "POST", path, token, Some(("application/json", b"[1, 2]")));
        assert_eq!(r.status, 400, "{path}: not an object");
    }
    // A wrong shape names the JSON pointer.
    let r = s.post("/v1/check", &json!({"answer": "x", "sources": [{"id": "a", "text": 3}]}));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["details"]["pointer"], "/sources/0/text");
    let r = s.post("/v1/extract", &json!({"answer": "x", "unknown_field": 1}));
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].as_str().is_some_and(|m| m.contains("unknown_field")));
    let r = s.post("/v1/check", &json!({"question": "only a question"}));
    assert_eq!(r.status, 400, "neither answer nor items");
}

#[test]
fn oversize_bodies_are_413() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |c| c.max_body = 2048);
    let big = json!({"answer": "word ".repeat(1000)});
    let r = s.post("/v1/check", &big);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.error_code(), "payload_too_large");
    assert_eq!(r.json()["error"]["details"]["limit"], 2048);
    // Just under the limit is fine.
    let r = s.post("/v1/extract", &json!({"answer": "Paris is the capital of France."}));
    assert_eq!(r.status, 200);
}

#[test]
fn a_request_past_the_timeout_is_503_and_the_server_stays_responsive() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |c| c.timeout = Duration::from_millis(20));
    let items: Vec<Value> = (0..400)
        .map(|i| json!({"id": format!("q{i}"), "answer": format!("Refunds are processed within {i} days. Canberra is the capital of Australia."), "sources": sources()}))
        .collect();
    let start = Instant::now();
    let r = s.post("/v1/check", &json!({"items": items}));
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.error_code(), "timeout");
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(start.elapsed() < Duration::from_secs(10), "the timeout answered promptly");
    assert_eq!(request(s.addr, "GET", "/healthz", None, None).status, 200);
}

#[test]
fn more_requests_than_slots_are_429() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |c| c.max_concurrency = 1);
    let items: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "answer": "Refunds are processed within 14 days. Sydney is the capital of Australia.", "sources": sources()}))
        .collect();
    let body = json!({"items": items});
    let (addr, token) = (s.addr, s.token.clone());
    // The probes below may take the only slot while this large body is still being sent;
    // then this request is the one refused, and it tries again.
    let slow = std::thread::spawn(move || {
        let b = body.to_string();
        let send = || request(addr, "POST", "/v1/check", token.as_deref(), Some(("application/json", b.as_bytes())));
        let mut r = send();
        for _ in 0..100 {
            if r.status != 429 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
            r = send();
        }
        r
    });
    let mut refused = None;
    while !slow.is_finished() {
        let r = s.get("/v1/packs");
        if r.status == 429 {
            refused = Some(r);
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let done = slow.join().expect("slow request");
    assert_eq!(done.status, 200);
    let r = refused.expect("a request was refused while the only slot was taken");
    assert_eq!(r.error_code(), "overloaded");
    assert_eq!(r.header("retry-after"), Some("1"));
    // Health checks are never refused; the slot is free again afterwards.
    assert_eq!(request(s.addr, "GET", "/readyz", None, None).status, 200);
    assert_eq!(s.get("/v1/packs").status, 200);
}

#[test]
fn packs_lists_the_built_in_packs() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let r = s.get("/v1/packs");
    assert_eq!(r.status, 200);
    let v = r.json();
    let ids: Vec<&str> = v.as_array().expect("array").iter().filter_map(|p| p["pack_id"].as_str()).collect();
    assert!(ids.contains(&"warrant.grounding.v1"));
    assert_eq!(v, serde_json::to_value(warrant_cpl::packs::listing().expect("listing")).expect("json"));
}

#[test]
fn extract_returns_the_graph_the_library_builds() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let r =
        s.post("/v1/extract", &json!({"answer": "Paris is the capital of France. It has 2 million people.", "output_id": "o1"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let answer =
        warrant_extract::Answer { text: "Paris is the capital of France. It has 2 million people.".into(), ..Default::default() };
    let expected = warrant_extract::extract(&answer, &warrant_extract::Options { output_id: Some("o1".into()) }).graph;
    assert_eq!(r.json(), serde_json::to_value(&expected).expect("json"));
    assert_eq!(r.json()["output_id"], "o1");
    // A message object, with tools.
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]});
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]);
    let r = s.post("/v1/extract", &json!({"answer": msg, "tools": tools}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["tool_calls"][0]["name"], "get_weather");
    // Malformed tools: 422 with a pointer.
    let r = s.post("/v1/extract", &json!({"answer": "x", "tools": {"not": "an array"}}));
    assert_eq!(r.status, 422);
    assert_eq!(r.error_code(), "unprocessable");
    assert!(r.json()["error"]["details"]["pointer"].as_str().is_some_and(|p| p.starts_with("/tools")));
    // JSON-only input that is not JSON.
    let r = s.post("/v1/extract", &json!({"answer": "plain words", "input_format": "json"}));
    assert_eq!(r.status, 422, "{}", r.text());
}

#[test]
fn validate_reports_kind_errors_and_warnings() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let answer = warrant_extract::Answer { text: "Paris is the capital of France.".into(), ..Default::default() };
    let graph = serde_json::to_value(warrant_extract::extract(&answer, &Default::default()).graph).expect("json");
    let r = s.post("/v1/validate", &json!({"document": graph, "name": "g.json"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["file"].as_str(), v["kind"].as_str(), v["valid"].as_bool()),
        (Some("g.json"), Some("predicategraph"), Some(true))
    );
    // A broken graph: invalid, with the pointer of the error.
    let mut broken = graph.clone();
    broken["claims"] = json!("not an array");
    let v = s.post("/v1/validate", &json!({"document": broken})).json();
    assert_eq!(v["valid"], false);
    assert_eq!(v["file"], "document");
    assert!(v["errors"].as_array().is_some_and(|e| e.iter().any(|e| e["path"] == "/claims")), "{v}");
    // Unknown kind; an explicit kind that does not fit.
    let v = s.post("/v1/validate", &json!({"document": {"hello": 1}})).json();
    assert_eq!((v["valid"].as_bool(), v["kind"].clone()), (Some(false), Value::Null));
    let v = s.post("/v1/validate", &json!({"document": graph, "kind": "policy_pack"})).json();
    assert_eq!((v["valid"].as_bool(), v["kind"].as_str()), (Some(false), Some("policy_pack")));
    // A kind that does not exist is a shape error.
    assert_eq!(s.post("/v1/validate", &json!({"document": graph, "kind": "nope"})).status, 400);
    // The same report as the library gives.
    let lib = warrant_validate::validate_value("g.json", &graph, None, false, &Default::default()).expect("report");
    assert_eq!(
        s.post("/v1/validate", &json!({"document": graph, "name": "g.json"})).json(),
        serde_json::to_value(lib).expect("json")
    );
}

#[test]
fn policy_eval_takes_graphs_or_answers_and_refuses_bad_packs() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let text = "The total is 2 + 2 = 5.";
    let r = s.post("/v1/policy/eval", &json!({"packs": ["warrant.arithmetic.v1"], "input": text}));
    assert_eq!(r.status, 200, "{}", r.text());
    let from_text = r.json();
    assert_eq!(from_text["packs"][0]["pack_id"], "warrant.arithmetic.v1");
    assert_eq!(from_text["passed"], false, "2 + 2 = 5 fails the arithmetic pack: {from_text}");
    // The same graph given as a graph gives the same result.
    let answer = warrant_extract::Answer { text: text.into(), ..Default::default() };
    let graph = serde_json::to_value(warrant_extract::extract(&answer, &Default::default()).graph).expect("json");
    let r = s.post("/v1/policy/eval", &json!({"packs": ["warrant.arithmetic.v1"], "input": graph}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["packs"], from_text["packs"]);
    assert_eq!(r.json()["passed"], false);
    // Unknown pack, invalid inline pack, invalid graph, no packs.
    let r = s.post("/v1/policy/eval", &json!({"packs": ["warrant.grounding.v1", "nope"], "input": text}));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["details"]["pointer"], "/packs/1");
    let r = s.post("/v1/policy/eval", &json!({"packs": [{"pack_id": 3}], "input": text}));
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.json()["error"]["details"]["pointer"].as_str().is_some_and(|p| p.starts_with("/packs/0")));
    let mut bad = graph.clone();
    bad["claims"] = json!(7);
    let r = s.post("/v1/policy/eval", &json!({"packs": ["warrant.arithmetic.v1"], "input": bad}));
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.json()["error"]["details"]["pointer"].as_str().is_some_and(|p| p.starts_with("/input")));
    assert_eq!(s.post("/v1/policy/eval", &json!({"packs": [], "input": text})).status, 400);
    assert_eq!(s.post("/v1/policy/eval", &json!({"packs": ["warrant.arithmetic.v1"], "input": 5})).status, 400);
    // An inline pack document works like a file.
    let pack = serde_json::from_str::<Value>(include_str!("../../../packs/warrant.arithmetic.v1.json")).expect("pack");
    let r = s.post("/v1/policy/eval", &json!({"packs": [pack], "input": text}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["packs"], from_text["packs"]);
}

#[test]
fn check_one_answer_against_given_sources() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let body = json!({"answer": "Canberra is the capital of Australia. Refunds are processed within 30 days.", "sources": sources(), "output_id": "a1"});
    let r = s.post("/v1/check", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["output_id"], "a1");
    let statuses: Vec<&str> = v["claims"].as_array().expect("claims").iter().filter_map(|c| c["status"].as_str()).collect();
    assert_eq!(statuses, ["supported", "contradicted"], "{v}");
    assert_eq!(v["gate"], "block");
    // Every selector quotes its source exactly.
    let src = sources();
    for c in v["claims"].as_array().expect("claims") {
        for e in c["support_edges"].as_array().expect("edges") {
            let text = src.as_array().expect("sources").iter().find(|s| s["id"] == e["source_id"]).expect("source")["text"]
                .as_str()
                .expect("text")
                .to_string();
            let (a, b) =
                (e["selector"]["start"].as_u64().expect("start") as usize, e["selector"]["end"].as_u64().expect("end") as usize);
            let quoted: String = text.chars().skip(a).take(b - a).collect();
            assert_eq!(quoted, e["selector"]["exact"].as_str().expect("exact"));
        }
    }
    // The same report as the library gives for `--sources` (an in-memory store of the sources).
    let answer = warrant_extract::Answer { text: body["answer"].as_str().expect("answer").into(), ..Default::default() };
    let docs = src
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| warrant_store::DocumentInput {
            id: s["id"].as_str().expect("id").into(),
            text: s["text"].as_str().expect("text").into(),
            version: None,
            title: None,
            metadata: None,
            origin: String::new(),
        })
        .collect();
    let mem = warrant_check::ingest_documents(docs).expect("store");
    let corpus = warrant_check::corpus_of_documents(&mem).expect("corpus");
    let lib = warrant_check::Checker::default()
        .check_with_store(
            &warrant_check::Request { answer: &answer, question: None, output_id: Some("a1".into()) },
            &mem,
            &warrant_facts::Vocabulary::builtin(),
            Some(&corpus),
        )
        .expect("check");
    assert_eq!(v, serde_json::to_value(&lib).expect("json"));
    // An empty answer is 422; an unknown pack is 422.
    let r = s.post("/v1/check", &json!({"answer": "   ", "sources": sources()}));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["details"]["pointer"], "/answer");
    let r = s.post("/v1/check", &json!({"answer": "x y z", "packs": ["nope"]}));
    assert_eq!(r.status, 422);
}

#[test]
fn check_a_batch_reports_bad_items_in_place() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let items = json!([
        {"id": "ok", "answer": "Canberra is the capital of Australia.", "sources": sources()},
        {"id": "bad", "question": 3, "answer": "x"},
        {"id": 3, "answer": "Refunds are processed within 14 days of the return."},
        {"answer": "no id"}
    ]);
    let r = s.post("/v1/check", &json!({"items": items, "sources": sources()}));
    assert_eq!(r.status, 200, "{}", r.text());
    let out = r.json()["items"].as_array().expect("items").clone();
    assert_eq!(out.len(), 4);
    assert_eq!(out[0]["output_id"], "ok");
    assert_eq!(out[0]["claims"][0]["status"], "supported");
    assert_eq!(out[1], json!({"id": "bad", "index": 1, "error": "/question: expected a string"}));
    assert_eq!(out[2]["output_id"], "3");
    assert_eq!(out[2]["claims"][0]["status"], "supported", "the request's sources are shared: {}", out[2]);
    assert_eq!(out[3]["error"], "/id: expected a string");
    assert_eq!(out[3]["index"], 3);
    assert_eq!(s.post("/v1/check", &json!({"items": items, "answer": "x"})).status, 400);
}

#[test]
fn ingest_then_check_and_search_against_the_store() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let docs = json!([
        {"id": "policy", "text": "Session tokens expire after 30 minutes of inactivity. Passwords must have 12 characters.", "version": "2.0"},
        {"docId": "geo", "text": "Canberra is the capital of Australia. Sydney is its largest city.", "title": "Geography"}
    ]);
    let r = s.post("/v1/ingest", &json!({"documents": docs}));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!((v["documents"].as_u64(), v["unchanged_documents"].as_u64()), (Some(2), Some(0)), "{v}");
    assert!(v["facts"].as_u64().is_some_and(|n| n >= 1), "the expiry fact: {v}");
    // Idempotent.
    let v = s.post("/v1/ingest", &json!({"documents": docs})).json();
    assert_eq!((v["documents"].as_u64(), v["unchanged_documents"].as_u64()), (Some(0), Some(2)));
    // Search.
    let r = s.post("/v1/search", &json!({"query": "capital of Australia", "limit": 1}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()[0]["docId"], "geo");
    assert_eq!(r.json().as_array().map(Vec::len), Some(1));
    // Check against the store: evidence quotes the stored document.
    let r = s.post("/v1/check", &json!({"answer": "Session tokens expire after 30 minutes of inactivity."}));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["claims"][0]["status"], "supported", "{v}");
    let edge = &v["claims"][0]["support_edges"][0];
    assert_eq!(edge["source_id"], "policy");
    let doc = s.state.store().document_text("policy").expect("read").expect("doc");
    let (a, b) =
        (edge["selector"]["start"].as_u64().expect("start") as usize, edge["selector"]["end"].as_u64().expect("end") as usize);
    assert_eq!(doc.chars().skip(a).take(b - a).collect::<String>(), edge["selector"]["exact"].as_str().expect("exact"));
    let r = s.post("/v1/check", &json!({"answer": "Session tokens expire after 10 minutes of inactivity."}));
    assert_eq!(r.json()["claims"][0]["status"], "contradicted");
    assert_eq!(r.json()["gate"], "block");
    // Metrics now count the store.
    let m = s.get("/metrics");
    assert_eq!(m.status, 200);
    assert!(m.header("content-type").is_some_and(|c| c.starts_with("text/plain")));
    let text = m.text();
    assert!(text.contains("warrant_store_documents 2\n"), "{text}");
    assert!(text.contains("warrant_http_requests_total{route=\"/v1/ingest\",method=\"POST\",status=\"200\"} 2\n"), "{text}");
    assert!(text.contains("warrant_http_request_duration_seconds_count{route=\"/v1/check\"} 2\n"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("warrant_store_bytes ") && !l.ends_with(" 0")), "{text}");
}

#[test]
fn ingest_with_one_bad_document_changes_nothing() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let good = json!({"id": "a", "text": "Alpha stores keep receipts for 90 days."});
    assert_eq!(s.post("/v1/ingest", &json!({"documents": [good]})).status, 200);
    let before = s.state.store().stats().expect("stats");
    let cases = [
        json!({"documents": [{"id": "b", "text": "Beta words."}, {"id": "c"}]}),
        json!({"documents": [{"id": "b", "text": "Beta words."}, {"id": "c", "text": 5}]}),
        json!({"documents": [{"id": "b", "text": "Beta words."}, {"id": "b", "text": "Beta again."}]}),
        json!({"documents": [{"id": "a", "text": "Alpha changed."}, {"id": "c", "text": "x", "colour": "red"}]}),
        json!({"documents": [{"id": "b", "text": "Beta words."}], "facts": [{"subject": "x"}]}),
    ];
    for (i, body) in cases.iter().enumerate() {
        let r = s.post("/v1/ingest", body);
        assert_eq!(r.status, 422, "case {i}: {}", r.text());
        assert_eq!(r.error_code(), "unprocessable");
        assert_eq!(s.state.store().stats().expect("stats"), before, "case {i} changed the store");
        assert!(s.state.store().document("b").expect("read").is_none(), "case {i}");
    }
    let r = s.post("/v1/ingest", &cases[1]);
    let errors = r.json()["error"]["details"]["errors"].clone();
    assert_eq!(errors[0]["pointer"], "/documents/1/text", "{errors}");
    assert_eq!(s.state.store().document_text("a").expect("read").as_deref(), Some("Alpha stores keep receipts for 90 days."));
}

#[test]
fn readiness_turns_off_when_draining_and_shutdown_finishes_requests_in_flight() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let items: Vec<Value> = (0..150)
        .map(|i| json!({"id": i, "answer": "Refunds are processed within 14 days. Canberra is the capital of Australia.", "sources": sources()}))
        .collect();
    let body = json!({"items": items}).to_string();
    let (addr, token) = (s.addr, s.token.clone());
    let in_flight = std::thread::spawn(move || {
        request(addr, "POST", "/v1/check", token.as_deref(), Some(("application/json", body.as_bytes())))
    });
    // Wait until the request is being handled, then shut down.
    let t0 = Instant::now();
    while !s.get("/metrics").text().contains("warrant_http_requests_in_flight 2") && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let state = s.state.clone();
    s.shutdown();
    assert!(!state.ready());
    let r = in_flight.join().expect("request");
    assert_eq!(r.status, 200, "the request in flight finished: {}", r.text());
    assert_eq!(r.json()["items"].as_array().map(Vec::len), Some(150));
    assert!(std::net::TcpStream::connect(addr).is_err(), "no longer accepting");
}

#[test]
fn readyz_is_503_while_draining() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    s.state.set_draining();
    let r = request(s.addr, "GET", "/readyz", None, None);
    assert_eq!(r.status, 503);
    assert_eq!(r.error_code(), "not_ready");
    assert_eq!(request(s.addr, "GET", "/healthz", None, None).status, 200);
}

#[test]
fn concurrent_checks_and_an_ingest_all_succeed() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let docs: Vec<Value> =
        (0..50).map(|i| json!({"id": format!("d{i}"), "text": format!("Warehouse {i} ships orders within {i} days.")})).collect();
    assert_eq!(s.post("/v1/ingest", &json!({"documents": docs})).status, 200);
    let (addr, token) = (s.addr, s.token.clone());
    let mut threads = Vec::new();
    for t in 0..8 {
        let token = token.clone();
        threads.push(std::thread::spawn(move || {
            let mut ok = 0;
            for i in 0..5 {
                let body = if t == 0 && i == 0 {
                    let more: Vec<Value> = (50..150)
                        .map(|k| json!({"id": format!("d{k}"), "text": format!("Warehouse {k} ships orders within {k} days.")}))
                        .collect();
                    ("/v1/ingest", json!({"documents": more}))
                } else {
                    ("/v1/check", json!({"answer": format!("Warehouse {i} ships orders within {i} days.")}))
                };
                let b = body.1.to_string();
                let r = request(addr, "POST", body.0, token.as_deref(), Some(("application/json", b.as_bytes())));
                assert_eq!(r.status, 200, "{}", r.text());
                if body.0 == "/v1/check" {
                    assert_eq!(r.json()["claims"][0]["status"], "supported", "{}", r.text());
                }
                ok += 1;
            }
            ok
        }));
    }
    let total: i32 = threads.into_iter().map(|t| t.join().expect("thread")).sum();
    assert_eq!(total, 40);
    assert_eq!(s.state.store().stats().expect("stats").documents, 150);
}

#[test]
fn research_runs_are_answered_and_recorded() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let docs = json!([
        {"id": "auth", "text": "Admin login requires hardware keys. Session tokens expire after 30 minutes of inactivity."},
        {"id": "geo", "text": "Canberra is the capital of Australia."}
    ]);
    assert_eq!(s.post("/v1/ingest", &json!({"documents": docs})).status, 200);
    let r = s.post("/v1/research", &json!({"topic": "what does admin login require", "now": "2026-06-02T18:30:45Z"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let synthesis = v["synthesis"].as_str().expect("synthesis");
    assert!(synthesis.contains("Admin login requires hardware keys."), "{v}");
    assert!(!synthesis.contains("Canberra"), "evidence keeps to the topic: {v}");
    assert!(
        v["evidence"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["objectstore_ref"].as_str().is_some_and(|r| r.starts_with("auth")))),
        "{v}"
    );
    // The run is recorded under its id, with the same result.
    let id = v["run_id"].as_str().expect("run_id");
    let run = s.get(&format!("/v1/research/{id}"));
    assert_eq!(run.status, 200, "{}", run.text());
    let record = run.json();
    assert_eq!(record["run_id"], id);
    assert_eq!(record["intent"]["topic"], "what does admin login require");
    assert_eq!(record["search_result"]["synthesis"], v["synthesis"]);
    assert_eq!(record["started_at"], "2026-06-02T18:30:45Z");
    // Unknown runs are 404; bad intents are 422 and say what is wrong.
    let r = s.get("/v1/research/rg_00000000");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], "not_found");
    let r = s.post("/v1/research", &json!({"topic": "  "}));
    assert_eq!(r.status, 422);
    assert!(r.json()["error"]["message"].as_str().is_some_and(|m| m.contains("topic required")), "{}", r.text());
    // Hints are free-form: a key no stage reads runs and is noted; a blank value is refused.
    let r = s.post("/v1/research", &json!({"topic": "admin login", "hints": {"colour": "blue"}}));
    assert_eq!(r.status, 200, "{}", r.text());
    let id = r.json()["run_id"].as_str().unwrap_or_default().to_string();
    let record = s.get(&format!("/v1/research/{id}")).json();
    assert!(
        record["warnings"].as_array().is_some_and(|w| w.iter().any(|w| w.as_str().is_some_and(|w| w.contains("colour")))),
        "{record}"
    );
    let r = s.post("/v1/research", &json!({"topic": "admin login", "hints": {"colour": " "}}));
    assert_eq!(r.status, 422);
    assert!(r.json()["error"]["message"].as_str().is_some_and(|m| m.contains("colour")), "{}", r.text());
    let r = s.post("/v1/research", &json!({"topic": "admin login", "now": "yesterday"}));
    assert_eq!((r.status, r.json()["error"]["details"]["pointer"].clone()), (422, json!("/now")));
    let r = s.post("/v1/research", &json!({"topic": "admin login", "budget": 10}));
    assert_eq!(r.status, 400, "unknown fields are refused: {}", r.text());
}

#[test]
fn policy_eval_defaults_to_the_tool_packs_for_tool_calls() {
    let dir = store_dir();
    let s = Server::start(dir.path(), |_| {});
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"kelvin\"}"}}]});
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}}]);
    let r = s.post("/v1/policy/eval", &json!({"input": msg, "tools": tools}));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let ids: Vec<&str> = v["packs"].as_array().expect("packs").iter().filter_map(|p| p["pack_id"].as_str()).collect();
    assert_eq!(ids, vec!["core.tool-use.v1", "warrant.tool-schema.v1"]);
    assert_eq!(v["passed"], false, "the enum is only checked by warrant.tool-schema.v1");
    assert_eq!(
        v["packs"][1]["policy_results"][0]["violations"][0]["diagnostics"],
        json!([r#"/unit: "kelvin" is not one of ["celsius","fahrenheit"]"#])
    );
    // Without tool calls there is nothing for the defaults to check: name a pack.
    let r = s.post("/v1/policy/eval", &json!({"input": "Hello."}));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["details"]["pointer"], "/packs");
}
