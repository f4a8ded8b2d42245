//! A check report as an Agent Evidence pack: the claims with their statuses, every quoted
//! source passage, the support edges, one verification result for the grounding check and
//! one per policy pack, provenance of extraction and verification, and honest completeness.

use serde_json::{Map, Value, json};
use warrant_evidence::{
    BuildError, ClaimInput, ClaimStatus, Confidence, EdgeInput, EvidencePack, GroundingRun, MissingReason, NotChecked,
    PackBuilder, PolicyRun, Producer, ProducerType, Relationship as EvRelationship, Scope, SourceInput, VerificationStatus,
};
use warrant_verify::{Relationship, Status};

use crate::Report;

/// Builds the evidence pack of `report`. `created_at` is an RFC 3339 timestamp the caller
/// supplies (never the clock), so the same check gives the same bytes.
pub fn evidence_pack(report: &Report, created_at: &str) -> Result<EvidencePack, BuildError> {
    evidence_pack_with_model_calls(report, created_at, &[], None)
}

/// [`evidence_pack`] of a check that asked a model (`--llm-verify`): the pack also carries
/// the run's replay case ([`warrant_evidence::model_replay_case`]: determinism
/// `approximate`, each call's output marked `model` or `replayed`), and every support edge a
/// model's verdict produced says so in its notes. `cache` is the record/replay folder.
pub fn evidence_pack_with_model_calls(
    report: &Report,
    created_at: &str,
    calls: &[warrant_evidence::ModelCall],
    cache: Option<&str>,
) -> Result<EvidencePack, BuildError> {
    let mut b = builder(report, created_at);
    if calls.is_empty() {
        return b.build();
    }
    // The pack id does not depend on replay cases: build once for it, then add the case.
    let id = b.build()?.evidence_pack_id;
    let case = warrant_evidence::model_replay_case(Scope::answer(report.output_id.clone()), Some(&id), calls, cache)?;
    b.replay_case(&case);
    b.build()
}

fn builder(report: &Report, created_at: &str) -> PackBuilder {
    let producer = Producer {
        kind: Some(ProducerType::Tool),
        name: Some("Warrant".into()),
        version: Some(env!("CARGO_PKG_VERSION").into()),
        ..Producer::new("warrant")
    };
    let mut b = PackBuilder::new(Scope::answer(report.output_id.clone()), producer, created_at);
    b.answer(report.output_id.clone(), None);
    let mut added = std::collections::BTreeSet::new();
    for c in &report.claims {
        let mut input = ClaimInput::new(c.claim_id.clone(), c.text.clone(), claim_status(c.status))
            .span(c.span.start as usize, c.span.end as usize)
            .claim_type(c.modality.as_str());
        if let Some(conf) = Confidence::score(c.confidence) {
            input = input.confidence(conf);
        }
        if c.status == Status::Unverified {
            input = input.missing(MissingReason::Unavailable, c.reason.clone());
        }
        b.claim(input);
        for e in &c.support_edges {
            // One pack source per quoted passage: its id names the document and the range.
            let source_id = format!("{}#char={},{}", e.source_id, e.selector.start, e.selector.end);
            if added.insert(source_id.clone()) {
                b.source(SourceInput::new(source_id.clone(), "document").uri(e.source_id.clone()).selector(
                    e.selector.exact.clone(),
                    e.selector.start,
                    e.selector.end,
                ));
            }
            let mut edge = EdgeInput::new(c.claim_id.clone(), source_id, edge_relationship(e.relationship))
                .id(e.edge_id.clone())
                .confidence(e.confidence);
            if let Some(op) = c.second_opinion.as_ref().filter(|_| e.edge_id == format!("{}-m1", c.claim_id)) {
                edge = edge.notes(format!(
                    "a model's verdict (second opinion by {}, prompt {}), not a rule result",
                    op.model, op.prompt
                ));
            }
            b.edge(edge);
        }
    }
    b.grounding(grounding(report));
    for pack in &report.policies.packs {
        let skipped: Vec<(&str, &str)> = pack
            .policy_results
            .iter()
            .flat_map(|p| p.skipped_rules.iter().map(|s| (s.rule_id.as_str(), s.reason.as_str())))
            .collect();
        let rules: Vec<String> = report
            .packs_run
            .iter()
            .filter(|p| p.pack_id == pack.pack_id)
            .flat_map(|p| p.policies.iter().flat_map(|pol| pol.rules.iter().map(|r| r.rule_id.clone())))
            .collect();
        let issues: Vec<Map<String, Value>> = pack
            .policy_results
            .iter()
            .flat_map(|p| p.violations.iter())
            .map(|v| {
                let mut m = Map::new();
                m.insert("rule_id".into(), json!(v.rule_id));
                m.insert("node_id".into(), json!(v.node_id));
                m.insert("severity".into(), json!(v.severity));
                m.insert("message".into(), json!(v.message));
                m
            })
            .collect();
        let failed_error = pack.policy_results.iter().any(|p| !p.passed);
        let status = if failed_error {
            VerificationStatus::Failed
        } else if !issues.is_empty() {
            VerificationStatus::Warning
        } else if rules.len() == skipped.len() && !rules.is_empty() {
            VerificationStatus::Skipped
        } else {
            VerificationStatus::Passed
        };
        b.policy(PolicyRun {
            pack_id: pack.pack_id.clone(),
            status,
            checked: rules.iter().filter(|r| !skipped.iter().any(|(s, _)| s == r)).cloned().collect(),
            not_checked: skipped.iter().map(|(r, why)| NotChecked::rule(*r, *why)).collect(),
            issues,
        });
    }
    b
}

/// The grounding check's outcome: failed on a contradiction, a warning when a factual claim
/// is not fully supported, else passed; each flagged claim is an issue.
fn grounding(report: &Report) -> GroundingRun {
    let flagged: Vec<Map<String, Value>> = report
        .claims
        .iter()
        .filter(|c| matches!(c.status, Status::Contradicted | Status::Unsupported | Status::PartiallySupported))
        .map(|c| {
            let mut m = Map::new();
            m.insert("claim_id".into(), json!(c.claim_id));
            m.insert("status".into(), json!(c.status.as_str()));
            m.insert("message".into(), json!(c.reason));
            m
        })
        .collect();
    let status = if report.claims.iter().any(|c| c.status == Status::Contradicted) {
        VerificationStatus::Failed
    } else if !flagged.is_empty() {
        VerificationStatus::Warning
    } else if report.claims.iter().all(|c| matches!(c.status, Status::Unverified | Status::NotApplicable)) {
        VerificationStatus::Skipped
    } else {
        VerificationStatus::Passed
    };
    GroundingRun { status, issues: flagged }
}

fn claim_status(s: Status) -> ClaimStatus {
    match s {
        Status::Supported => ClaimStatus::Supported,
        Status::PartiallySupported => ClaimStatus::PartiallySupported,
        Status::Unsupported => ClaimStatus::Unsupported,
        Status::Contradicted => ClaimStatus::Contradicted,
        Status::Unverified => ClaimStatus::Unverified,
        Status::NotApplicable => ClaimStatus::NotApplicable,
    }
}

fn edge_relationship(r: Relationship) -> EvRelationship {
    match r {
        Relationship::Supports => EvRelationship::Supports,
        Relationship::PartiallySupports => EvRelationship::PartiallySupports,
        Relationship::Contradicts => EvRelationship::Contradicts,
        Relationship::Background => EvRelationship::Background,
    }
}
