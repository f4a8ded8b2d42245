//! The model stages added by issue 10's second half, end to end against a fake OpenAI-compatible
//! server started by each test on loopback (no network): `ask --llm-plan`, `research --llm`
//! and `compile --llm`. Each stage: a valid reply, an invalid reply then a valid one (repair),
//! a schema-violating reply (fallback with a degraded reason), an HTTP 500 and a timeout
//! (fallback), and record → replay giving byte-identical output.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};
use warrant_testkit::fake_llm::{FakeLlm, Reply, Rule};

const DOC: &str = "Session tokens expire after 30 minutes of inactivity.\nMaximum session duration is 8 hours.\n";

fn warrant(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("warrant").unwrap();
    c.current_dir(cwd).env_remove("WARRANT_STORE").env_remove("WARRANT_LLM_API_KEY");
    c
}

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn run(c: &mut Command, code: i32) -> Vec<u8> {
    let out = c.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// A folder with `auth.md` ingested (pattern extraction) into store `s`, and a warrant.toml
/// that keeps failures fast (no retries, 1 s timeout).
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    write(d, "warrant.toml", "[llm]\nmax_retries = 0\nbackoff_ms = 1\ntimeout_secs = 1\n");
    run(warrant(d).args(["ingest", "--store", "s", "auth.md"]), 0);
    dir
}

// ---------------------------------------------------------------------------------------------
// ask --llm-plan
// ---------------------------------------------------------------------------------------------

/// Wording the rule planner has no template for.
const IDLE_QUESTION: &str = "When do idle logins lapse?";
/// Wording the rule planner plans.
const RULE_QUESTION: &str = "How long before session tokens expire from inactivity?";

fn expiry_plan() -> Value {
    json!({"subjects": ["Session tokens"], "predicates": ["expires_after"],
           "goal": {"subject": "session_token", "predicate": "expires_after", "object": "?answer"}})
}

fn ask(d: &Path, url: Option<&str>, question: &str, extra: &[&str]) -> Vec<u8> {
    let mut c = warrant(d);
    c.args(["ask", "--store", "s", "--llm-plan", "--llm-model", "fake-model"]).args(extra);
    if let Some(u) = url {
        c.args(["--llm-endpoint", u]);
    }
    c.arg(question);
    run(&mut c, 0)
}

#[test]
fn ask_llm_plan_uses_a_valid_model_plan() {
    let dir = setup();
    let d = dir.path();
    // Without a model the rule planner cannot plan this wording.
    let plain = json_of(&run(warrant(d).args(["ask", "--store", "s", IDLE_QUESTION]), 0));
    assert_eq!(plain["verdict"], "unsupported");

    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&expiry_plan())])]);
    let v = json_of(&ask(d, Some(&server.url()), IDLE_QUESTION, &[]));
    assert_eq!((v["verdict"].as_str(), v["text"].as_str()), (Some("supported"), Some("30 minutes")));
    assert_eq!(v["diagnostics"][0], "plan: from the model fake-model (ask.plan.v1)");
    // The plan the answer reports is the model's, canonicalised on load.
    assert_eq!(v["plan"]["subjects"], json!(["session_token"]));
    assert_eq!(v["plan"]["goal"]["predicate"], "expires_after");
    assert_eq!(server.count(), 1);
    let prompt = server.received()[0].prompt().to_string();
    assert!(prompt.contains("- expires_after: entity, duration"), "{prompt}");
    assert!(prompt.contains("- session_expired: reads expires_after; params inactivityMinutes"), "{prompt}");
    assert!(prompt.contains("- inactivityMinutes: minutes (a number)"), "{prompt}");
    assert!(prompt.contains(IDLE_QUESTION));
    assert_eq!(server.received()[0].body["response_format"], json!({"type": "json_object"}));

    // Text format carries the same note.
    let text = String::from_utf8(ask(d, Some(&server.url()), IDLE_QUESTION, &["--format", "text"])).unwrap();
    assert!(text.contains("Answer:   30 minutes\n") && text.contains("Note:     plan: from the model fake-model"), "{text}");
}

#[test]
fn ask_llm_plan_repairs_an_invalid_reply_once() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![Reply::json(&expiry_plan())]),
        Rule::any(vec![Reply::Content("Sure! The plan is: expires_after".into())]),
    ]);
    let v = json_of(&ask(d, Some(&server.url()), IDLE_QUESTION, &[]));
    assert_eq!(v["verdict"], "supported");
    assert_eq!(v["diagnostics"][0], "plan: from the model fake-model (ask.plan.v1), after one repair");
    assert_eq!(server.count(), 2);
    let repair = server.received()[1].prompt().to_string();
    assert!(repair.contains("Problem: the reply is not JSON") && repair.contains(IDLE_QUESTION), "{repair}");
}

