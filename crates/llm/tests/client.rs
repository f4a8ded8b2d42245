//! The client against a fake OpenAI-compatible server on loopback (no network).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use warrant_llm::{
    Cache, CachedClient, CompletionOptions, Llm, LlmClient, LlmConfig, LlmError, Origin, ResponseFormat, complete_json,
};
use warrant_llm::{HttpClient, HttpSettings};
use warrant_testkit::{FakeLlm, Reply, Rule};

fn settings(server: &FakeLlm) -> HttpSettings {
    HttpSettings {
        endpoint: server.url(),
        model: "fake-model".into(),
        api_key: None,
        timeout: Duration::from_millis(400),
        max_retries: 2,
        backoff: Duration::from_millis(1),
        concurrency: 2,
    }
}

fn client(server: &FakeLlm) -> HttpClient {
    HttpClient::new(settings(server)).unwrap()
}

#[test]
fn a_completion_sends_deterministic_settings_and_returns_the_content() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content("hello there".into())])]);
    let c = client(&server).complete("Say hello.", &CompletionOptions::json()).unwrap();
    assert_eq!(c.content, "hello there");
    assert_eq!(c.origin, Origin::Model);
    assert_eq!((c.prompt_tokens, c.completion_tokens), (Some(11), Some(5)));
    let got = server.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].path, "/v1/chat/completions");
    assert_eq!(
        got[0].body,
        json!({"model": "fake-model", "messages": [{"role": "user", "content": "Say hello."}],
               "temperature": 0.0, "seed": 0, "response_format": {"type": "json_object"}})
    );
    assert_eq!(got[0].header("authorization"), None);
}

#[test]
fn the_api_key_is_only_sent_as_a_header() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content("ok".into())])]);
    let dir = tempfile::tempdir().unwrap();
    let s = HttpSettings { api_key: Some("sk-test-secret".into()), ..settings(&server) };
    let rec = CachedClient::record(Box::new(HttpClient::new(s).unwrap()), Cache::new(dir.path()));
    let llm = Llm::new(Arc::new(rec));
    llm.complete("t", "p1", ResponseFormat::Text).unwrap();
    assert_eq!(server.received()[0].header("authorization"), Some("Bearer sk-test-secret"));
    assert!(!format!("{llm:?}").contains("sk-test-secret"));
    for f in std::fs::read_dir(dir.path()).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!text.contains("sk-test-secret") && text.contains("\"p1\""), "{text}");
    }
    // From the configuration: the variable named by api_key_env, unset here, means no header.
    let cfg = LlmConfig {
        endpoint: Some(server.url()),
        model: Some("fake-model".into()),
        api_key_env: Some("WARRANT_TEST_UNSET_KEY_VARIABLE".into()),
        ..LlmConfig::default()
    };
    cfg.build().unwrap().unwrap().complete("t", "p2", ResponseFormat::Text).unwrap();
    assert_eq!(server.received()[1].header("authorization"), None);
}

#[test]
fn rate_limits_and_server_errors_are_retried_with_backoff() {
    let server = FakeLlm::start(vec![Rule::any(vec![
        Reply::RateLimited,
        Reply::Status(503, "{\"error\":\"busy\"}".into()),
        Reply::Content("third time".into()),
    ])]);
    let c = client(&server).complete("p", &CompletionOptions::default()).unwrap();
    assert_eq!(c.content, "third time");
    assert_eq!(server.count(), 3);
}

#[test]
fn retries_are_bounded() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "{\"error\":\"boom\"}".into())])]);
    let e = client(&server).complete("p", &CompletionOptions::default()).unwrap_err();
    assert_eq!(e, LlmError::Status { status: 500, attempts: 3, body: "{\"error\":\"boom\"}".into() });
    assert_eq!(server.count(), 3, "one attempt and two retries");
}

#[test]
fn client_errors_are_not_retried() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(401, "{\"error\":\"bad key\"}".into())])]);
    let e = client(&server).complete("p", &CompletionOptions::default()).unwrap_err();
    assert!(matches!(e, LlmError::Status { status: 401, attempts: 1, .. }), "{e:?}");
    assert_eq!(server.count(), 1);
}

