//! The acceptance scenarios of spec §7 (1–11) and the minimum AEV-AR runtime-profile set of
//! §8, as far as they concern document content. Each builds its documents with the builder
//! or by hand, checks what must hold, and validates them (both passes).

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use warrant_evidence::*;
use warrant_evidence::{source_node_id, tool_call_node_id};

const T0: &str = "2026-05-08T00:00:00Z";
const T1: &str = "2026-05-08T00:05:00Z";

fn warrant() -> Producer {
    Producer { kind: Some(ProducerType::Tool), name: Some("Warrant".into()), ..Producer::new("warrant") }
}

fn to_value<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

/// Validates with a context; asserts no error and no warning; returns the report.
fn clean_with(kind: DocKind, v: &Value, ctx: &Context<'_>) -> Report {
    let r = validate_with(kind, v, ctx);
    let all: Vec<_> = r.issues().collect();
    assert!(all.is_empty(), "{kind}: {all:?}\n{v:#}");
    r
}

fn clean(kind: DocKind, v: &Value) -> Report {
    clean_with(kind, v, &Context::default())
}

fn codes(kind: DocKind, v: &Value) -> Vec<Code> {
    validate(kind, v).issues().map(|i| i.code).collect()
}

fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

// ---------------------------------------------------------------- §7

#[test]
fn s01_claim_grounding() {
    let mut b = PackBuilder::new(Scope::answer("answer_1"), warrant(), T0);
    b.claim(ClaimInput::new("c1", "The refund window is 30 days.", ClaimStatus::Supported).claim_type("fact"))
        .claim(ClaimInput::new("c2", "Refunds go to the original card.", ClaimStatus::Supported).claim_type("fact"))
        .claim(
            ClaimInput::new("c3", "Refunds take five days.", ClaimStatus::Unverified)
                .claim_type("fact")
                .missing(MissingReason::Unavailable, "no source covers refund timing"),
        )
        .source(SourceInput::new("s1", "document").uri("knowledge://policy/refunds").selector("within 30 days", 40, 54))
        .source(SourceInput::new("s2", "document").uri("knowledge://policy/payments").selector("original card", 3, 16))
        .edge(EdgeInput::new("c1", "s1", Relationship::Supports))
        .edge(EdgeInput::new("c2", "s2", Relationship::Supports))
        .grounding(GroundingRun { status: VerificationStatus::Warning, issues: vec![] });
    let pack = b.build().unwrap();
    clean(DocKind::EvidencePack, &to_value(&pack));

    let ids: std::collections::BTreeSet<_> = pack.claims().iter().map(|c| c.claim_id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    for (c, s) in [("c1", "s1"), ("c2", "s2")] {
        let claim = pack.claims().iter().find(|x| x.claim_id == c).unwrap();
        assert_eq!(claim.status, ClaimStatus::Supported);
        assert!(
            pack.support_edges()
                .iter()
                .any(|e| e.claim_id == c && e.relationship == Relationship::Supports && e.source_id.as_deref() == Some(s))
        );
    }
    assert_eq!(pack.claims()[2].status, ClaimStatus::Unverified);
    let missing = pack.completeness["sources"].missing_facts();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].reason, MissingReason::Unavailable);
    assert!(missing[0].fact.as_deref().unwrap().contains("c3"));
}

#[test]
fn s02_contradiction() {
    let build = |status: ClaimStatus, rel: Relationship| {
        let mut b = PackBuilder::new(Scope::answer("answer_2"), warrant(), T0);
        b.claim(ClaimInput::new("c1", "The museum opens at 9.", status))
            .source(SourceInput::new("s_site", "web_page").uri("https://museum.example/hours").snippet("Open 9–17"))
            .source(SourceInput::new("s_guide", "document").uri("file:///guide.pdf").snippet("Opens at 10"))
            .edge(EdgeInput::new("c1", "s_site", rel))
            .edge(EdgeInput::new("c1", "s_guide", Relationship::Contradicts).notes("the 2025 guide says 10"));
        b.build()
    };
    for status in [ClaimStatus::Contradicted, ClaimStatus::PartiallySupported] {
        let rel = if status == ClaimStatus::Contradicted { Relationship::Supports } else { Relationship::PartiallySupports };
        let pack = build(status, rel).unwrap();
        let v = to_value(&pack);
        clean(DocKind::EvidencePack, &v);
        // The counter-evidence edge is kept, through a write and a read.
        let back: EvidencePack = typed(v);
        let kept: Vec<_> = back.support_edges().iter().filter(|e| e.relationship == Relationship::Contradicts).collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].source_id.as_deref(), Some("s_guide"));
        assert_eq!(back.sources().len(), 2, "both sides are kept as sources");
    }
    // Calling it supported with the contradiction unresolved is refused.
    let err = build(ClaimStatus::Supported, Relationship::Supports).unwrap_err();
    let BuildError::Invalid { issues, .. } = err;
    assert_eq!(issues.iter().map(|i| i.code).collect::<Vec<_>>(), vec![Code::ClaimSupported]);
}

