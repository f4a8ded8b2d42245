//! Payload contracts (spec §5, §9 "Payload round trips" and "Validation tables").

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use serde_json::{Value, json};
use warrant_research::payload::*;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(v: &T) -> Value {
    let j = serde_json::to_value(v).unwrap();
    let back: T = serde_json::from_value(j.clone()).unwrap();
    assert_eq!(&back, v);
    j
}

fn ev(id: &str, tier: &str) -> Evidence {
    Evidence { entity_id: id.into(), tier: tier.into(), source: "s".into(), ..Evidence::default() }
}

#[test]
fn intent_round_trips_and_omits_zero_values() {
    let i = Intent {
        topic: "drone fleet".into(),
        hints: BTreeMap::from([("time_range".into(), "2024-01-01/2024-02-01".into())]),
        budget_tokens: 1000,
        max_iterations: 2,
    };
    let j = round_trip(&i);
    assert_eq!(
        j,
        json!({"topic": "drone fleet", "hints": {"time_range": "2024-01-01/2024-02-01"}, "budget_tokens": 1000, "max_iterations": 2})
    );
    assert_eq!(serde_json::to_value(Intent::new("x")).unwrap(), json!({"topic": "x"}));
    // Unknown fields are ignored; null reads as the zero value.
    let d: Intent = serde_json::from_value(json!({"topic": "t", "extra": 1, "hints": null})).unwrap();
    assert_eq!(d, Intent::new("t"));
}

#[test]
fn intent_validation_table() {
    let cases: [(Intent, &str); 6] = [
        (Intent::new(""), "topic required"),
        (Intent::new("  \t"), "topic required"),
        (Intent { hints: BTreeMap::from([(" ".into(), "v".into())]), ..Intent::new("t") }, "hints contains an empty key"),
        (
            Intent { hints: BTreeMap::from([("k".into(), " ".into())]), ..Intent::new("t") },
            "hints[\"k\"] is empty; omit the key instead",
        ),
        (Intent { budget_tokens: -1, ..Intent::new("t") }, "budget_tokens must be >= 0, got -1"),
        (Intent { max_iterations: -3, ..Intent::new("t") }, "max_iterations must be >= 0, got -3"),
    ];
    for (i, want) in cases {
        let e = i.validate().unwrap_err();
        assert!(e.to_string().contains(want), "{e} should contain {want}");
    }
    // Hints are checked in sorted key order: the first failing key is reported.
    let i = Intent { hints: BTreeMap::from([("b".into(), "".into()), ("a".into(), "".into())]), ..Intent::new("t") };
    assert!(i.validate().unwrap_err().message.contains("hints[\"a\"]"));
    // A partial payload decodes, then fails Validate.
    let partial: Intent = serde_json::from_str(r#"{"budget_tokens": -5}"#).unwrap();
    assert_eq!(partial.validate().unwrap_err().message, "topic required");
}

#[test]
fn defaults_resolve_at_use() {
    let i = Intent::new("t");
    assert_eq!((i.resolved_budget_tokens(), i.resolved_max_iterations()), (4000, 5));
    let r = i.resolved();
    assert_eq!(serde_json::to_value(&r).unwrap(), json!({"topic": "t", "budget_tokens": 4000, "max_iterations": 5}));
    let i = Intent { budget_tokens: 10, max_iterations: 2, ..Intent::new("t") };
    assert_eq!((i.resolved_budget_tokens(), i.resolved_max_iterations()), (10, 2));
}

#[test]
fn classifier_output_round_trips_with_any_typed_hints_and_degraded_fields() {
    let co = ClassifierOutput {
        topic: "t".into(),
        tier: "0".into(),
        intent: "lookup".into(),
        confidence: 0.5,
        hints: BTreeMap::from([
            ("limit".into(), json!(5)),
            ("use_embeddings".into(), json!(true)),
            ("path_predicates".into(), json!(["requires"])),
            ("geo_bounds".into(), json!({"lat": [1.5, 2.5]})),
        ]),
        candidates: vec![Candidate {
            entity_id: "a.b.c.d.e.f".into(),
            label: "F".into(),
            entity_type: "entity".into(),
            relevance: 1.25,
            snippet_text: "s".into(),
            tier: "0".into(),
            source: "search_graph".into(),
        }],
        degraded: true,
        degraded_reason: "backend slow".into(),
    };
    let j = round_trip(&co);
    assert_eq!(j["candidates"][0]["type"], "entity");
    assert_eq!(j["degraded"], true);
    // Zero values are omitted; required fields always written.
    let c = Candidate { entity_id: "x".into(), tier: "1".into(), source: "s".into(), ..Candidate::default() };
    assert_eq!(serde_json::to_value(&c).unwrap(), json!({"entity_id": "x", "tier": "1", "source": "s"}));
}

#[test]
fn classifier_output_validation_table() {
    let cand = |id: &str, source: &str, tier: &str| Candidate {
        entity_id: id.into(),
        source: source.into(),
        tier: tier.into(),
        ..Candidate::default()
    };
    let co = |c: Candidate| ClassifierOutput { topic: "t".into(), candidates: vec![c], ..ClassifierOutput::default() };
    let cases = [
        (ClassifierOutput::default(), "topic required"),
        (co(cand(" ", "s", "0")), "candidates[0]: entity_id required"),
        (co(cand("x", "", "0")), "candidates[0]: source required"),
        (co(cand("x", "s", "3")), "candidates[0]: tier \"3\" must be \"0\", \"1\", or \"2\""),
        (co(cand("x", "s", " 0")), "tier \" 0\" must be"),
        (
            ClassifierOutput { topic: "t".into(), confidence: -0.5, ..ClassifierOutput::default() },
            "confidence must be >= 0, got -0.5",
        ),
    ];
    for (c, want) in cases {
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains(want), "{e} should contain {want}");
    }
    // The classifier's own tier is not validated.
    assert!(ClassifierOutput { topic: "t".into(), tier: "3".into(), ..ClassifierOutput::default() }.validate().is_ok());
}

