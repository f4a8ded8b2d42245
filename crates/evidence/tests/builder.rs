//! The pack builder: every pack it returns passes both validator passes (and the published
//! schema), whatever the inputs; ids and output are deterministic; completeness is honest.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use warrant_evidence::*;
use warrant_evidence::{claim_node_id, policy_verification_id, source_node_id};
use warrant_graph::CompiledSchema;

const T0: &str = "2026-05-08T00:00:00Z";

fn producer() -> Producer {
    Producer {
        kind: Some(ProducerType::Tool),
        name: Some("Warrant".into()),
        version: Some("0.1.0".into()),
        ..Producer::new("warrant")
    }
}

/// Scenario-1 style: two supported claims and one the check could not ground.
fn builder() -> PackBuilder {
    let mut b = PackBuilder::new(Scope::answer("answer_1"), producer(), T0);
    b.answer("answer_1", None)
        .claim(ClaimInput::new("c1", "The refund window is 30 days.", ClaimStatus::Supported).span(0, 29).claim_type("fact"))
        .claim(
            ClaimInput::new("c2", "Refunds go to the original card.", ClaimStatus::Supported)
                .confidence(Confidence::score(0.8).unwrap()),
        )
        .claim(
            ClaimInput::new("c3", "Support answers within an hour.", ClaimStatus::Unverified)
                .missing(MissingReason::Unavailable, "no source mentions response times"),
        )
        .source(SourceInput::new("doc:refunds#0", "document").uri("file:///docs/refunds.md").selector("30 days", 21, 28))
        .source(SourceInput::new("doc:refunds#1", "document").uri("file:///docs/refunds.md").snippet("original card"))
        .edge(EdgeInput::new("c1", "doc:refunds#0", Relationship::Supports).confidence(1.0))
        .edge(EdgeInput::new("c2", "doc:refunds#1", Relationship::Supports))
        .grounding(GroundingRun { status: VerificationStatus::Warning, issues: vec![] })
        .policy(PolicyRun {
            pack_id: "core.citation-grounding.v1".into(),
            status: VerificationStatus::Passed,
            checked: vec!["claims-cited".into()],
            not_checked: vec![NotChecked::rule("tone-judge", "no judge is configured")],
            issues: vec![],
        });
    b
}

fn published_pack_schema() -> Option<CompiledSchema> {
    let dir = warrant_testkit::data_dir("agent-evidence")?;
    let text = std::fs::read_to_string(dir.join("schemas/agentevidence-pack.schema.json")).unwrap();
    Some(CompiledSchema::compile(&text).unwrap())
}

