//! CAPE conformance (spec §8): the five upstream examples, the upstream packs, and the
//! tiered-dialect negative cases, read from `../shared/data/cape`.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use warrant_cpl::RubricsWithoutJudge;
use warrant_cpl::{Engine, Pack, RunResult, TIERED_DIALECT_MESSAGE, ToolOrigin, ToolRegistry, load_pack, load_policy, packs};
use warrant_graph::{PredicateGraph, check_graph};
use warrant_testkit::{data_dir, read_json};

type Triple = (String, String, Option<String>);

fn graph(path: &Path) -> PredicateGraph {
    let r = check_graph(read_json(path));
    assert!(r.errors.is_empty(), "{}: {:?}", path.display(), r.errors);
    r.graph.unwrap()
}

fn triples(r: &RunResult) -> BTreeSet<Triple> {
    r.violations().map(|(_, policy, v)| (policy.to_string(), v.rule_id.clone(), v.node_id.clone())).collect()
}

fn expected(exp: &Value) -> BTreeSet<Triple> {
    exp["expected_violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["policy_id"].as_str().unwrap().into(),
                v["rule_id"].as_str().unwrap().into(),
                v["node_id"].as_str().map(String::from),
            )
        })
        .collect()
}

fn engine(cape: &Path, example: &str) -> Engine {
    let mut e = Engine::default();
    if example.starts_with("tool-use") {
        e.tools = ToolRegistry::from_json(&read_json(&cape.join("tools/tip-calc.tools.json")), ToolOrigin::File).unwrap();
    }
    e
}

const SYMBOLIC: [&str; 4] = [
    "tool-use/tip-calc-violation",
    "citation-grounding/factual-no-citation",
    "safe-code/python-unsafe",
    "customer-support/no-acknowledgment",
];

#[test]
fn symbolic_examples_give_exactly_the_expected_violations() {
    let Some(cape) = data_dir("cape") else { return };
    for ex in SYMBOLIC {
        let g = graph(&cape.join(format!("examples/{ex}.json")));
        let exp = read_json(&cape.join(format!("examples/{ex}.expectations.json")));
        let ids: Vec<&str> = exp["packs"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        // Our built-in packs and upstream's pack files must agree, and both must match (D12).
        let ours: Vec<Pack> = ids.iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect();
        let theirs: Vec<Pack> =
            ids.iter().map(|id| load_pack(&read_json(&cape.join(format!("packs/{id}.json")))).unwrap()).collect();
        let e = engine(&cape, ex);
        let got = e.evaluate(&ours, &g).unwrap();
        assert_eq!(triples(&got), expected(&exp), "{ex}");
        assert_eq!(triples(&e.evaluate(&theirs, &g).unwrap()), expected(&exp), "{ex} with upstream pack files");
        assert!(!got.passed, "{ex}: the pack fails");
    }
}

#[test]
fn tip_calc_without_tools_fails_every_schema_rule_closed() {
    let Some(cape) = data_dir("cape") else { return };
    let g = graph(&cape.join("examples/tool-use/tip-calc-violation.json"));
    let p = packs::builtin("core.tool-use.v1").unwrap().unwrap().clone();
    let r = Engine::default().evaluate(&[p], &g).unwrap();
    let got: BTreeSet<String> = r.violations().map(|(_, _, v)| v.rule_id.clone()).collect();
    assert_eq!(got, ["args-match-schema", "no-extra-args", "required-args-present"].map(String::from).into());
    for (_, _, v) in r.violations() {
        assert_eq!(v.diagnostics, vec!["no parameter schema for tool calculate_tip".to_string()]);
    }
}

#[test]
fn customer_support_warnings_fail_only_under_strict() {
    let Some(cape) = data_dir("cape") else { return };
    let g = graph(&cape.join("examples/customer-support/no-acknowledgment.json"));
    let p = packs::builtin("example.customer-support.v1").unwrap().unwrap().clone();
    let lax = Engine::default().evaluate(std::slice::from_ref(&p), &g).unwrap();
    let passed = |r: &RunResult, id: &str| r.packs[0].policy_results.iter().find(|x| x.policy_id == id).unwrap().passed;
    assert!(passed(&lax, "greeting-required") && passed(&lax, "closing-required") && passed(&lax, "professional-tone"));
    assert!(!passed(&lax, "acknowledgment-required"));
    let strict = Engine { strict: true, ..Engine::default() }.evaluate(&[p], &g).unwrap();
    assert!(!passed(&strict, "greeting-required") && !passed(&strict, "closing-required"));
    assert!(passed(&strict, "professional-tone"));
    let msg = &lax.packs[0].policy_results[1].violations[0].message;
    assert_eq!(
        msg,
        "acknowledgment-required/has-acknowledgment failed on graph: no element of discourse_acts satisfies has_discourse_type(da, \"ACKNOWLEDGMENT\")"
    );
}

#[test]
fn violation_messages_follow_d7() {
    let Some(cape) = data_dir("cape") else { return };
    let g = graph(&cape.join("examples/tool-use/tip-calc-violation.json"));
    let p = packs::builtin("core.tool-use.v1").unwrap().unwrap().clone();
    let r = engine(&cape, "tool-use").evaluate(&[p], &g).unwrap();
    let (_, _, v) = r.violations().next().unwrap();
    assert_eq!(
        v.message,
        "tool-args-valid/args-match-schema failed on tc1: arguments_match_schema(tc1) is false; argument 'bill_amount': expected number, got string"
    );
    let g = graph(&cape.join("examples/safe-code/python-unsafe.json"));
    let p = packs::builtin("core.safe-code.v1").unwrap().unwrap().clone();
    let r = Engine::default().evaluate(&[p], &g).unwrap();
    let msgs: Vec<&str> = r.violations().map(|(_, _, v)| v.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            "no-dangerous-patterns/no-eval failed on cb1: contains_eval(cb1) is true; eval( at line 2",
            "no-dangerous-patterns/no-shell-injection failed on cb1: vulnerable_to_injection(cb1) is true; untrusted input() reaches eval( at line 2",
        ]
    );
}

