//! The typed model reads and writes every kind exactly, unknown fields and numbers included,
//! under `serde_json`'s `arbitrary_precision` (on in this workspace).

#![allow(clippy::unwrap_used)]

mod common;

use serde_json::{Value, json};
use warrant_evidence::*;

/// Text → typed → text, and value → typed → value, both give the document back.
fn round_trip(kind: DocKind, doc: &Value) -> Document {
    let text = doc.to_string();
    let typed = parse(kind, doc.clone()).unwrap_or_else(|e| panic!("{kind}: {e}\n{doc}"));
    assert_eq!(&serde_json::to_value(&typed).unwrap(), doc, "{kind}: value round trip");
    let from_text: Value = match kind {
        DocKind::EvidencePack => serde_json::to_value(serde_json::from_str::<EvidencePack>(&text).unwrap()),
        DocKind::ClaimMap => serde_json::to_value(serde_json::from_str::<ClaimMap>(&text).unwrap()),
        DocKind::SourceMap => serde_json::to_value(serde_json::from_str::<SourceMap>(&text).unwrap()),
        DocKind::Provenance => serde_json::to_value(serde_json::from_str::<ProvenanceChain>(&text).unwrap()),
        DocKind::Verification => serde_json::to_value(serde_json::from_str::<VerificationDocument>(&text).unwrap()),
        DocKind::Replay => serde_json::to_value(serde_json::from_str::<ReplayCase>(&text).unwrap()),
        DocKind::ExportManifest => serde_json::to_value(serde_json::from_str::<ExportManifest>(&text).unwrap()),
        DocKind::Event => serde_json::to_value(serde_json::from_str::<Event>(&text).unwrap()),
    }
    .unwrap();
    assert_eq!(&from_text, doc, "{kind}: text round trip");
    let written = serde_json::to_string(&typed).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&written).unwrap(), *doc, "{kind}: written text");
    typed
}

fn numbers() -> Value {
    // Numbers in flattened (extra) and untagged (confidence) positions, as written.
    serde_json::from_str(
        r#"{"int": 10, "float": 0.80, "one": 1.0, "exp": 1e-3, "big": 123456789012345678901234567890,
        "neg": -12345678901234567890123, "nested": [1, 2.5, {"deep": -3}]}"#,
    )
    .unwrap()
}

