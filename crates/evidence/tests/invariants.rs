//! Pass 2 (spec §6.2): every code fires where it should, at the right path and level, and
//! stays quiet where the rule holds.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use warrant_evidence::*;
use warrant_graph::Severity;

fn pack() -> Value {
    json!({
        "evidence_pack_id": "evp_1", "schema_version": "0.1.0", "scope": {"answer_id": "a1"}, "status": "ready",
        "created_at": "2026-05-08T00:00:00Z", "updated_at": "2026-05-08T00:00:00Z", "producer": {"id": "warrant"},
        "claims": [
            {"claim_id": "c1", "text": "The refund window is 30 days.", "status": "supported", "support_edges": ["e1"]},
            {"claim_id": "c2", "text": "Exceptions go to support.", "status": "unverified"}
        ],
        "sources": [
            {"source_id": "s1", "source_kind": "document", "selector": {"exact": "30 days", "start": 10, "end": 17}},
            {"source_id": "s2", "source_kind": "web_page"}
        ],
        "support_edges": [{"edge_id": "e1", "claim_id": "c1", "source_id": "s1", "relationship": "supports"}],
        "completeness": {"claims": {"status": "complete"}, "telemetry": {"status": "not_collected"}}
    })
}

/// `(code, path)` of every pass-2 finding (pass 1 must be clean).
fn findings_with(kind: DocKind, doc: &Value, ctx: &Context<'_>) -> Vec<(String, String)> {
    let r = validate_with(kind, doc, ctx);
    assert!(r.schema.is_empty(), "pass 1 failed: {:?}\n{doc}", r.schema);
    r.invariants.unwrap().into_iter().map(|i| (i.code.as_str().to_string(), i.path)).collect()
}

fn findings(kind: DocKind, doc: &Value) -> Vec<(String, String)> {
    findings_with(kind, doc, &Context::default())
}

fn has(f: &[(String, String)], code: &str, path: &str) -> bool {
    f.iter().any(|(c, p)| c == code && p == path)
}

fn codes(f: &[(String, String)]) -> Vec<&str> {
    f.iter().map(|(c, _)| c.as_str()).collect()
}

fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

#[test]
fn the_base_pack_is_clean() {
    assert_eq!(findings(DocKind::EvidencePack, &pack()), vec![]);
}

#[test]
fn duplicate_ids_within_their_kind() {
    let mut p = pack();
    p["claims"][1]["claim_id"] = json!("c1");
    p["sources"][1]["source_id"] = json!("s1");
    p["support_edges"] = json!([
        {"edge_id": "e1", "claim_id": "c1", "source_id": "s1", "relationship": "supports"},
        {"edge_id": "e1", "claim_id": "c1", "source_id": "s1", "relationship": "background"}]);
    p["verification_results"] = json!([{"verification_id": "v", "check_type": "x", "status": "passed"}, {"verification_id": "v", "check_type": "y", "status": "passed"}]);
    p["reviews"] = json!([{"review_id": "r", "verdict": "approved"}, {"review_id": "r", "verdict": "rejected"}]);
    p["redactions"] = json!([{"redaction_id": "x", "target_ref": "t", "redaction_kind": "mask", "reason": "privacy"},
                             {"redaction_id": "x", "target_ref": "u", "redaction_kind": "mask", "reason": "privacy"}]);
    p["provenance"] = json!({"nodes": [{"node_id": "n", "type": "entity"}, {"node_id": "n", "type": "agent"}],
                             "edges": [{"edge_id": "e1", "from": "n", "to": "n", "relationship": "derived_from"},
                                       {"edge_id": "e1", "from": "n", "to": "n", "relationship": "used"}]});
    let f = findings(DocKind::EvidencePack, &p);
    for path in [
        "/claims/1/claim_id",
        "/sources/1/source_id",
        "/support_edges/1/edge_id",
        "/verification_results/1/verification_id",
        "/reviews/1/review_id",
        "/redactions/1/redaction_id",
        "/provenance/nodes/1/node_id",
        "/provenance/edges/1/edge_id",
    ] {
        assert!(has(&f, "AEV-ID-DUP", path), "{path}: {f:?}");
    }
    // A support edge and a provenance edge may share an id: they are different kinds.
    assert_eq!(codes(&f).iter().filter(|c| **c == "AEV-ID-DUP").count(), 8);

    let m = json!({"export_id": "x", "evidence_pack_id": "p", "schema_version": "0.1.0", "created_at": "2026-05-08T00:00:00Z",
        "files": [{"path": "pack.json", "role": "pack", "hash": "h"}, {"path": "pack.json", "role": "readme", "hash": "h"}],
        "schemas": [{"uri": "s"}], "completeness": {}});
    assert_eq!(findings(DocKind::ExportManifest, &m), vec![("AEV-ID-DUP".into(), "/files/1/path".into())]);
}