#[test]
fn a_built_pack_is_valid_complete_and_honest() {
    let pack = builder().build().unwrap();
    let v = serde_json::to_value(&pack).unwrap();
    let r = validate(DocKind::EvidencePack, &v);
    assert!(r.is_valid() && r.warnings().next().is_none(), "{:?}", r.issues().collect::<Vec<_>>());
    if let Some(s) = published_pack_schema() {
        assert!(s.is_valid(&v), "{:?}", s.errors(&v));
    }

    assert_eq!(pack.schema_version, "0.1.0");
    assert_eq!(pack.pack_form(), Some("full"));
    assert_eq!(pack.status, PackStatus::Ready);
    assert!(pack.evidence_pack_id.starts_with("evp-"));
    assert_eq!(pack.created_at, T0);
    assert_eq!(pack.claims()[0].range_ref.as_deref(), Some("answer:answer_1#char=0,29"));
    let sel = pack.sources()[0].selector.as_ref().unwrap();
    assert_eq!((sel.exact.as_deref(), sel.start.as_ref().map(ToString::to_string)), (Some("30 days"), Some("21".into())));

    // Each checked claim also points at the grounding check; its support_edges list its edges.
    let c1 = &pack.claims()[0];
    assert_eq!(c1.support_edges().len(), 2);
    let verified: Vec<_> = pack.support_edges().iter().filter(|e| e.relationship == Relationship::VerifiedBy).collect();
    assert_eq!(verified.len(), 2);
    assert!(verified.iter().all(|e| e.verification_id.as_deref() == Some(GROUNDING_ID)));
    // Store chunk ids that are not valid ids are mapped, and kept verbatim.
    let s0 = &pack.sources()[0];
    assert!(s0.source_id.starts_with("doc:refunds_0-") && is_valid_id(&s0.source_id), "{}", s0.source_id);
    assert_eq!(s0.extra[NATIVE_ID_KEY], "doc:refunds#0");
    assert_eq!(pack.support_edges()[0].source_id.as_ref(), Some(&s0.source_id));
    assert!(pack.claims()[2].support_edges.is_none(), "the unverified claim has no edge");

    // Completeness: the unverified claim's reason is under sources; the skipped rule under
    // verification; telemetry is not collected.
    let sources = &pack.completeness["sources"];
    assert_eq!(sources.status, CompletenessStatus::Partial);
    assert_eq!(sources.missing_facts()[0].reason, MissingReason::Unavailable);
    let ver = &pack.completeness["verification"];
    assert_eq!(ver.status, CompletenessStatus::Partial);
    let facts: Vec<_> = ver.missing_facts().iter().map(|f| f.fact.clone().unwrap()).collect();
    assert!(facts.iter().any(|f| f.contains("tone-judge")), "{facts:?}");
    assert!(facts.iter().any(|f| f.contains("claim_id c3")), "{facts:?}");
    assert_eq!(pack.completeness["telemetry"].status, CompletenessStatus::NotCollected);
    assert_eq!(pack.completeness["claims"].status, CompletenessStatus::Complete);

    // One result per policy pack and one for grounding; skipped rules are "not checked".
    let results = pack.verification_results();
    assert_eq!(results.iter().map(|r| r.check_type.as_str()).collect::<Vec<_>>(), vec!["grounding", "policy"]);
    assert_eq!(results[1].verification_id, policy_verification_id("core.citation-grounding.v1"));
    let skipped = results[1].coverage().iter().find(|c| c.get("checked") == Some(&Value::Bool(false))).unwrap();
    assert_eq!(skipped["rule_id"], "tone-judge");
    assert!(pack.reviews.is_none(), "no reviews by default");

    // Provenance: answer, extraction, claims, sources, checks, agent; generated_by / used.
    let g = pack.provenance_graph().unwrap();
    let node = |id: &str| g.nodes.iter().find(|n| n.node_id == id).unwrap_or_else(|| panic!("no node {id}"));
    assert_eq!(node("answer:answer_1").kind, NodeType::Entity);
    assert_eq!(node("activity:extraction").kind, NodeType::Activity);
    assert_eq!(node(&claim_node_id("c1")).entity_type.as_deref(), Some("claim"));
    assert_eq!(node(&source_node_id("doc:refunds#0")).kind, NodeType::Entity);
    assert!(pack.claims()[0].extra.get(NATIVE_ID_KEY).is_none());
    assert_eq!(node("check:grounding").activity_type.as_deref(), Some("grounding"));
    assert_eq!(node("agent:warrant").kind, NodeType::Agent);
    let edge =
        |from: &str, rel: Relationship, to: &str| g.edges.iter().any(|e| e.from == from && e.relationship == rel && e.to == to);
    assert!(edge(&claim_node_id("c1"), Relationship::GeneratedBy, "activity:extraction"));
    assert!(edge("activity:extraction", Relationship::Used, "answer:answer_1"));
    assert!(edge("check:grounding", Relationship::Used, &source_node_id("doc:refunds#1")));
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let a = serde_json::to_string(&builder().build().unwrap()).unwrap();
    let b = serde_json::to_string(&builder().build().unwrap()).unwrap();
    assert_eq!(a, b);
    // The pack id names the outcome (scope and answer): a later version with more evidence is
    // the same pack; another answer is another pack.
    let mut later = builder();
    later.updated_at("2026-05-09T00:00:00Z").claim(ClaimInput::new("c4", "Another.", ClaimStatus::NotApplicable));
    let later = later.build().unwrap();
    assert_eq!(later.evidence_pack_id, builder().build().unwrap().evidence_pack_id);
    let mut other = PackBuilder::new(Scope::answer("answer_2"), producer(), T0);
    other.claim(ClaimInput::new("c4", "Another.", ClaimStatus::NotApplicable));
    assert_ne!(other.build().unwrap().evidence_pack_id, later.evidence_pack_id);
    let mut fixed = builder();
    fixed.pack_id("evp_fixed");
    assert_eq!(fixed.build().unwrap().evidence_pack_id, "evp_fixed");
}

