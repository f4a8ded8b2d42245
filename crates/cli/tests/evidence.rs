//! `warrant validate` on the eight Agent Evidence kinds: detection, codes, warnings and
//! `--strict`, cross-references between files, `--previous`, exit codes.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::{Value, json};
use warrant_testkit::warrant;

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

const T0: &str = "2026-05-08T00:00:00Z";

fn pack() -> Value {
    json!({
        "evidence_pack_id": "evp_1", "schema_version": "0.1.0", "scope": {"answer_id": "a1"}, "status": "ready",
        "created_at": T0, "updated_at": T0, "producer": {"id": "warrant"},
        "claims": [{"claim_id": "c1", "text": "The refund window is 30 days.", "status": "supported"}],
        "sources": [{"source_id": "s1", "source_kind": "document"}],
        "support_edges": [{"edge_id": "e1", "claim_id": "c1", "source_id": "s1", "relationship": "supports"}],
        "completeness": {"claims": {"status": "complete"}}
    })
}

fn one_of_each() -> Vec<(&'static str, Value)> {
    vec![
        ("evidence_pack", pack()),
        (
            "claim_map",
            json!({"claim_map_id": "m", "evidence_pack_id": "evp_1", "schema_version": "0.1.0",
                   "claims": [{"claim_id": "c1", "text": "t", "status": "unverified"}]}),
        ),
        (
            "source_map",
            json!({"source_map_id": "sm", "schema_version": "0.1.0", "sources": [{"source_id": "s1", "source_kind": "document"}]}),
        ),
        ("provenance", json!({"provenance_id": "p", "schema_version": "0.1.0", "nodes": [], "edges": []})),
        (
            "verification",
            json!({"schema_version": "0.1.0", "evidence_pack_id": "evp_1",
                   "verification_results": [{"verification_id": "v", "check_type": "schema", "status": "passed"}]}),
        ),
        (
            "replay",
            json!({"replay_id": "r", "schema_version": "0.1.0", "scope": {"run_id": "run"}, "determinism": "deterministic"}),
        ),
        (
            "export_manifest",
            json!({"export_id": "x", "evidence_pack_id": "evp_1", "schema_version": "0.1.0", "created_at": T0,
                   "files": [{"path": "pack.json", "role": "pack", "hash": "sha256:00"}], "schemas": [{"uri": "s"}], "completeness": {}}),
        ),
        (
            "event",
            json!({"type": "evidence.pack.created", "event_id": "ev", "timestamp": T0, "schema_version": "0.1.0", "evidence_pack_id": "evp_1"}),
        ),
    ]
}

#[test]
fn every_kind_is_detected_and_validated() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, doc) in one_of_each() {
        let f = write(dir.path(), &format!("{kind}.json"), &doc);
        let out = warrant().args(["validate", "--format", "json"]).arg(&f).assert().code(0).get_output().stdout.clone();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["kind"], kind);
        assert_eq!(v["valid"], true, "{v}");
        warrant().args(["validate", "--kind", kind]).arg(&f).assert().code(0).stdout(predicate::str::contains(": Valid"));
    }
}

#[test]
fn errors_carry_codes_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pack();
    p["support_edges"][0]["relationship"] = json!("background");
    let f = write(dir.path(), "p.json", &p);
    warrant().args(["validate"]).arg(&f).assert().code(1).stdout(predicate::str::contains("✗ ").and(predicate::str::contains(
        "Validation error at claims -> 0 -> status: AEV-CLAIM-SUPPORTED: claim 'c1' is supported",
    )));
    let out = warrant().args(["validate", "--format", "json"]).arg(&f).assert().code(1).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        v["errors"][0],
        json!({"path": "/claims/0/status", "code": "AEV-CLAIM-SUPPORTED",
        "message": "claim 'c1' is supported but has no supports or partially_supports edge"})
    );

    // Pass 1: RFC 3339 date-times are asserted.
    let mut p = pack();
    p["created_at"] = json!("08/05/2026");
    let f = write(dir.path(), "t.json", &p);
    warrant().args(["validate"]).arg(&f).assert().code(1).stdout(predicate::str::contains(
        "Validation error at created_at: AEV-DATE-TIME: \"08/05/2026\" is not an RFC 3339 date-time",
    ));
}

#[test]
fn warnings_fail_only_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let m = json!({"export_id": "x", "evidence_pack_id": "evp_1", "schema_version": "0.1.0", "created_at": T0,
        "files": [{"path": "claims.json", "role": "claim_map"}], "completeness": {}});
    let f = write(dir.path(), "m.json", &m);
    warrant().args(["validate"]).arg(&f).assert().code(0).stdout(
        predicate::str::contains("⚠ files -> 0: AEV-EXPORT-HASH").and(predicate::str::contains("⚠ files: AEV-EXPORT-PACK")),
    );
    warrant().args(["validate", "--strict"]).arg(&f).assert().code(1);
    let out = warrant().args(["validate", "--format", "json"]).arg(&f).assert().code(0).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["warnings"].as_array().unwrap().len(), 3);
    assert_eq!(v["warnings"][2]["code"], "AEV-EXPORT-PACK");
}