#[test]
fn s03_tool_provenance() {
    let mut b = PackBuilder::new(Scope::answer("answer_3").set("tool_call_id", "call_123"), warrant(), T0);
    b.claim(ClaimInput::new("c_balance", "The account has enough balance for renewal.", ClaimStatus::Supported))
        .source(
            SourceInput::new("tool_result_1", "tool_result")
                .uri("tool-result://balance/123")
                .generated_by_tool_call("call_123", Some("span_tool_1".into())),
        )
        .edge(EdgeInput::new("c_balance", "tool_result_1", Relationship::Supports));
    let pack = b.build().unwrap();
    clean(DocKind::EvidencePack, &to_value(&pack));

    let edge = &pack.support_edges()[0];
    let source = pack.sources().iter().find(|s| Some(&s.source_id) == edge.source_id.as_ref()).unwrap();
    assert_eq!(source.source_kind, "tool_result");
    let g = pack.provenance_graph().unwrap();
    let call = g.nodes.iter().find(|n| n.node_id == tool_call_node_id("call_123")).unwrap();
    assert_eq!(call.kind, NodeType::Activity);
    assert_eq!(call.extra["tool_call_id"], "call_123");
    assert_eq!(call.telemetry.as_ref().unwrap().span_id.as_deref(), Some("span_tool_1"));
    assert!(g.edges.iter().any(|e| e.relationship == Relationship::GeneratedBy
        && e.from == source_node_id("tool_result_1")
        && e.to == call.node_id));
}

fn source_map_with_omission() -> Value {
    json!({
        "source_map_id": "sm_1", "evidence_pack_id": "evp_4", "schema_version": "0.1.0", "scope": {"answer_id": "answer_4"},
        "sources": [
            {"source_id": "s_fresh", "source_kind": "web_page", "uri": "https://example.org/2026", "retrieval": {"rank": 1, "status": "selected"}},
            {"source_id": "s_old", "source_kind": "web_page", "uri": "https://example.org/2019", "retrieval": {"rank": 2, "status": "omitted"},
             "freshness": {"observed_at": "2019-01-01T00:00:00Z", "stale": true}}
        ],
        "omissions": [{"source_id": "s_old", "reason": "stale", "observed_at": T0, "decision_ref": "retrieval://rerank/1"}]
    })
}

#[test]
fn s04_retrieval_omission() {
    let sm = source_map_with_omission();
    clean(DocKind::SourceMap, &sm);
    assert!(sm["sources"].as_array().unwrap().iter().any(|s| s["source_id"] == "s_old"), "the rejected source stays");
    assert_eq!(sm["omissions"][0]["reason"], "stale");

    // Deleting the rejected source instead is caught.
    let mut deleted = sm.clone();
    deleted["sources"].as_array_mut().unwrap().remove(1);
    assert_eq!(codes(DocKind::SourceMap, &deleted), vec![Code::RefSource]);

    // A claim the stale source contradicts can stay supported: the contradiction is resolved.
    let pack = json!({
        "evidence_pack_id": "evp_4", "schema_version": "0.1.0", "scope": {"answer_id": "answer_4"}, "status": "ready",
        "created_at": T0, "updated_at": T0, "producer": {"id": "warrant"}, "source_map_ref": "sm_1",
        "claims": [{"claim_id": "c1", "text": "The rate is 4%.", "status": "supported"}],
        "support_edges": [
            {"edge_id": "e1", "claim_id": "c1", "source_id": "s_fresh", "relationship": "supports"},
            {"edge_id": "e2", "claim_id": "c1", "source_id": "s_old", "relationship": "contradicts"}],
        "completeness": {"sources": {"status": "complete"}}
    });
    let sm: SourceMap = typed(sm);
    clean_with(DocKind::EvidencePack, &pack, &Context { source_maps: vec![&sm], ..Context::default() });
    assert_eq!(codes(DocKind::EvidencePack, &pack), vec![Code::ClaimSupported], "without the map it is unresolved");
}

