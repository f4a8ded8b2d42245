//! Tool calls against their schemas from the command line (issue 18): `warrant.tool-schema.v1`
//! runs by default beside `core.tool-use.v1` when the answer calls tools, in `policy eval` and
//! in `check`; tools files with Java / JavaScript type names are read, not refused.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};
use warrant_testkit::write_file as write;
use warrant_testkit::{warrant, workspace_root};

fn example(rel: &str) -> PathBuf {
    workspace_root().join("examples").join(rel)
}

fn java_tools() -> PathBuf {
    workspace_root().join("crates/cpl/tests/fixtures/java.tools.json")
}

fn json_out(cmd: &mut Command, code: i32) -> Value {
    let out = cmd.assert().code(code).get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

fn pack_ids(v: &Value) -> Vec<&str> {
    v["packs"].as_array().unwrap().iter().map(|p| p["pack_id"].as_str().unwrap()).collect()
}

/// `(rule_id, node_id, diagnostics)` of a pack's violations.
fn violations<'a>(v: &'a Value, pack: &str) -> Vec<(&'a str, &'a str, Vec<&'a str>)> {
    let p = v["packs"].as_array().unwrap().iter().find(|p| p["pack_id"] == pack).unwrap();
    p["policy_results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["violations"].as_array().unwrap())
        .map(|x| {
            let d = x["diagnostics"].as_array().map(|d| d.iter().map(|s| s.as_str().unwrap()).collect()).unwrap_or_default();
            (x["rule_id"].as_str().unwrap(), x["node_id"].as_str().unwrap_or(""), d)
        })
        .collect()
}

#[test]
fn policy_eval_runs_both_tool_packs_when_no_pack_is_named() {
    let v = json_out(
        warrant()
            .args(["policy", "eval", "--format", "json", "--tools"])
            .arg(example("tool-use/travel.tools.json"))
            .arg(example("tool-use/book-flight.graph.json")),
        1,
    );
    assert_eq!(pack_ids(&v), vec!["core.tool-use.v1", "warrant.tool-schema.v1"]);
    // The invented `seat` is a warning for CAPE, an error here: the schema says
    // additionalProperties: false.
    assert_eq!(
        violations(&v, "warrant.tool-schema.v1"),
        vec![(
            "args-conform",
            "tc1",
            vec![
                r#"/passengers: expected integer, got string "2""#,
                "/seat: not a declared parameter (additionalProperties is false)"
            ]
        )]
    );
    let core: Vec<(&str, &str)> = violations(&v, "core.tool-use.v1").into_iter().map(|(r, n, _)| (r, n)).collect();
    assert_eq!(core, vec![("args-match-schema", "tc1"), ("no-extra-args", "tc1")]);
}

#[test]
fn policy_eval_without_a_pack_needs_tool_calls() {
    let dir = tempfile::tempdir().unwrap();
    let g = json!({"schema_version": "1.0.0", "output_id": "o", "text": "Hello.", "entities": [], "claims": [],
                   "operations": [], "tool_calls": [], "citations": [], "code_blocks": [], "discourse_acts": []});
    let f = write(dir.path(), "g.json", g.to_string());
    warrant().args(["policy", "eval"]).arg(&f).assert().code(2).stderr(
        predicate::str::contains("g.json: no --pack given, and the input calls no tools")
            .and(predicate::str::contains("name a pack with --pack")),
    );
}

#[test]
fn a_java_tools_file_is_read_with_warnings_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "ConnectionPool.configure",
         "arguments": "{\"url\": \"jdbc:h2:mem\", \"maxConnections\": 4, \"separator\": \",\", \"properties\": {\"ssl\": \"no\"}}"}}]});
    let f = write(dir.path(), "answer.json", msg.to_string());
    // Before issue 18 this file was refused with exit 2 (`unknown type 'char'`).
    let v = json_out(warrant().args(["policy", "eval", "--format", "json", "--tools"]).arg(java_tools()).arg(&f), 1);
    let notes: Vec<(&str, &str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning")
        .map(|d| (d["source"].as_str().unwrap(), d["path"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().all(|(s, _, _)| *s == "graph"), "the answer carries the tools as context.tool_schemas: {notes:?}");
    assert_eq!(notes[1].1, "/context/tool_schemas/0/parameters/properties/separator/type");
    assert!(notes[1].2.starts_with("tool 'ConnectionPool.configure', parameter 'separator': unknown type 'char'"));
    assert_eq!(
        violations(&v, "warrant.tool-schema.v1"),
        vec![("args-conform", "tc1", vec![r#"/properties/ssl: expected boolean, got string "no""#])]
    );
    assert!(violations(&v, "core.tool-use.v1").is_empty(), "top-level types are right");
    // The text report lists the warnings under notes; `extract` prints them on stderr.
    warrant()
        .args(["policy", "eval", "--tools"])
        .arg(java_tools())
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("warning graph /context/tool_schemas/0/parameters/properties/flags/type: tool 'ConnectionPool.configure', parameter 'flags': unknown type 'byte'"));
    warrant().args(["extract", "--tools"]).arg(java_tools()).arg(&f).assert().code(0).stderr(predicate::str::contains(
        "/0/parameters/properties/separator/type: tool 'ConnectionPool.configure', parameter 'separator': unknown type 'char'",
    ));
}

#[test]
fn check_runs_the_schema_pack_when_the_answer_calls_tools() {
    let dir = tempfile::tempdir().unwrap();
    let msg = json!({"role": "assistant", "content": "Booking it now.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "book_flight",
         "arguments": "{\"origin\": \"BOS\", \"destination\": \"LIS\", \"date\": \"2026-12-18\", \"passengers\": 2}"}}]});
    let f = write(dir.path(), "answer.json", msg.to_string());
    let run = |answer: &Path| {
        json_out(
            warrant().args(["check", "--format", "json", "--tools"]).arg(example("tool-use/travel.tools.json")).arg(answer),
            0,
        )
    };
    let v = run(&f);
    assert_eq!(
        pack_ids(&v["policies"]),
        vec!["warrant.grounding.v1", "warrant.arithmetic.v1", "core.tool-use.v1", "warrant.tool-schema.v1"]
    );
    assert!(violations(&v["policies"], "warrant.tool-schema.v1").is_empty());
    // A nested defect CAPE's check cannot see blocks the answer through the schema pack.
    let mut bad = msg.clone();
    bad["tool_calls"][0]["function"]["arguments"] = json!(
        "{\"origin\": \"BOS\", \"destination\": \"LIS\", \"date\": \"2026-12-18\", \"passengers\": 2, \"seat\": \"aisle\"}"
    );
    let f = write(dir.path(), "bad.json", bad.to_string());
    let out = warrant()
        .args(["check", "--format", "json", "--tools"])
        .arg(example("tool-use/travel.tools.json"))
        .arg(&f)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_ne!(v["gate"], "allow", "{}", v["gate_reasons"]);
    assert_eq!(
        violations(&v["policies"], "warrant.tool-schema.v1"),
        vec![("args-conform", "tc1", vec!["/seat: not a declared parameter (additionalProperties is false)"])]
    );
}