#[test]
fn the_builder_refuses_dishonest_or_malformed_packs() {
    let mut b = builder();
    b.claim(ClaimInput::new("c9", "Unbacked.", ClaimStatus::Supported));
    let err = b.build().unwrap_err();
    let BuildError::Invalid { issues, .. } = &err;
    assert!(issues.iter().any(|i| i.code == Code::ClaimSupported), "{err}");
    assert!(err.to_string().contains("AEV-CLAIM-SUPPORTED at /claims/3/status"), "{err}");

    let mut b = builder();
    b.claim(ClaimInput::new("c1", "Twice.", ClaimStatus::NotApplicable));
    assert!(matches!(b.build(), Err(BuildError::Invalid { issues, .. }) if issues.iter().any(|i| i.code == Code::IdDup)));

    let b = PackBuilder::new(Scope::answer("a"), producer(), "yesterday");
    assert!(matches!(b.build(), Err(BuildError::Invalid { issues, .. }) if issues[0].code == Code::DateTime));

    let b = PackBuilder::new(Scope::default(), producer(), T0);
    assert!(matches!(b.build(), Err(BuildError::Invalid { issues, .. }) if issues[0].path == "/scope"));

    let mut b = builder();
    b.completeness("sources", {
        let mut e = CompletenessEntry::new(CompletenessStatus::Complete);
        e.missing_facts = Some(vec![MissingFact::new(MissingReason::Unknown, "x")]);
        e
    });
    assert!(matches!(b.build(), Err(BuildError::Invalid { issues, .. }) if issues[0].code == Code::MissingAsSuccess));
}

#[test]
fn a_pack_without_checks_says_so() {
    let mut b = PackBuilder::new(Scope::answer("a"), producer(), T0);
    b.claim(ClaimInput::new("c1", "Nothing was checked.", ClaimStatus::Unverified));
    let pack = b.build().unwrap();
    assert_eq!(pack.completeness["verification"].status, CompletenessStatus::NotCollected);
    assert_eq!(pack.completeness["sources"].status, CompletenessStatus::Missing);
    assert_eq!(pack.completeness["sources"].missing_facts()[0].reason, MissingReason::Unknown);
    assert!(pack.verification_results.is_none());
    assert_eq!(pack.sources(), &[]);
    assert!(pack.sources.is_some(), "the writer always emits sources (project rule)");
}

#[test]
fn export_manifests_hash_their_files() {
    let pack = builder().build().unwrap();
    let bytes = serde_json::to_vec_pretty(&pack).unwrap();
    let mut e = ExportBuilder::new(pack.evidence_pack_id.clone(), T0, pack.completeness.clone());
    e.file("pack.json", "pack", "application/json", &bytes).file("README.md", "readme", "text/markdown", b"# Evidence\n");
    let m = e.build().unwrap();
    let r = validate(DocKind::ExportManifest, &serde_json::to_value(&m).unwrap());
    assert!(r.is_valid() && r.warnings().next().is_none(), "{:?}", r.issues().collect::<Vec<_>>());
    assert_eq!(m.files[0].hash.as_deref().map(|h| h.len()), Some(7 + 64));
    assert_eq!(m.files[0].size.as_ref().unwrap().to_string(), bytes.len().to_string());
    assert_eq!(m.schemas().len(), 1);
    assert!(m.export_id.starts_with("export-"));
}

// ---------------------------------------------------------------- properties