#[test]
fn references_resolve_or_are_reported() {
    let mut p = pack();
    p["support_edges"][0]["claim_id"] = json!("c9");
    p["support_edges"][0]["source_id"] = json!("s9");
    p["claims"][0]["support_edges"] = json!(["e1", "e7"]);
    let f = findings(DocKind::EvidencePack, &p);
    assert!(has(&f, "AEV-REF-CLAIM", "/support_edges/0/claim_id"), "{f:?}");
    assert!(has(&f, "AEV-REF-SOURCE", "/support_edges/0/source_id"), "{f:?}");
    assert!(has(&f, "AEV-REF-EDGE", "/claims/0/support_edges/0"), "e1 belongs to c9: {f:?}");
    assert!(has(&f, "AEV-REF-EDGE", "/claims/0/support_edges/1"), "e7 does not exist: {f:?}");

    // With a claim_map_ref and no claim map supplied, claims cannot be resolved here.
    let mut p = pack();
    p["claims"] = json!([]);
    p["claim_map_ref"] = json!("claims.json");
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);
    // Supplied, it resolves through the map, and a claim the map lacks is reported.
    let map: ClaimMap = typed(json!({"claim_map_id": "m", "schema_version": "0.1.0",
        "claims": [{"claim_id": "c1", "text": "t", "status": "supported"}]}));
    let ctx = Context { claim_maps: vec![&map], ..Context::default() };
    assert_eq!(findings_with(DocKind::EvidencePack, &p, &ctx), vec![]);
    p["support_edges"][0]["claim_id"] = json!("c2");
    assert!(has(&findings_with(DocKind::EvidencePack, &p, &ctx), "AEV-REF-CLAIM", "/support_edges/0/claim_id"));

    // Omissions and contradictions of a source map name sources in the map.
    let sm = json!({"source_map_id": "m", "schema_version": "0.1.0", "sources": [{"source_id": "s1", "source_kind": "document"}],
        "omissions": [{"source_id": "s1", "reason": "stale"}, {"source_id": "gone", "reason": "out_of_scope"}],
        "contradictions": [{"edge_id": "x", "claim_id": "c1", "source_id": "s3", "relationship": "contradicts"}]});
    let f = findings(DocKind::SourceMap, &sm);
    assert_eq!(
        f,
        vec![
            ("AEV-REF-SOURCE".into(), "/omissions/1/source_id".into()),
            ("AEV-REF-SOURCE".into(), "/contradictions/0/source_id".into())
        ]
    );
}

#[test]
fn provenance_edges_name_nodes_and_use_provenance_relationships() {
    let prov = json!({"provenance_id": "p", "schema_version": "0.1.0",
        "nodes": [{"node_id": "answer", "type": "entity"}, {"node_id": "model", "type": "activity"}],
        "edges": [{"edge_id": "p1", "from": "answer", "to": "model", "relationship": "generated_by"},
                  {"edge_id": "p2", "from": "answer", "to": "nowhere", "relationship": "used"},
                  {"edge_id": "p3", "from": "answer", "to": "model", "relationship": "supports"}]});
    let f = findings(DocKind::Provenance, &prov);
    assert_eq!(f, vec![("AEV-REF-NODE".into(), "/edges/1/to".into()), ("AEV-PROV-REL".into(), "/edges/2/relationship".into())]);
    let r = validate(DocKind::Provenance, &prov);
    assert!(!r.is_valid());
    assert_eq!(r.warnings().count(), 1);
}

