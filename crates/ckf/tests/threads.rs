//! The parallel stages change nothing: compiling the same sources twice, and with 1, 2 or 3
//! threads, gives the same package bytes (JSON, YAML and Markdown) and the same report.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "../benches/corpus.rs"]
mod corpus;

use std::path::PathBuf;

use warrant_ckf::{Options, SourceInput, compile};
use warrant_ckf::{to_json, to_markdown, to_yaml};

/// Every encoding of the package plus the compile report, for one thread count.
fn outputs(sources: &[(String, Vec<u8>)], threads: usize) -> (String, String, String, String) {
    let inputs: Vec<SourceInput<'_>> = sources.iter().map(|(n, b)| SourceInput { name: n, bytes: b }).collect();
    let r = compile(&inputs, &Options { threads, ..Options::default() }).unwrap();
    (
        to_json(&r.package).unwrap(),
        to_yaml(&r.package).unwrap(),
        to_markdown(&r.package).unwrap(),
        serde_json::to_string_pretty(&r).unwrap(),
    )
}

fn assert_same_for_any_threads(label: &str, sources: &[(String, Vec<u8>)]) {
    let one = outputs(sources, 1);
    assert!(one.0.len() > 1000, "{label}: the package is not trivial");
    assert_eq!(one, outputs(sources, 1), "{label}: compiling twice differs");
    for threads in [2, 3, 0] {
        let many = outputs(sources, threads);
        assert!(one.0 == many.0, "{label}: JSON differs with {threads} threads");
        assert!(one.1 == many.1, "{label}: YAML differs with {threads} threads");
        assert!(one.2 == many.2, "{label}: Markdown differs with {threads} threads");
        assert!(one.3 == many.3, "{label}: the compile report differs with {threads} threads");
    }
}

#[test]
fn generated_handbook_is_byte_identical_for_any_thread_count() {
    let text = corpus::corpus(96 * 1024);
    assert_same_for_any_threads("handbook", &[("handbook.md".to_string(), text.into_bytes())]);
}

#[test]
fn fixtures_one_by_one_and_together_are_byte_identical_for_any_thread_count() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut all = Vec::new();
    for name in ["faq.md", "policies.jsonl", "runbook.md", "statute.txt"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let source = (name.to_string(), bytes);
        assert_same_for_any_threads(name, std::slice::from_ref(&source));
        all.push(source);
    }
    // Several sources: spans and chunks are numbered package-wide across documents.
    all.push(("handbook.md".to_string(), corpus::corpus(24 * 1024).into_bytes()));
    assert_same_for_any_threads("all sources", &all);
}
