//! End-to-end tests of `warrant check`: the bundled demo (statuses, exact quotes, gate, exit
//! codes), the same check through a store made by `warrant ingest`, the Agent Evidence pack,
//! the HTML page, `--batch` with a bad line, and bad inputs (exit 2, nothing written).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use serde_json::Value;
use warrant_testkit::warrant_at;
use warrant_testkit::write_file as write;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn json_out(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// Statuses by claim text prefix, and every edge's quote checked against its source file.
fn statuses(report: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in report["claims"].as_array().unwrap() {
        for e in c["support_edges"].as_array().unwrap() {
            let text = std::fs::read_to_string(Path::new(ROOT).join(e["source_id"].as_str().unwrap())).unwrap();
            let (start, end) =
                (e["selector"]["start"].as_u64().unwrap() as usize, e["selector"]["end"].as_u64().unwrap() as usize);
            let quoted: String = text.chars().skip(start).take(end - start).collect();
            assert_eq!(quoted, e["selector"]["exact"].as_str().unwrap(), "edge {} is not exact", e["edge_id"]);
        }
        out.push((c["text"].as_str().unwrap().to_string(), c["status"].as_str().unwrap().to_string()));
    }
    out
}

fn demo_expectations(got: &[(String, String)]) {
    let want = [
        ("Session tokens expire after one hour", "supported"),
        ("all data is encrypted at rest", "supported"),
        ("The Team plan costs $12", "contradicted"),
        ("24/7 phone support", "unsupported"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((text, status), (prefix, expected)) in got.iter().zip(want) {
        assert!(text.contains(prefix), "{text:?} should contain {prefix:?}");
        assert_eq!(status, expected, "{text}");
    }
}

#[test]
fn the_demo_blocks_on_the_contradicted_price_with_exact_quotes() {
    let out = warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "--format", "json", "examples/check/answer.md"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report = json_out(&out);
    demo_expectations(&statuses(&report));
    assert_eq!(report["gate"], "block");
    let reasons: Vec<&str> = report["gate_reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(reasons[0].contains("contradicted"), "{reasons:?}");
    let contradicted = &report["claims"][2];
    assert_eq!(contradicted["support_edges"][0]["relationship"], "contradicts");
    assert!(contradicted["support_edges"][0]["selector"]["exact"].as_str().unwrap().contains("$15"));
    // The policies ran over the verification: the grounding pack's error rule failed.
    let packs: Vec<&str> =
        report["policies"]["packs"].as_array().unwrap().iter().map(|p| p["pack_id"].as_str().unwrap()).collect();
    assert_eq!(packs, ["warrant.grounding.v1", "warrant.arithmetic.v1"]);
    assert_eq!(report["policies"]["packs"][0]["passed"], false);
    assert!(report["graph"]["context"]["claim_verification"].is_object());

    // The same input gives the same bytes.
    let again = warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "--format", "json", "examples/check/answer.md"])
        .output()
        .unwrap();
    assert_eq!(again.stdout, out);
}

#[test]
fn a_store_made_by_ingest_gives_the_same_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let store = store.to_str().unwrap();
    warrant_at(ROOT).args(["ingest", "--store", store, "examples/check/sources"]).assert().code(0);
    let out = warrant_at(ROOT)
        .args(["check", "--store", store, "--format", "json", "examples/check/answer.md"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    demo_expectations(&statuses(&json_out(&out)));
    // --store and --sources are one or the other.
    warrant_at(ROOT)
        .args(["check", "--store", store, "--sources", "examples/check/sources", "examples/check/answer.md"])
        .assert()
        .code(2);
    // A store that does not exist is an error, not an empty check.
    let missing = tmp.path().join("nope");
    let err = warrant_at(ROOT).args(["check", "--store", missing.to_str().unwrap(), "examples/check/answer.md"]).assert().code(2);
    assert!(String::from_utf8_lossy(&err.get_output().stderr).contains("--store"));
}

#[test]
fn without_store_or_sources_check_uses_the_store_every_other_command_finds() {
    let tmp = tempfile::tempdir().unwrap();
    let answer = Path::new(ROOT).join("examples/check/answer.md");
    let answer = answer.to_str().unwrap();
    let sources = Path::new(ROOT).join("examples/check/sources");
    // `./.warrant` in the working directory, as `warrant ingest` makes it by default.
    warrant_at(tmp.path()).args(["ingest", sources.to_str().unwrap()]).assert().code(0);
    assert!(tmp.path().join(".warrant").is_dir());
    let out = warrant_at(tmp.path()).args(["check", "--format", "json", answer]).assert().code(1);
    demo_expectations(&statuses(&json_out(&out.get_output().stdout)));
    // `$WARRANT_STORE` from anywhere.
    let elsewhere = tempfile::tempdir().unwrap();
    let store = tmp.path().join(".warrant");
    let out = warrant_at(elsewhere.path()).env("WARRANT_STORE", &store).args(["check", "--format", "json", answer]).assert();
    let report = json_out(&out.code(1).get_output().stdout);
    assert_eq!(report["summary"]["unverified"], 0, "{}", report["summary"]);
    // Named and missing: an error, not an empty check.
    let err =
        warrant_at(elsewhere.path()).env("WARRANT_STORE", elsewhere.path().join("nope")).args(["check", answer]).assert().code(2);
    assert!(String::from_utf8_lossy(&err.get_output().stderr).contains("$WARRANT_STORE="));
    // No store anywhere: every claim unverified, gate review, exit 0.
    let out = warrant_at(elsewhere.path()).args(["check", "--format", "json", answer]).assert().code(0);
    let report = json_out(&out.get_output().stdout);
    assert_eq!(report["summary"]["unverified"], report["summary"]["claims"], "{}", report["summary"]);
}

#[test]
fn text_report_marks_each_claim_and_ends_with_the_gate() {
    let out = warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "examples/check/answer.md"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("contradicted"), "{text}");
    assert!(text.contains("$15"), "the counter-evidence is quoted: {text}");
    let lines: Vec<&str> = text.lines().collect();
    let gate = lines.iter().position(|l| l.starts_with("gate:")).unwrap();
    let policies = lines.iter().position(|l| l.starts_with("policies:")).unwrap();
    assert!(lines[gate].contains("BLOCK") && gate > policies, "the gate comes last, with its reasons: {text}");
    assert!(lines[gate + 1..].iter().all(|l| l.trim_start().starts_with("- ")), "only reasons follow the gate: {text}");
}

#[test]
fn the_html_page_is_self_contained_and_colours_every_claim() {
    let out = warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "--format", "html", "examples/check/answer.md"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let html = String::from_utf8(out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"), "{}", &html[..40.min(html.len())]);
    for needle in ["http://", "https://", "<link", "src="] {
        assert!(!html.contains(needle), "the page must not load anything ({needle})");
    }
    for status in ["supported", "contradicted", "unsupported"] {
        assert!(html.contains(status), "{status} missing");
    }
    assert!(html.contains("$15"), "the evidence quote is in the page");
}

#[test]
fn the_evidence_pack_validates_and_is_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let pack = tmp.path().join("pack.json");
    let run = |created: &str| {
        warrant_at(ROOT)
            .args(["check", "--sources", "examples/check/sources", "--format", "json", "--created-at", created])
            .arg("--evidence-pack")
            .arg(&pack)
            .arg("examples/check/answer.md")
            .assert()
            .code(1);
        std::fs::read(&pack).unwrap()
    };
    let first = run("2026-11-22T00:00:00Z");
    assert_eq!(run("2026-11-22T00:00:00Z"), first, "same inputs, same bytes");
    let v = json_out(&first);
    assert_eq!(v["created_at"], "2026-11-22T00:00:00Z");
    let statuses: Vec<&str> = v["claims"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["supported", "supported", "contradicted", "unsupported"]);
    let types: Vec<&str> =
        v["verification_results"].as_array().unwrap().iter().map(|r| r["check_type"].as_str().unwrap()).collect();
    assert!(types.contains(&"grounding") && types.contains(&"policy"), "{types:?}");
    let contradicts = v["support_edges"].as_array().unwrap().iter().any(|e| e["relationship"] == "contradicts");
    assert!(contradicts, "the counter-evidence edge is kept");

    // Our validator accepts it; so does the published schema when the data is present.
    warrant_at(ROOT).args(["validate", "--kind", "evidence_pack"]).arg(&pack).assert().code(0);
    if let Some(dir) = warrant_testkit::data_dir("agent-evidence") {
        let schema = std::fs::read_to_string(dir.join("schemas/agentevidence-pack.schema.json")).unwrap();
        let schema = warrant_graph::CompiledSchema::compile(&schema).unwrap();
        assert!(schema.is_valid(&v), "{:?}", schema.errors(&v));
    }

    // SOURCE_DATE_EPOCH stands in for --created-at; a bad time is refused before anything is written.
    std::fs::remove_file(&pack).unwrap();
    warrant_at(ROOT)
        .env("SOURCE_DATE_EPOCH", "0")
        .args(["check", "--sources", "examples/check/sources", "--evidence-pack"])
        .arg(&pack)
        .arg("examples/check/answer.md")
        .assert()
        .code(1);
    assert_eq!(json_out(&std::fs::read(&pack).unwrap())["created_at"], "1970-01-01T00:00:00Z");
    std::fs::remove_file(&pack).unwrap();
    warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "--created-at", "yesterday", "--evidence-pack"])
        .arg(&pack)
        .arg("examples/check/answer.md")
        .assert()
        .code(2);
    assert!(!pack.exists(), "nothing written on a refused check");
}

