//! End-to-end tests of `warrant research`: JSON and text output, `--show`, bad intents.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use warrant_testkit::warrant;

/// A store with three small documents.
fn store(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("auth.md"),
        "# Authentication\n\nSession tokens expire after 15 minutes of inactivity. Admin login requires hardware keys.\n\n\
         Refresh tokens are valid for 30 days.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("fleet.txt"),
        "The delivery drone fleet has forty units. Drone batteries last two hours in cold weather.\n",
    )
    .unwrap();
    let kb = dir.join("kb");
    warrant().args(["ingest", "--store"]).arg(&kb).arg(&docs).assert().code(0);
    kb
}

fn json(c: &mut Command) -> Value {
    let out = c.assert().code(0).get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

#[test]
fn research_prints_a_search_result_with_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let kb = store(dir.path());
    let v = json(warrant().args(["research", "--now", "2026-06-02T18:30:45Z", "--store"]).arg(&kb).args([
        "what",
        "does",
        "admin login require",
    ]));
    assert_eq!(v["decomp_trace"]["router_action"], "walk_seeds");
    assert!(v["synthesis"].as_str().unwrap().contains("Admin login requires hardware keys."));
    assert!(v["run_id"].as_str().unwrap().starts_with("rg_"));
    assert!(v["tokens_used"].as_i64().unwrap() > 0);
    assert_eq!(v["iterations"], 1);
    assert_eq!(v["sufficient"], true);
    let ev = v["evidence"].as_array().unwrap();
    assert!(ev.iter().any(|e| e["entity_id"] == "warrant.local.knowledge.graph.entity.admin_login"));
    // The same run on the same store state is byte-identical apart from the run id (the
    // run's sequence number differs).
    let again = json(
        warrant().args(["research", "--now", "2026-06-02T18:30:45Z", "--store"]).arg(&kb).arg("what does admin login require"),
    );
    assert_ne!(again["run_id"], v["run_id"]);
    assert_eq!(again["synthesis"], v["synthesis"]);
    assert_eq!(again["evidence"], v["evidence"]);
}

#[test]
fn text_shows_numbered_evidence_and_show_reads_the_run_back() {
    let dir = tempfile::tempdir().unwrap();
    let kb = store(dir.path());
    let out = warrant()
        .args(["research", "--format", "text", "--store"])
        .arg(&kb)
        .arg("drone batteries in cold weather")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("research rg_"), "{text}");
    assert!(text.contains("Evidence:\n  [1] "), "{text}");
    assert!(text.contains("] Drone batteries last two hours in cold weather."), "{text}");
    let run_id = text.split_whitespace().nth(1).unwrap().trim_end_matches(':').to_string();
    let rec = json(warrant().args(["research", "--show", &run_id, "--store"]).arg(&kb));
    assert_eq!(rec["run_id"], run_id.as_str());
    let preds: Vec<&str> = rec["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("set"))
        .flat_map(|s| s["triples"].as_array().unwrap())
        .map(|t| t["predicate"].as_str().unwrap())
        .collect();
    assert_eq!(preds.first(), Some(&"agent.loop.role"));
    assert!(preds.contains(&"research.assess.sufficient"));
    assert_eq!(preds.last(), Some(&"research.search-result.ref"));
    let shown = warrant()
        .args(["research", "--format", "text", "--show", &run_id, "--store"])
        .arg(&kb)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(shown).unwrap().contains("research.route.action = "));
}

#[test]
fn absent_answers_are_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let kb = store(dir.path());
    let v = json(warrant().args(["research", "--store"]).arg(&kb).arg("quantum cryptography migration"));
    let s = v["synthesis"].as_str().unwrap();
    assert!(s.starts_with("No evidence was found") || s.starts_with("Insufficient evidence"), "{s}");
    assert_eq!(v["sufficient"], false);
}

#[test]
fn malformed_intents_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let kb = store(dir.path());
    for (args, needle) in [
        (vec!["  "], "topic required"),
        (vec!["--budget", "0", "x"], "--budget must be > 0"),
        (vec!["--budget", "-5", "x"], "budget_tokens must be >= 0, got -5"),
        (vec!["--max-iterations", "-1", "x"], "max_iterations must be >= 0, got -1"),
        (vec!["--hint", "limit", "x"], "expected key=value"),
        (vec!["--hint", "limit= ", "x"], "hints[\"limit\"] is empty"),
        (vec!["--now", "yesterday", "x"], "--now"),
        (vec!["--show", "rg_00000000"], "no research run"),
    ] {
        let out = warrant().arg("research").args(&args).arg("--store").arg(&kb).assert().code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("error: ") && err.contains(needle), "{args:?}: {err}");
    }
    // Hints are a free-form map: a key no stage reads, or a malformed value of a known one,
    // runs and is noted in the run's warnings.
    let out = warrant()
        .args(["research", "--format", "json", "--hint", "entity=Beacon", "--hint", "limit=0", "--store"])
        .arg(&kb)
        .arg("x")
        .assert()
        .code(0)
        .get_output()
        .clone();
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = run["warnings"].as_array().unwrap_or_else(|| panic!("no warnings in {run}"));
    assert!(warnings.iter().any(|w| w.as_str().unwrap_or_default().starts_with("hints[\"entity\"]: read by no stage")), "{run}");
    assert!(warnings.iter().any(|w| w.as_str().unwrap_or_default().contains("hints[\"limit\"]: expected an integer")), "{run}");

    // No store: exit 2, nothing created.
    let missing = dir.path().join("nope");
    warrant().args(["research", "--store"]).arg(&missing).arg("x").assert().code(2);
    assert!(!missing.exists());
}
