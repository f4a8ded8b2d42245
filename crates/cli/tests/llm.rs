//! The model stages end to end, against a fake OpenAI-compatible server started by each test on
//! loopback (no network): `ingest --llm [--consistency R]`, `extract --llm`,
//! `check --llm-verify`, `policy eval --rubric` with a judge, `llm prompts`; record and replay
//! (byte-identical reports offline), replay cases, fallbacks, configuration errors.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};
use warrant_testkit::write_file as write;
use warrant_testkit::{FakeLlm, Reply, Rule};
use warrant_testkit::{data_dir, read_json, warrant_at};

const DOC: &str = "Session tokens expire after 30 minutes of inactivity.\nMaximum session duration is 8 hours.\n";

fn run(c: &mut Command, code: i32) -> Vec<u8> {
    c.assert().code(code).get_output().stdout.clone()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn expiry() -> Value {
    json!({"span": {"start": 0, "end": 52}, "subject": "session_token", "predicate": "expires_after",
           "object": "30 minutes", "qualifiers": {"condition": "inactivity"}, "polarity": "affirm", "confidence": 0.9})
}

fn max_duration() -> Value {
    json!({"span": {"start": 54, "end": 89}, "subject": "maximum_session_duration", "predicate": "has_value", "object": "8 hours"})
}

#[test]
fn prompts_are_listed_with_versions() {
    let dir = tempfile::tempdir().unwrap();
    let v = json_of(&run(warrant_at(dir.path()).args(["llm", "prompts", "--format", "json"]), 0));
    let ids: Vec<&str> = v.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "ask.plan.v1",
            "ckf.map.v1",
            "claims.verify.v1",
            "facts.extract.v1",
            "graph.extract.v1",
            "repair.v1",
            "research.assess.v1",
            "research.route.v1",
            "research.synthesize.v1",
            "verifier.judge.v1"
        ]
    );
    let facts = v.as_array().unwrap().iter().find(|p| p["id"] == "facts.extract.v1").unwrap();
    assert_eq!(facts["file"], "crates/llm/prompts/facts.extract.v1.txt");
    assert_eq!(facts["version"], 1);
    let text = String::from_utf8(run(warrant_at(dir.path()).args(["llm", "prompts", "--show", "facts.extract.v1"]), 0)).unwrap();
    assert!(text.contains("{{predicates}}") && text.contains("{{text}}"));
    warrant_at(dir.path()).args(["llm", "prompts", "--show", "nope.v1"]).assert().code(2);
}

#[test]
fn ingest_with_a_model_records_and_replays_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&json!({"facts": [expiry()]}))])]);
    let url = server.url();
    let ingest = |store: &str, endpoint: Option<&str>| {
        let mut c = warrant_at(d);
        c.args(["ingest", "--llm", "--store", store, "--llm-model", "fake-model", "--llm-cache", "cache", "--format", "json"]);
        if let Some(e) = endpoint {
            c.args(["--llm-endpoint", e]);
        }
        c.arg("auth.md");
        run(&mut c, 0)
    };
    let recorded = ingest("s1", Some(&url));
    let v = json_of(&recorded);
    assert_eq!((v["documents"].as_u64(), v["facts"].as_u64()), (Some(1), Some(1)));
    assert!(v.get("degraded").is_none());
    assert_eq!(server.count(), 1);
    let prompt = server.received()[0].prompt().to_string();
    assert!(prompt.contains("- expires_after: entity, duration") && prompt.contains("Session tokens expire after 30 minutes"));
    let facts = |store: &str| run(warrant_at(d).args(["facts", "--store", store]), 0);
    let recorded_facts = facts("s1");
    let f: Vec<Value> =
        String::from_utf8(recorded_facts.clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0]["subject"].as_str(), f[0]["object"].as_str()), (Some("session_token"), Some("30 minutes")));
    assert_eq!(f[0]["qualifiers"]["condition"], "inactivity");
    // The same ingest again: the document is unchanged (the model's fingerprint is part of its
    // ingest key), and the model is not asked again.
    let again = json_of(&ingest("s1", Some(&url)));
    assert_eq!((again["documents"].as_u64(), again["unchanged_documents"].as_u64()), (Some(0), Some(1)));
    assert_eq!(server.count(), 1);
    // Without --llm the same store re-extracts with the patterns (a different ingest key).
    let plain = json_of(&run(warrant_at(d).args(["ingest", "--store", "s1", "--format", "json", "auth.md"]), 0));
    assert_eq!((plain["documents"].as_u64(), plain["facts"].as_u64()), (Some(1), Some(2)));

    // Offline: no endpoint, the server gone; the cache answers.
    drop(server);
    let replayed = ingest("s2", None);
    assert_eq!(replayed, recorded);
    assert_eq!(facts("s2"), recorded_facts);
    // A request the cache never saw fails clearly (exit 2), nothing is fabricated.
    write(d, "other.md", "Refresh tokens expire after 30 days.\n");
    let out = warrant_at(d)
        .args([
            "ingest",
            "--llm",
            "--store",
            "s3",
            "--llm-model",
            "fake-model",
            "--llm-cache",
            "cache",
            "--format",
            "json",
            "other.md",
        ])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    let degraded = v["degraded"][0].as_str().unwrap();
    assert!(
        degraded.starts_with("other.md#1: facts.extract: request ") && degraded.contains("is not in the LLM cache"),
        "{degraded}"
    );
    assert_eq!(v["facts"], 1, "the pattern extractor stands in");
}