#[test]
fn route_decision_closed_enum() {
    for bad in ["bogus", "Synthesize_Directly", "decompose ", "synthesise_directly"] {
        let e = serde_json::from_value::<RouteDecision>(json!({"action": bad})).unwrap_err().to_string();
        assert!(e.contains("is not a canonical router action"), "{bad}: {e}");
        let rd = RouteDecision { action: bad.into(), ..RouteDecision::default() };
        assert!(rd.validate().unwrap_err().message.contains("is not a canonical router action"));
    }
    // An empty action decodes and is caught by Validate.
    let rd: RouteDecision = serde_json::from_value(json!({"action": ""})).unwrap();
    assert_eq!(rd.validate().unwrap_err().message, "action required");
    let rd: RouteDecision = serde_json::from_value(json!({})).unwrap();
    assert_eq!(rd.validate().unwrap_err().message, "action required");
    for a in ROUTE_ACTIONS {
        assert!(is_valid_route_action(a));
        let rd: RouteDecision = serde_json::from_value(json!({"action": a})).unwrap();
        assert!(rd.validate().is_ok());
    }
}

#[test]
fn route_decision_round_trips_with_decompose_args() {
    let rd = RouteDecision::new(
        ACTION_DECOMPOSE,
        &DecomposeArgs { axes: vec!["entity_type".into(), "time".into()], focus: "drones".into(), scope: "broad".into() },
        "why",
    );
    let j = round_trip(&rd);
    assert_eq!(
        j,
        json!({"action": "decompose", "args": {"axes": ["entity_type", "time"], "focus": "drones", "scope": "broad"}, "rationale": "why"})
    );
    let a = rd.parse_decompose_args().unwrap();
    assert_eq!(a.axes, ["entity_type", "time"]);
    assert_eq!(a.scope, "broad");
}

fn rd(action: &str, args: Value) -> RouteDecision {
    serde_json::from_value(json!({"action": action, "args": args})).unwrap()
}

