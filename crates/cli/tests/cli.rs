//! End-to-end tests of the `warrant` binary: outputs, exit codes and error messages.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::{Value, json};
use warrant_testkit::write_file as write;
use warrant_testkit::{data_dir, warrant, workspace_root};

fn example(rel: &str) -> PathBuf {
    workspace_root().join("examples").join(rel)
}

fn minimal_graph() -> Value {
    json!({"schema_version": "1.0.0", "output_id": "o", "text": "Hello.", "entities": [], "claims": [],
           "operations": [], "tool_calls": [], "citations": [], "code_blocks": [], "discourse_acts": []})
}

// ---------- validate ----------

#[test]
fn validate_reports_valid_and_invalid_files_with_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.json", minimal_graph().to_string());
    let mut bad_v = minimal_graph();
    bad_v["claims"] = json!([{"id": "c1", "text": "x", "modality": "hedged", "span": {"start": 0, "end": 1}}]);
    let bad = write(dir.path(), "bad.json", bad_v.to_string());
    warrant().args(["validate"]).arg(&good).assert().code(0).stdout(predicate::str::contains(": Valid"));
    warrant()
        .args(["validate"])
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("✗").and(predicate::str::contains("Validation error at claims -> 0 -> modality")));
    let out = warrant().args(["validate", "--format", "json"]).arg(&good).arg(&bad).assert().code(1).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[0]["kind"], "predicategraph");
    assert_eq!(v[1]["valid"], false);
    assert_eq!(v[1]["errors"][0]["path"], "/claims/0/modality");
    assert!(v[1]["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn validate_version_major_and_strict_lints() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = minimal_graph();
    g["schema_version"] = json!("2.1.0");
    let f = write(dir.path(), "v2.json", g.to_string());
    warrant().args(["validate"]).arg(&f).assert().code(1).stdout(predicate::str::contains(
        "Validation error at schema_version: unsupported schema_version \"2.1.0\": only major version 1 is supported",
    ));
    let mut g = minimal_graph();
    g["claims"] = json!([{"id": "c1", "text": "Nope", "modality": "factual", "span": {"start": 0, "end": 5}}]);
    let f = write(dir.path(), "lint.json", g.to_string());
    warrant().args(["validate"]).arg(&f).assert().code(0).stdout(predicate::str::contains("⚠ claims -> 0 -> span"));
    warrant().args(["validate", "--strict"]).arg(&f).assert().code(1);
}

#[test]
fn validate_detects_kinds_and_refuses_unknown_ones() {
    let dir = tempfile::tempdir().unwrap();
    let pol = json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
        "rules": [{"rule_id": "r", "description": "", "expression": {"predicate": "nope", "args": []}}]});
    let f = write(dir.path(), "p.json", pol.to_string());
    let out = warrant().args(["validate", "--format", "json"]).arg(&f).assert().code(1).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["kind"], "cpl_policy");
    assert_eq!(v["errors"][0]["path"], "/rules/0/expression/predicate");
    let f = write(dir.path(), "x.json", "{\"hello\": 1}");
    warrant().args(["validate"]).arg(&f).assert().code(1).stdout(predicate::str::contains("pass --kind"));
    warrant().args(["validate", "--kind", "policy_pack"]).arg(&f).assert().code(1);
    warrant().args(["validate", "--kind", "bogus"]).arg(&f).assert().code(2);
    warrant().args(["validate", "/no/such/file.json"]).assert().code(2).stderr(predicate::str::contains("no such file"));
    let f = write(dir.path(), "broken.json", "{ not json");
    warrant().args(["validate"]).arg(&f).assert().code(1).stdout(predicate::str::contains("Invalid JSON"));
}

#[test]
fn validate_all_on_the_cape_data_root() {
    let Some(cape) = data_dir("cape") else { return };
    warrant()
        .args(["validate", "--all"])
        .arg(&cape)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Summary: 12 passed, 0 failed").and(predicate::str::contains("[Verifier Rubrics]")));
    // Under --strict the span lints fail the five graphs (spec §8.4).
    warrant()
        .args(["validate", "--all", "--strict"])
        .arg(&cape)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Summary: 7 passed, 5 failed"));
}

#[test]
fn validate_refuses_the_tiered_dialect() {
    let Some(cape) = data_dir("cape") else { return };
    let mut files = Vec::new();
    for variant in ["no-assumptions", "fixed-assumptions"] {
        for e in std::fs::read_dir(cape.join("tiered-dialect").join(variant)).unwrap() {
            files.push(e.unwrap().path().join("policy.cpl"));
        }
    }
    assert_eq!(files.len(), 16);
    for f in files {
        warrant()
            .args(["validate", "--kind", "cpl_policy"])
            .arg(&f)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("Unsupported CPL dialect: this is the tiered expression-string dialect"));
    }
}