#[derive(Debug, Clone)]
struct ClaimSpec {
    text: String,
    status: ClaimStatus,
    confidence: Option<u8>,
    sources: Vec<usize>,
    contradicted_by: Option<usize>,
    span: Option<(usize, usize)>,
}

fn status() -> impl Strategy<Value = ClaimStatus> {
    prop::sample::select(ClaimStatus::ALL.to_vec())
}

fn claim_spec() -> impl Strategy<Value = ClaimSpec> {
    (
        "\\PC{0,40}",
        status(),
        prop::option::of(0u8..=100),
        prop::collection::vec(0usize..8, 0..3),
        prop::option::of(0usize..8),
        prop::option::of((0usize..500, 0usize..500)),
    )
        .prop_map(|(text, status, confidence, sources, contradicted_by, span)| ClaimSpec {
            text,
            status,
            confidence,
            sources,
            contradicted_by,
            span: span.map(|(a, b)| (a.min(b), a.max(b))),
        })
}

/// A source: kind, uri, optional selector offsets, snippet.
type SourceSpec = (String, String, Option<(usize, usize)>, String);

#[derive(Debug, Clone)]
struct Inputs {
    answer: String,
    claims: Vec<ClaimSpec>,
    sources: Vec<SourceSpec>,
    grounding: Option<VerificationStatus>,
    policies: Vec<(String, VerificationStatus, usize)>,
    reviews: Vec<Verdict>,
    created: usize,
}

fn inputs() -> impl Strategy<Value = Inputs> {
    let id = "[A-Za-z0-9][A-Za-z0-9_.:-]{0,20}";
    (
        id,
        prop::collection::vec(claim_spec(), 0..8),
        prop::collection::vec(("[a-z_]{1,12}", "\\PC{0,30}", prop::option::of((0usize..100, 0usize..100)), "\\PC{0,30}"), 1..6),
        prop::option::of(prop::sample::select(VerificationStatus::ALL.to_vec())),
        prop::collection::vec(("\\PC{1,30}", prop::sample::select(VerificationStatus::ALL.to_vec()), 0usize..3), 0..3),
        prop::collection::vec(prop::sample::select(Verdict::ALL.to_vec()), 0..3),
        0usize..3,
    )
        .prop_map(|(answer, claims, sources, grounding, policies, reviews, created)| Inputs {
            answer,
            claims,
            sources,
            grounding,
            policies,
            reviews,
            created,
        })
}