#[test]
fn batch_reports_in_order_and_a_bad_line_is_an_error_line() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"id":"a","answer":"The bridge is 300 metres long.","sources":[{"id":"s","text":"The bridge is 200 metres long."}]}"#,
        r#"{"id":"b","answer":"Paris is in France.","sources":[{"id":"s","text":"Paris is the capital of France."}]}"#,
        r#"{"id":"c","answer":42}"#,
        r#"not json"#,
        r#"{"id":"d","answer":"Tokens expire after one hour.","question":"When do tokens expire?"}"#,
    ];
    let batch = write(tmp.path(), "b.jsonl", lines.join("\n").as_bytes());
    let out = warrant_at(ROOT)
        .args(["check", "--sources", "examples/check/sources", "--batch"])
        .arg(&batch)
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let rows: Vec<Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["output_id"], "a");
    assert_eq!(rows[0]["claims"][0]["status"], "contradicted");
    assert_eq!(rows[1]["output_id"], "b");
    assert_eq!(rows[1]["claims"][0]["status"], "supported");
    assert_eq!((rows[2]["id"].as_str(), rows[2]["line"].as_u64()), (Some("c"), Some(3)));
    assert!(rows[2]["error"].as_str().unwrap().contains("/answer"), "{}", rows[2]);
    assert_eq!(rows[3]["line"], 4);
    assert!(rows[3]["error"].as_str().unwrap().contains("invalid JSON"));
    // A line without its own sources is checked against --sources.
    assert_eq!(rows[4]["output_id"], "d");
    assert_eq!(rows[4]["claims"][0]["status"], "supported", "{}", rows[4]);
}