#[test]
fn validate_strict_reports_pack_level_custom_predicates() {
    let dir = tempfile::tempdir().unwrap();
    let pack = json!({"pack_id": "x.ext.v1", "name": "X", "description": "", "version": "1.0.0",
        "custom_predicates": {"f": {"params": ["c"], "expression": {"predicate": "is_factual", "args": ["c"]}}},
        "policies": [{"policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
            "rules": [{"rule_id": "r", "description": "", "expression": {"forall": {"var": "c", "in": "claims", "condition": {"predicate": "f", "args": ["c"]}}}}]}]});
    let f = write(dir.path(), "pack.json", pack.to_string());
    warrant().args(["validate"]).arg(&f).assert().code(0);
    warrant()
        .args(["validate", "--strict"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("non-standard extension: pack-level custom_predicates"));
}

// ---------- policy eval ----------

#[test]
fn eval_demo_fails_with_the_expected_violations() {
    let out = warrant()
        .args(["policy", "eval", "--pack", "core.tool-use.v1", "--format", "json", "--tools"])
        .arg(example("tool-use/travel.tools.json"))
        .arg(example("tool-use/book-flight.graph.json"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["output_id"], "demo-book-flight");
    assert_eq!(v["passed"], false);
    let pr = &v["packs"][0]["policy_results"];
    assert_eq!(pr[0]["policy_id"], "tool-args-valid");
    let rules: Vec<&str> = pr[0]["violations"].as_array().unwrap().iter().map(|x| x["rule_id"].as_str().unwrap()).collect();
    assert_eq!(rules, vec!["args-match-schema", "no-extra-args"]);
    assert_eq!(pr[0]["violations"][0]["node_id"], "tc1");
    assert_eq!(pr[0]["violations"][1]["severity"], "warning");
    assert_eq!(pr[1]["passed"], true);
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
}

#[test]
fn eval_passes_with_exit_0_and_reads_stdin() {
    let g = minimal_graph().to_string();
    warrant()
        .args(["policy", "eval", "--pack", "core.tool-use.v1", "-"])
        .write_stdin(g)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("passed"));
}

#[test]
fn eval_is_deterministic() {
    let run = || {
        warrant()
            .args([
                "policy",
                "eval",
                "--format",
                "json",
                "--pack",
                "core.tool-use.v1",
                "--pack",
                "core.citation-grounding.v1",
                "--tools",
            ])
            .arg(example("tool-use/travel.tools.json"))
            .arg(example("tool-use/book-flight.graph.json"))
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run(), run());
}

fn assert_bad_input(args: &[&str], input: Option<&Path>, needle: &str) {
    let mut cmd = warrant();
    cmd.args(args);
    if let Some(i) = input {
        cmd.arg(i);
    }
    let out = cmd.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line on stderr: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in {stderr}");
    assert!(!stderr.contains("panicked"));
}

#[test]
fn eval_bad_inputs_exit_2_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = write(d, "g.json", minimal_graph().to_string());
    let not_json = write(d, "n.json", "{\"schema_version\": ");
    assert_bad_input(
        &["policy", "eval", "--pack", "core.tool-use.v1"],
        Some(&not_json),
        "n.json: invalid JSON: EOF while parsing",
    );
    let wrong = write(d, "w.json", "{\"schema_version\": \"1.0.0\", \"output_id\": \"x\"}");
    assert_bad_input(
        &["policy", "eval", "--pack", "core.tool-use.v1"],
        Some(&wrong),
        "w.json: /: \"text\" is a required property",
    );
    let mut bad_node = minimal_graph();
    bad_node["tool_calls"] = json!([{"id": "tc1", "name": "f", "arguments": "x", "span": {"start": 0, "end": 1}}]);
    let bad_node = write(d, "b.json", bad_node.to_string());
    assert_bad_input(&["policy", "eval", "--pack", "core.tool-use.v1"], Some(&bad_node), "b.json: /tool_calls/0/arguments:");
    assert_bad_input(&["policy", "eval", "--pack", "core.nope.v9"], Some(&graph), "unknown pack 'core.nope.v9'");
    let unknown_pred = write(
        d,
        "up.json",
        json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
            "rules": [{"rule_id": "r", "description": "", "expression": {"forall": {"var": "c", "in": "claims", "condition": {"predicate": "is_awesome", "args": ["c"]}}}}]})
        .to_string(),
    );
    let up = unknown_pred.to_string_lossy().to_string();
    assert_bad_input(
        &["policy", "eval", "--pack", &up],
        Some(&graph),
        "/rules/0/expression/forall/condition/predicate: unknown predicate 'is_awesome'",
    );
    let cyclic = write(
        d,
        "cy.json",
        json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
            "custom_predicates": {"a": {"params": [], "expression": {"predicate": "b", "args": []}}, "b": {"params": [], "expression": {"predicate": "a", "args": []}}},
            "rules": [{"rule_id": "r", "description": "", "expression": {"predicate": "a", "args": []}}]})
        .to_string(),
    );
    let cy = cyclic.to_string_lossy().to_string();
    assert_bad_input(&["policy", "eval", "--pack", &cy], Some(&graph), "cycle: a → b → a");
    assert_bad_input(
        &["policy", "eval", "--pack", "core.tool-use.v1", "--tools", "/no/tools.json"],
        Some(&graph),
        "/no/tools.json: cannot read: no such file",
    );
    // An unknown type name is a warning naming the tool and parameter, checked as any (issue
    // 18); a tools file without a tool's name is still refused.
    let odd_type = write(d, "t.json", "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"x\": {\"type\": \"str\"}}}}]");
    let out =
        warrant().args(["policy", "eval", "--pack", "core.tool-use.v1", "--tools"]).arg(&odd_type).arg(&graph).assert().code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("/0/parameters/properties/x/type: tool 'f', parameter 'x': unknown type 'str': checked as any"),
        "{stdout}"
    );
    let bad_tools = write(d, "t2.json", "[{\"parameters\": {\"type\": \"object\"}}]");
    let bt = bad_tools.to_string_lossy().to_string();
    assert_bad_input(
        &["policy", "eval", "--pack", "core.tool-use.v1", "--tools", &bt],
        Some(&graph),
        "t2.json: /0/name: expected the tool name as a string",
    );
    assert_bad_input(
        &["policy", "eval", "--pack", "core.tool-use.v1"],
        Some(Path::new("/no/graph.json")),
        "/no/graph.json: cannot read",
    );
    let binary = d.join("bin.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x01]).unwrap();
    assert_bad_input(&["policy", "eval", "--pack", "core.tool-use.v1"], Some(&binary), "not UTF-8 text");
    let tiered =
        write(d, "tiered.cpl", json!({"id": "capability.x", "policies": [{"id": "a", "tier": "T1", "assert": []}]}).to_string());
    let ti = tiered.to_string_lossy().to_string();
    assert_bad_input(&["policy", "eval", "--pack", &ti], Some(&graph), "Unsupported CPL dialect");
    let mut dup = minimal_graph();
    dup["claims"] = json!([{"id": "c1", "text": "a", "modality": "factual", "span": {"start": 0, "end": 1}},
                           {"id": "c1", "text": "b", "modality": "factual", "span": {"start": 1, "end": 2}}]);
    let dup = write(d, "dup.json", dup.to_string());
    assert_bad_input(&["policy", "eval", "--pack", "core.tool-use.v1"], Some(&dup), "/claims/1/id: duplicate id 'c1'");
}