#[test]
fn timeouts_are_retried_then_reported() {
    let slow = Reply::Delay(Duration::from_millis(1500), Box::new(Reply::Content("late".into())));
    let server = FakeLlm::start(vec![Rule::any(vec![slow.clone(), Reply::Content("on time".into())])]);
    let c = client(&server).complete("p", &CompletionOptions::default()).unwrap();
    assert_eq!(c.content, "on time");

    let server = FakeLlm::start(vec![Rule::any(vec![slow])]);
    let s = HttpSettings { max_retries: 1, ..settings(&server) };
    let e = HttpClient::new(s).unwrap().complete("p", &CompletionOptions::default()).unwrap_err();
    assert_eq!(e, LlmError::Timeout { attempts: 2 });
}

#[test]
fn a_reply_that_is_not_a_chat_completion_is_an_error() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(200, "{\"choices\": []}".into())])]);
    let e = client(&server).complete("p", &CompletionOptions::default()).unwrap_err();
    assert!(matches!(&e, LlmError::BadResponse(m) if m.contains("/choices/0/message/content")), "{e:?}");
}

#[test]
fn the_concurrency_limit_holds() {
    let slow = Reply::Delay(Duration::from_millis(150), Box::new(Reply::Content("x".into())));
    let server = FakeLlm::start(vec![Rule::any(vec![slow])]);
    let c =
        Arc::new(HttpClient::new(HttpSettings { concurrency: 1, timeout: Duration::from_secs(5), ..settings(&server) }).unwrap());
    let start = std::time::Instant::now();
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let c = c.clone();
            std::thread::spawn(move || c.complete(&format!("p{i}"), &CompletionOptions::default()).unwrap().content)
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), "x");
    }
    // One at a time: three 150 ms replies take at least 450 ms. (An ordering fact, not a speed test.)
    assert!(start.elapsed() >= Duration::from_millis(450));
}

#[test]
fn record_then_replay_offline_gives_the_same_bytes() {
    let reply = "{\"facts\": [ {\"subject\": \"x\"} ]}\n  ";
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content(reply.into())])]);
    let dir = tempfile::tempdir().unwrap();
    let rec = CachedClient::record(Box::new(client(&server)), Cache::new(dir.path()));
    let first = rec.complete("extract", &CompletionOptions::json()).unwrap();
    assert_eq!((first.content.as_str(), first.origin), (reply, Origin::Model));
    let again = rec.complete("extract", &CompletionOptions::json()).unwrap();
    assert_eq!((again.content.as_str(), again.origin), (reply, Origin::Replayed));
    assert_eq!(server.count(), 1, "the second call was served by the cache");
    drop(server);

    let replay = CachedClient::replay_only("fake-model", Cache::new(dir.path()));
    let r = replay.complete("extract", &CompletionOptions::json()).unwrap();
    assert_eq!((r.content.as_str(), r.origin, r.request_key.as_str()), (reply, Origin::Replayed, first.request_key.as_str()));
    assert_eq!((r.prompt_tokens, r.completion_tokens), (Some(11), Some(5)));
    let miss = replay.complete("something else", &CompletionOptions::json()).unwrap_err();
    assert!(matches!(miss, LlmError::NotInCache { .. }), "{miss:?}");

    // The file holds the canonical request and the reply.
    let file = dir.path().join(format!("{}.json", first.request_key));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["request"]["messages"][0]["content"], "extract");
    assert_eq!(doc["response"]["content"], reply);
    // A damaged file is an error naming it, not a silent miss.
    std::fs::write(&file, "{").unwrap();
    let e = replay.complete("extract", &CompletionOptions::json()).unwrap_err();
    assert!(matches!(&e, LlmError::Cache(m) if m.contains(&first.request_key)), "{e:?}");
}

fn facts_array(v: &Value) -> Result<Vec<Value>, String> {
    v.get("facts").and_then(Value::as_array).cloned().ok_or_else(|| "/facts: expected an array".into())
}