#[test]
fn s05_artefact_review() {
    let artefact_bytes = "# Introduction\nWarrant checks what AI models say. (full section text)";
    let pack = json!({
        "evidence_pack_id": "evp_5", "schema_version": "0.1.0", "status": "reviewed",
        "scope": {"artifact_id": "artifact_1", "review_id": "review_1"},
        "created_at": T0, "updated_at": T1, "producer": {"id": "warrant", "type": "tool"},
        "claims": [{"claim_id": "section_intro", "claim_type": "artifact_section", "range_ref": "artifact://artifact_1/v3#section=intro", "status": "supported"}],
        "sources": [{"source_id": "artifact_1_v3", "source_kind": "artifact", "uri": "artifact://artifact_1/v3", "ref": "sha256:ab12"}],
        "support_edges": [{"edge_id": "e_intro", "claim_id": "section_intro", "source_id": "artifact_1_v3", "artifact_id": "artifact_1",
                           "verification_id": "check_schema", "relationship": "supports"}],
        "verification_results": [
            {"verification_id": "check_schema", "check_type": "schema", "status": "passed", "coverage": [{"artifact_id": "artifact_1", "version_id": "v3"}]},
            {"verification_id": "check_diff", "check_type": "artifact_diff", "status": "warning",
             "evidence_refs": [{"kind": "diff", "uri": "diff://artifact_1/v2..v3"}],
             "issues": [{"severity": "medium", "message": "Large introduction rewrite requires editorial review."}]}],
        "reviews": [{"review_id": "review_1", "verdict": "approved", "reviewer": {"role": "editor"},
                     "verification_refs": ["check_schema", "check_diff"], "conditions": ["schema check passed"], "reviewed_at": T1}],
        "refs": [{"ref_id": "artifact_1", "kind": "artifact_version", "uri": "artifact://artifact_1/v3", "hash": "sha256:ab12"},
                 {"ref_id": "diff_v2_v3", "kind": "artifact_diff", "uri": "diff://artifact_1/v2..v3"}],
        "completeness": {"artifacts": {"status": "complete"}, "verification": {"status": "complete"}, "telemetry": {"status": "not_collected"}}
    });
    clean(DocKind::EvidencePack, &pack);
    let p: EvidencePack = typed(pack.clone());
    assert!(p.refs.as_ref().unwrap().iter().any(|r| r.uri.as_deref() == Some("artifact://artifact_1/v3")), "artefact version");
    assert!(p.refs.as_ref().unwrap().iter().any(|r| r.kind.as_deref() == Some("artifact_diff")), "diff ref");
    assert_eq!(p.verification_results().len(), 2, "the checks");
    assert_eq!(p.reviews()[0].verdict, Verdict::Approved);
    assert!(!pack.to_string().contains("Warrant checks what AI models say"), "no artefact bytes: {artefact_bytes}");
}

#[test]
fn s06_verification_and_review_stay_separate() {
    let build = |extra_check: bool| {
        let mut b = PackBuilder::new(Scope::answer("answer_6"), warrant(), T0);
        b.claim(ClaimInput::new("c1", "Formatting only.", ClaimStatus::NotApplicable))
            .verification(VerificationResult::new("check_schema", "schema", VerificationStatus::Passed))
            .review({
                let mut r = ReviewVerdict::new("review_1", Verdict::NeedsChanges);
                r.reviewer = Some(typed(json!({"role": "human", "id": "ana"})));
                r.notes = Some("Please cite the policy.".into());
                r.verification_refs = Some(vec!["check_schema".into()]);
                r.reviewed_at = Some(T1.into());
                r
            });
        if extra_check {
            b.verification(VerificationResult::new("check_schema_2", "schema", VerificationStatus::Passed));
        }
        b.build().unwrap()
    };
    let first = build(false);
    clean(DocKind::EvidencePack, &to_value(&first));
    assert_eq!(first.verification_results()[0].status, VerificationStatus::Passed);
    assert_eq!(first.reviews()[0].verdict, Verdict::NeedsChanges);

    // A later check run leaves the review as it was.
    let second = build(true);
    let older = Document::EvidencePack(Box::new(first.clone()));
    assert_eq!(check_review_history(&older, &Document::EvidencePack(Box::new(second.clone()))).unwrap(), vec![]);
    assert_eq!(second.reviews(), first.reviews());

    // Turning the verdict into an approval in place is an overwrite.
    let mut tampered = second;
    tampered.reviews.as_mut().unwrap()[0].verdict = Verdict::Approved;
    let issues = check_review_history(&older, &Document::EvidencePack(Box::new(tampered))).unwrap();
    assert_eq!(issues.iter().map(|i| i.code).collect::<Vec<_>>(), vec![Code::ReviewOverwrite]);
}

