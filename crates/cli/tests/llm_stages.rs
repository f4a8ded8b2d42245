//! The model stages added by issue 10's second half, end to end against a fake OpenAI-compatible
//! server started by each test on loopback (no network): `ask --llm-plan`, `research --llm`
//! and `compile --llm`. Each stage: a valid reply, an invalid reply then a valid one (repair),
//! a schema-violating reply (fallback with a degraded reason), an HTTP 500 and a timeout
//! (fallback), and record → replay giving byte-identical output.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};
use warrant_testkit::warrant_at;
use warrant_testkit::write_file as write;
use warrant_testkit::{FakeLlm, Reply, Rule};

const DOC: &str = "Session tokens expire after 30 minutes of inactivity.\nMaximum session duration is 8 hours.\n";

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
    run(warrant_at(d).args(["ingest", "--store", "s", "auth.md"]), 0);
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
    let mut c = warrant_at(d);
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
    let plain = json_of(&run(warrant_at(d).args(["ask", "--store", "s", IDLE_QUESTION]), 0));
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
    let rules_only = json_of(&run(warrant_at(d).args(["ask", "--store", "s", RULE_QUESTION]), 0));
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
    let out =
        warrant_at(d).args(["ask", "--store", "s", "--llm-plan", IDLE_QUESTION]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("--llm-plan needs a model"));
}

// ---------------------------------------------------------------------------------------------
// research --llm
// ---------------------------------------------------------------------------------------------

const TOPIC: &str = "session token expiry";
const CHUNK: &str = "warrant.local.knowledge.chunk.auth%2Emd.1";
const ROUTE_MARK: &str = "You route a research request";
const ASSESS_MARK: &str = "Decide whether the evidence below answers";
const SYNTH_MARK: &str = "Answer the research topic from the evidence";

fn research(d: &Path, store: &str, url: Option<&str>, extra: &[&str], code: i32) -> Vec<u8> {
    let mut c = warrant_at(d);
    c.args(["research", "--store", store, "--now", "2026-01-01T00:00:00Z", "--llm", "--llm-model", "fake-model"]).args(extra);
    if let Some(u) = url {
        c.args(["--llm-endpoint", u]);
    }
    c.arg(TOPIC);
    run(&mut c, code)
}

fn good_route() -> Reply {
    Reply::json(
        &json!({"action": "walk_seeds", "args": {"seeds": [{"ref": "0", "ref_type": "candidate_index"}]}, "rationale": "named"}),
    )
}

fn good_assess() -> Reply {
    Reply::json(&json!({"sufficient": true, "refined_queries": [], "rationale": "the expiry is stated", "confidence": 0.9}))
}

/// A synthesis citing one real evidence id and, on its own line, one invented id.
fn good_synth() -> Reply {
    Reply::json(&json!({
        "synthesis": format!("Session tokens expire after 30 minutes of inactivity [{CHUNK}].\nThey are kept in Redis [made.up.id]."),
        "evidence_refs": [CHUNK, "made.up.id"]}))
}

fn show(d: &Path, store: &str, run_id: &str) -> Value {
    json_of(&run(warrant_at(d).args(["research", "--store", store, "--show", run_id]), 0))
}

fn latest<'a>(record: &'a Value, category: &str) -> &'a Value {
    &record["history"].as_array().unwrap().iter().rev().find(|h| h["category"] == category).unwrap()["payload"]
}