#[test]
fn ingest_consistency_flags_an_unreliable_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    // Runs 0 and 2 agree; run 1 adds a fact: pairs 1/2, 1, 1/2 → jaccardAvg 2/3.
    let server = FakeLlm::start(vec![Rule::any(vec![
        Reply::json(&json!({"facts": [expiry()]})),
        Reply::json(&json!({"facts": [expiry(), max_duration()]})),
        Reply::json(&json!({"facts": [expiry()]})),
    ])]);
    let out =
        run(
            warrant_at(d)
                .args(["ingest", "--llm", "--consistency", "3", "--store", "s", "--llm-endpoint", &server.url()])
                .args(["--llm-model", "fake-model", "--llm-cache", "cache", "--format", "json", "auth.md"]),
            0,
        );
    let v = json_of(&out);
    let c = &v["consistency"];
    assert_eq!((c["runs"].as_u64(), c["document"].as_str(), c["reliable"].as_bool()), (Some(3), Some("auth.md"), Some(false)));
    assert!((c["jaccardAvg"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(c["jaccardMin"].as_f64(), Some(0.5));
    let seeds: Vec<Value> = server.received().iter().map(|r| r.body["seed"].clone()).collect();
    assert_eq!(seeds, [json!(0), json!(1), json!(2)], "the ingest itself replays run 0 from the cache");
    assert_eq!(v["facts"], 1);

    // Text report.
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&json!({"facts": [expiry()]}))])]);
    let out = run(
        warrant_at(d).args([
            "ingest",
            "--llm",
            "--consistency",
            "2",
            "--store",
            "t",
            "--llm-endpoint",
            &server.url(),
            "--llm-model",
            "m",
            "auth.md",
        ]),
        0,
    );
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("consistency of auth.md over 2 runs: jaccardAvg 1.000, jaccardMin 1.000\n"), "{text}");
}

#[test]
fn pattern_consistency_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    let v = json_of(&run(warrant_at(d).args(["ingest", "--consistency", "3", "--store", "s", "--format", "json", "auth.md"]), 0));
    assert_eq!(
        v["consistency"],
        json!({"runs": 3, "jaccardAvg": 1.0, "jaccardMin": 1.0, "reliable": true, "document": "auth.md"})
    );
    warrant_at(d).args(["ingest", "--consistency", "1", "--store", "s", "auth.md"]).assert().code(2);
}