fn redact(pack: &EvidencePack) -> EvidencePack {
    let mut r = pack.clone();
    r.status = PackStatus::Redacted;
    r.updated_at = T1.into();
    r.extra.insert(PACK_FORM_KEY.into(), json!("redacted_export"));
    let mut records = Vec::new();
    for s in r.sources.iter_mut().flatten() {
        if s.snippet.take().is_some() {
            let id = format!("red_{}", s.source_id);
            s.snippet_ref = Some(format!("redacted://{id}"));
            if let Some(sel) = &mut s.selector {
                sel.exact = None;
            }
            records.push(RedactionRecord {
                redaction_id: id.clone(),
                target_ref: format!("source:{}#snippet", s.source_id),
                redaction_kind: RedactionKind::Withhold,
                reason: "privacy".into(),
                applied_by: Some("warrant-export".into()),
                replacement_ref: Some(format!("redacted://{id}")),
                applied_at: Some(T1.into()),
                extra: Object::new(),
            });
        }
    }
    r.redactions = Some(records);
    let mut privacy = CompletenessEntry::new(CompletenessStatus::Partial);
    privacy.notes = Some("source snippets withheld; ids, selectors offsets and edges kept".into());
    r.completeness.insert("privacy".into(), privacy);
    let mut verification = CompletenessEntry::new(CompletenessStatus::Partial);
    verification.missing_facts =
        Some(vec![MissingFact::new(MissingReason::Redacted, "source snippets").details("quotes cannot be re-checked")]);
    r.completeness.insert("verification".into(), verification);
    r
}

