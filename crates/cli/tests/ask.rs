//! End-to-end tests of `warrant ask`: the Exp3 suite through the binary (questions and
//! plans), text output, `--rules`, `--version`, `--repeat`, and bad inputs (exit 2).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};
use warrant_testkit::write_file as write;
use warrant_testkit::{data_dir, read_jsonl, warrant};

fn stdout_json(c: &mut Command) -> Value {
    let out = c.assert().code(0).get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

/// Exit 2, every stderr line starting `error: `, each needle present.
fn assert_bad(c: &mut Command, needles: &[&str]) {
    let out = c.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.lines().all(|l| l.starts_with("error: ")), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in {stderr}");
    }
    assert!(!stderr.contains("panicked"));
}

fn suite_corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../answer/tests/suite/corpus.json")
}

/// A store with the project's suite corpus ingested.
fn suite_store(dir: &Path) -> PathBuf {
    let store = dir.join("store");
    warrant().args(["ingest", "--store"]).arg(&store).arg(suite_corpus()).assert().code(0);
    store
}

#[test]
fn exp3_questions_and_plans_through_the_binary() {
    let Some(exp3) = data_dir("vsabrains-exp3").map(|d| d.join("exp3-rag")) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    warrant()
        .args(["ingest", "--no-extract", "--store"])
        .arg(&store)
        .arg(exp3.join("corpus.json"))
        .arg("--facts")
        .arg(exp3.join("manual_facts.json"))
        .assert()
        .code(0);
    for q in read_jsonl(&exp3.join("questions.jsonl")) {
        let plan = write(tmp.path(), "plan.json", q["plan"].to_string());
        let by_text = stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg(q["question"].as_str().unwrap()));
        let by_plan = stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg("--plan").arg(&plan));
        for a in [&by_text, &by_plan] {
            assert_eq!(a["verdict"], q["expectedVerdict"], "{}: {a:#}", q["id"]);
            if q["expectedVerdict"] == "supported" {
                assert_eq!(a["text"], q["expectedAnswer"], "{}", q["id"]);
            } else {
                assert_eq!(a["text"], Value::Null);
            }
            for key in ["chunksUsed", "factChain", "supportScores", "conflicts", "plan"] {
                assert!(a.get(key).is_some(), "{key}");
            }
        }
        if q["id"] == "q5" {
            assert_eq!(by_text["chunksUsed"], json!(["c2"]));
            let roles: Vec<&Value> = by_text["factChain"].as_array().unwrap().iter().map(|e| &e["role"]).collect();
            assert_eq!(roles, ["premise", "derived", "conclusion"]);
        }
    }
}

#[test]
fn text_output_shows_answer_verdict_and_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let store = suite_store(tmp.path());
    let out = warrant()
        .args(["ask", "--format", "text", "--store"])
        .arg(&store)
        .args(["Does", "the", "checkout", "service", "require", "the", "risk", "database", "in", "v2.0?"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Answer:   Yes\nVerdict:  supported\nChain:\n"), "{text}");
    assert!(text.contains("\"The fraud engine requires the risk database\""), "{text}");
    assert!(text.contains("by rule requires_transitive"), "{text}");
    assert!(text.contains("conclusion  conclusion0  Yes  from derived1"), "{text}");

    let out = warrant()
        .args(["ask", "--format", "text", "--store"])
        .arg(&store)
        .arg("Do webhooks require signatures?")
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("Verdict:  conflicting") && text.contains("Conflict: polarity_mismatch"), "{text}");
}

#[test]
fn version_flag_rules_flag_and_repeat() {
    let tmp = tempfile::tempdir().unwrap();
    let store = suite_store(tmp.path());
    let q = "What is the API rate limit?";
    assert_eq!(stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg(q))["verdict"], "conflicting");
    let v1 = stdout_json(warrant().args(["ask", "--version", "1.0", "--store"]).arg(&store).arg(q));
    assert_eq!(
        (&v1["verdict"], &v1["text"], &v1["plan"]["version"]),
        (&json!("supported"), &json!("100 requests"), &json!("1.0"))
    );

    // A goal over a predicate only a --rules file concludes.
    let plan = write(
        tmp.path(),
        "plan.json",
        r#"{"goal": {"subject": "checkout service", "predicate": "depends_on", "object": "risk database"}, "version": "2.0"}"#,
    );
    assert_bad(
        warrant().args(["ask", "--store"]).arg(&store).arg("--plan").arg(&plan),
        &["plan.json: /goal/predicate: unknown predicate \"depends_on\""],
    );
    let rules = write(
        tmp.path(),
        "rules.json",
        r#"[{"id": "depends_on_requires", "head": {"subject": "?a", "predicate": "depends_on", "object": "?b"},
             "body": [{"subject": "?a", "predicate": "requires", "object": "?b"}]}]"#,
    );
    let a = stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg("--rules").arg(&rules).arg("--plan").arg(&plan));
    assert_eq!((&a["verdict"], &a["text"]), (&json!("supported"), &json!("Yes")));
    let derived: Vec<&str> = a["factChain"].as_array().unwrap().iter().filter_map(|e| e["fact"]["rule"].as_str()).collect();
    assert_eq!(derived, ["requires_transitive", "requires_transitive", "depends_on_requires"]);

    let out = warrant().args(["ask", "--repeat", "5", "--store"]).arg(&store).arg(q).assert().code(0);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("5 answers: p50 ") && stderr.contains("µs"), "{stderr}");
}