#[test]
fn every_kind_round_trips_with_numbers_in_flattened_and_untagged_positions() {
    let n = numbers();
    let pack = json!({
        "evidence_pack_id": "evp_1", "schema_version": "0.1.0",
        "scope": {"answer_id": "a1", "attempt_id": "att_2", "n": n["big"]},
        "status": "ready", "created_at": "2026-05-08T00:00:00Z", "updated_at": "2026-05-08T00:00:00Z",
        "producer": {"id": "warrant", "type": "tool", "build": n["int"]},
        "claims": [
            {"claim_id": "c1", "text": "x", "status": "supported", "confidence": n["float"], "support_edges": ["e1"], "x": n["nested"]},
            {"claim_id": "c2", "text": "y", "status": "unverified", "confidence": 1},
            {"claim_id": "c3", "range_ref": "r", "status": "not_applicable", "confidence": {"score": n["exp"], "band": "high"}},
            {"claim_id": "c4", "text": "z", "status": "unsupported", "confidence": "low"}
        ],
        "sources": [{"source_id": "s1", "source_kind": "document", "selector": {"start": 0, "end": n["one"], "w": n["neg"]},
                     "retrieval": {"rank": 1, "score": n["float"]}}],
        "support_edges": [{"edge_id": "e1", "claim_id": "c1", "source_id": "s1", "relationship": "supports", "confidence": n["float"], "weight": n["int"]}],
        "provenance": {"nodes": [{"node_id": "n1", "type": "entity", "tool_call_id": "tc1", "telemetry": {"span_id": "sp", "k": n["int"]}}],
                       "edges": [{"edge_id": "p1", "from": "n1", "to": "n1", "relationship": "derived_from", "confidence": n["exp"]}], "v": n["big"]},
        "verification_results": [{"verification_id": "v1", "check_type": "policy", "status": "passed", "coverage": [{"category": "claims", "n": n["int"]}], "score": n["float"]}],
        "reviews": [{"review_id": "r1", "verdict": "approved", "reviewer": {"level": n["int"]}, "conditions": ["ok"]}],
        "replay_cases": [{"determinism": "approximate", "n": n["float"]}],
        "redactions": [{"redaction_id": "x1", "target_ref": "t", "redaction_kind": "mask", "reason": "privacy", "count": n["int"]}],
        "telemetry": [{"trace_id": "t", "sampled": n["one"]}],
        "completeness": {"claims": {"status": "complete", "n": n["int"]}, "custom": {"status": "partial", "missing_facts": [{"reason": "unknown", "n": n["float"]}]}},
        "refs": [{"ref_id": "r", "size": n["big"]}],
        "warrant:pack_form": "full", "warrant:numbers": n
    });
    let typed = round_trip(DocKind::EvidencePack, &pack);
    let Document::EvidencePack(p) = typed else { panic!() };
    assert_eq!(p.claims()[0].confidence, Some(Confidence::Score(serde_json::from_str("0.80").unwrap())));
    assert!(matches!(p.claims()[2].confidence, Some(Confidence::Rubric(_))));
    assert_eq!(p.claims()[3].confidence, Some(Confidence::Label("low".into())));
    assert_eq!(p.scope.get("attempt_id"), Some("att_2"));
    assert_eq!(p.pack_form(), Some("full"));
    assert_eq!(p.provenance_graph().unwrap().nodes[0].extra["tool_call_id"], "tc1");

    let docs = [
        (
            DocKind::ClaimMap,
            json!({"claim_map_id": "m", "schema_version": "0.1.0", "claims": [{"claim_id": "c", "text": "t", "status": "supported", "confidence": 0.5}],
                   "support_edges": [{"edge_id": "e", "claim_id": "c", "relationship": "supports", "confidence": 1}], "n": n}),
        ),
        (
            DocKind::SourceMap,
            json!({"source_map_id": "m", "schema_version": "0.1.0", "sources": [{"source_id": "s", "source_kind": "web_page", "selector": {"line_start": 1, "line_end": 2.0}}],
                   "omissions": [{"source_id": "s", "reason": "stale", "rank": 3}], "contradictions": [], "n": n}),
        ),
        (
            DocKind::Provenance,
            json!({"provenance_id": "p", "schema_version": "0.1.0", "nodes": [{"node_id": "a", "type": "agent", "cost": 0.25}],
                   "edges": [{"edge_id": "e", "from": "a", "to": "a", "relationship": "attributed_to", "confidence": 0.125}], "n": n}),
        ),
        (
            DocKind::Verification,
            json!({"schema_version": "0.1.0", "verification_results": [{"verification_id": "v", "check_type": "x", "status": "error", "retries": 3}], "n": n}),
        ),
        (
            DocKind::Replay,
            json!({"replay_id": "r", "schema_version": "0.1.0", "scope": {"run_id": "run"}, "determinism": "deterministic",
                   "expected_outputs": [{"tokens": 512}], "seed": n["big"]}),
        ),
        (
            DocKind::ExportManifest,
            json!({"export_id": "x", "evidence_pack_id": "p", "schema_version": "0.1.0", "created_at": "2026-05-08T00:00:00Z",
                   "files": [{"path": "pack.json", "role": "pack", "size": 10}, {"path": "big", "role": "readme", "size": n["big"]}, {"path": "f", "role": "x", "size": 1.0}],
                   "completeness": {}, "signatures": [{"alg": 1}], "n": n}),
        ),
        (
            DocKind::Event,
            json!({"type": "evidence.verification.completed", "event_id": "ev", "timestamp": "2026-05-08T00:00:00Z", "schema_version": "0.1.0",
                   "payload": {"n": n}, "sequence": 42}),
        ),
    ];
    for (kind, doc) in docs {
        round_trip(kind, &doc);
    }
}

#[test]
fn generated_documents_of_every_kind_round_trip() {
    let mut rng = common::Rng::new(7);
    for kind in DocKind::ALL {
        for _ in 0..50 {
            round_trip(kind, &common::generate(kind, &mut rng));
        }
    }
}

#[test]
fn the_quickstart_example_reads_and_writes_back() {
    let Some(dir) = warrant_testkit::data_dir("agent-evidence") else { return };
    let doc = warrant_testkit::read_json(&dir.join("examples/quickstart-minimal-pack.json"));
    round_trip(DocKind::EvidencePack, &doc);
}

#[test]
fn a_pack_provenance_that_is_not_a_graph_is_kept_verbatim() {
    let mut pack = json!({"evidence_pack_id": "p", "schema_version": "0.1.0", "scope": {"answer_id": "a"}, "status": "ready",
        "created_at": "2026-05-08T00:00:00Z", "updated_at": "2026-05-08T00:00:00Z", "producer": {"id": "w"}, "completeness": {}});
    for prov in [json!({}), json!({"nodes": [{"node_id": "n"}], "edges": []}), json!({"uri": "prov://x", "n": 1.5})] {
        pack["provenance"] = prov.clone();
        let Document::EvidencePack(p) = round_trip(DocKind::EvidencePack, &pack) else { panic!() };
        assert!(p.provenance_graph().is_none(), "{prov}");
    }
}

#[test]
fn enums_have_the_spec_names() {
    assert_eq!(EventType::VerificationCompleted.as_str(), "evidence.verification.completed");
    assert_eq!(serde_json::to_value(EventType::Error).unwrap(), "evidence.error");
    assert_eq!(ClaimStatus::ALL.len(), 6);
    assert_eq!(Relationship::ALL.len(), 14);
    assert_eq!(PackStatus::ALL.len(), 10);
    assert_eq!(EventType::ALL.len(), 13);
    assert_eq!(serde_json::from_value::<ClaimStatus>(json!("partially_supported")).unwrap(), ClaimStatus::PartiallySupported);
    assert!(serde_json::from_value::<ClaimStatus>(json!("Supported")).is_err());
    assert_eq!(category::ALL.len(), 8);
    assert_eq!(SCHEMA_VERSION, "0.1.0");
}