#[test]
fn supported_needs_support_and_no_unresolved_contradiction() {
    let mut p = pack();
    p["support_edges"][0]["relationship"] = json!("background");
    let f = findings(DocKind::EvidencePack, &p);
    assert_eq!(f, vec![("AEV-CLAIM-SUPPORTED".into(), "/claims/0/status".into())], "one finding, not also UNCLASSIFIED");

    // partially_supports counts as support (project reading).
    let mut p = pack();
    p["support_edges"][0]["relationship"] = json!("partially_supports");
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);

    let contradicted = || {
        let mut p = pack();
        p["support_edges"]
            .as_array_mut()
            .unwrap()
            .push(json!({"edge_id": "e2", "claim_id": "c1", "source_id": "s2", "relationship": "contradicts"}));
        p
    };
    let f = findings(DocKind::EvidencePack, &contradicted());
    assert_eq!(f, vec![("AEV-CLAIM-SUPPORTED".into(), "/claims/0/status".into())]);

    // Resolved by a qualifying edge from the same source.
    let mut p = contradicted();
    p["support_edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"edge_id": "e3", "claim_id": "c1", "source_id": "s2", "relationship": "qualifies"}));
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);

    // Resolved by the source's omission in the source map (e.g. stale).
    let sm: SourceMap = typed(json!({"source_map_id": "m", "schema_version": "0.1.0",
        "sources": [{"source_id": "s2", "source_kind": "web_page"}], "omissions": [{"source_id": "s2", "reason": "stale"}]}));
    let ctx = Context { source_maps: vec![&sm], ..Context::default() };
    assert_eq!(findings_with(DocKind::EvidencePack, &contradicted(), &ctx), vec![]);

    // Resolved by an approving or waiving review scoped to the claim that names the edge.
    for (review, resolved) in [
        (
            json!({"review_id": "r1", "verdict": "approved", "scope": {"answer_id": "a1", "claim_id": "c1"}, "notes": "Source e2 is outdated."}),
            true,
        ),
        (json!({"review_id": "r1", "verdict": "waived", "claim_id": "c1", "resolves": ["e2"]}), true),
        (json!({"review_id": "r1", "verdict": "approved", "claim_ids": ["c1"], "notes": "see e2: superseded"}), true),
        (json!({"review_id": "r1", "verdict": "needs_changes", "scope": {"claim_id": "c1"}, "notes": "e2"}), false),
        (json!({"review_id": "r1", "verdict": "approved", "scope": {"claim_id": "c2"}, "notes": "e2"}), false),
        (json!({"review_id": "r1", "verdict": "approved", "scope": {"claim_id": "c1"}, "notes": "e22 and e2x"}), false),
    ] {
        let mut p = contradicted();
        p["reviews"] = json!([review.clone()]);
        let f = findings(DocKind::EvidencePack, &p);
        assert_eq!(f.is_empty(), resolved, "{review}: {f:?}");
    }
}

#[test]
fn contradicted_keeps_its_edge_and_partial_and_unclassified_warn() {
    let mut p = pack();
    p["claims"][0]["status"] = json!("contradicted");
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![("AEV-CLAIM-CONTRADICTED".into(), "/claims/0/status".into())]);

    let mut p = pack();
    p["claims"][0]["status"] = json!("partially_supported");
    p["support_edges"][0]["relationship"] = json!("qualifies");
    let r = validate(DocKind::EvidencePack, &p);
    assert!(r.is_valid());
    assert_eq!(r.warnings().map(|i| i.code).collect::<Vec<_>>(), vec![Code::ClaimPartial]);

    let mut p = pack();
    p["claims"][1]["status"] = json!("unsupported");
    let r = validate(DocKind::EvidencePack, &p);
    assert!(r.is_valid());
    let w: Vec<_> = r.warnings().collect();
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].code, w[0].path.as_str(), w[0].level()), (Code::ClaimUnclassified, "/claims/1/status", Severity::Warning));

    // unverified and not_applicable need no edge.
    let mut p = pack();
    p["claims"][1]["status"] = json!("not_applicable");
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);
}