#[test]
fn unsupported_is_exit_zero_with_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let store = suite_store(tmp.path());
    let a = stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg("Can session tokens be stored in localStorage?"));
    assert_eq!((&a["verdict"], &a["text"], &a["factChain"]), (&json!("unsupported"), &Value::Null, &json!([])));
    assert!(a["diagnostics"][0].as_str().unwrap().contains("no question template"), "{a}");
    // Plan predicates outside the vocabulary are allowed by the spec: unsupported, not an error.
    let plan = write(tmp.path(), "p.json", r#"{"subjects": ["session_token"], "predicates": ["encryption_algorithm"]}"#);
    let a = stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg("--plan").arg(&plan));
    assert_eq!(a["verdict"], "unsupported");
    assert!(a["diagnostics"].to_string().contains("encryption_algorithm is not in the vocabulary"), "{a}");
}

#[test]
fn bad_inputs_exit_2_with_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let store = suite_store(tmp.path());
    let ask = || {
        let mut c = warrant();
        c.args(["ask", "--store"]).arg(&store);
        c
    };
    let file = |name: &str, text: &str| write(tmp.path(), name, text);
    assert_bad(ask().arg("--plan").arg(file("syntax.json", "{\n  \"subjects\": [\n")), &["syntax.json: /: line 3 column"]);
    assert_bad(ask().arg("--plan").arg(file("key.json", r#"{"subject": ["a"]}"#)), &["key.json: /subject: unknown key"]);
    assert_bad(
        ask().arg("--plan").arg(file("type.json", r#"{"params": {"x": [1]}}"#)),
        &["type.json: /params/x: expected a number or a string"],
    );
    assert_bad(
        ask().arg("--plan").arg(file("goal.json", r#"{"goal": {"subject": "a"}}"#)),
        &["goal.json: /goal: missing \"predicate\""],
    );
    assert_bad(ask().arg("--plan").arg(tmp.path().join("missing.json")), &["missing.json: cannot read: no such file"]);
    let question = ["What is the API rate limit?"];
    assert_bad(ask().arg("--rules").arg(file("r1.json", "[{\"id\": ")).args(question), &["r1.json: line 1 column"]);
    assert_bad(
        ask()
            .arg("--rules")
            .arg(file(
                "r2.json",
                r#"[{"id": "x", "head": {"subject": "?a", "predicate": "q", "object": "?b"}, "body": [{"subject": "?a", "predicate": "teleports", "object": "?b"}]}]"#,
            ))
            .args(question),
        &["r2.json: /0/body/0/predicate: unknown predicate \"teleports\""],
    );
    assert_bad(
        ask()
            .arg("--rules")
            .arg(file(
                "r3.json",
                r#"[{"id": "part_from_contains", "head": {"subject": "?p", "predicate": "part_of", "object": "?w"}, "body": [{"subject": "?w", "predicate": "contains", "object": "?p"}]}]"#,
            ))
            .args(question),
        &["r3.json: /0: cyclic rules: predicates contains, part_of depend on each other"],
    );
    assert_bad(ask().arg("   "), &["the question is empty"]);
    assert_bad(warrant().args(["ask", "--store"]).arg(tmp.path().join("nowhere")).args(question), &["nowhere"]);
    // Usage errors are exit 2 as well.
    warrant().args(["ask", "--store"]).arg(&store).arg("--plan").arg("p.json").arg("question").assert().code(2);
}

/// The README's `ask` walk-through on `examples/ask/` (an FAQ, an HR policy and a runbook
/// written as people write them): each question gets the answer the README shows.
#[test]
fn readme_questions_on_ordinary_documents() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("kb");
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/ask");
    warrant().args(["ingest", "--store"]).arg(&store).arg(&examples).assert().code(0);
    let ask = |q: &str| stdout_json(warrant().args(["ask", "--store"]).arg(&store).arg(q));
    for (question, verdict, text) in [
        ("How long does standard delivery take?", "supported", Some("3 business days")),
        ("How much does express shipping cost?", "supported", Some("12 EUR per parcel")),
        ("How many days of annual leave are there?", "supported", Some("28 days")),
        ("When must expense claims be submitted?", "supported", Some("30 days")),
        ("How long are returns accepted?", "supported", Some("30 days")),
        ("Who owns the alerting tool?", "supported", Some("Platform Engineering")),
        ("How quickly must the incident commander for a P1 outage acknowledge a page?", "supported", Some("5 minutes")),
        ("How much does same-day shipping cost?", "unsupported", None),
        ("How many days of sick leave are there?", "unsupported", None),
        // Multi-byte text around every offset the planner and matcher compute.
        ("How much does “café” shipping cost – in the release that added ünïcode?", "unsupported", None),
        ("Wie lange dauert die Lieferung? 配送にはどのくらいかかりますか？", "unsupported", None),
    ] {
        let a = ask(question);
        assert_eq!((a["verdict"].as_str(), a["text"].as_str()), (Some(verdict), text), "{question}: {a}");
    }
    // A two-fact answer cites both facts: the tool's name, then who owns it.
    let a = ask("Who owns the alerting tool?");
    let premises: Vec<&str> = a["factChain"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["role"] == "premise")
        .map(|e| e["fact"]["subject"].as_str().unwrap())
        .collect();
    assert_eq!(premises, ["alerting_tool", "klaxon"], "{a}");
}

/// Issue 21's bounds on the project's own development suite of ordinary documents
/// (`bench/ask_dev`: 84 questions, 21 research topics), through the binary: the runner exits
/// 1 and names the bound when one is not met.
#[test]
fn ordinary_documents_meet_the_development_suites_bounds() {
    let runner = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/ask_dev/run.py");
    let out = std::process::Command::new("python3")
        .arg(&runner)
        .arg("--bin")
        .arg(warrant_testkit::warrant_bin())
        .arg("--check")
        .output()
        .unwrap_or_else(|e| panic!("python3 {}: {e}", runner.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(stdout.contains("| Supported recall (supported + multi_hop) |"), "{stdout}");
}