#[test]
fn ingest_falls_back_to_patterns_when_the_model_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    write(d, "warrant.toml", "[llm]\nmax_retries = 1\nbackoff_ms = 1\ntimeout_secs = 5\n");
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(503, "overloaded".into())])]);
    let v = json_of(&run(
        warrant_at(d).args([
            "ingest",
            "--llm",
            "--store",
            "s",
            "--llm-endpoint",
            &server.url(),
            "--llm-model",
            "m",
            "--format",
            "json",
            "auth.md",
        ]),
        0,
    ));
    assert_eq!(v["facts"], 2, "both pattern facts");
    assert_eq!(
        v["degraded"],
        json!(["auth.md#1: facts.extract: the LLM endpoint answered HTTP 503 after 2 attempt(s): overloaded"])
    );
    assert_eq!(server.count(), 2, "max_retries from warrant.toml");
}

#[test]
fn model_flags_without_a_model_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    let out = warrant_at(d).args(["ingest", "--llm", "--store", "s", "auth.md"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8(out).unwrap().contains("--llm needs a model"));
    assert!(!d.join("s").exists(), "nothing written");
    let out = warrant_at(d)
        .args(["ingest", "--llm", "--store", "s", "--llm-endpoint", "http://127.0.0.1:9/v1", "auth.md"])
        .assert()
        .code(2);
    assert!(String::from_utf8(out.get_output().stderr.clone()).unwrap().contains("a model name is required"));
    write(d, "warrant.toml", "[llm]\nendpoint = 3\n");
    let out = warrant_at(d).args(["ingest", "--llm", "--store", "s", "auth.md"]).assert().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("warrant.toml:2: invalid type: integer `3`, expected a string"), "{err}");
}

const SOURCE: &str =
    "The Eiffel Tower was finished in 1889. It was built as the entrance arch to the World's Fair of that year.\n";
const ANSWER: &str = "The Eiffel Tower served as the gateway to the 1889 World's Fair.\n";