#[test]
fn files_on_one_command_line_resolve_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pack();
    p.as_object_mut().unwrap().remove("claims");
    p["claim_map_ref"] = json!("claims.json");
    p["support_edges"][0]["claim_id"] = json!("c2");
    let pf = write(dir.path(), "pack.json", &p);
    let map = json!({"claim_map_id": "m", "schema_version": "0.1.0", "claims": [{"claim_id": "c1", "text": "t", "status": "unverified"}]});
    let mf = write(dir.path(), "claims.json", &map);
    // Alone, the pack's claims cannot be resolved, so they are not accused.
    warrant().args(["validate"]).arg(&pf).assert().code(0);
    // With its claim map, the dangling claim id is found.
    warrant()
        .args(["validate"])
        .arg(&pf)
        .arg(&mf)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("support_edges -> 0 -> claim_id: AEV-REF-CLAIM"));

    // A verification document is checked against its pack's completeness and checks.
    let mut p = pack();
    p["completeness"]["telemetry"] = json!({"status": "not_collected"});
    let pf = write(dir.path(), "pack2.json", &p);
    let v = json!({"schema_version": "0.1.0", "evidence_pack_id": "evp_1",
        "verification_results": [{"verification_id": "v", "check_type": "runtime", "status": "passed", "coverage": [{"category": "telemetry"}]}]});
    let vf = write(dir.path(), "ver.json", &v);
    warrant().args(["validate"]).arg(&vf).assert().code(0);
    warrant().args(["validate"]).arg(&vf).arg(&pf).assert().code(1).stdout(predicate::str::contains("AEV-MISSING-AS-SUCCESS"));
}

#[test]
fn previous_versions_keep_their_reviews() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = pack();
    old["reviews"] = json!([{"review_id": "r1", "verdict": "needs_changes"}]);
    let of = write(dir.path(), "v1.json", &old);
    let mut new = old.clone();
    new["reviews"] = json!([{"review_id": "r1", "verdict": "needs_changes"}, {"review_id": "r2", "verdict": "approved"}]);
    let nf = write(dir.path(), "v2.json", &new);
    warrant().args(["validate", "--previous"]).arg(&of).arg(&nf).assert().code(0);
    new["reviews"] = json!([{"review_id": "r1", "verdict": "approved"}]);
    let nf = write(dir.path(), "v2.json", &new);
    warrant().args(["validate", "--previous"]).arg(&of).arg(&nf).assert().code(1).stdout(predicate::str::contains(
        "reviews -> 0: AEV-REVIEW-OVERWRITE: review 'r1' was changed (needs_changes → approved)",
    ));

    // Usage errors: another pack, two files, an invalid previous version.
    let mut other = new.clone();
    other["evidence_pack_id"] = json!("evp_2");
    let xf = write(dir.path(), "other.json", &other);
    warrant()
        .args(["validate", "--previous"])
        .arg(&of)
        .arg(&xf)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not two versions of the same pack"));
    warrant().args(["validate", "--previous"]).arg(&of).arg(&nf).arg(&xf).assert().code(2);
    let bad = write(dir.path(), "bad.json", &json!({"evidence_pack_id": "evp_1"}));
    warrant()
        .args(["validate", "--previous"])
        .arg(&bad)
        .arg(&nf)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the previous version is not a valid evidence_pack"));
}

#[test]
fn other_kinds_are_detected_as_before() {
    let dir = tempfile::tempdir().unwrap();
    // A graph missing its output_id still reads as a graph (its `claims` are not evidence).
    let g = json!({"schema_version": "1.0.0", "text": "Hi.", "entities": [], "claims": [], "operations": [], "tool_calls": [],
        "citations": [], "code_blocks": [], "discourse_acts": []});
    let f = write(dir.path(), "g.json", &g);
    let out = warrant().args(["validate", "--format", "json"]).arg(&f).assert().code(1).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["kind"], "predicategraph");
    assert!(v["errors"][0].get("code").is_none(), "no code field for other kinds");
}

#[test]
fn the_upstream_quickstart_pack_is_valid() {
    let Some(dir) = warrant_testkit::data_dir("agent-evidence") else { return };
    warrant()
        .args(["validate"])
        .arg(dir.join("examples/quickstart-minimal-pack.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(": Valid"));
    // The fragments are detected as packs and fail on the fields they lack.
    warrant()
        .args(["validate", "--format", "json"])
        .arg(dir.join("examples/tool-run-audit.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\"kind\": \"evidence_pack\""));
}