#[test]
fn s07_redacted_export() {
    let mut b = PackBuilder::new(Scope::answer("answer_7"), warrant(), T0);
    b.claim(ClaimInput::new("c1", "Ana's balance is 200 EUR.", ClaimStatus::Supported))
        .source(
            SourceInput::new("s_crm", "external_record").uri("crm://customer/42").snippet("Ana Silva, balance 200 EUR").selector(
                "balance 200 EUR",
                11,
                26,
            ),
        )
        .edge(EdgeInput::new("c1", "s_crm", Relationship::Supports));
    let original = b.build().unwrap();
    let redacted = redact(&original);
    let v = to_value(&redacted);
    clean(DocKind::EvidencePack, &v);

    assert!(!v.to_string().contains("Ana Silva"), "private snippet gone");
    let ids = |p: &EvidencePack| {
        (
            p.evidence_pack_id.clone(),
            p.claims().iter().map(|c| c.claim_id.clone()).collect::<Vec<_>>(),
            p.sources().iter().map(|s| s.source_id.clone()).collect::<Vec<_>>(),
            p.support_edges().iter().map(|e| e.edge_id.clone()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(ids(&redacted), ids(&original), "ids survive redaction");
    assert!(redacted.redactions().iter().all(|r| !r.reason.is_empty() && r.applied_by.is_some()), "reason and owner kept");
    assert_eq!(redacted.completeness["verification"].status, CompletenessStatus::Partial);
    assert_eq!(redacted.sources()[0].selector.as_ref().unwrap().start, original.sources()[0].selector.as_ref().unwrap().start);

    // Dropping the records, the privacy disclosure, or a record's reason is caught.
    let mut no_records = v.clone();
    no_records.as_object_mut().unwrap().remove("redactions");
    assert_eq!(codes(DocKind::EvidencePack, &no_records), vec![Code::RedactedPack]);
    let mut no_privacy = v.clone();
    no_privacy["completeness"].as_object_mut().unwrap().remove("privacy");
    assert_eq!(codes(DocKind::EvidencePack, &no_privacy), vec![Code::RedactedPack]);
    let mut no_reason = v;
    no_reason["redactions"][0].as_object_mut().unwrap().remove("reason");
    assert_eq!(codes(DocKind::EvidencePack, &no_reason), vec![Code::Schema]);
}

fn replay_case() -> Value {
    json!({
        "replay_id": "replay_8", "evidence_pack_id": "evp_8", "schema_version": "0.1.0",
        "scope": {"session_id": "sess_1", "thread_id": "thr_1", "turn_id": "turn_3", "run_id": "run_9"},
        "determinism": "approximate",
        "input_refs": [
            {"ref_id": "user_input_3", "kind": "user_input", "uri": "runtime://turn_3/input"},
            {"ref_id": "s_weather", "kind": "tool_result", "uri": "tool-result://weather/77"},
            {"ref_id": "model_cfg", "kind": "model_config", "uri": "runtime://run_9/model", "hash": "sha256:cc"}],
        "missing_facts": [
            {"fact": "weather API response s_weather", "reason": "expired", "owner": "weather-api", "details": "the provider keeps responses for 24 h"},
            {"fact": "model sampling", "reason": "unavailable", "details": "temperature 0.7; the output is not reproducible byte for byte"}],
        "expected_outputs": [{"claim_id": "c1", "status": "supported"}],
        "created_at": T1, "producer": {"id": "warrant"}
    })
}

#[test]
fn s08_replay_honesty() {
    let r = replay_case();
    clean(DocKind::Replay, &r);
    assert_eq!(r["determinism"], "approximate");
    let reasons: Vec<_> = r["missing_facts"].as_array().unwrap().iter().map(|m| m["reason"].as_str().unwrap()).collect();
    assert!(reasons.contains(&"expired"));
    let mut dishonest = r;
    dishonest.as_object_mut().unwrap().remove("missing_facts");
    let report = validate(DocKind::Replay, &dishonest);
    assert!(report.is_valid(), "a warning…");
    assert_eq!(report.warnings().map(|i| i.code).collect::<Vec<_>>(), vec![Code::ReplayHonesty], "…that fails under --strict");
}

#[test]
fn s09_telemetry_absence() {
    let mut b = PackBuilder::new(Scope::answer("answer_9"), warrant(), T0);
    b.claim(ClaimInput::new("c1", "The job finished.", ClaimStatus::Unverified))
        .grounding(GroundingRun { status: VerificationStatus::Warning, issues: vec![] });
    let pack = b.build().unwrap();
    let v = to_value(&pack);
    clean(DocKind::EvidencePack, &v);
    assert_eq!(pack.completeness["telemetry"].status, CompletenessStatus::NotCollected);
    assert!(pack.telemetry.is_none(), "no fabricated telemetry");
    for r in pack.verification_results() {
        assert!(
            !r.coverage()
                .iter()
                .any(|c| c.get("category") == Some(&json!("telemetry")) || c.get("category") == Some(&json!("runtime"))),
            "no check claims to cover telemetry"
        );
    }
    assert!(pack.claims().iter().all(|c| !c.text.as_deref().unwrap_or_default().contains("no runtime errors")));

    // A passed check asserting "no runtime errors" over absent telemetry is refused.
    let mut bad = v;
    bad["verification_results"].as_array_mut().unwrap().push(json!(
        {"verification_id": "no_runtime_errors", "check_type": "runtime", "status": "passed", "coverage": [{"category": "telemetry"}]}));
    assert_eq!(codes(DocKind::EvidencePack, &bad), vec![Code::MissingAsSuccess]);
}

#[test]
fn s10_peer_handoff() {
    let peer_record = json!({"agent": "a2a://travel-agent", "artifact_id": "itinerary-v2", "message_id": "msg-7781"});
    let mut b = PackBuilder::new(Scope::answer("answer_10"), warrant(), T0);
    b.claim(ClaimInput::new("c1", "The itinerary includes a Lisbon stop.", ClaimStatus::Supported))
        .claim(ClaimInput::new("c2", "The peer confirmed the booking.", ClaimStatus::Supported))
        .source({
            let s = SourceInput::new("a2a:msg-7781", "peer_record").uri("a2a://travel-agent/messages/msg-7781");
            s.snippet("Lisbon (2 nights)")
        })
        .source(SourceInput::new("a2a://travel-agent/artifacts/itinerary-v2", "artifact"))
        .edge(EdgeInput::new("c1", "a2a://travel-agent/artifacts/itinerary-v2", Relationship::Supports))
        .edge(EdgeInput::new("c2", "a2a:msg-7781", Relationship::Supports))
        .provenance_node({
            let mut n = ProvenanceNode::agent("peer:travel-agent", "peer_agent");
            n.reference = Some("a2a://travel-agent".into());
            n
        })
        .provenance_edge(source_node_id("a2a:msg-7781"), Relationship::AttributedTo, "peer:travel-agent")
        .extension("warrant:peer_record", peer_record.clone());
    let pack = b.build().unwrap();
    clean(DocKind::EvidencePack, &to_value(&pack));

    // A valid peer id is kept as is; one that is not a valid id is kept verbatim beside.
    let msg = pack.sources().iter().find(|s| s.source_id == "a2a:msg-7781").unwrap();
    assert!(msg.extra.get(NATIVE_ID_KEY).is_none());
    let art = &pack.sources()[1];
    assert_eq!(art.extra[NATIVE_ID_KEY], "a2a://travel-agent/artifacts/itinerary-v2");
    assert!(pack.support_edges().iter().any(|e| e.claim_id == "c1" && e.source_id.as_ref() == Some(&art.source_id)));
    assert!(pack.support_edges().iter().any(|e| e.claim_id == "c2" && e.source_id.as_deref() == Some("a2a:msg-7781")));
    assert_eq!(pack.extra["warrant:peer_record"], peer_record, "the peer record is not rewritten");
    let g = pack.provenance_graph().unwrap();
    assert!(g.edges.iter().any(|e| e.relationship == Relationship::AttributedTo && e.to == "peer:travel-agent"));
}

/// A run with runtime ids: pack, replay case and review share the scope and the source facts.
struct Run {
    pack: EvidencePack,
    replay: Value,
    review: Value,
}

fn runtime_scope() -> Scope {
    Scope::default()
        .set("runtime_id", "rt_1")
        .set("session_id", "sess_1")
        .set("thread_id", "thr_1")
        .set("turn_id", "turn_3")
        .set("task_id", "task_5")
        .set("run_id", "run_9")
        .set("attempt_id", "att_2")
        .set("answer_id", "answer_11")
}

fn run() -> Run {
    let mut b = PackBuilder::new(runtime_scope(), warrant(), T0);
    b.pack_id("evp_8")
        .claim(ClaimInput::new("c1", "It will rain in Lisbon tomorrow.", ClaimStatus::Supported))
        .claim(ClaimInput::new("c2", "I booked the flight.", ClaimStatus::Contradicted))
        .source(SourceInput::new("s_weather", "tool_result").generated_by_tool_call("call_weather", None))
        .source(SourceInput::new("s_denial", "policy").uri("runtime://run_9/actions/act_4").snippet("booking denied by user"))
        .edge(EdgeInput::new("c1", "s_weather", Relationship::Supports))
        .edge(EdgeInput::new("c2", "s_denial", Relationship::Contradicts).notes("action act_4 was denied (policy decision pd_4)"))
        .grounding(GroundingRun { status: VerificationStatus::Failed, issues: vec![] })
        // Attempts, the failed tool call, the denial and routing, as provenance.
        .provenance_node({
            let mut n = ProvenanceNode::activity("attempt:att_1", "task_attempt");
            n.extra.insert("attempt_id".into(), json!("att_1"));
            n.extra.insert("outcome".into(), json!("failed"));
            n.extra.insert("failure_category".into(), json!("timeout"));
            n
        })
        .provenance_node({
            let mut n = ProvenanceNode::activity("attempt:att_2", "task_attempt");
            n.extra.insert("attempt_id".into(), json!("att_2"));
            n.extra.insert("outcome".into(), json!("succeeded"));
            n
        })
        .provenance_edge("attempt:att_2", Relationship::DerivedFrom, "attempt:att_1")
        .provenance_node({
            let mut n = ProvenanceNode::activity("tool_call:call_book", "tool_call");
            n.extra.insert("tool_call_id".into(), json!("call_book"));
            n.extra.insert("outcome".into(), json!("failed"));
            n.extra.insert("failure_category".into(), json!("permission_denied"));
            n.extra.insert("output_refs".into(), json!(["runtime://run_9/tools/call_book/error"]));
            n.telemetry = Some(TelemetryRef {
                tool_call_id: Some("call_book".into()),
                span_id: Some("span_book".into()),
                ..TelemetryRef::default()
            });
            n
        })
        .provenance_node({
            let mut n = ProvenanceNode::activity("action:act_4", "permission_decision");
            n.extra.insert("action_id".into(), json!("act_4"));
            n.extra.insert("policy_decision_id".into(), json!("pd_4"));
            n.extra.insert("decision".into(), json!("deny"));
            n
        })
        .provenance_edge("tool_call:call_book", Relationship::Used, "action:act_4")
        .provenance_edge(source_node_id("s_denial"), Relationship::GeneratedBy, "action:act_4")
        .provenance_node({
            let mut n = ProvenanceNode::activity("routing:decided", "routing.decided");
            n.extra.insert("selected_model".into(), json!("gpt-x-mini"));
            n.extra.insert("decision_source".into(), json!("routing.single_candidate"));
            n.extra.insert("cost_ref".into(), json!("runtime://run_9/cost"));
            n.extra.insert("limit_ref".into(), json!("runtime://limits/tier-1"));
            n
        })
        .verification({
            let mut r = VerificationResult::new("check_tool_call_book", "tool_outcome", VerificationStatus::Failed);
            r.evidence_refs =
                Some(vec![Ref { ref_id: Some("call_book".into()), kind: Some("tool_call".into()), ..Ref::default() }]);
            r
        });
    let pack = b.build().unwrap();
    let replay = {
        let mut r = replay_case();
        r["scope"] = to_value(&pack.scope);
        r
    };
    let review = json!({
        "schema_version": "0.1.0", "evidence_pack_id": "evp_8", "scope": to_value(&pack.scope),
        "reviews": [{"review_id": "review_11", "verdict": "needs_changes", "scope": to_value(&pack.scope),
                     "notes": "c2 claims a booking that was denied; see s_denial",
                     "verification_refs": [GROUNDING_ID, "check_tool_call_book"], "evidence_refs": ["c2", "s_denial", "s_weather"]}]
    });
    Run { pack, replay, review }
}

#[test]
fn s11_runtime_profile_evidence() {
    let Run { pack, replay, review } = run();
    clean(DocKind::EvidencePack, &to_value(&pack));
    let ctx = Context { packs: vec![&pack], ..Context::default() };
    clean_with(DocKind::Replay, &replay, &ctx);
    clean_with(DocKind::Verification, &review, &ctx);

    for k in ["runtime_id", "session_id", "thread_id", "turn_id", "task_id", "run_id", "attempt_id"] {
        assert!(pack.scope.get(k).is_some(), "scope keeps {k}");
    }
    // Replay and review point at the pack's own source facts, in the same scope.
    let sources: Vec<&str> = pack.sources().iter().map(|s| s.source_id.as_str()).collect();
    assert!(replay["input_refs"].as_array().unwrap().iter().any(|r| sources.contains(&r["ref_id"].as_str().unwrap())));
    assert!(review["reviews"][0]["evidence_refs"].as_array().unwrap().iter().any(|r| sources.contains(&r.as_str().unwrap())));
    assert_eq!(replay["scope"], to_value(&pack.scope));
    assert_eq!(review["reviews"][0]["scope"], to_value(&pack.scope));
    // Missing telemetry is not_collected (an `unavailable` reason would do too), never fabricated.
    assert_eq!(pack.completeness["telemetry"].status, CompletenessStatus::NotCollected);
    assert!(pack.telemetry().is_empty());
}

// ---------------------------------------------------------------- §8 AEV-AR

#[test]
fn aev_ar_id_001_the_pack_keeps_the_runtime_spine() {
    let pack = run().pack;
    for k in ["session_id", "thread_id", "turn_id", "task_id", "run_id"] {
        assert!(pack.scope.get(k).is_some(), "{k}");
    }
    // Incompatible behaviour 5: a pack without enough runtime ids to join it back to its turn.
    let thin = Scope::default().set("run_id", "run_9");
    assert!(["session_id", "thread_id", "turn_id"].iter().any(|k| thin.get(k).is_none()));
}

#[test]
fn aev_ar_id_002_a_failed_attempt_stays_visible() {
    let pack = run().pack;
    let g = pack.provenance_graph().unwrap();
    let attempts: Vec<_> = g.nodes.iter().filter(|n| n.activity_type.as_deref() == Some("task_attempt")).collect();
    assert_eq!(attempts.len(), 2);
    assert_ne!(attempts[0].extra["attempt_id"], attempts[1].extra["attempt_id"]);
    assert!(attempts.iter().any(|a| a.extra["outcome"] == "failed"));
}

#[test]
fn aev_ar_tool_001_a_tool_failure_is_auditable() {
    let pack = run().pack;
    let g = pack.provenance_graph().unwrap();
    let call = g.nodes.iter().find(|n| n.extra.get("tool_call_id") == Some(&json!("call_book"))).unwrap();
    assert_eq!(call.extra["failure_category"], "permission_denied");
    assert!(call.extra["output_refs"].is_array());
    assert_eq!(call.telemetry.as_ref().unwrap().span_id.as_deref(), Some("span_book"));
    let check = pack.verification_results().iter().find(|r| r.verification_id == "check_tool_call_book").unwrap();
    assert_eq!(check.status, VerificationStatus::Failed);
}

#[test]
fn aev_ar_action_001_a_denial_is_not_success() {
    let Run { pack, .. } = run();
    let g = pack.provenance_graph().unwrap();
    let denial = g.nodes.iter().find(|n| n.node_id == "action:act_4").unwrap();
    assert_eq!((denial.extra["action_id"].as_str(), denial.extra["policy_decision_id"].as_str()), (Some("act_4"), Some("pd_4")));
    let booked = pack.claims().iter().find(|c| c.claim_id == "c2").unwrap();
    assert_eq!(booked.status, ClaimStatus::Contradicted, "no claim says the tool ran");
    // Incompatible behaviour 3: claiming the tool succeeded after the denial is refused.
    let mut v = to_value(&pack);
    v["claims"][1]["status"] = json!("supported");
    assert!(codes(DocKind::EvidencePack, &v).contains(&Code::ClaimSupported));
}

#[test]
fn aev_ar_route_001_routing_is_explainable() {
    let pack = run().pack;
    let g = pack.provenance_graph().unwrap();
    let route = g.nodes.iter().find(|n| n.activity_type.as_deref() == Some("routing.decided")).unwrap();
    for k in ["selected_model", "decision_source", "cost_ref", "limit_ref"] {
        assert!(route.extra.contains_key(k), "{k}");
    }
}

#[test]
fn aev_ar_replay_001_and_review_001_reuse_the_packs_facts() {
    let Run { pack, replay, review } = run();
    assert_eq!(replay["evidence_pack_id"], json!(pack.evidence_pack_id));
    // Incompatible behaviour 1: no second timeline for the same turn.
    assert_eq!(replay["scope"]["turn_id"], json!(pack.scope.turn_id));
    let review: VerificationDocument = typed(review);
    let r = &review.reviews()[0];
    assert_eq!(r.scope.as_ref(), Some(&pack.scope));
    let ids: Vec<&str> = pack.verification_results().iter().map(|v| v.verification_id.as_str()).collect();
    assert!(r.verification_refs().iter().all(|v| ids.contains(&v.as_str())));
}

#[test]
fn aev_ar_gap_001_known_gaps_are_only_real_gaps() {
    let pack = run().pack;
    assert!(pack.telemetry().is_empty(), "incompatible behaviour 2: no fabricated session-level telemetry");
    let t = &pack.completeness["telemetry"];
    assert_eq!(t.status, CompletenessStatus::NotCollected);
    assert!(t.missing_facts().iter().all(|f| matches!(f.reason, MissingReason::NotCollected | MissingReason::Unavailable)));
}

#[test]
fn aev_ar_export_001_the_export_manifest_is_complete() {
    let Run { pack, replay, review } = run();
    let redacted = redact(&pack);
    let bytes = |v: &Value| serde_json::to_vec(v).unwrap();
    let mut e = ExportBuilder::new(pack.evidence_pack_id.clone(), T1, redacted.completeness.clone());
    e.file("pack.json", "pack", "application/json", &bytes(&to_value(&redacted)))
        .file("replay.json", "replay", "application/json", &bytes(&replay))
        .file("review.json", "review", "application/json", &bytes(&review))
        .file("schemas/agentevidence-pack.schema.json", "schema", "application/schema+json", b"{}")
        .file("redactions.json", "redaction", "application/json", &bytes(&to_value(&redacted.redactions)));
    for r in redacted.redactions() {
        e.redaction(r.clone());
    }
    let mut m = e.build().unwrap();
    m.extra.insert("warrant:scope".into(), to_value(&pack.scope));
    let v = to_value(&m);
    clean(DocKind::ExportManifest, &v);
    let roles: Vec<&str> = m.files.iter().map(|f| f.role.as_str()).collect();
    for role in ["pack", "replay", "review", "schema", "redaction"] {
        assert!(roles.contains(&role), "{role}");
    }
    assert!(m.files.iter().all(|f| f.hash.as_deref().is_some_and(|h| h.starts_with("sha256:"))));
    assert_eq!(v["warrant:scope"]["turn_id"], "turn_3", "runtime-scope refs travel with the export");
}

/// The three upstream fragments, wrapped into complete packs (§11), pass the schema; pass 2
/// then holds them to the prose rules (D50), which two of them do not meet.
#[test]
fn upstream_fragments_wrapped_into_packs() {
    let Some(dir) = warrant_testkit::data_dir("agent-evidence") else { return };
    let wrap = |name: &str| {
        let mut v = warrant_testkit::read_json(&dir.join("examples").join(name));
        let o = v.as_object_mut().unwrap();
        o.entry("evidence_pack_id").or_insert(json!("evp_wrapped"));
        o.entry("schema_version").or_insert(json!("0.1.0"));
        o.entry("status").or_insert(json!("ready"));
        o.insert("created_at".into(), json!(T0));
        o.insert("updated_at".into(), json!(T0));
        o.insert("producer".into(), json!({"id": "upstream-docs"}));
        o.insert("completeness".into(), json!({"telemetry": {"status": "not_collected"}}));
        v
    };
    let findings = |name: &str| -> Vec<(Code, String)> {
        let r = validate(DocKind::EvidencePack, &wrap(name));
        assert!(r.schema.is_empty(), "{name}: {:?}", r.schema);
        r.issues().map(|i| (i.code, i.path.clone())).collect()
    };
    // c2 is partially_supported with only a `qualifies` edge.
    assert_eq!(findings("answer-with-citations.json"), vec![(Code::ClaimPartial, "/claims/1/status".into())]);
    // The reviewed section is `supported` with no supporting edge at all.
    assert_eq!(findings("artifact-review.json"), vec![(Code::ClaimSupported, "/claims/0/status".into())]);
    assert_eq!(findings("tool-run-audit.json"), vec![]);
    assert_eq!(findings("quickstart-minimal-pack.json"), vec![]);
}