#[test]
fn research_llm_runs_the_model_stages_and_strips_invented_refs() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![
        Rule::when(ROUTE_MARK, vec![good_route()]),
        Rule::when(ASSESS_MARK, vec![good_assess()]),
        Rule::when(SYNTH_MARK, vec![good_synth()]),
    ]);
    let v = json_of(&research(d, "s", Some(&server.url()), &[], 0));
    assert_eq!(v["synthesis"], format!("Session tokens expire after 30 minutes of inactivity [{CHUNK}]."));
    let ids: Vec<&str> = v["evidence"].as_array().unwrap().iter().map(|e| e["entity_id"].as_str().unwrap()).collect();
    assert_eq!(ids, [CHUNK], "only the cited, existing evidence");
    assert!(v.get("degraded").is_none(), "{v}");
    assert_eq!(v["sufficient"], true);
    assert_eq!(server.count(), 3);
    let prompts: Vec<String> = server.received().iter().map(|r| r.prompt().to_string()).collect();
    assert!(prompts[0].contains("[0] warrant.local.knowledge.graph.entity.session_token — session token"), "{}", prompts[0]);
    assert!(prompts[1].contains("Action: walk_seeds") && prompts[1].contains(CHUNK), "{}", prompts[1]);
    assert!(prompts[2].contains(&format!("- [{CHUNK}] obj=auth.md#1 Session tokens expire")), "{}", prompts[2]);

    let record = show(d, "s", v["run_id"].as_str().unwrap());
    assert_eq!(latest(&record, "assessment_output")["rationale"], "the expiry is stated");
    assert_eq!(latest(&record, "route_decision")["rationale"], "named");
    assert_eq!(record["warnings"], json!(["synthesize: stripped unknown evidence ref \"made.up.id\""]));
}

#[test]
fn research_llm_repairs_an_invalid_route_once() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![good_route()]),
        Rule::when(ROUTE_MARK, vec![Reply::Content("```json\n{\"action\": \"walk_seeds\", \"args\": {\"seeds\": [\n```".into())]),
        Rule::when(ASSESS_MARK, vec![good_assess()]),
        Rule::when(SYNTH_MARK, vec![good_synth()]),
    ]);
    let v = json_of(&research(d, "s", Some(&server.url()), &[], 0));
    assert!(v.get("degraded").is_none(), "{v}");
    assert_eq!(v["decomp_trace"]["router_action"], "walk_seeds");
    assert_eq!(server.count(), 4);
    let repair = server.received()[1].prompt().to_string();
    assert!(repair.contains("Problem: the reply is not JSON") && repair.contains(ROUTE_MARK), "{repair}");
}

#[test]
fn research_llm_falls_back_to_the_rule_stages_on_schema_violations() {
    let dir = setup();
    let d = dir.path();
    run(warrant_at(d).args(["ingest", "--store", "plain", "auth.md"]), 0);
    let plain = json_of(&run(warrant_at(d).args(["research", "--store", "plain", "--now", "2026-01-01T00:00:00Z", TOPIC]), 0));
    let server = FakeLlm::start(vec![
        Rule::when(ROUTE_MARK, vec![Reply::json(&json!({"action": "fly", "args": {}}))]),
        Rule::when(ASSESS_MARK, vec![Reply::json(&json!({"sufficient": "yes"}))]),
        Rule::when(
            SYNTH_MARK,
            vec![Reply::json(&json!({"synthesis": "Tokens never expire [x.y.z].", "evidence_refs": ["x.y.z"]}))],
        ),
    ]);
    let v = json_of(&research(d, "s", Some(&server.url()), &[], 0));
    assert_eq!(server.count(), 6, "every stage asked twice");
    let degraded: Vec<&str> = v["degraded"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert_eq!(degraded.len(), 3, "{degraded:?}");
    assert!(degraded[0].starts_with("research.route: the model's output was rejected twice: ") && degraded[0].contains("fly"));
    assert!(degraded[0].ends_with("; the rule router was used"));
    assert!(degraded[1].starts_with(
        "research.assess: the model's output was rejected twice: /sufficient: expected true or false; after repair: /sufficient"
    ));
    assert_eq!(
        degraded[2],
        "research.synthesize: the model's output was rejected twice: /evidence_refs: no cited id is one of the listed evidence ids \
         (cited: x.y.z); after repair: /evidence_refs: no cited id is one of the listed evidence ids (cited: x.y.z); the rule \
         synthesizer was used"
    );
    // The rule stages' result, exactly; nothing the model invented survives.
    for key in ["synthesis", "evidence", "decomp_trace", "sufficient", "run_id"] {
        assert_eq!(v[key], plain[key], "{key}");
    }
    let record = show(d, "s", v["run_id"].as_str().unwrap());
    let ao = latest(&record, "assessment_output");
    assert_eq!(ao["degraded"], true);
    assert!(ao["degraded_reason"].as_str().unwrap().starts_with("research.assess: the model's output was rejected twice"));
    let warnings = record["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 3);
    assert!(warnings[0].as_str().unwrap().starts_with("model degraded: research.route: "));
    // Text format says so too.
    let text = String::from_utf8(research(d, "s", Some(&server.url()), &["--format", "text"], 0)).unwrap();
    assert!(text.contains("\nDegraded: research.route: the model's output was rejected twice"), "{text}");
}

#[test]
fn research_llm_falls_back_on_500_and_timeout() {
    let dir = setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "boom".into())])]);
    let v = json_of(&research(d, "s", Some(&server.url()), &[], 0));
    assert_eq!(
        v["degraded"],
        json!([
            "research.route: the LLM endpoint answered HTTP 500 after 1 attempt(s): boom; the rule router was used",
            "research.assess: the LLM endpoint answered HTTP 500 after 1 attempt(s): boom; the rule assessor was used",
            "research.synthesize: the LLM endpoint answered HTTP 500 after 1 attempt(s): boom; the rule synthesizer was used"
        ])
    );
    assert!(v["synthesis"].as_str().unwrap().starts_with("Evidence for session token expiry:"));

    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Delay(Duration::from_secs(3), Box::new(good_route()))])]);
    let v = json_of(&research(d, "s", Some(&server.url()), &[], 0));
    let degraded: Vec<&str> = v["degraded"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert_eq!(degraded.len(), 3);
    assert!(degraded.iter().all(|d| d.contains("the LLM request timed out after 1 attempt(s)")), "{degraded:?}");
    assert_eq!(v["evidence"][0]["entity_id"], CHUNK);
}