#[test]
fn parse_decompose_args_table() {
    assert!(rd("decompose", json!({"axes": ["x"], "focus": "f"})).parse_decompose_args().is_ok(), "empty scope is valid");
    let cases = [
        (rd("walk_seeds", json!({})), "decompose args: action is \"walk_seeds\", want \"decompose\""),
        (RouteDecision { action: "decompose".into(), ..RouteDecision::default() }, "decompose args: axes required"),
        (rd("decompose", json!({"axes": [], "focus": "f"})), "axes required"),
        (rd("decompose", json!({"axes": ["a", " "], "focus": "f"})), "axes[1] is empty"),
        (rd("decompose", json!({"axes": ["a"], "focus": " "})), "focus required"),
        (rd("decompose", json!({"axes": ["a"], "focus": "f", "scope": "wide"})), "scope"),
        (rd("decompose", json!({"axes": "a", "focus": "f"})), "decompose args: decode: "),
    ];
    for (r, want) in cases {
        let e = r.parse_decompose_args().unwrap_err().to_string();
        assert!(e.contains(want), "{e} should contain {want}");
    }
}

#[test]
fn parse_walk_seeds_args_table() {
    let ok = rd(
        "walk_seeds",
        json!({"seeds": [{"ref": "0", "ref_type": "candidate_index"}, {"ref": "drone.001", "ref_type": "partial_id"}]}),
    );
    assert_eq!(ok.parse_walk_seeds_args().unwrap().seeds.len(), 2);
    let cases = [
        (rd("decompose", json!({})), "walk_seeds args: action is \"decompose\", want \"walk_seeds\""),
        (RouteDecision { action: "walk_seeds".into(), ..RouteDecision::default() }, "seeds required"),
        (rd("walk_seeds", json!({"seeds": []})), "seeds required"),
        (rd("walk_seeds", json!({"seeds": [{"ref": " ", "ref_type": "name"}]})), "seeds[0].ref is empty"),
        (
            rd("walk_seeds", json!({"seeds": [{"ref": "x", "ref_type": "full_id"}]})),
            "seeds[0].ref_type \"full_id\" is not a canonical value",
        ),
        (rd("walk_seeds", json!({"seeds": "x"})), "walk_seeds args: decode: "),
    ];
    for (r, want) in cases {
        let e = r.parse_walk_seeds_args().unwrap_err().to_string();
        assert!(e.contains(want), "{e} should contain {want}");
    }
}

#[test]
fn parse_retighten_args_table() {
    let a = rd("retighten", json!({"topic": "narrower"})).parse_retighten_args().unwrap();
    assert!(a.hints.is_empty(), "retighten without hints is valid");
    // Blank keys are not checked here; blank values are.
    assert!(rd("retighten", json!({"topic": "t", "hints": {" ": "v"}})).parse_retighten_args().is_ok());
    let cases = [
        (rd("decompose", json!({})), "retighten args: action is \"decompose\", want \"retighten\""),
        (RouteDecision { action: "retighten".into(), ..RouteDecision::default() }, "topic required"),
        (rd("retighten", json!({"topic": "t", "hints": {"k": " "}})), "hints[\"k\"] is empty"),
        (rd("retighten", json!({"topic": 3})), "retighten args: decode: "),
    ];
    for (r, want) in cases {
        let e = r.parse_retighten_args().unwrap_err().to_string();
        assert!(e.contains(want), "{e} should contain {want}");
    }
}

#[test]
fn predicate_tables() {
    for ok in ["name", "partial_id", "candidate_index"] {
        assert!(is_valid_seed_ref_type(ok));
    }
    for bad in ["", "full_id", "Name", "candidate-index"] {
        assert!(!is_valid_seed_ref_type(bad), "{bad}");
    }
    for ok in ["", "narrow", "medium", "broad"] {
        assert!(is_valid_decompose_scope(ok));
    }
    for bad in ["wide", "Narrow", "small"] {
        assert!(!is_valid_decompose_scope(bad), "{bad}");
    }
}

#[test]
fn evidence_accepts_all_three_tiers() {
    for t in ["0", "1", "2"] {
        assert!(ev("x", t).validate().is_ok());
    }
    assert!(ev("x", "3").validate().unwrap_err().message.contains("tier \"3\""));
    assert_eq!(ev("", "0").validate().unwrap_err().message, "entity_id required");
    let e = Evidence { source: " ".into(), ..ev("x", "0") };
    assert_eq!(e.validate().unwrap_err().message, "source required");
}

