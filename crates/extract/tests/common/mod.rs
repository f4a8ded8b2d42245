//! Shared checks for extraction tests.

#![allow(dead_code, clippy::unwrap_used)]

use warrant_graph::{PredicateGraph, SourceType, check_graph};

/// Asserts a graph is schema-valid with zero lint warnings, and that every span points at the
/// node's own text (claims, entities, code) or at text containing it (operations, citations,
/// acts).
pub fn assert_faithful(g: &PredicateGraph) {
    let v = serde_json::to_value(g).unwrap();
    let r = check_graph(v);
    assert!(r.errors.is_empty(), "{}: errors {:?}", g.output_id, r.errors);
    assert!(r.warnings.is_empty(), "{}: lint warnings {:?}\ntext: {:?}", g.output_id, r.warnings, g.text);
    for e in &g.entities {
        assert_eq!(g.slice(e.span), e.text, "{}: entity {}", g.output_id, e.id);
        assert!(!e.text.is_empty());
    }
    for c in &g.claims {
        assert_eq!(g.slice(c.span), c.text, "{}: claim {}", g.output_id, c.id);
        assert!(!c.text.trim().is_empty());
    }
    for cb in &g.code_blocks {
        assert_eq!(g.slice(cb.span), cb.code, "{}: code block {}", g.output_id, cb.id);
    }
    for op in &g.operations {
        let under = g.slice(op.span);
        // The stated result's significant digits appear in the span (`.6` is written for 0.6).
        let sig: String =
            op.result.to_string().chars().filter(char::is_ascii_digit).collect::<String>().trim_start_matches('0').to_string();
        let span_digits: String = under.chars().filter(|c| c.is_ascii_digit() || c.is_whitespace()).collect();
        assert!(span_digits.split_whitespace().any(|_| true) || sig.is_empty(), "{}: op {} span {under:?}", g.output_id, op.id);
        let compact: String = under.chars().filter(char::is_ascii_digit).collect();
        assert!(compact.contains(&sig), "{}: op {} span {under:?} lacks result {}", g.output_id, op.id, op.result);
    }
    for t in &g.tool_calls {
        assert!(g.slice(t.span).contains(&t.name), "{}: tool call {}", g.output_id, t.id);
    }
    for c in &g.citations {
        let under = g.slice(c.span.unwrap());
        assert!(!under.is_empty());
        if c.source.kind == SourceType::Url && !under.starts_with('[') {
            assert!(under.contains(&c.source.value), "{}: citation {} {under:?}", g.output_id, c.id);
        }
    }
    for a in &g.discourse_acts {
        assert!(!g.slice(a.span).trim().is_empty(), "{}: act {}", g.output_id, a.id);
    }
}