#[test]
fn research_llm_records_and_replays_byte_for_byte() {
    let dir = setup();
    let d = dir.path();
    run(warrant_at(d).args(["ingest", "--store", "s2", "auth.md"]), 0);
    let server = FakeLlm::start(vec![
        Rule::when(ROUTE_MARK, vec![good_route()]),
        Rule::when(ASSESS_MARK, vec![good_assess()]),
        Rule::when(SYNTH_MARK, vec![good_synth()]),
    ]);
    let recorded = research(d, "s", Some(&server.url()), &["--llm-cache", "cache", "--llm-replay-case", "rec.json"], 0);
    drop(server);
    let replayed = research(d, "s2", None, &["--llm-cache", "cache", "--llm-replay-case", "rep.json"], 0);
    let case = |f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    for stage in ["research.route", "research.assess", "research.synthesize"] {
        assert!(case("rec.json").contains(stage) && case("rep.json").contains(stage), "{stage}: {}", case("rec.json"));
    }
    assert_ne!(case("rec.json"), case("rep.json"), "model outputs, then replayed ones");
    assert_eq!(String::from_utf8(replayed).unwrap(), String::from_utf8(recorded.clone()).unwrap());
    let v = json_of(&recorded);
    assert_eq!(show(d, "s", v["run_id"].as_str().unwrap()), show(d, "s2", v["run_id"].as_str().unwrap()));
    // A model stage without a model is bad input.
    warrant_at(d).args(["research", "--store", "s", "--llm", TOPIC]).assert().code(2);
}

// ---------------------------------------------------------------------------------------------
// compile --llm (CKF map step)
// ---------------------------------------------------------------------------------------------

const REFUND: &str = "# Refund policy\n\nCustomers may request a refund within 30 days of purchase. Refunds are issued to the original payment method.\n";
const MAP_MARK: &str = "<<<SOURCE>>>";

fn trace(excerpt: &str) -> Value {
    json!({"source_basis": "explicit", "confidence": 0.9, "source_refs": ["s_001"], "source_excerpts": [excerpt]})
}

fn with_trace(mut item: Value, excerpt: &str) -> Value {
    item.as_object_mut().unwrap().extend(trace(excerpt).as_object().unwrap().clone());
    item
}