#[test]
fn ask_llm_plan_falls_back_on_schema_violations() {
    let dir = setup();
    let d = dir.path();
    // An unknown predicate, twice: the rule planner's plan is used.
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&json!({"predicates": ["token_lifetime"]}))])]);
    let v = json_of(&ask(d, Some(&server.url()), RULE_QUESTION, &[]));
    assert_eq!((v["verdict"].as_str(), v["text"].as_str()), (Some("supported"), Some("30 minutes")));
    let note = v["diagnostics"][0].as_str().unwrap();
    assert_eq!(
        note,
        "plan: degraded: ask.plan: the model's output was rejected twice: /predicates/0: unknown predicate \"token_lifetime\" \
         (neither in the vocabulary nor concluded by a rule); after repair: /predicates/0: unknown predicate \"token_lifetime\" \
         (neither in the vocabulary nor concluded by a rule); the rule planner's plan was used"
    );
    assert_eq!(server.count(), 2);
    let rules_only = json_of(&run(warrant(d).args(["ask", "--store", "s", RULE_QUESTION]), 0));
    assert_eq!(v["plan"], rules_only["plan"]);

    // Unknown keys, unknown params and bad types are refused the same way.
    for (bad, pointer) in [
        (json!({"question": "x"}), "/question: unknown key"),
        (json!({"params": {"idleMinutes": 20}}), "/params/idleMinutes: unknown param"),
        (json!({"goal": {"subject": "session_token", "predicate": "lasts"}}), "/goal/predicate: unknown predicate \"lasts\""),
        (json!({"subjects": "session_token"}), "/subjects: expected an array of strings"),
    ] {
        let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&bad)])]);
        let v = json_of(&ask(d, Some(&server.url()), RULE_QUESTION, &[]));
        let note = v["diagnostics"][0].as_str().unwrap();
        assert!(
            note.starts_with("plan: degraded: ask.plan: the model's output was rejected twice: ") && note.contains(pointer),
            "{note}"
        );
        assert_eq!(v["verdict"], "supported", "the rule planner's plan answers");
    }
}

#[test]
fn ask_llm_plan_falls_back_on_500_and_timeout() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "boom".into())])]);
    let v = json_of(&ask(d, Some(&server.url()), RULE_QUESTION, &[]));
    assert_eq!(
        v["diagnostics"][0],
        "plan: degraded: ask.plan: the LLM endpoint answered HTTP 500 after 1 attempt(s): boom; the rule planner's plan was used"
    );
    assert_eq!(v["verdict"], "supported");

    let server =
        FakeLlm::start(vec![Rule::any(vec![Reply::Delay(Duration::from_secs(3), Box::new(Reply::json(&expiry_plan())))])]);
    let v = json_of(&ask(d, Some(&server.url()), RULE_QUESTION, &[]));
    assert_eq!(
        v["diagnostics"][0],
        "plan: degraded: ask.plan: the LLM request timed out after 1 attempt(s); the rule planner's plan was used"
    );
    assert_eq!((v["verdict"].as_str(), v["text"].as_str()), (Some("supported"), Some("30 minutes")));
}

#[test]
fn ask_llm_plan_records_and_replays_byte_for_byte() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&expiry_plan())])]);
    let recorded = ask(d, Some(&server.url()), IDLE_QUESTION, &["--llm-cache", "cache", "--llm-replay-case", "rec.json"]);
    drop(server);
    let replayed = ask(d, None, IDLE_QUESTION, &["--llm-cache", "cache", "--llm-replay-case", "rep.json"]);
    assert_eq!(replayed, recorded);
    assert_eq!(json_of(&replayed)["verdict"], "supported");
    let case = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(d.join(f)).unwrap()).unwrap() };
    let (rec, rep) = (case("rec.json").to_string(), case("rep.json").to_string());
    assert!(rec.contains("ask.plan") && rep.contains("ask.plan"), "{rec}");
    assert_ne!(rec, rep, "the recorded case says model, the replayed one says replayed");
    // A model stage without a model is bad input.
    let out = warrant(d).args(["ask", "--store", "s", "--llm-plan", IDLE_QUESTION]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("--llm-plan needs a model"));
}
