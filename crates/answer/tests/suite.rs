//! The project's own Exp3-format suite (`tests/suite/`): a small versioned platform corpus
//! (two releases, in-release ops notes with contradictions, a third release with conditions)
//! and 69 questions — supported, multi-hop, conflicting, unsupported and adversarial — asked
//! through the planner (and, where the line carries one, as the supplied plan). The corpus is
//! ingested with the pattern extractor, so every premise has a real span.
//!
//! `cargo test -p warrant-answer --test suite -- --nocapture` prints the DS003 metrics that
//! `bench/README.md` records.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::PathBuf;

use warrant_answer::{Answerer, Verdict};
use warrant_answer::{ChainRole, span_names_subject_and_object};
use warrant_answer::{metrics, parse_questions, run_suite};
use warrant_store::read_sources;
use warrant_store::{FactQuery, IngestOptions, SqliteStore, Store, ingest};

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/suite")
}

fn suite_store() -> SqliteStore {
    let store = SqliteStore::open_in_memory().unwrap();
    let set = read_sources(&[suite_dir().join("corpus.json")], None, &mut |_| {}).unwrap();
    let summary = ingest(&store, set.documents, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(summary.rejected_facts, 0, "every corpus sentence that states a fact extracts cleanly");
    store
}

#[test]
fn the_corpus_extracts_the_intended_facts() {
    let store = suite_store();
    let stats = store.stats().unwrap();
    assert_eq!(stats.documents, 4);
    assert_eq!(stats.total_facts, 55, "{stats:?}");
    // Predicate coverage (§16.4): every stored fact is in the vocabulary.
    let vocab = warrant_facts::Vocabulary::builtin();
    assert!(store.facts(&FactQuery::all()).unwrap().iter().all(|f| vocab.contains(&f.predicate)));
    let negated = store.facts(&FactQuery::subject_predicate("webhook", "requires")).unwrap();
    let polarities: Vec<&str> = negated.iter().map(|f| f.polarity.as_str()).collect();
    assert_eq!(polarities, ["negate", "affirm", "negate"]);
}

#[test]
fn the_suite_meets_every_ds003_gate() {
    let store = suite_store();
    let answerer = Answerer::new(&store);
    let questions = parse_questions(&std::fs::read_to_string(suite_dir().join("questions.jsonl")).unwrap()).unwrap();
    assert!(questions.len() >= 40);
    let count = |c: &str| questions.iter().filter(|q| q.categories.iter().any(|x| x == c)).count();
    for c in ["supported", "unsupported", "adversarial", "conflicting", "multihop"] {
        assert!(count(c) >= 5, "category {c}: {}", count(c));
    }
    let results = run_suite(&answerer, &store, &questions).unwrap();
    let scored: Vec<_> = results.iter().map(|(s, _)| s.clone()).collect();
    let m = metrics(&scored);
    println!(
        "{} questions ({} supported, {} multihop, {} conflicting, {} unsupported, {} adversarial), {} answers with the supplied plans",
        questions.len(),
        count("supported"),
        count("multihop"),
        count("conflicting"),
        count("unsupported"),
        count("adversarial"),
        results.len()
    );
    println!("{}", m.table());
    println!("overall: {}/{} answers match verdict, text and refusal", m.overall, m.answers);
    let chains = scored.iter().filter(|s| s.chain_valid.is_some()).count();
    println!("chains produced (supported answers with a derived entry): {chains}");
    let wrong: Vec<String> = scored
        .iter()
        .filter(|s| !s.overall || !s.contract_ok || s.chain_valid == Some(false))
        .map(|s| {
            format!(
                "{} ({:?}): expected {} {:?}, got {} {:?} {}",
                s.id,
                s.mode,
                s.expected,
                s.expected_answer,
                s.verdict,
                s.text,
                s.note.clone().unwrap_or_default()
            )
        })
        .collect();
    for w in &wrong {
        println!("MISMATCH {w}");
    }
    assert!(m.passes(), "{}", m.table());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Must hold: every supported answer's chain is checkable — each premise is in the store,
/// unchanged, with a span whose text names its subject and its object.
#[test]
fn every_supported_chain_points_at_text_naming_subject_and_object() {
    let store = suite_store();
    let answerer = Answerer::new(&store);
    let questions = parse_questions(&std::fs::read_to_string(suite_dir().join("questions.jsonl")).unwrap()).unwrap();
    let mut checked = 0;
    for (s, a) in run_suite(&answerer, &store, &questions).unwrap() {
        if a.verdict != Verdict::Supported {
            continue;
        }
        assert_eq!(a.fact_chain.last().map(|e| e.role), Some(ChainRole::Conclusion), "{}", s.id);
        for e in a.fact_chain.iter().filter(|e| e.role == ChainRole::Premise) {
            let fact = store.fact(&e.fact_id).unwrap().unwrap_or_else(|| panic!("{}: premise {} not stored", s.id, e.fact_id));
            assert_eq!(fact.to_json(true), e.fact, "{}: premise {} differs from the store", s.id, e.fact_id);
            let chunk = store.chunk(&fact.source.chunk_id).unwrap().unwrap();
            assert!(
                span_names_subject_and_object(&fact, &chunk.text),
                "{}: span {:?} of {} does not name {} and {}",
                s.id,
                fact.span,
                fact.source.chunk_id,
                fact.subject,
                fact.object
            );
            assert!(a.chunks_used.contains(&fact.source.chunk_id) || a.chunks_used.len() == 5, "{}", s.id);
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} premises checked");
}

#[test]
fn answers_are_deterministic() {
    let questions = parse_questions(&std::fs::read_to_string(suite_dir().join("questions.jsonl")).unwrap()).unwrap();
    let render = || {
        let store = suite_store();
        let answerer = Answerer::new(&store);
        questions.iter().map(|q| answerer.ask(&q.question).unwrap().to_json().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(render(), render());
}