#[test]
fn missing_is_never_success() {
    let mut p = pack();
    p["completeness"]["sources"] =
        json!({"status": "complete", "missing_facts": [{"reason": "unavailable", "fact": "source for c2"}]});
    assert_eq!(
        findings(DocKind::EvidencePack, &p),
        vec![("AEV-MISSING-AS-SUCCESS".into(), "/completeness/sources/missing_facts".into())]
    );

    let mut p = pack();
    p["verification_results"] = json!([{"verification_id": "v1", "check_type": "runtime", "status": "passed",
        "coverage": [{"category": "claims"}, {"category": "telemetry"}, {"category": "telemetry", "checked": false, "reason": "no backend"}]}]);
    assert_eq!(
        findings(DocKind::EvidencePack, &p),
        vec![("AEV-MISSING-AS-SUCCESS".into(), "/verification_results/0/coverage/1/category".into())]
    );
    // A failed or warning check claims nothing.
    p["verification_results"][0]["status"] = json!("warning");
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);

    // A verification document is checked against the pack's completeness when supplied.
    let v = json!({"schema_version": "0.1.0", "evidence_pack_id": "evp_1",
        "verification_results": [{"verification_id": "v1", "check_type": "runtime", "status": "passed", "coverage": [{"category": "telemetry"}]}]});
    assert_eq!(findings(DocKind::Verification, &v), vec![]);
    let pk: EvidencePack = typed(pack());
    let ctx = Context { packs: vec![&pk], ..Context::default() };
    assert_eq!(
        findings_with(DocKind::Verification, &v, &ctx),
        vec![("AEV-MISSING-AS-SUCCESS".into(), "/verification_results/0/coverage/0/category".into())]
    );

    let m = json!({"export_id": "x", "evidence_pack_id": "p", "schema_version": "0.1.0", "created_at": "2026-05-08T00:00:00Z",
        "files": [{"path": "pack.json", "role": "pack", "hash": "h"}], "schemas": [{"uri": "s"}],
        "completeness": {"my/category": {"status": "complete", "missing_facts": [{"reason": "expired"}]}}});
    assert_eq!(
        findings(DocKind::ExportManifest, &m),
        vec![("AEV-MISSING-AS-SUCCESS".into(), "/completeness/my~1category/missing_facts".into())]
    );
}

#[test]
fn reviews_reference_checks_and_waive_only_explicitly() {
    let mut p = pack();
    p["verification_results"] = json!([{"verification_id": "v1", "check_type": "policy", "status": "failed"},
                                       {"verification_id": "v2", "check_type": "schema", "status": "passed"}]);
    p["reviews"] = json!([
        {"review_id": "r1", "verdict": "approved", "verification_refs": ["v2", "v1", "v9"]},
        {"review_id": "r2", "verdict": "waived", "verification_refs": ["v1"]}
    ]);
    let r = validate(DocKind::EvidencePack, &p);
    assert!(r.is_valid(), "both are warnings");
    let w: Vec<_> = r.warnings().map(|i| (i.code.as_str(), i.path.as_str())).collect();
    assert_eq!(
        w,
        vec![("AEV-WAIVER", "/reviews/0/verification_refs/1"), ("AEV-REF-VERIFICATION", "/reviews/0/verification_refs/2")]
    );

    // In a verification document, checks of a supplied pack are in scope.
    let v =
        json!({"schema_version": "0.1.0", "reviews": [{"review_id": "r", "verdict": "approved", "verification_refs": ["v1"]}]});
    assert_eq!(
        findings(DocKind::Verification, &v),
        vec![("AEV-REF-VERIFICATION".into(), "/reviews/0/verification_refs/0".into())]
    );
    let pk: EvidencePack = typed(p);
    let ctx = Context { packs: vec![&pk], ..Context::default() };
    assert_eq!(
        findings_with(DocKind::Verification, &v, &ctx),
        vec![("AEV-WAIVER".into(), "/reviews/0/verification_refs/0".into())]
    );
}