#[test]
fn check_second_opinion_records_and_replays_with_a_replay_case() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "tower.md", SOURCE);
    write(d, "answer.md", ANSWER);
    let verdict = json!({"status": "supported", "passage": 2, "quote": "built as the entrance arch to the World's Fair",
                         "confidence": 0.85, "rationale": "The entrance arch is the gateway."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let check = |endpoint: Option<&str>, case: &str| {
        let mut c = warrant_at(d);
        c.env("WARRANT_LLM_API_KEY", "sk-cli-secret-42")
            .args([
                "check",
                "--sources",
                "tower.md",
                "--format",
                "json",
                "--llm-verify",
                "--llm-model",
                "judge",
                "--llm-cache",
                "cache",
            ])
            .args(["--llm-replay-case", case])
            .args(["--evidence-pack", &format!("pack-{case}"), "--created-at", "2026-01-01T00:00:00Z"]);
        if let Some(e) = endpoint {
            c.args(["--llm-endpoint", e]);
        }
        c.arg("answer.md");
        let out = c.assert().get_output().clone();
        assert!(!String::from_utf8_lossy(&out.stderr).contains("sk-cli-secret-42"));
        out.stdout
    };
    let recorded = check(Some(&server.url()), "case1.json");
    assert_eq!(server.received()[0].header("authorization"), Some("Bearer sk-cli-secret-42"));
    let v = json_of(&recorded);
    let c = &v["claims"][0];
    assert_eq!(c["status"], "supported");
    assert_eq!(c["second_opinion"]["method"], "llm");
    assert_eq!(c["second_opinion"]["prompt"], "claims.verify.v1");
    assert_eq!(c["support_edges"][0]["selector"]["exact"], "built as the entrance arch to the World's Fair");
    let case1 = read_json(&d.join("case1.json"));
    assert_eq!(case1["determinism"], "approximate");
    assert_eq!(case1["replay_steps"][0]["stage"], "claims.verify");
    assert_eq!(case1["replay_steps"][0]["output"], "model");
    drop(server);

    let replayed = check(None, "case2.json");
    assert_eq!(replayed, recorded, "a replayed run gives a byte-identical report");
    let case2 = read_json(&d.join("case2.json"));
    assert_eq!(case2["replay_steps"][0]["output"], "replayed");
    assert_eq!(case2["replay_steps"][0]["request_key"], case1["replay_steps"][0]["request_key"]);
    // The key never reaches a file.
    for entry in std::fs::read_dir(d.join("cache")).unwrap() {
        assert!(!std::fs::read_to_string(entry.unwrap().path()).unwrap().contains("sk-cli-secret-42"));
    }
    for f in ["case1.json", "case2.json"] {
        assert!(!std::fs::read_to_string(d.join(f)).unwrap().contains("sk-cli-secret-42"));
    }
    warrant_at(d).args(["validate", "--kind", "replay", "case1.json", "case2.json"]).assert().code(0);
    // The evidence pack carries the replay case and marks the model's edge.
    let pack = read_json(&d.join("pack-case1.json"));
    assert_eq!(pack["replay_cases"][0]["determinism"], "approximate");
    assert_eq!(pack["replay_cases"][0]["evidence_pack_id"], pack["evidence_pack_id"]);
    assert_eq!(pack["replay_cases"][0]["replay_steps"][0]["output"], "model");
    let edge = pack["support_edges"].as_array().unwrap().iter().find(|e| e["edge_id"] == "c1-m1").unwrap();
    assert_eq!(edge["notes"], "a model's verdict (second opinion by judge, prompt claims.verify.v1), not a rule result");
    let replayed_pack = read_json(&d.join("pack-case2.json"));
    assert_eq!(replayed_pack["replay_cases"][0]["replay_steps"][0]["output"], "replayed");
    warrant_at(d).args(["validate", "pack-case1.json", "pack-case2.json"]).assert().code(0);
}

#[test]
fn extract_takes_claims_from_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "answer.md", "Paris is the capital of France. I think it is lovely.\n");
    let reply = json!({"claims": [{"text": "Paris is the capital of France", "modality": "factual"},
                                   {"text": "it is lovely", "modality": "opinion"}]});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&reply)])]);
    let g = json_of(&run(
        warrant_at(d).args(["extract", "--llm", "--llm-endpoint", &server.url(), "--llm-model", "m", "answer.md"]),
        0,
    ));
    let claims: Vec<(&str, &str, u64)> = g["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["text"].as_str().unwrap(), c["modality"].as_str().unwrap(), c["span"]["start"].as_u64().unwrap()))
        .collect();
    assert_eq!(claims, [("Paris is the capital of France", "factual", 0), ("it is lovely", "opinion", 40)]);
    assert_eq!(g["context"]["extraction_method"]["claims"], "llm");
    // The model fails: the deterministic graph, marked degraded.
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content("no json here".into())])]);
    let g = json_of(&run(
        warrant_at(d).args(["extract", "--llm", "--llm-endpoint", &server.url(), "--llm-model", "m", "answer.md"]),
        0,
    ));
    assert!(
        g["context"]["extraction_degraded"].as_str().unwrap().starts_with("graph.extract: the model's output was rejected twice")
    );
    assert_eq!(g["claims"][0]["text"], "Paris is the capital of France");
}

#[test]
fn policy_eval_judges_the_reasoning_example() {
    let Some(cape) = data_dir("cape") else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let expected =
        read_json(&cape.join("examples/reasoning/argument-unsound.expectations.json"))["expected_verifier_output"].clone();
    let pack = json!({"policy_id": "sound", "name": "Sound", "description": "", "version": "1.0.0", "rules": [
        {"rule_id": "argument-sound", "description": "", "severity": "error",
         "expression": {"verifier": {"id": "verifier.reasoning.argument_soundness", "threshold": 0.5}}}]});
    write(d, "pack.json", pack.to_string());
    let graph = cape.join("examples/reasoning/argument-unsound.json");
    let rubric = cape.join("rubrics/reasoning.argument-soundness.v1.json");
    let eval = |extra: &[&str], code: i32| {
        let mut c = warrant_at(d);
        c.args(["policy", "eval", "--pack", "pack.json", "--format", "json", "--rubric"]).arg(&rubric).args(extra).arg(&graph);
        json_of(&run(&mut c, code))
    };
    // No model: skipped, and the policy passes only because nothing was violated.
    let v = eval(&[], 0);
    assert_eq!(
        v["packs"][0]["policy_results"][0]["skipped_rules"][0]["reason"],
        "no judge configured for verifier verifier.reasoning.argument_soundness"
    );
    assert!(v.get("verifier_runs").is_none());
    // A scripted judge: score 0.0 < 0.5 fails the rule (exit 1).
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&expected)])]);
    let v = eval(&["--llm-endpoint", &server.url(), "--llm-model", "judge"], 1);
    assert_eq!(v["packs"][0]["policy_results"][0]["violations"][0]["rule_id"], "argument-sound");
    assert_eq!(v["verifier_runs"][0]["output"], expected);
    assert_eq!(v["verifier_runs"][0]["score"], 0.0);
}

