//! Learned verifiers with a scripted judge (a fake chat-completions server on loopback): the
//! CAPE reasoning example reproduces its expected verifier output shape, the rule using it
//! passes or fails by the threshold, and every unavailable path skips the rule.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use warrant_cpl::JudgedVerifiers;
use warrant_cpl::load_rubric;
use warrant_cpl::{Engine, Pack, RunResult, load_pack_or_policy};
use warrant_graph::{PredicateGraph, check_graph};
use warrant_llm::Llm;
use warrant_llm::{HttpClient, HttpSettings};
use warrant_testkit::{FakeLlm, Reply, Rule};
use warrant_testkit::{data_dir, read_json};

const ID: &str = "verifier.reasoning.argument_soundness";

struct Example {
    graph: PredicateGraph,
    rubric: warrant_cpl::Rubric,
    expected: Value,
}

fn example() -> Option<Example> {
    let cape: PathBuf = data_dir("cape")?;
    let graph = check_graph(read_json(&cape.join("examples/reasoning/argument-unsound.json"))).graph.unwrap();
    let rubric = load_rubric(&read_json(&cape.join("rubrics/reasoning.argument-soundness.v1.json"))).unwrap();
    let exp = read_json(&cape.join("examples/reasoning/argument-unsound.expectations.json"));
    assert_eq!(exp["verifiers"], json!([ID]));
    Some(Example { graph, rubric, expected: exp["expected_verifier_output"].clone() })
}

fn judge(server: &FakeLlm) -> Llm {
    let s = HttpSettings {
        endpoint: server.url(),
        model: "judge-model".into(),
        api_key: None,
        timeout: Duration::from_millis(500),
        max_retries: 0,
        backoff: Duration::from_millis(1),
        concurrency: 1,
    };
    Llm::new(Arc::new(HttpClient::new(s).unwrap()))
}

fn pack(threshold: f64) -> Pack {
    load_pack_or_policy(&json!({
    "policy_id": "sound-reasoning", "name": "Sound reasoning", "description": "", "version": "1.0.0",
    "rules": [
        {"rule_id": "argument-sound", "description": "", "severity": "error",
         "expression": {"verifier": {"id": ID, "threshold": threshold}}},
        {"rule_id": "has-claims", "description": "",
         "expression": {"exists": {"var": "c", "in": "claims", "condition": {"predicate": "is_factual", "args": ["c"]}}}}
    ]}))
    .unwrap()
}

fn run(ex: &Example, judge: Option<Llm>, threshold: f64) -> RunResult {
    let engine = Engine { verifiers: Box::new(JudgedVerifiers::new(vec![ex.rubric.clone()], judge)), ..Engine::default() };
    engine.evaluate(&[pack(threshold)], &ex.graph).unwrap()
}

fn violated(r: &RunResult) -> Vec<String> {
    r.violations().map(|(_, _, v)| v.rule_id.clone()).collect()
}

fn skipped(r: &RunResult) -> Vec<(String, String)> {
    r.packs[0].policy_results[0].skipped_rules.iter().map(|s| (s.rule_id.clone(), s.reason.clone())).collect()
}

#[test]
fn the_reasoning_example_through_a_scripted_judge() {
    let Some(ex) = example() else { return };
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&ex.expected)])]);

    // Score 0.0 against threshold 0.5: the rule fails.
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert_eq!(violated(&r), ["argument-sound"]);
    assert!(!r.passed);
    assert!(skipped(&r).is_empty());
    let vr = &r.verifier_runs[0];
    assert_eq!((vr.verifier_id.as_str(), vr.score, vr.method, vr.model.as_str()), (ID, 0.0, "llm", "judge-model"));
    // The expected verifier output shape, reproduced: every key and value of the expectation.
    assert_eq!(vr.output, ex.expected);
    assert_eq!(vr.output["evaluation"]["premises_true"], false);
    assert_eq!(vr.output["issues"][0]["severity"], "fatal");
    assert_eq!(vr.output["issues"][0]["issue_type"], "false_premise");
    assert_eq!(vr.output["issues"][0]["location"], "c1");
    let meta: Vec<(&str, &str)> = vr.meta_verification.iter().map(|m| (m.check, m.status)).collect();
    assert_eq!(
        meta,
        [
            ("output_schema", "passed"),
            ("reasoning_coherent", "not_performed"),
            ("score_consistent", "passed"),
            ("issues_actionable", "passed")
        ]
    );

    // The judge saw the rubric and the graph parts its input_schema names, nothing else.
    let prompt = server.received()[0].prompt().to_string();
    assert!(prompt.contains(&ex.rubric.training_objective));
    assert!(prompt.contains("\"claims\"") && prompt.contains("\"discourse_acts\"") && prompt.contains("All birds can fly"));
    assert!(!prompt.contains("\"entities\""), "entities are not in the rubric's input_schema");
    assert_eq!(server.received()[0].body["temperature"], json!(0.0));

    // Threshold 0.0: score 0.0 ≥ 0.0, the rule passes.
    let r = run(&ex, Some(judge(&server)), 0.0);
    assert!(violated(&r).is_empty() && r.passed);
}