#[test]
fn reviews_are_append_only_across_versions() {
    let mut old = pack();
    old["reviews"] = json!([{"review_id": "r1", "verdict": "needs_changes", "notes": "fix c2"},
                            {"review_id": "r2", "verdict": "informational"}]);
    let older = parse(DocKind::EvidencePack, old.clone()).unwrap();

    // Appending a verdict is fine.
    let mut new = old.clone();
    new["reviews"].as_array_mut().unwrap().push(json!({"review_id": "r3", "verdict": "approved"}));
    new["verification_results"] = json!([{"verification_id": "v", "check_type": "schema", "status": "passed"}]);
    assert_eq!(check_review_history(&older, &parse(DocKind::EvidencePack, new).unwrap()).unwrap(), vec![]);

    // Changing or dropping one is not.
    let mut new = old.clone();
    new["reviews"] = json!([{"review_id": "r1", "verdict": "approved", "notes": "fix c2"}]);
    let issues = check_review_history(&older, &parse(DocKind::EvidencePack, new).unwrap()).unwrap();
    let got: Vec<_> = issues.iter().map(|i| (i.code, i.path.as_str(), i.is_error())).collect();
    assert_eq!(got, vec![(Code::ReviewOverwrite, "/reviews/0", true), (Code::ReviewOverwrite, "/reviews", true)]);
    assert!(issues[0].message.contains("needs_changes → approved"), "{}", issues[0].message);

    // A verification document of the same pack can be the newer version.
    let v = json!({"schema_version": "0.1.0", "evidence_pack_id": "evp_1", "reviews": [{"review_id": "r2", "verdict": "informational"}]});
    let issues = check_review_history(&older, &parse(DocKind::Verification, v).unwrap()).unwrap();
    assert_eq!(issues.len(), 1);

    // Two different packs are not versions of each other.
    let mut other = old;
    other["evidence_pack_id"] = json!("evp_2");
    let err = check_review_history(&older, &parse(DocKind::EvidencePack, other).unwrap()).unwrap_err();
    assert!(matches!(err, HistoryError::DifferentPacks { .. }));
    let ev = parse(
        DocKind::Event,
        json!({"type": "evidence.warning", "event_id": "e", "timestamp": "2026-05-08T00:00:00Z", "schema_version": "0.1.0"}),
    )
    .unwrap();
    assert_eq!(check_review_history(&older, &ev).unwrap_err(), HistoryError::NoReviews(DocKind::Event));
}

#[test]
fn telemetry_is_referenced_not_copied() {
    let mut p = pack();
    p["telemetry"] = json!([{"trace_id": "t", "span_id": "s", "backend_ref": "tempo://x", "sampled": "yes"},
                            {"trace_id": "t", "attributes": {"gen_ai.prompt": "..."}, "events": [], "payload": "x", "note": "y".repeat(300)}]);
    let f = findings(DocKind::EvidencePack, &p);
    assert_eq!(
        f,
        vec![
            ("AEV-TELEMETRY-COPY".into(), "/telemetry/1/attributes".into()),
            ("AEV-TELEMETRY-COPY".into(), "/telemetry/1/events".into()),
            ("AEV-TELEMETRY-COPY".into(), "/telemetry/1/note".into()),
            ("AEV-TELEMETRY-COPY".into(), "/telemetry/1/payload".into()),
        ]
    );
    let replay = json!({"replay_id": "r", "schema_version": "0.1.0", "scope": {"run_id": "run"}, "determinism": "deterministic",
        "trace_refs": [{"trace_id": "t", "span_attributes": {"a": 1}}]});
    assert_eq!(findings(DocKind::Replay, &replay), vec![("AEV-TELEMETRY-COPY".into(), "/trace_refs/0/span_attributes".into())]);
}

