//! Helpers shared by the integration tests.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::Value;
use warrant_ckf::evidence::{NAVIGATION_FIELDS, contains_number, numbers};
use warrant_ckf::normalize;
use warrant_ckf::{Mode, check};
use warrant_ckf::{Options, SourceInput, compile};
use warrant_ckf::{Package, Section};
use warrant_ckf::{ReadOptions, Span, read_source};

/// The path of a fixture.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// Compiles one in-memory source with default options.
pub fn compile_str(name: &str, text: &str) -> Package {
    compile(&[SourceInput { name, bytes: text.as_bytes() }], &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .package
}

/// The package as a JSON value.
pub fn to_value(p: &Package) -> Value {
    serde_json::from_str(&warrant_ckf::to_json(p).unwrap()).unwrap()
}

/// The spans the compiler saw for one source.
pub fn spans(name: &str, text: &str) -> Vec<Span> {
    read_source(name, text.as_bytes(), &ReadOptions::default()).unwrap().spans
}

/// Asserts the must-hold invariants: write-mode validity, verbatim excerpts, and every number an
/// item states inside its excerpts (navigation fields: the span's heading trail; procedures,
/// playbooks and QA answers longer than two excerpts: the span).
pub fn assert_invariants(p: &Package, spans: &[Span]) {
    let v = to_value(p);
    let r = check(&v, Mode::Write);
    assert!(r.errors.is_empty(), "write-mode errors: {:#?}", r.errors);
    let normalized: Vec<String> = spans.iter().map(|s| normalize(&s.text)).collect();
    for it in p.items() {
        assert!(!it.trace.evidence.is_empty(), "{} has no evidence", it.id);
        for e in &it.trace.evidence {
            assert!(e.excerpt.chars().count() <= 240, "{}: excerpt over 240 chars", it.id);
            assert!(normalized[e.span as usize].contains(&e.excerpt), "{}: excerpt not verbatim: {}", it.id, e.excerpt);
        }
        let span_checked = matches!(it.section, Section::Procedures | Section::Playbooks | Section::QaPairs);
        for (field, text) in it.texts() {
            for n in numbers(text) {
                let in_excerpts = it.trace.evidence.iter().any(|e| contains_number(&e.excerpt, n));
                let in_span = it.trace.refs().iter().any(|s| contains_number(&spans[*s as usize].text, n));
                let in_trail = it.trace.refs().iter().any(|s| {
                    let sp = &spans[*s as usize];
                    [&sp.path, &sp.heading, &sp.title].into_iter().flatten().any(|t| contains_number(t, n))
                });
                let ok =
                    in_excerpts || (span_checked && in_span) || (NAVIGATION_FIELDS.contains(&field) && (in_span || in_trail));
                assert!(ok, "{} {field}: number {n} is not in its excerpts", it.id);
            }
        }
    }
}