/// Issue 16's crash: a source sentence ending in a curly quote after `!` (`now!”`) was sliced
/// inside the quote's bytes. Such lines are reported like any other, between a bad line and a
/// good one.
#[test]
fn curly_quotes_in_sources_are_checked_and_a_bad_line_does_not_end_the_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"id":"q1","answer":"Dr. J. Smith said the sale ends on Friday.","sources":[{"id":"s","text":"“Buy it now!” said Dr. J. Smith. “The sale ends on Friday, so act now!”"}]}"#,
        r#"{"id":"bad","answer":"#,
        r#"{"id":"q2","answer":"The shop said: act now.","sources":[{"id":"s","text":"The shop wrote “act now!” The offer ends soon…”"}]}"#,
    ];
    let batch = write(tmp.path(), "q.jsonl", lines.join("\n").as_bytes());
    let out = warrant_at(ROOT).args(["check", "--batch"]).arg(&batch).assert().code(2).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("panicked"), "{text}");
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["output_id"], "q1");
    assert_eq!(rows[0]["claims"][0]["status"], "supported", "{}", rows[0]);
    assert_eq!(rows[1]["line"], 2);
    assert!(rows[1]["error"].as_str().unwrap().contains("invalid JSON"), "{}", rows[1]);
    assert_eq!(rows[2]["output_id"], "q2");
    assert!(rows[2]["claims"].as_array().is_some_and(|c| !c.is_empty()), "{}", rows[2]);
}

#[test]
fn bad_inputs_are_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = write(tmp.path(), "empty.md", b"  \n");
    let binary = write(tmp.path(), "blob.txt", b"\x00\x01\x02binary");
    let big = write(tmp.path(), "big.txt", "word ".repeat(1000).as_bytes());
    let answer = "examples/check/answer.md";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--sources".into(), "no/such/dir".into(), answer.into()], "no such file"),
        (vec!["--sources".into(), "examples/check/sources".into(), empty.display().to_string()], "empty"),
        (vec!["--sources".into(), binary.display().to_string(), answer.into()], "binary"),
        (vec!["--max-source-bytes".into(), "100".into(), "--sources".into(), big.display().to_string(), answer.into()], "limit"),
        (vec!["no-such-answer.md".into()], "no such file"),
    ];
    for (args, needle) in cases {
        let out = warrant_at(ROOT).arg("check").args(&args).assert().code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(err.contains(needle), "{args:?}: expected {needle:?} in {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no report on bad input");
    }
}
