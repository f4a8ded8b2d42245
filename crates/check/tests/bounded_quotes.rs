//! Issue 17, item 4: a source without sentence ends is read in bounded pieces, so every quote
//! of it is bounded ([`warrant_verify::PIECE`] bytes) and still exact; and a templated
//! source is checked in time linear in its size.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_verify::PIECE;
use warrant_verify::{Corpus, Source};

/// About `bytes` of words with no period, no line break: one "sentence" as the segmenter sees it.
fn no_period_source(bytes: usize) -> String {
    const WORDS: [&str; 16] = [
        "service", "requests", "latency", "gateway", "cache", "answers", "within", "the", "and", "replica", "region", "timeout",
        "retry", "session", "tokens", "expire",
    ];
    let mut out = String::with_capacity(bytes + 16);
    let mut x: u64 = 17;
    while out.len() < bytes {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let r = (x >> 33) as usize;
        if r.is_multiple_of(10) {
            out.push_str(&(r % 1000).to_string());
        } else {
            out.push_str(WORDS[r % WORDS.len()]);
        }
        out.push(' ');
    }
    out
}

#[test]
fn quotes_of_a_source_without_sentence_ends_are_bounded_and_exact() {
    let text = no_period_source(1_500_000);
    let corpus = Corpus::new(vec![Source::new("big", text.clone())]);
    let answer = Answer {
        text: "The gateway answers requests within 120 ms. Session tokens expire after the timeout.".into(),
        tool_calls: vec![],
        context: None,
        id: None,
    };
    let report = Checker::default().check(&Request { answer: &answer, question: None, output_id: None }, &corpus).unwrap();
    let edges: Vec<_> = report.claims.iter().flat_map(|c| &c.support_edges).collect();
    assert!(!edges.is_empty(), "the claims found evidence: {:?}", report.claims);
    for e in edges {
        let s = &e.selector;
        assert!(s.exact.len() <= PIECE, "{} quotes {} bytes", e.edge_id, s.exact.len());
        // Char offsets (decision D21); the text is ASCII, so they are byte offsets too.
        assert_eq!(&text[s.start..s.end], s.exact, "{}: the selector quotes its source exactly", e.edge_id);
    }
    let json = serde_json::to_string(&report.claims).unwrap();
    assert!(json.len() < 8 * 1024, "the claims' report is {} bytes", json.len());
}