fn good_partial() -> Value {
    json!({
        "entities": [
            with_trace(json!({"name": "Refund", "type": "process", "description": "Money returned to a customer.",
                              "related": [{"name": "Payment method", "relation": "depends_on"}]}),
                       "Refunds are issued to the original payment method."),
            with_trace(json!({"name": "Payment method", "type": "object", "description": "How the customer paid."}),
                       "the original payment method")
        ],
        "concepts": [],
        "decision_rules": [
            with_trace(json!({"condition": "A customer asks for a refund within 30 days of purchase.",
                              "decision": "Grant the refund to the original payment method."}),
                       // Whitespace may differ from the source.
                       "Customers may request a refund  within\n30 days of purchase.")
        ],
        "atomic_units": [
            with_trace(json!({"statement": "Customers may request a refund within 30 days of purchase.", "type": "rule"}),
                       "Customers may request a refund within 30 days of purchase."),
            // A number no excerpt shows: dropped, as the rule mapper would.
            with_trace(json!({"statement": "Refunds take 5 days.", "type": "numeric_fact"}),
                       "Refunds are issued to the original payment method.")
        ],
        "metadata": {"source_title": "Refund policy", "source_type": "policy"}
    })
}

fn compile(d: &Path, url: Option<&str>, extra: &[&str]) -> (Vec<u8>, Value, String) {
    let mut c = warrant_at(d);
    c.args(["compile", "--llm", "--llm-model", "fake-model", "--report", "report.json"]).args(extra);
    if let Some(u) = url {
        c.args(["--llm-endpoint", u]);
    }
    c.arg("refund.md");
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap();
    (out.stdout, report, String::from_utf8(out.stderr).unwrap())
}

fn compile_setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "refund.md", REFUND);
    write(dir.path(), "warrant.toml", "[llm]\nmax_retries = 0\nbackoff_ms = 1\ntimeout_secs = 1\n");
    dir
}

fn ids(pkg: &Value, section: &str) -> Vec<String> {
    pkg[section].as_array().map(|a| a.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

#[test]
fn compile_llm_maps_chunks_with_a_valid_partial() {
    let dir = compile_setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&good_partial())])]);
    let (out, report, stderr) = compile(d, Some(&server.url()), &[]);
    let pkg = json_of(&out);
    assert_eq!(server.count(), 1, "one chunk, one request");
    let prompt = server.received()[0].prompt().to_string();
    assert!(prompt.contains("Span s_001") && prompt.contains(&format!("{MAP_MARK}\n{}", REFUND.trim_end())), "{prompt}");
    assert!(
        prompt.contains("- entities: name*, type*, description*, aliases[], attributes[], related[{name, relation}]"),
        "{prompt}"
    );
    assert_eq!(pkg["metadata"]["compiler_profile"], "warrant-ckf 0.1.0 (mapper: llm:fake-model)");
    assert!(report.get("degraded").is_none(), "{report}");
    assert!(!stderr.contains("degraded:"), "{stderr}");
    assert_eq!(ids(&pkg, "entities"), ["ent_payment_method", "ent_refund"]);
    let refund = pkg["entities"].as_array().unwrap().iter().find(|e| e["name"] == "Refund").unwrap();
    assert_eq!(refund["related_entities"][0]["entity_id"], "ent_payment_method");
    assert_eq!(refund["related_entities"][0]["relation_type"], "depends_on");
    let rule = &pkg["decision_rules"][0];
    assert_eq!(rule["source_excerpts"], json!(["Customers may request a refund within 30 days of purchase."]));
    let statements: Vec<&str> =
        pkg["atomic_units"].as_array().unwrap().iter().map(|a| a["statement"].as_str().unwrap()).collect();
    assert!(statements.contains(&"Customers may request a refund within 30 days of purchase."), "{statements:?}");
    assert!(!statements.iter().any(|s| s.contains("5 days")), "the unshown number was dropped: {statements:?}");
    // The rule mapper's principle is not there: the model's items replaced the rule mapper's.
    assert!(pkg.get("principles").is_none_or(|p| p.as_array().unwrap().is_empty()), "{}", pkg["principles"]);
}