/// Every byte a run left behind: stdout, stderr and the files under `dir` (store, report,
/// replay case, cache), as lossy text.
fn everything_written(dir: &Path, out: &std::process::Output) -> String {
    let mut all = String::from_utf8_lossy(&out.stdout).into_owned();
    all.push_str(&String::from_utf8_lossy(&out.stderr));
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                all.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    all
}

#[test]
fn an_endpoint_that_echoes_the_api_key_never_gets_it_printed_or_stored() {
    const KEY: &str = "sk-issue17-0123456789abcdefSECRET";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "auth.md", DOC);
    write(d, "answer.md", ANSWER);
    write(d, "source.md", SOURCE);
    write(d, "warrant.toml", "[llm]\nmax_retries = 0\ntimeout_secs = 5\n");
    // The hostile endpoint: error bodies and replies echo the request's headers, key included.
    for reply in [Reply::EchoHeaders(401), Reply::EchoHeaders(200)] {
        let server = FakeLlm::start(vec![Rule::any(vec![reply.clone()])]);
        let model = ["--llm-endpoint", &server.url(), "--llm-model", "m"];
        let runs: Vec<Vec<&str>> = vec![
            vec!["extract", "--llm", "answer.md"],
            vec!["check", "--llm-verify", "--format", "json", "--sources", "source.md", "answer.md"],
            vec!["ingest", "--llm", "--store", "s", "--format", "json", "auth.md"],
            vec!["compile", "--llm", "--report", "report.json", "-o", "pkg.json", "auth.md"],
            vec!["research", "--llm", "--store", "s", "--now", "2026-01-01T00:00:00Z", "session", "tokens"],
        ];
        let mut redacted = 0;
        for args in runs {
            let out = warrant_at(d).env("WARRANT_LLM_API_KEY", KEY).args(&args).args(model).output().unwrap();
            let all = everything_written(d, &out);
            assert!(!all.contains("panicked"), "{args:?}: {all}");
            assert!(!all.contains(KEY) && !all.contains("0123456789abcdefSECRET"), "{reply:?} {args:?} leaked the key");
            redacted += usize::from(all.contains("Bearer [redacted]"));
        }
        let bearer = format!("Bearer {KEY}");
        assert!(server.received().iter().all(|r| r.header("authorization") == Some(bearer.as_str())));
        // The echo did reach what Warrant printed or wrote: there, redacted.
        assert!(redacted > 0, "{reply:?}: the echoed header was never seen");
    }
}

#[test]
fn a_degraded_second_opinion_is_said_on_stderr_and_in_the_text_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "answer.md", ANSWER);
    write(d, "source.md", SOURCE);
    write(d, "warrant.toml", "[llm]\nmax_retries = 0\ntimeout_secs = 5\n");
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::RateLimited])]);
    let out = warrant_at(d)
        .args([
            "check",
            "--llm-verify",
            "--sources",
            "source.md",
            "answer.md",
            "--llm-endpoint",
            &server.url(),
            "--llm-model",
            "m",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("warning: answer.md: c1: --llm-verify degraded, the rules' result stands: "), "{stderr}");
    assert!(stderr.contains("HTTP 429"), "{stderr}");
    assert!(stdout.contains("model second opinion DEGRADED (m): "), "{stdout}");
    // The rules' result stood: the gate is what the rules say (review), not a crash or a pass.
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("gate: REVIEW"), "{stdout}");
}
