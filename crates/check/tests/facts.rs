//! Fact-level signals: a claim's own facts (read by the store's pattern extractor) against the
//! facts a store holds — agreement supports, another value of a functional predicate or the
//! opposite polarity contradicts — with quotes that point into the document.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_facts::Vocabulary;
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

const DOC: &str = "Security policy.\n\nSession tokens expire after 30 minutes of inactivity. \
    Audit logs are retained for 90 days. Guest accounts do not require approval.";

fn store() -> SqliteStore {
    let store = SqliteStore::open_in_memory().unwrap();
    let doc = DocumentInput::new("policy.md", DOC);
    ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    store
}

fn check(store: &SqliteStore, text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let answer = Answer { text: text.into(), tool_calls: vec![], context: None, id: None };
    let report = Checker::default()
        .check_with_store(&Request { answer: &answer, question: None, output_id: None }, store, &Vocabulary::builtin(), None)
        .unwrap();
    report
        .claims
        .iter()
        .map(|c| {
            for e in &c.support_edges {
                let quoted: String = DOC.chars().skip(e.selector.start).take(e.selector.end - e.selector.start).collect();
                assert_eq!(quoted, e.selector.exact, "{}: quote is not exact", e.edge_id);
            }
            let edges = c.support_edges.iter().map(|e| (e.relationship.as_str().to_string(), e.selector.exact.clone())).collect();
            (c.status.as_str().to_string(), edges)
        })
        .collect()
}

#[test]
fn another_duration_for_the_same_fact_contradicts() {
    let s = store();
    let got = check(&s, "Session tokens expire after 45 minutes of inactivity.");
    assert_eq!(got[0].0, "contradicted", "{got:?}");
    assert!(got[0].1.iter().any(|(rel, quote)| rel == "contradicts" && quote.contains("30 minutes")), "{got:?}");
}

#[test]
fn the_same_fact_in_other_words_is_supported() {
    let s = store();
    let got = check(&s, "Session tokens expire after half an hour of inactivity.");
    assert_eq!(got[0].0, "supported", "{got:?}");
    let got = check(&s, "Session tokens expire after 30 minutes.");
    assert_eq!(got[0].0, "supported", "{got:?}");
}

#[test]
fn a_fact_the_store_denies_is_contradicted() {
    let s = store();
    let got = check(&s, "Guest accounts require approval.");
    assert_eq!(got[0].0, "contradicted", "{got:?}");
}

#[test]
fn retrieval_quotes_point_into_the_document_not_the_chunk() {
    let s = store();
    // "Audit logs …" sits past the first chunk boundary only if chunks are small; either way
    // the selector's offsets are document offsets (checked in `check`).
    let got = check(&s, "Audit logs are retained for 90 days.");
    assert_eq!(got[0].0, "supported", "{got:?}");
}

/// The fact signals alone (no sentence alignment): they decide from the store's facts.
#[test]
fn fact_signals_on_their_own() {
    use warrant_check::apply_fact_signals;
    use warrant_graph::{Modality, Span};
    use warrant_verify::{ClaimResult, Status};
    let s = store();
    let claim = |text: &str| ClaimResult {
        claim_id: "c1".into(),
        text: text.into(),
        span: Span { start: 0, end: text.chars().count() as u64 },
        modality: Modality::Factual,
        status: Status::Unsupported,
        confidence: 0.5,
        support_edges: Vec::new(),
        reason: "no source states the claim".into(),
        second_opinion: None,
        features: None,
    };
    let mut claims = vec![
        claim("Session tokens expire after 1800 seconds."),
        claim("Session tokens expire after 2 hours."),
        claim("Guest accounts require approval."),
        // Read by the attribute layer (`attr.retained_for`), which no vocabulary predicate covers.
        claim("Audit logs are retained for 90 days."),
        // Nothing stored about backups: looked and not found.
        claim("Backups are retained for 30 days."),
    ];
    apply_fact_signals(&s, &Vocabulary::builtin(), &mut claims, None).unwrap();
    let got: Vec<(&str, Vec<&str>)> =
        claims.iter().map(|c| (c.status.as_str(), c.support_edges.iter().map(|e| e.relationship.as_str()).collect())).collect();
    assert_eq!(
        got,
        [
            ("supported", vec!["supports"]),
            ("contradicted", vec!["contradicts"]),
            ("contradicted", vec!["contradicts"]),
            ("supported", vec!["supports"]),
            ("unsupported", vec![]),
        ]
    );
    assert!(claims[1].reason.contains("session_token"), "{}", claims[1].reason);
    let e = &claims[0].support_edges[0];
    let quoted: String = DOC.chars().skip(e.selector.start).take(e.selector.end - e.selector.start).collect();
    assert_eq!(quoted, e.selector.exact);
    assert!(e.selector.exact.contains("30 minutes"), "{}", e.selector.exact);
}

/// In a large store the same subject and predicate in an unrelated document is another fact:
/// with a retrieval scope only the claim's own chunks count.
#[test]
fn a_scope_keeps_unrelated_documents_out() {
    use warrant_check::apply_fact_signals;
    use warrant_graph::{Modality, Span};
    use warrant_verify::{ClaimResult, Status};
    let store = SqliteStore::open_in_memory().unwrap();
    let doc = |id: &str, text: &str| DocumentInput::new(id, text);
    let docs = vec![
        doc("atlas.md", "Atlas security. Session tokens expire after 30 minutes."),
        doc("borealis.md", "Borealis kiosk mode. Session tokens expire after 2 hours."),
    ];
    ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    let text = "Session tokens expire after 30 minutes.";
    let claim = || ClaimResult {
        claim_id: "c1".into(),
        text: text.into(),
        span: Span { start: 0, end: 10 },
        modality: Modality::Factual,
        status: Status::Unsupported,
        confidence: 0.5,
        support_edges: Vec::new(),
        reason: String::new(),
        second_opinion: None,
        features: None,
    };
    let mut everywhere = vec![claim()];
    apply_fact_signals(&store, &Vocabulary::builtin(), &mut everywhere, None).unwrap();
    assert_eq!(everywhere[0].status, Status::Contradicted, "the Borealis fact conflicts without a scope");
    let mut scoped = vec![claim()];
    let scope = warrant_check::retrieve(&store, &[text], None, 1).unwrap().scope;
    apply_fact_signals(&store, &Vocabulary::builtin(), &mut scoped, Some(&scope)).unwrap();
    assert_eq!(scoped[0].status, Status::Supported, "{:?}", scoped[0]);
    assert!(scoped[0].support_edges.iter().all(|e| e.source_id == "atlas.md"));
}