#[test]
fn execution_output_round_trips_including_degraded() {
    let ok = ExecutionOutput {
        topic: "t".into(),
        action: "walk_seeds".into(),
        evidence: vec![Evidence {
            score: 2.5,
            snippet_text: "s".into(),
            objectstore_ref: "d#1".into(),
            ..ev("a.b.c.d.e.f", "0")
        }],
        subquery_count: 3,
        budget_tokens_used: 12,
        ..ExecutionOutput::default()
    };
    round_trip(&ok);
    let d = ExecutionOutput::degraded("t", "", "missing route decision");
    let j = round_trip(&d);
    assert_eq!(j, json!({"topic": "t", "action": "", "degraded": true, "degraded_reason": "missing route decision"}));
    assert!(d.validate().is_ok(), "an empty action is fine when degraded");
}

#[test]
fn execution_output_validation_table() {
    let base = || ExecutionOutput { topic: "t".into(), action: "decompose".into(), ..ExecutionOutput::default() };
    let cases = [
        (ExecutionOutput { topic: String::new(), ..base() }, "topic required"),
        (ExecutionOutput { action: String::new(), ..base() }, "action required when not Degraded"),
        (ExecutionOutput { action: "bogus".into(), ..base() }, "is not a canonical router action"),
        (ExecutionOutput { evidence: vec![ev("x", "9")], ..base() }, "evidence[0]: tier \"9\""),
        (ExecutionOutput { subquery_count: -1, ..base() }, "subquery_count must be >= 0, got -1"),
        (ExecutionOutput { budget_tokens_used: -2, ..base() }, "budget_tokens_used must be >= 0, got -2"),
    ];
    for (e, want) in cases {
        let m = e.validate().unwrap_err().to_string();
        assert!(m.contains(want), "{m} should contain {want}");
    }
    // The topic is not trimmed: a space is a topic.
    assert!(ExecutionOutput { topic: " ".into(), ..base() }.validate().is_ok());
    // Decoding is lenient: a bogus action decodes, then fails Validate.
    let e: ExecutionOutput = serde_json::from_value(json!({"topic": "t", "action": "bogus"})).unwrap();
    assert!(e.validate().is_err());
}

#[test]
fn assessment_output_round_trips_and_validates() {
    let a = AssessmentOutput {
        topic: "t".into(),
        sufficient: false,
        refined_queries: vec!["x y".into(), "x".into()],
        rationale: "covered 1/3".into(),
        confidence: 0.33,
        evidence_count: 4,
        degraded: true,
        degraded_reason: "r".into(),
    };
    round_trip(&a);
    // `sufficient` is always written.
    let j = serde_json::to_value(AssessmentOutput { topic: "t".into(), ..AssessmentOutput::default() }).unwrap();
    assert_eq!(j, json!({"topic": "t", "sufficient": false}));
    let cases = [
        (AssessmentOutput { topic: " ".into(), ..a.clone() }, "topic required"),
        (AssessmentOutput { refined_queries: vec!["ok".into(), " ".into()], ..a.clone() }, "refined_queries[1] is empty"),
        (AssessmentOutput { confidence: 1.5, ..a.clone() }, "confidence must be in [0,1], got 1.5"),
        (AssessmentOutput { confidence: -0.1, ..a.clone() }, "confidence must be in [0,1], got -0.1"),
        (AssessmentOutput { evidence_count: -1, ..a.clone() }, "evidence_count must be >= 0, got -1"),
    ];
    for (x, want) in cases {
        let m = x.validate().unwrap_err().to_string();
        assert!(m.contains(want), "{m} should contain {want}");
    }
    // Sufficient with refined queries is valid (logged, not rejected).
    assert!(AssessmentOutput { sufficient: true, ..a }.validate().is_ok());
}