/// A builder fed the way a verifier would: every status backed by the edges it needs.
fn build(inp: &Inputs) -> Result<EvidencePack, BuildError> {
    let created = ["2026-05-08T00:00:00Z", "2026-05-08T10:20:30.5+02:00", "1999-12-31T23:59:59Z"][inp.created];
    let mut b = PackBuilder::new(Scope::answer(inp.answer.clone()).set("run_id", "run-1"), producer(), created);
    // Store-style ids, not all valid Agent Evidence ids: the builder maps them.
    let source_id = |i: usize| format!("docs/{}.md#{}", i % inp.sources.len(), i % inp.sources.len());
    for (i, (kind, uri, sel, snippet)) in inp.sources.iter().enumerate() {
        let mut s = SourceInput::new(source_id(i), kind.clone()).uri(uri.clone()).snippet(snippet.clone());
        if let Some((a, z)) = sel {
            s = s.selector(snippet.clone(), *a.min(z), *a.max(z));
        }
        if kind == "tool_result" {
            s = s.generated_by_tool_call(format!("call {i}"), None);
        }
        b.source(s);
    }
    for (i, c) in inp.claims.iter().enumerate() {
        let id = format!("c{i}");
        let mut ci = ClaimInput::new(id.clone(), c.text.clone(), c.status);
        ci.confidence = c.confidence.and_then(|p| Confidence::score(f64::from(p) / 100.0));
        ci.span = c.span;
        b.claim(ci);
        let mut sources: Vec<usize> = c.sources.iter().map(|s| s % inp.sources.len()).collect();
        sources.sort_unstable();
        sources.dedup();
        let rel = match c.status {
            ClaimStatus::Supported => Relationship::Supports,
            ClaimStatus::PartiallySupported => Relationship::PartiallySupports,
            _ => Relationship::Background,
        };
        if matches!(c.status, ClaimStatus::Supported | ClaimStatus::PartiallySupported) && sources.is_empty() {
            sources.push(0);
        }
        for s in &sources {
            b.edge(EdgeInput::new(id.clone(), source_id(*s), rel));
        }
        let counter = match (c.status, c.contradicted_by) {
            (ClaimStatus::Contradicted, x) => Some(x.unwrap_or(0)),
            (_, x) => x,
        };
        if let Some(s) = counter {
            b.edge(EdgeInput::new(id.clone(), source_id(s), Relationship::Contradicts));
            if c.status == ClaimStatus::Supported {
                // A supported claim keeps its counter-evidence, resolved by a qualifying edge.
                b.edge(EdgeInput::new(id.clone(), source_id(s), Relationship::Qualifies));
            }
        }
    }
    if let Some(status) = inp.grounding {
        b.grounding(GroundingRun { status, issues: vec![] });
    }
    let mut ids = Vec::new();
    for (i, (name, status, skipped)) in inp.policies.iter().enumerate() {
        let pack_id = format!("{name}#{i}");
        ids.push(policy_verification_id(&pack_id));
        b.policy(PolicyRun {
            pack_id,
            status: *status,
            checked: vec!["r1".into()],
            not_checked: (0..*skipped).map(|k| NotChecked::rule(format!("skip{k}"), "no judge")).collect(),
            issues: vec![serde_json::from_value(json!({"rule_id": "r1", "message": "m"})).unwrap()],
        });
    }
    for (i, v) in inp.reviews.iter().enumerate() {
        let mut r = ReviewVerdict::new(format!("review-{i}"), *v);
        r.verification_refs = Some(ids.clone());
        b.review(r);
    }
    b.build()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_built_pack_passes_both_passes_and_the_published_schema(inp in inputs()) {
        let pack = build(&inp).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let v = serde_json::to_value(&pack).unwrap();
        let r = validate(DocKind::EvidencePack, &v);
        prop_assert!(r.is_valid(), "{:?}", r.errors().collect::<Vec<_>>());
        // Only the warnings a verifier's own choices cause: an approval over a failed check, and
        // a checked status with no edge when no grounding check was recorded.
        let allowed = |c: Code| c == Code::Waiver || (c == Code::ClaimUnclassified && inp.grounding.is_none());
        prop_assert!(r.warnings().all(|w| allowed(w.code)), "{:?}", r.warnings().collect::<Vec<_>>());
        if let Some(s) = published_pack_schema() {
            prop_assert!(s.is_valid(&v));
        }
        // Deterministic: the same inputs give the same bytes.
        let again = serde_json::to_string(&build(&inp).unwrap()).unwrap();
        prop_assert_eq!(serde_json::to_string(&pack).unwrap(), again);
        // Round trip through the typed model.
        prop_assert_eq!(serde_json::to_value(parse(DocKind::EvidencePack, v.clone()).unwrap()).unwrap(), v);
    }

    #[test]
    fn arbitrary_ids_never_panic_and_never_give_an_invalid_pack(
        answer in "\\PC{0,8}", claim in "\\PC{0,8}", source in "\\PC{0,8}", status in status(), rel in prop::sample::select(Relationship::ALL.to_vec()),
        created in prop::sample::select(vec!["2026-05-08T00:00:00Z", "not a time", ""]),
    ) {
        let mut b = PackBuilder::new(Scope::answer(answer), producer(), created);
        b.claim(ClaimInput::new(claim.clone(), "t", status))
            .source(SourceInput::new(source.clone(), "document").generated_by_tool_call(source.clone(), Some(claim.clone())))
            .edge(EdgeInput::new(claim, source, rel));
        if let Ok(pack) = b.build() {
            prop_assert!(validate(DocKind::EvidencePack, &serde_json::to_value(&pack).unwrap()).is_valid());
        }
    }
}
