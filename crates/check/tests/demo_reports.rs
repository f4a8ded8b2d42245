//! The README's demo, `warrant check --sources examples/check/sources examples/check/answer.md`
//! (run from the workspace root), as insta snapshots of its three reports: text, JSON and HTML.
//! The report is built the way the CLI and `POST /v1/check` build it (the sources ingested into
//! an in-memory store under their paths as ids, then checked against their whole documents), so
//! the snapshots hold what a user of the demo sees (byte for byte what the CLI printed when
//! they were written).
//!
//! After a deliberate change to a report: `INSTA_UPDATE=always cargo test -p warrant-check
//! --test demo_reports` (or `cargo insta review`), then review the `.snap` diff. See
//! `warrant_testkit` for golden files and snapshots.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use warrant_check::{Checker, Gate, Report, Request};
use warrant_check::{html, text};
use warrant_extract::{DEFAULT_MAX_BYTES, InputFormat, parse_input};
use warrant_facts::Vocabulary;
use warrant_store::DocumentInput;
use warrant_testkit::workspace_root;

/// The demo's report.
fn demo() -> Report {
    let root = workspace_root();
    let answer = std::fs::read_to_string(root.join("examples/check/answer.md")).unwrap();
    let answer = parse_input(&answer, InputFormat::Auto, DEFAULT_MAX_BYTES).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(root.join("examples/check/sources"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["pricing.md", "security.md", "support.md"], "the demo's sources");
    let docs = names
        .iter()
        .map(|n| {
            let id = format!("examples/check/sources/{n}");
            DocumentInput { origin: id.clone(), ..DocumentInput::new(&id, std::fs::read_to_string(root.join(&id)).unwrap()) }
        })
        .collect();
    let store = warrant_check::ingest_documents(docs).unwrap();
    let corpus = warrant_check::corpus_of_documents(&store).unwrap();
    let req = Request { answer: &answer, question: None, output_id: None };
    Checker::default().check_with_store(&req, &store, &Vocabulary::builtin(), Some(&corpus)).unwrap()
}

#[test]
fn the_demo_reports_are_unchanged() {
    let report = demo();
    // What the demo is for: a contradicted price blocks the answer.
    assert_eq!(report.gate, Gate::Block);
    insta::assert_snapshot!("demo_text", text::render(&report));
    insta::assert_snapshot!("demo_json", serde_json::to_string_pretty(&report).unwrap());
    insta::assert_snapshot!("demo_html", html::render(&report));
}