#[test]
fn search_result_round_trips_and_validates() {
    let sr = SearchResult {
        evidence: vec![ev("a.b.c.d.e.f", "1")],
        synthesis: "Evidence for t:\n- [a.b.c.d.e.f] x".into(),
        decomp_trace: Some(DecompTrace {
            router_action: "walk_seeds".into(),
            seed_entities: vec!["0".into()],
            retighten_rounds: 1,
            ..DecompTrace::default()
        }),
        tokens_used: 40,
        iterations: 2,
    };
    round_trip(&sr);
    // An empty trace is omitted.
    let bare = SearchResult { synthesis: "s".into(), decomp_trace: Some(DecompTrace::default()), ..SearchResult::default() };
    assert_eq!(serde_json::to_value(&bare).unwrap(), json!({"synthesis": "s"}));
    // ... and an empty (or all-unknown) trace object reads as absent, so round trips hold
    // (found by the research_payloads fuzz target).
    let d: SearchResult = serde_json::from_value(json!({"synthesis": "s", "decomp_trace": {"x": 1}})).unwrap();
    assert_eq!(d.decomp_trace, None);
    let cases = [
        (SearchResult { synthesis: "  ".into(), ..sr.clone() }, "synthesis required"),
        (SearchResult { evidence: vec![ev("", "0")], ..sr.clone() }, "evidence[0]: entity_id required"),
        (SearchResult { tokens_used: -1, ..sr.clone() }, "tokens_used must be >= 0, got -1"),
        (SearchResult { iterations: -1, ..sr.clone() }, "iterations must be >= 0, got -1"),
    ];
    for (x, want) in cases {
        let m = x.validate().unwrap_err().to_string();
        assert!(m.contains(want), "{m} should contain {want}");
    }
    let d = SearchResult::degraded("drones", "classify: boom");
    assert_eq!(d.synthesis, "Synthesis could not be produced for topic drones. Reason: classify: boom");
}

#[test]
fn decomp_trace_from_walk_seeds_route_and_fallback_to_execution() {
    let r = rd(
        "walk_seeds",
        json!({"seeds": [{"ref": "drone.001", "ref_type": "partial_id"}, {"ref": "Alpha", "ref_type": "name"}]}),
    );
    let t = DecompTrace::build(Some(&r), None, 0);
    assert_eq!(t.router_action, "walk_seeds");
    assert_eq!(t.seed_entities, ["drone.001", "Alpha"], "raw refs, not resolved ids");
    let exec = ExecutionOutput { topic: "t".into(), action: "decompose".into(), ..ExecutionOutput::default() };
    let t = DecompTrace::build(None, Some(&exec), 2);
    assert_eq!((t.router_action.as_str(), t.retighten_rounds), ("decompose", 2));
    let d = rd("decompose", json!({"axes": ["time"], "focus": "f"}));
    let t = DecompTrace::build(Some(&d), None, 0);
    assert_eq!(serde_json::to_value(&t.sub_queries).unwrap(), json!([{"axes": ["time"], "focus": "f", "scope": ""}]));
    assert!(DecompTrace::build(None, None, 0).is_empty());
}

#[test]
fn fixtures_decode_and_validate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let i: Intent = serde_json::from_str(&read("intent.json")).unwrap();
    assert!(i.validate().is_ok());
    let r: RouteDecision = serde_json::from_str(&read("route_decompose.json")).unwrap();
    assert_eq!(r.parse_decompose_args().unwrap().scope, "medium");
    let s: SearchResult = serde_json::from_str(&read("search_result.json")).unwrap();
    assert!(s.validate().is_ok());
    round_trip(&s);
}

#[test]
fn tool_params_are_strict() {
    use warrant_research::ToolParams;
    let i = ToolParams::parse(r#"{"topic": "drones", "hints": {"limit": "5"}, "budget_tokens": 0}"#).unwrap();
    assert_eq!((i.topic.as_str(), i.resolved_budget_tokens(), i.resolved_max_iterations()), ("drones", 4000, 5));
    for (json, want) in [
        (r#"{"topic": "t", "extra": 1}"#, "unknown field `extra`"),
        (r#"{"topic": "t", "budget_tokens": -1}"#, "expected u32"),
        (r#"{"topic": "t", "max_iterations": 1.5}"#, "expected u32"),
        (r#"{"hints": {}}"#, "missing field `topic`"),
        (r#"{"topic": " "}"#, "topic required"),
        (r#"{"topic": "t", "hints": {"colour": " "}}"#, "is empty"),
    ] {
        let e = ToolParams::parse(json).unwrap_err();
        assert!(e.contains(want), "{json}: {e}");
    }
}
