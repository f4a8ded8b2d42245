//! Replay cases of runs that asked a model: which outputs came from a model, which were
//! replayed, and what a replay needs.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use serde_json::json;
use warrant_evidence::{ClaimInput, ClaimStatus, Determinism, DocKind, MissingReason, PackBuilder, Producer, Scope, validate};
use warrant_evidence::{ModelCall, model_replay_case};

fn call(stage: &str, key: char, replayed: Option<bool>) -> ModelCall {
    ModelCall { stage: stage.into(), request_key: key.to_string().repeat(64), model: "m1".into(), replayed }
}

#[test]
fn a_run_without_a_model_is_deterministic() {
    let r = model_replay_case(Scope::answer("a1"), None, &[], None).unwrap();
    assert_eq!(r.determinism, Determinism::Deterministic);
    assert!(r.replay_steps.is_none() && r.input_refs.is_none() && r.missing_facts.is_none());
}

#[test]
fn recorded_model_outputs_are_approximate_and_listed_by_origin() {
    let calls =
        [call("claims.verify", 'a', Some(false)), call("claims.verify", 'b', Some(true)), call("verifier.judge", 'c', None)];
    let r = model_replay_case(Scope::answer("a1"), Some("evp-1"), &calls, Some(".warrant/llm-cache/")).unwrap();
    assert_eq!(r.determinism, Determinism::Approximate);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(
        v["replay_steps"],
        json!([
            {"step": 1, "stage": "claims.verify", "request_key": "a".repeat(64), "model": "m1", "output": "model"},
            {"step": 2, "stage": "claims.verify", "request_key": "b".repeat(64), "model": "m1", "output": "replayed"},
            {"step": 3, "stage": "verifier.judge", "request_key": "c".repeat(64), "model": "m1", "output": "failed"}
        ])
    );
    assert_eq!(v["input_refs"][0]["hash"], format!("sha256:{}", "a".repeat(64)));
    assert_eq!(v["input_refs"][0]["uri"], format!(".warrant/llm-cache/{}.json", "a".repeat(64)));
    assert_eq!(v["input_refs"][0]["ref_id"], "llm-request-aaaaaaaaaaaaaaaa");
    assert!(v["notes"].as_str().unwrap().contains("replayed byte for byte"));
    assert!(r.missing_facts.is_none());
    // Valid, and honest about replay (no AEV-REPLAY-HONESTY warning).
    let report = validate(DocKind::Replay, &v);
    assert_eq!(report.errors().count(), 0);
    assert_eq!(report.warnings().count(), 0, "{:?}", report.warnings().collect::<Vec<_>>());
    // Stable id.
    assert_eq!(r.replay_id, model_replay_case(Scope::answer("a1"), Some("evp-1"), &calls, Some("x")).unwrap().replay_id);
}

#[test]
fn unrecorded_model_outputs_are_missing_facts() {
    let calls = [call("facts.extract", 'd', Some(false))];
    let r = model_replay_case(Scope::answer("a1"), None, &calls, None).unwrap();
    let m = r.missing_facts.as_ref().unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].reason, MissingReason::NotCollected);
    assert_eq!(m[0].fact.as_deref(), Some(format!("facts.extract output for request {}", "d".repeat(64)).as_str()));
    assert!(serde_json::to_value(&r).unwrap().get("notes").is_none());
    assert!(r.input_refs.as_ref().unwrap()[0].uri.is_none());
}

#[test]
fn the_pack_carries_its_replay_case() {
    let case = model_replay_case(Scope::answer("a1"), None, &[call("claims.verify", 'e', Some(true))], Some("cache")).unwrap();
    let mut b = PackBuilder::new(Scope::answer("a1"), Producer::new("warrant"), "2026-01-01T00:00:00Z");
    b.claim(ClaimInput::new("c1", "A claim.", ClaimStatus::Unverified)).replay_case(&case);
    let pack = b.build().unwrap();
    let cases = pack.replay_cases();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0]["determinism"], "approximate");
    assert_eq!(cases[0]["replay_steps"][0]["output"], "replayed");
}