#[test]
fn without_a_judge_the_rule_is_skipped_never_passed() {
    let Some(ex) = example() else { return };
    let r = run(&ex, None, 0.5);
    assert_eq!(skipped(&r), [("argument-sound".to_string(), format!("no judge configured for verifier {ID}"))]);
    assert!(violated(&r).is_empty());
    assert!(r.verifier_runs.is_empty());
    let engine = Engine { verifiers: Box::new(JudgedVerifiers::new(vec![], None)), ..Engine::default() };
    let r = engine.evaluate(&[pack(0.5)], &ex.graph).unwrap();
    assert_eq!(skipped(&r)[0].1, format!("verifier {ID} not registered"));
}

#[test]
fn invalid_output_is_repaired_once_then_skipped() {
    let Some(ex) = example() else { return };
    let mut bad = ex.expected.clone();
    bad["score"] = json!(1.5);
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&bad)])]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert_eq!(skipped(&r)[0].1, format!("verifier {ID} returned output that does not match its output_schema"));
    assert_eq!(server.count(), 2, "one repair attempt");

    // Invalid, then repaired: the repaired output is used.
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![Reply::json(&ex.expected)]),
        Rule::any(vec![Reply::Content("not json".into())]),
    ]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert_eq!(violated(&r), ["argument-sound"]);
    assert_eq!(r.verifier_runs[0].output, ex.expected);

    // A different verifier id is a schema violation too.
    let mut other = ex.expected.clone();
    other["verifier_id"] = json!("verifier.reasoning.other");
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&other)])]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert!(skipped(&r)[0].1.ends_with("does not match its output_schema"));
}

#[test]
fn failed_calls_skip_with_the_reason() {
    let Some(ex) = example() else { return };
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "down".into())])]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert_eq!(
        skipped(&r)[0].1,
        format!("verifier {ID} failed: verifier.judge: the LLM endpoint answered HTTP 500 after 1 attempt(s): down")
    );
    let slow = Reply::Delay(Duration::from_millis(1200), Box::new(Reply::json(&ex.expected)));
    let server = FakeLlm::start(vec![Rule::any(vec![slow])]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert_eq!(skipped(&r)[0].1, format!("verifier {ID} failed: verifier.judge: the LLM request timed out after 1 attempt(s)"));
}

#[test]
fn meta_verification_flags_an_inconsistent_score() {
    let Some(ex) = example() else { return };
    let mut out = ex.expected.clone();
    out["score"] = json!(0.9);
    out["issues"][0]["location"] = json!(" ");
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&out)])]);
    let r = run(&ex, Some(judge(&server)), 0.5);
    assert!(violated(&r).is_empty(), "0.9 ≥ 0.5 passes; the meta checks report the inconsistency");
    let meta: Vec<(&str, &str, Option<&str>)> =
        r.verifier_runs[0].meta_verification.iter().map(|m| (m.check, m.status, m.detail.as_deref())).collect();
    assert_eq!(meta[2], ("score_consistent", "failed", Some("1 fatal issue(s) but score 0.9")));
    assert_eq!(meta[3], ("issues_actionable", "failed", Some("no location or description: /issues/0")));
}

#[test]
fn the_three_rubrics_output_schemas_are_enforced() {
    let Some(cape) = data_dir("cape") else { return };
    let cases = [
        (
            "rubrics/mathematics.proof-validity.v1.json",
            json!({"evaluation": {"proof_structure_valid": true, "all_steps_justified": false, "operations_correct": true, "conclusion_reached": true},
                   "step_evaluations": [{"step": 1, "statement": "2x = 4", "justification_valid": false, "issue": "no reason given"}],
                   "issues": [{"location": "op1", "description": "step 1 is not justified", "severity": "major", "issue_type": "unjustified_step"}],
                   "score": 0.6, "reasoning": "One step lacks a justification."}),
            ("/issues/0/issue_type", json!("calculation_mistake")),
        ),
        (
            "rubrics/agents.plan-feasibility.v1.json",
            json!({"evaluation": {"preconditions_satisfiable": true, "actions_available": true, "state_transitions_valid": true, "goal_achievable": true},
                   "step_evaluations": [{"step": 1, "action": "book", "feasibility": "feasible", "preconditions": [{"condition": "seat free", "satisfied": true}]}],
                   "issues": [], "score": 1.0, "reasoning": "Every step is feasible."}),
            ("/step_evaluations/0/feasibility", json!("maybe")),
        ),
    ];
    for (file, good, (pointer, bad_value)) in cases {
        let rubric = load_rubric(&read_json(&cape.join(file))).unwrap();
        let schema = warrant_graph::CompiledSchema::compile(&rubric.output_schema.to_string()).unwrap();
        let (out, score) = warrant_cpl::check_output(&rubric.verifier_id, &schema, &good).unwrap();
        assert_eq!(out["verifier_id"], rubric.verifier_id.as_str(), "{file}: the id is filled in");
        assert_eq!(score, good["score"].as_f64().unwrap());
        let mut bad = good.clone();
        *bad.pointer_mut(pointer).unwrap() = bad_value;
        let e = warrant_cpl::check_output(&rubric.verifier_id, &schema, &bad).unwrap_err();
        assert!(e.starts_with(pointer) && e.ends_with("(output_schema)"), "{file}: {e}");
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove("reasoning");
        assert!(warrant_cpl::check_output(&rubric.verifier_id, &schema, &missing).is_err(), "{file}: all four keys");
    }
}