#[test]
fn json_stage_valid_first_time() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content("```json\n{\"facts\": [1, 2]}\n```".into())])]);
    let llm = Llm::new(Arc::new(client(&server)));
    let out = complete_json(&llm, "facts.extract", "give facts", facts_array).unwrap();
    assert_eq!(out.value, vec![json!(1), json!(2)]);
    assert_eq!(out.completions.len(), 1);
    let calls = llm.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].stage.as_str(), calls[0].origin), ("facts.extract", Some(Origin::Model)));
    assert_eq!((calls[0].prompt_tokens, calls[0].completion_tokens), (Some(11), Some(5)));
}

#[test]
fn json_stage_repairs_invalid_json_once() {
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![Reply::Content("{\"facts\": [3]}".into())]),
        Rule::any(vec![Reply::Content("{\"facts\": [3,".into())]),
    ]);
    let llm = Llm::new(Arc::new(client(&server)));
    let out = complete_json(&llm, "facts.extract", "give facts", facts_array).unwrap();
    assert_eq!(out.value, vec![json!(3)]);
    let got = server.received();
    assert_eq!(got.len(), 2);
    let repair = got[1].prompt();
    assert!(repair.contains("the reply is not JSON"), "{repair}");
    assert!(repair.contains("give facts") && repair.contains("{\"facts\": [3,"), "{repair}");
    let stages: Vec<String> = llm.calls().into_iter().map(|c| c.stage).collect();
    assert_eq!(stages, ["facts.extract", "facts.extract.repair"]);
}

#[test]
fn json_stage_gives_up_after_two_schema_violations() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content("{\"facts\": \"none\"}".into())])]);
    let llm = Llm::new(Arc::new(client(&server)));
    let e = complete_json(&llm, "facts.extract", "give facts", facts_array).unwrap_err();
    assert_eq!(
        e.reason,
        "facts.extract: the model's output was rejected twice: /facts: expected an array; after repair: /facts: expected an array"
    );
    assert_eq!(server.count(), 2);
}

#[test]
fn json_stage_reports_a_failed_call() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "down".into())])]);
    let llm = Llm::new(Arc::new(HttpClient::new(HttpSettings { max_retries: 0, ..settings(&server) }).unwrap()));
    let e = complete_json(&llm, "graph.extract", "p", facts_array).unwrap_err();
    assert_eq!(e.reason, "graph.extract: the LLM endpoint answered HTTP 500 after 1 attempt(s): down");
    assert_eq!(llm.calls()[0].origin, None);
}

#[test]
fn a_key_the_endpoint_echoes_back_is_redacted_from_errors_replies_and_the_cache() {
    const KEY: &str = "sk-echo-0123456789abcdefghij";
    let dir = tempfile::tempdir().unwrap();
    let server =
        FakeLlm::start(vec![Rule::when("fail", vec![Reply::EchoHeaders(401)]), Rule::any(vec![Reply::EchoHeaders(200)])]);
    let s = HttpSettings { api_key: Some(KEY.into()), max_retries: 0, ..settings(&server) };
    let rec = CachedClient::record(Box::new(HttpClient::new(s).unwrap()), Cache::new(dir.path()));
    let llm = Llm::new(Arc::new(rec));
    let e = llm.complete("t", "fail", ResponseFormat::Text).unwrap_err();
    let LlmError::Status { status: 401, body, .. } = &e else { panic!("{e:?}") };
    assert!(body.contains("authorization: Bearer [redacted]"), "{body}");
    assert!(!e.to_string().contains(KEY), "{e}");
    let c = llm.complete("t", "echo", ResponseFormat::Text).unwrap();
    assert!(c.content.contains("authorization: Bearer [redacted]") && !c.content.contains(KEY), "{}", c.content);
    assert!(llm.calls().iter().all(|r| !format!("{r:?}").contains(KEY)));
    for f in std::fs::read_dir(dir.path()).unwrap() {
        assert!(!std::fs::read_to_string(f.unwrap().path()).unwrap().contains(KEY));
    }
}