#[test]
fn verifier_example_is_skipped_without_a_judge() {
    let Some(cape) = data_dir("cape") else { return };
    let g = graph(&cape.join("examples/reasoning/argument-unsound.json"));
    let exp = read_json(&cape.join("examples/reasoning/argument-unsound.expectations.json"));
    let id = exp["verifiers"][0].as_str().unwrap();
    let policy = serde_json::json!({
        "policy_id": "sound-reasoning", "name": "Sound reasoning", "description": "", "version": "1.0.0",
        "rules": [
            {"rule_id": "argument-sound", "description": "", "expression": {"verifier": {"id": id, "threshold": 0.7}}},
            {"rule_id": "has-claims", "description": "", "expression": {"exists": {"var": "c", "in": "claims", "condition": {"predicate": "is_factual", "args": ["c"]}}}}
        ]
    });
    let pack = warrant_cpl::load_pack_or_policy(&policy).unwrap();
    for (registry, reason) in [
        (RubricsWithoutJudge::default(), format!("verifier {id} not registered")),
        (RubricsWithoutJudge::new([id.to_string()]), format!("no judge configured for verifier {id}")),
    ] {
        let e = Engine { verifiers: Box::new(registry), ..Engine::default() };
        let r = e.evaluate(std::slice::from_ref(&pack), &g).unwrap();
        let pr = &r.packs[0].policy_results[0];
        assert_eq!(pr.skipped_rules.len(), 1);
        assert_eq!(pr.skipped_rules[0].rule_id, "argument-sound");
        assert_eq!(pr.skipped_rules[0].reason, reason);
        assert!(pr.violations.is_empty());
        assert!(pr.passed, "a skipped rule neither passes nor fails the policy");
    }
}

#[test]
fn every_tiered_dialect_file_is_refused_with_the_dialect_message() {
    let Some(cape) = data_dir("cape") else { return };
    let mut n = 0;
    for variant in ["no-assumptions", "fixed-assumptions"] {
        for entry in std::fs::read_dir(cape.join("tiered-dialect").join(variant)).unwrap() {
            let path = entry.unwrap().path().join("policy.cpl");
            let err = load_policy(&read_json(&path)).unwrap_err();
            assert_eq!(err.message, TIERED_DIALECT_MESSAGE, "{}", path.display());
            assert!(load_pack(&read_json(&path)).is_err());
            n += 1;
        }
    }
    assert_eq!(n, 16);
}

#[test]
fn upstream_packs_and_rubrics_load() {
    let Some(cape) = data_dir("cape") else { return };
    for entry in std::fs::read_dir(cape.join("packs")).unwrap() {
        let p = load_pack(&read_json(&entry.unwrap().path())).unwrap();
        assert!(p.warnings.is_empty());
    }
    for entry in std::fs::read_dir(cape.join("rubrics")).unwrap() {
        warrant_cpl::load_rubric(&read_json(&entry.unwrap().path())).unwrap();
    }
}