#[test]
fn a_redacted_pack_lists_redactions_and_discloses_privacy() {
    let mut p = pack();
    p["status"] = json!("redacted");
    let f = findings(DocKind::EvidencePack, &p);
    assert_eq!(f, vec![("AEV-REDACTED-PACK".into(), "/status".into()), ("AEV-REDACTED-PACK".into(), "/completeness".into())]);
    p["redactions"] =
        json!([{"redaction_id": "x1", "target_ref": "source:s1#snippet", "redaction_kind": "mask", "reason": "privacy"}]);
    p["completeness"]["privacy"] = json!({"status": "partial", "notes": "snippets of s1 masked"});
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![]);
}

#[test]
fn replay_says_what_cannot_be_replayed() {
    let base = json!({"replay_id": "r", "schema_version": "0.1.0", "scope": {"run_id": "run"}, "determinism": "approximate"});
    assert_eq!(findings(DocKind::Replay, &base), vec![("AEV-REPLAY-HONESTY".into(), "/determinism".into())]);
    let mut ok = base.clone();
    ok["missing_facts"] = json!([{"reason": "expired", "fact": "weather API response"}]);
    assert_eq!(findings(DocKind::Replay, &ok), vec![]);
    let mut ok = base.clone();
    ok["notes"] = json!("sampling temperature 0.7");
    assert_eq!(findings(DocKind::Replay, &ok), vec![]);
    let mut ok = base;
    ok["determinism"] = json!("deterministic");
    assert_eq!(findings(DocKind::Replay, &ok), vec![]);

    let mut p = pack();
    p["replay_cases"] = json!([{"determinism": "unavailable"}, {"determinism": "non_deterministic", "notes": "model sampling"}]);
    assert_eq!(findings(DocKind::EvidencePack, &p), vec![("AEV-REPLAY-HONESTY".into(), "/replay_cases/0/determinism".into())]);
}

#[test]
fn export_manifests_carry_hashes_schemas_and_the_pack() {
    let m = json!({"export_id": "x", "evidence_pack_id": "p", "schema_version": "0.1.0", "created_at": "2026-05-08T00:00:00Z",
        "files": [{"path": "claims.json", "role": "claim_map"}], "completeness": {}});
    let r = validate(DocKind::ExportManifest, &m);
    assert!(r.is_valid());
    let w: Vec<_> = r.warnings().map(|i| (i.code.as_str(), i.path.as_str())).collect();
    assert_eq!(w, vec![("AEV-EXPORT-HASH", "/files/0"), ("AEV-EXPORT-HASH", ""), ("AEV-EXPORT-PACK", "/files")]);
}

