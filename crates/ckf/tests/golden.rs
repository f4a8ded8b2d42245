//! Golden packages (a FAQ, a JSONL policy set, a Markdown runbook, a normative text), byte-level
//! determinism, the locality of edits, and the invariants on every golden.
//!
//! `WARRANT_BLESS=1 cargo test -p warrant-ckf --test golden` rewrites the golden files
//! (`warrant_testkit::golden`).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;

use common::{assert_invariants, fixture, spans, to_value};
use serde_json::Value;
use warrant_ckf::Package;
use warrant_ckf::normalize;
use warrant_ckf::{Options, SourceInput, compile};
use warrant_ckf::{to_json, to_markdown, to_yaml};
use warrant_testkit::assert_golden;

const FIXTURES: [&str; 4] = ["faq.md", "policies.jsonl", "runbook.md", "statute.txt"];

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name)
}

fn compile_fixture(name: &str) -> (Package, String) {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let p = compile(&[SourceInput { name, bytes: text.as_bytes() }], &Options::default()).unwrap().package;
    (p, text)
}

fn check_golden(file: &str, actual: &str) {
    assert_golden(golden(file), actual);
}

#[test]
fn golden_packages() {
    for name in FIXTURES {
        let (p, text) = compile_fixture(name);
        check_golden(&format!("{name}.ckf.json"), &to_json(&p).unwrap());
        assert_invariants(&p, &spans(name, &text));
    }
    let (runbook, _) = compile_fixture("runbook.md");
    check_golden("runbook.md.ckf.md", &to_markdown(&runbook).unwrap());
    let (statute, _) = compile_fixture("statute.txt");
    check_golden("statute.txt.ckf.yaml", &to_yaml(&statute).unwrap());
}

#[test]
fn compiling_twice_gives_identical_bytes() {
    for name in FIXTURES {
        let (a, _) = compile_fixture(name);
        let (b, _) = compile_fixture(name);
        assert_eq!(to_json(&a).unwrap(), to_json(&b).unwrap(), "{name}");
        assert_eq!(to_yaml(&a).unwrap(), to_yaml(&b).unwrap(), "{name}");
        assert_eq!(to_markdown(&a).unwrap(), to_markdown(&b).unwrap(), "{name}");
    }
}

/// True when an excerpt quotes part of a paragraph (20 characters in common, or contains it).
fn touches(excerpt: &str, paragraph: &str) -> bool {
    if paragraph.contains(excerpt) || excerpt.contains(paragraph) {
        return true;
    }
    let words: Vec<&str> = paragraph.split(' ').collect();
    (0..words.len()).any(|i| {
        let mut w = String::new();
        for x in &words[i..] {
            if !w.is_empty() {
                w.push(' ');
            }
            w.push_str(x);
            if w.chars().count() >= 20 {
                break;
            }
        }
        w.chars().count() >= 20 && excerpt.contains(&w)
    })
}

/// Items keyed by id, as JSON, with whether they quote the paragraph.
fn items(p: &Package, paragraph: &str) -> Vec<(String, String, bool)> {
    let v = to_value(p);
    let mut out = Vec::new();
    for it in p.items() {
        let touched = it.trace.evidence.iter().any(|e| touches(&e.excerpt, paragraph));
        let json = v[it.section.key()].as_array().unwrap().iter().find(|x| x["id"] == it.id.as_str()).unwrap().to_string();
        out.push((it.id.clone(), json, touched));
    }
    out
}

#[test]
fn editing_one_paragraph_changes_only_its_items() {
    let text = std::fs::read_to_string(fixture("runbook.md")).unwrap();
    let old_par = "If the migration fails, roll back with `migrate --rollback` and restore the snapshot only if the rollback also fails. Skipping the snapshot causes long outages, which in turn leads to missed service-level objectives.";
    let new_par = "If the migration fails, roll back with `migrate --rollback --force` and page the database owner. Skipping the snapshot causes long outages and angry customers, which in turn leads to missed service-level objectives.";
    assert!(text.contains(old_par));
    let edited = text.replace(old_par, new_par);
    let a = compile(&[SourceInput { name: "runbook.md", bytes: text.as_bytes() }], &Options::default()).unwrap().package;
    let b = compile(&[SourceInput { name: "runbook.md", bytes: edited.as_bytes() }], &Options::default()).unwrap().package;
    let (old_items, new_items) = (items(&a, &normalize(old_par)), items(&b, &normalize(new_par)));
    let mut changed = 0;
    for (id, json, touched) in &old_items {
        if *touched {
            changed += 1;
            continue;
        }
        let same = new_items.iter().any(|(i, j, _)| i == id && j == json);
        assert!(same, "item {id} does not quote the edited paragraph but changed:\n{json}");
    }
    for (id, json, touched) in &new_items {
        if !*touched {
            assert!(
                old_items.iter().any(|(i, j, _)| i == id && j == json),
                "item {id} appeared without quoting the edit:\n{json}"
            );
        }
    }
    assert!(changed > 0, "the edited paragraph had items");
    // Everything outside the items is metadata, audits and traceability rows; the rows of
    // unchanged items keep their excerpts.
    let rows = |p: &Package| -> Vec<(String, String)> {
        p.source_traceability.iter().map(|r| (r.extracted_item_id.clone(), r.source_excerpt.clone())).collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    for (id, _, touched) in &old_items {
        if !touched {
            let x: Vec<_> = ra.iter().filter(|r| &r.0 == id).collect();
            let y: Vec<_> = rb.iter().filter(|r| &r.0 == id).collect();
            assert_eq!(x, y, "{id}");
        }
    }
}

#[test]
fn goldens_validate_in_every_encoding() {
    for name in FIXTURES {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(golden(&format!("{name}.ckf.json"))).unwrap()).unwrap();
        let r = warrant_ckf::check(&v, warrant_ckf::Mode::Write);
        assert!(r.errors.is_empty() && r.warnings.is_empty(), "{name}: {:?} {:?}", r.errors, r.warnings);
    }
    for file in ["runbook.md.ckf.md", "statute.txt.ckf.yaml"] {
        let v = warrant_ckf::parse_any(&std::fs::read_to_string(golden(file)).unwrap()).unwrap();
        assert!(warrant_ckf::check(&v, warrant_ckf::Mode::Write).errors.is_empty(), "{file}");
    }
}
