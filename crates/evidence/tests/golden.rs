//! Golden files: the builder's output for a fixed input is byte-for-byte stable, and every
//! fixture under `tests/fixtures/` (one per kind; also the fuzz seeds) validates cleanly as
//! the kind detected from its content. `WARRANT_BLESS=1 cargo test -p warrant-evidence --test
//! golden` rewrites the golden pack after a deliberate change (`warrant_testkit::golden`).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use warrant_evidence::*;
use warrant_testkit::assert_golden;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn golden_pack() -> EvidencePack {
    let producer = Producer {
        kind: Some(ProducerType::Tool),
        name: Some("Warrant".into()),
        version: Some("0.1.0".into()),
        ..Producer::new("warrant")
    };
    let mut b = PackBuilder::new(
        Scope::answer("answer_1").set("session_id", "sess_1").set("turn_id", "turn_3"),
        producer,
        "2026-05-08T00:00:00Z",
    );
    b.answer("answer_1", Some("file:///answers/refund.md".into()))
        .claim(
            ClaimInput::new("c1", "The refund window is 30 days.", ClaimStatus::Supported)
                .span(0, 29)
                .claim_type("fact")
                .confidence(Confidence::score(0.9).unwrap()),
        )
        .claim(
            ClaimInput::new("c2", "Refunds go to the original card.", ClaimStatus::PartiallySupported)
                .span(30, 62)
                .claim_type("fact"),
        )
        .claim(ClaimInput::new("c3", "The museum opens at 9.", ClaimStatus::Contradicted).span(63, 85))
        .claim(
            ClaimInput::new("c4", "Support answers within an hour.", ClaimStatus::Unverified)
                .span(86, 117)
                .missing(MissingReason::Unavailable, "no source mentions response times"),
        )
        .claim(ClaimInput::new("c5", "Hope this helps!", ClaimStatus::NotApplicable))
        .source(
            SourceInput::new("docs/refunds.md#0", "document")
                .uri("file:///docs/refunds.md")
                .selector("within 30 days", 40, 54)
                .snippet("Refunds are available within 30 days."),
        )
        .source(SourceInput::new("docs/payments.md#2", "document").uri("file:///docs/payments.md").selector(
            "original card",
            3,
            16,
        ))
        .source(SourceInput::new("museum-site", "web_page").uri("https://museum.example/hours").snippet("Open 10–17"))
        .source(SourceInput::new("tool_result_1", "tool_result").generated_by_tool_call("call_123", Some("span_9".into())))
        .edge(EdgeInput::new("c1", "docs/refunds.md#0", Relationship::Supports).confidence(1.0))
        .edge(EdgeInput::new("c2", "docs/payments.md#2", Relationship::PartiallySupports))
        .edge(EdgeInput::new("c3", "museum-site", Relationship::Contradicts).notes("the site says 10"))
        .grounding(GroundingRun { status: VerificationStatus::Failed, issues: vec![] })
        .policy(PolicyRun {
            pack_id: "core.citation-grounding.v1".into(),
            status: VerificationStatus::Warning,
            checked: vec!["claims-cited".into()],
            not_checked: vec![NotChecked::rule("tone", "no judge is configured")],
            issues: vec![],
        });
    b.build().unwrap()
}

#[test]
fn the_builder_output_is_stable() {
    let text = serde_json::to_string_pretty(&golden_pack()).unwrap() + "\n";
    assert_golden(fixtures().join("evidence_pack.json"), &text);
}

#[test]
fn every_fixture_is_valid_as_its_detected_kind() {
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let value = warrant_testkit::read_json(&path);
        let kind = DocKind::detect(&value).unwrap_or_else(|| panic!("{}: kind not detected", path.display()));
        assert_eq!(path.file_stem().unwrap().to_str().unwrap(), kind.name(), "fixtures are named for their kind");
        let r = validate(kind, &value);
        let issues: Vec<_> = r.issues().collect();
        assert!(issues.is_empty(), "{}: {issues:?}", path.display());
        kinds.push(kind);
    }
    kinds.sort();
    assert_eq!(kinds, DocKind::ALL.to_vec());
}