#[test]
fn eval_missing_pack_flag_is_a_usage_error() {
    warrant().args(["policy", "eval", "x.json"]).assert().code(2);
}

#[test]
fn packs_lists_the_builtins() {
    let out = warrant().args(["policy", "packs", "--format", "json"]).assert().code(0).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let ids: Vec<&str> = v.as_array().unwrap().iter().map(|p| p["pack_id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        vec![
            "core.citation-grounding.v1",
            "core.safe-code.v1",
            "core.tool-use.v1",
            "example.customer-support.v1",
            "warrant.arithmetic.v1",
            "warrant.grounding.v1",
            "warrant.tool-grounding.v1",
            "warrant.tool-schema.v1"
        ]
    );
    warrant().args(["policy", "packs"]).assert().code(0).stdout(predicate::str::contains("core.safe-code.v1"));
}

#[test]
fn eval_conformance_examples_through_the_binary() {
    let Some(cape) = data_dir("cape") else { return };
    let out = warrant()
        .args(["policy", "eval", "--format", "json", "--pack", "core.tool-use.v1", "--tools"])
        .arg(cape.join("tools/tip-calc.tools.json"))
        .arg(cape.join("examples/tool-use/tip-calc-violation.json"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let violations = v["packs"][0]["policy_results"][0]["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0]["rule_id"], "args-match-schema");
    // Span lints of the upstream graph surface as diagnostics, not errors.
    assert!(v["diagnostics"].as_array().unwrap().iter().all(|d| d["severity"] == "warning" && d["source"] == "graph"));
}
