//! The §11 benchmark cases (../shared/data/ckf/benchmarks): compile every case's source and
//! check that each necessary fragment has a typed, explicit item quoting it — nearly always in a
//! rule-bearing section (rules, exceptions, principles, …), not only as an atomic unit; check
//! that package readers decline both projection shapes and that `validate` accepts their
//! projection shape.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::PathBuf;

use regex::Regex;
use serde_json::Value;
use warrant_ckf::normalize;
use warrant_ckf::tokens;
use warrant_ckf::{Basis, Item, Package, Section};
use warrant_ckf::{Mode, ReadError, Shape, check, read_package};
use warrant_ckf::{Options, SourceInput, compile};

fn load_cases(set: &str) -> Option<Vec<(PathBuf, Value)>> {
    let dir = warrant_testkit::data_dir("ckf")?.join("benchmarks").join(set).join("ckf/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    Some(files.into_iter().map(|p| (p.clone(), warrant_testkit::read_json(&p))).collect())
}

fn compile_text(name: &str, text: &str) -> Package {
    compile(&[SourceInput { name, bytes: text.as_bytes() }], &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .package
}

/// Sections whose items carry a rule, exception or step (the typed knowledge a fragment needs).
const TYPED: [Section; 11] = [
    Section::Principles,
    Section::Heuristics,
    Section::DecisionRules,
    Section::Procedures,
    Section::AntiPatterns,
    Section::CausalChains,
    Section::ContextualTriggers,
    Section::IfThenRules,
    Section::Exceptions,
    Section::Playbooks,
    Section::Patterns,
];

/// True when an explicit item quotes the fragment. The annotated text paraphrases a few words
/// of the raw source ("Second, a signed …" → "A signed …"), so an excerpt counts when at least
/// 80% of its tokens are the fragment's (or the fragment's are the excerpt's).
fn quotes(it: &Item, fragment: &str) -> bool {
    let f = tokens(fragment);
    it.trace.basis == Basis::Explicit
        && it.trace.evidence.iter().any(|e| {
            let x = tokens(&e.excerpt);
            let inter = x.iter().filter(|t| f.contains(t)).count() as f64;
            !x.is_empty() && (inter / x.len() as f64 >= 0.8 || inter / f.len().max(1) as f64 >= 0.8)
        })
}

#[test]
fn every_necessary_fragment_has_a_typed_explicit_item() {
    let Some(cases) = load_cases("09-composition-hallucination-benchmark") else { return };
    assert_eq!(cases.len(), 40);
    let tag = Regex::new(r#"(?s)<(\w+) id="(\w+)"[^>]*>(.*?)</\w+>"#).unwrap();
    let any_tag = Regex::new(r"</?\w+[^>]*>").unwrap();
    let (mut fragments, mut typed, mut atomic_only) = (0, 0, 0);
    let mut missing = Vec::new();
    for (path, case) in &cases {
        let name = path.file_name().unwrap().to_string_lossy().replace(".ckf.json", ".txt");
        let excerpts = case["knowledge_units"]["source_excerpts"].as_array().unwrap();
        let raw = excerpts.iter().find(|e| e["id"] == "raw").unwrap()["text"].as_str().unwrap();
        let annotated = excerpts.iter().find(|e| e["id"] == "annotated").unwrap()["text"].as_str().unwrap();
        let package = compile_text(&name, raw);
        let v: Value = serde_json::from_str(&warrant_ckf::to_json(&package).unwrap()).unwrap();
        let report = check(&v, Mode::Write);
        assert!(report.errors.is_empty(), "{name}: {:?}", report.errors);
        for f in case["source_traceability"]["necessary_fragments"].as_array().unwrap() {
            let id = f["description"].as_str().unwrap().split_whitespace().next().unwrap();
            let Some(c) = tag.captures_iter(annotated).find(|c| &c[2] == id) else { continue };
            // Nested tags inside a fragment are part of its text.
            let text = normalize(&any_tag.replace_all(&c[3], ""));
            fragments += 1;
            let by_typed = TYPED.iter().any(|s| package.section(*s).iter().any(|it| quotes(it, &text)));
            let by_atomic = package.section(Section::AtomicUnits).iter().any(|it| quotes(it, &text));
            if by_typed {
                typed += 1;
            } else if by_atomic {
                atomic_only += 1;
            } else {
                missing.push(format!("{name} {id}: {text}"));
            }
        }
    }
    eprintln!(
        "fragments {fragments}: in a rule-bearing section {typed}, in an atomic unit only {atomic_only}, missing {}",
        missing.len()
    );
    for m in &missing {
        eprintln!("  missing: {m}");
    }
    // Every fragment is quoted by an explicit item; nearly all by a rule-bearing one.
    assert!(missing.is_empty());
    // 110 of 115 at the time of writing; the rest are plain descriptions ("Loans are offered up
    // to $20,000 …") that only an atomic unit quotes.
    assert!(typed * 100 >= fragments * 95, "{typed} of {fragments} fragments in rule-bearing sections");
}

#[test]
fn portuguese_cases_compile_in_portuguese() {
    let Some(cases) = load_cases("education-composition-hallucination-bench") else { return };
    assert_eq!(cases.len(), 20);
    for (path, case) in &cases {
        let raw = case["retrieval_chunks"][0]["text"].as_str().unwrap();
        let name = path.file_name().unwrap().to_string_lossy().replace(".ckf.json", ".txt");
        let p = compile_text(&name, raw);
        assert_eq!(p.metadata.language, "pt-BR", "{name}");
        assert!(p.section(Section::AtomicUnits).len() >= 2, "{name}");
        let v: Value = serde_json::from_str(&warrant_ckf::to_json(&p).unwrap()).unwrap();
        assert!(check(&v, Mode::Write).errors.is_empty(), "{name}");
    }
}

#[test]
fn projections_validate_as_projections_and_readers_decline_them() {
    for set in ["09-composition-hallucination-benchmark", "education-composition-hallucination-bench"] {
        let Some(cases) = load_cases(set) else { return };
        for (path, case) in &cases {
            let r = check(case, Mode::Read);
            assert_eq!(r.shape, Shape::BenchmarkProjection, "{}", path.display());
            assert!(r.errors.is_empty(), "{}: {:?}", path.display(), r.errors);
            assert!(matches!(read_package(case), Err(ReadError::BenchmarkProjection(_))));
        }
    }
}

#[test]
fn broken_projections_do_not_validate() {
    let Some(cases) = load_cases("09-composition-hallucination-benchmark") else { return };
    let mut v = cases[0].1.clone();
    v["knowledge_units"].as_object_mut().unwrap().remove("decision_rules");
    assert!(!check(&v, Mode::Read).is_valid());
    let mut v = cases[0].1.clone();
    v["source_traceability"]["necessary_fragments"] = serde_json::json!([{"id": 1}]);
    assert!(!check(&v, Mode::Read).is_valid());
    let Some(edu) = load_cases("education-composition-hallucination-bench") else { return };
    let mut v = edu[0].1.clone();
    v.as_object_mut().unwrap().remove("atomic_units");
    assert!(!check(&v, Mode::Read).is_valid());
    let mut v = edu[0].1.clone();
    v["qa_pairs"][0]["answer"] = serde_json::json!(42);
    assert!(!check(&v, Mode::Read).is_valid());
}