#[test]
fn compile_llm_repairs_then_falls_back() {
    let dir = compile_setup();
    let d = dir.path();
    // Repair: not JSON, then a valid partial.
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![Reply::json(&good_partial())]),
        Rule::any(vec![Reply::Content("{\"entities\": [".into())]),
    ]);
    let (out, report, _) = compile(d, Some(&server.url()), &[]);
    assert_eq!(server.count(), 2);
    assert!(report.get("degraded").is_none());
    assert_eq!(ids(&json_of(&out), "entities"), ["ent_payment_method", "ent_refund"]);

    // Schema violations, twice: the rule mapper's package, with the reason.
    let (plain, _, _) = {
        let out = run(warrant_at(d).args(["compile", "refund.md"]), 0);
        (out, Value::Null, String::new())
    };
    for (bad, why) in [
        (json!({"concepts": []}), "/entities: missing (required, may be [])"),
        (json!({"entities": [], "concepts": [], "rules": []}), "/rules: unknown section"),
        (
            json!({"entities": [with_trace(json!({"name": "Refund", "type": "process", "description": "x"}), "Refunds never expire.")], "concepts": []}),
            "/entities/0/source_excerpts/0: not found verbatim in the chunk",
        ),
        (
            json!({"entities": [with_trace(json!({"name": "Refund", "type": "process"}), "Refunds are issued")], "concepts": []}),
            "/entities/0/description: missing (required in entities)",
        ),
        (
            json!({"entities": [], "concepts": [{"label": "Refund", "definition": "Money back", "source_basis": "certain", "confidence": 0.5, "source_excerpts": ["Refunds are issued"]}]}),
            "/concepts/0/source_basis: \"certain\" is not one of",
        ),
        (
            json!({"entities": [with_trace(json!({"name": "Refund", "type": "process", "description": "x", "related": [{"name": "Payment method", "relation": "loves"}]}), "Refunds are issued")], "concepts": []}),
            "/entities/0/related/0/relation: \"loves\" is not one of",
        ),
    ] {
        let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&bad)])]);
        let (out, report, stderr) = compile(d, Some(&server.url()), &[]);
        assert_eq!(server.count(), 2, "{why}");
        let degraded = report["degraded"][0].as_str().unwrap();
        assert!(degraded.starts_with("s_001: ckf.map: the model's output was rejected twice: "), "{degraded}");
        assert!(degraded.contains(why) && degraded.ends_with("; the rule mapper was used"), "{why}: {degraded}");
        assert!(stderr.contains(&format!("degraded: {degraded}")), "{stderr}");
        let (a, b) = (json_of(&out), json_of(&plain));
        for section in ["entities", "principles", "atomic_units", "retrieval_chunks"] {
            assert_eq!(a[section], b[section], "{section}: the rule mapper's items");
        }
    }
}

#[test]
fn compile_llm_falls_back_on_500_and_timeout() {
    let dir = compile_setup();
    let d = dir.path();
    let plain = json_of(&run(warrant_at(d).args(["compile", "refund.md"]), 0));
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "boom".into())])]);
    let (out, report, _) = compile(d, Some(&server.url()), &[]);
    assert_eq!(
        report["degraded"],
        json!(["s_001: ckf.map: the LLM endpoint answered HTTP 500 after 1 attempt(s): boom; the rule mapper was used"])
    );
    assert_eq!(json_of(&out)["atomic_units"], plain["atomic_units"]);

    let server =
        FakeLlm::start(vec![Rule::any(vec![Reply::Delay(Duration::from_secs(3), Box::new(Reply::json(&good_partial())))])]);
    let (out, report, _) = compile(d, Some(&server.url()), &[]);
    assert_eq!(
        report["degraded"],
        json!(["s_001: ckf.map: the LLM request timed out after 1 attempt(s); the rule mapper was used"])
    );
    assert_eq!(json_of(&out)["atomic_units"], plain["atomic_units"]);
}

#[test]
fn compile_llm_records_and_replays_byte_for_byte() {
    let dir = compile_setup();
    let d = dir.path();
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&good_partial())])]);
    let (recorded, rec_report, _) = compile(d, Some(&server.url()), &["--llm-cache", "cache", "--llm-replay-case", "rec.json"]);
    drop(server);
    let (replayed, rep_report, _) = compile(d, None, &["--llm-cache", "cache", "--llm-replay-case", "rep.json"]);
    let case = |f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert!(case("rec.json").contains("ckf.map") && case("rep.json").contains("ckf.map"), "{}", case("rec.json"));
    assert_ne!(case("rec.json"), case("rep.json"), "model outputs, then replayed ones");
    assert_eq!(String::from_utf8(replayed).unwrap(), String::from_utf8(recorded).unwrap());
    assert_eq!(rep_report, rec_report);
    warrant_at(d).args(["compile", "--llm", "refund.md"]).assert().code(2);
}