#[test]
fn selectors_are_ordered_and_within_their_text() {
    let mut p = pack();
    p["sources"][0]["selector"] = json!({"start": 5, "end": 4.0, "line_start": 3, "line_end": 2});
    assert_eq!(
        findings(DocKind::EvidencePack, &p),
        vec![
            ("AEV-SELECTOR-RANGE".into(), "/sources/0/selector/end".into()),
            ("AEV-SELECTOR-RANGE".into(), "/sources/0/selector/line_end".into())
        ]
    );
    // Offsets are chars (D21): "héllo wörld" is 11 chars and 13 bytes.
    let text = "héllo wörld";
    let ctx = Context { source_texts: [("s1", text)].into_iter().collect(), ..Context::default() };
    for (start, end, ok) in [(0, 11, true), (6, 11, true), (6, 12, false), (12, 13, false)] {
        let mut p = pack();
        p["sources"][0]["selector"] = json!({"start": start, "end": end});
        let f = findings_with(DocKind::EvidencePack, &p, &ctx);
        assert_eq!(f.is_empty(), ok, "{start}..{end}: {f:?}");
    }
    let mut p = pack();
    p["sources"][0]["selector"] = serde_json::from_str(r#"{"start": 100000000000000000000000000, "end": 3}"#).unwrap();
    assert!(has(&findings(DocKind::EvidencePack, &p), "AEV-SELECTOR-RANGE", "/sources/0/selector/end"));
}

#[test]
fn pass_one_failures_stop_pass_two_and_name_the_rule() {
    let mut p = pack();
    p["created_at"] = json!("2026-05-08 00:00");
    p["claims"][0]["status"] = json!("contradicted");
    let r = validate(DocKind::EvidencePack, &p);
    assert!(r.invariants.is_none());
    assert_eq!(r.schema.len(), 1);
    assert_eq!((r.schema[0].code, r.schema[0].path.as_str()), (Code::DateTime, "/created_at"));
    assert!(r.schema[0].message.contains("RFC 3339"), "{}", r.schema[0].message);

    let mut p = pack();
    p["scope"] = json!({});
    let r = validate(DocKind::EvidencePack, &p);
    assert_eq!((r.schema[0].code, r.schema[0].path.as_str()), (Code::Schema, "/scope"));

    let r = validate_text(DocKind::Event, "{ nope", &Context::default());
    assert!(!r.is_valid() && r.schema[0].message.starts_with("invalid JSON"));
}

#[test]
fn findings_are_verification_results() {
    let mut p = pack();
    p["claims"][1]["status"] = json!("unsupported");
    let r = validate(DocKind::EvidencePack, &p);
    let results = r.verification_results();
    assert_eq!(results.len(), 2);
    assert_eq!((results[0].check_type.as_str(), results[0].status), ("schema", VerificationStatus::Passed));
    assert_eq!((results[1].check_type.as_str(), results[1].status), ("evidence_invariants", VerificationStatus::Warning));
    let issue = &results[1].issues()[0];
    assert_eq!(issue.keys().collect::<Vec<_>>(), vec!["code", "message", "path"]);
    assert_eq!(issue["code"], "AEV-CLAIM-UNCLASSIFIED");
    // Stable ids, derived from the content.
    assert_eq!(results[0].verification_id, validate(DocKind::EvidencePack, &p).verification_results()[0].verification_id);
    assert!(is_valid_id(&results[0].verification_id));

    // The results are valid evidence: they go back into the pack.
    let mut with = p.clone();
    with["verification_results"] = serde_json::to_value(&results).unwrap();
    assert!(validate(DocKind::EvidencePack, &with).is_valid());

    let mut bad = pack();
    bad["status"] = json!("done");
    let results = validate(DocKind::EvidencePack, &bad).verification_results();
    assert_eq!(results[0].status, VerificationStatus::Failed);
    assert_eq!(results[0].issues()[0]["code"], "AEV-SCHEMA");
    assert_eq!(results[1].status, VerificationStatus::Skipped);
    assert_eq!(results[1].coverage()[0]["checked"], false);

    let mut p = pack();
    p["claims"][0]["status"] = json!("contradicted");
    let results = validate(DocKind::EvidencePack, &p).verification_results();
    assert_eq!(results[1].status, VerificationStatus::Failed);
}

#[test]
fn every_code_has_its_spec_level() {
    let warnings = [
        "AEV-REF-VERIFICATION",
        "AEV-CLAIM-PARTIAL",
        "AEV-CLAIM-UNCLASSIFIED",
        "AEV-WAIVER",
        "AEV-PROV-REL",
        "AEV-TELEMETRY-COPY",
        "AEV-REPLAY-HONESTY",
        "AEV-EXPORT-HASH",
        "AEV-EXPORT-PACK",
    ];
    assert_eq!(Code::ALL.len(), 22, "two pass-1 codes and the twenty of §6.2");
    for c in Code::ALL {
        let want = if warnings.contains(&c.as_str()) { Severity::Warning } else { Severity::Error };
        assert_eq!(c.level(), want, "{c}");
    }
}
