//! The Exp3 suite (../shared/data/vsabrains-exp3): both stages of spec §16.2 — the gold
//! (manual) facts baseline and the pattern extractor — with every question asked as text and
//! as its supplied plan; plus the DS005 worked example.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use warrant_answer::ChainRole;
use warrant_answer::{Answerer, AskOptions, QueryPlan, RuleLibrary, Verdict};
use warrant_answer::{Mode, metrics, parse_questions, run_suite};
use warrant_facts::{Fact, Vocabulary};
use warrant_store::parse_json_records;
use warrant_store::{IngestOptions, SqliteStore, Store, ingest};
use warrant_testkit::{data_dir, read_json};

fn exp3() -> Option<PathBuf> {
    data_dir("vsabrains-exp3").map(|d| d.join("exp3-rag"))
}

fn vocab(dir: &Path) -> Vocabulary {
    let file = Vocabulary::from_json_str(&std::fs::read_to_string(dir.join("predicate_vocabulary.json")).unwrap()).unwrap();
    Vocabulary::builtin().extended(&file).unwrap()
}

/// Stage 1: chunks only, plus the gold facts. Stage 2: the pattern extractor.
fn store(dir: &Path, manual: bool) -> SqliteStore {
    let store = SqliteStore::open_in_memory().unwrap();
    let (docs, errs) = parse_json_records("corpus.json", &std::fs::read_to_string(dir.join("corpus.json")).unwrap(), None);
    assert!(errs.is_empty());
    let facts: Vec<Fact> = if manual {
        read_json(&dir.join("manual_facts.json")).as_array().unwrap().iter().map(|v| Fact::from_manual_json(v).unwrap()).collect()
    } else {
        Vec::new()
    };
    // The suite's vocabulary file replaces `expires_after` with an entry without patterns (it
    // serves LLM extraction and supplied plans), so the pattern extractor runs on the defaults.
    let opts = IngestOptions { extract: !manual, ..IngestOptions::default() };
    ingest(&store, docs, facts, &opts, &mut |_| {}).unwrap();
    store
}

fn expected(id: &str) -> (Verdict, Option<&'static str>) {
    match id {
        "q1" => (Verdict::Supported, Some("15 minutes")),
        "q2" | "q3" => (Verdict::Unsupported, None),
        "q4" => (Verdict::Conflicting, None),
        "q5" => (Verdict::Supported, Some("No")),
        other => panic!("unknown question {other}"),
    }
}

fn check_stage(manual: bool) {
    let Some(dir) = exp3() else { return };
    let store = store(&dir, manual);
    let answerer = Answerer::with(&store, vocab(&dir), RuleLibrary::builtin(), AskOptions::default());
    let questions = parse_questions(&std::fs::read_to_string(dir.join("questions.jsonl")).unwrap()).unwrap();
    assert_eq!(questions.len(), 5);
    let results = run_suite(&answerer, &store, &questions).unwrap();
    assert_eq!(results.len(), 10, "each question as text and as its plan");
    let c2 = if manual { "c2" } else { "spec-auth-v2#1" };
    for (s, a) in &results {
        let (verdict, text) = expected(&s.id);
        assert_eq!((a.verdict, a.text.as_deref()), (verdict, text), "{} as {:?}: {:#}", s.id, s.mode, a.to_json());
        assert!(s.overall && s.contract_ok, "{s:?}");
        match s.id.as_str() {
            "q1" => {
                let roles: Vec<ChainRole> = a.fact_chain.iter().map(|e| e.role).collect();
                assert_eq!(roles, [ChainRole::Premise, ChainRole::Conclusion]);
                assert_eq!(a.fact_chain[0].fact["qualifiers"]["version"], "2.0");
                assert_eq!(a.chunks_used, [c2]);
                assert_eq!(a.fact_chain[1].fact["object"], "15 minutes");
            }
            "q4" => {
                assert_eq!(a.conflicts.len(), 1, "one minimal pair");
                assert_eq!(a.conflicts[0].reason, "version_mismatch");
                let objects: Vec<&Value> = a.fact_chain.iter().map(|e| &e.fact["object"]).collect();
                assert_eq!(objects, [&json!("30 minutes"), &json!("15 minutes")], "both facts as premises in rank order");
                assert!(a.fact_chain.iter().all(|e| e.role == ChainRole::Premise));
                assert_eq!(a.text, None);
                assert_eq!(a.chunks_used.len(), 2);
            }
            "q5" => {
                let roles: Vec<ChainRole> = a.fact_chain.iter().map(|e| e.role).collect();
                assert_eq!(roles, [ChainRole::Premise, ChainRole::Derived, ChainRole::Conclusion]);
                let d = &a.fact_chain[1].fact;
                assert_eq!(
                    (&d["subject"], &d["predicate"], &d["object"]),
                    (&json!("session_token"), &json!("session_expired"), &json!(true))
                );
                assert_eq!(d["rule"], "session_expired_by_inactivity");
                assert_eq!(d["from"], json!([a.fact_chain[0].fact_id]));
                assert_eq!(a.chunks_used, [c2]);
                assert_eq!(s.chain_valid, Some(true), "{:?}", s.note);
            }
            _ => {
                assert!(a.fact_chain.is_empty() && a.chunks_used.is_empty() && a.support_scores.is_empty());
            }
        }
    }
    let m = metrics(&results.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>());
    assert!(m.passes(), "{}", m.table());
    assert_eq!(m.hallucination_rate, Some(0.0));

    // The planner gives the plans of spec §8.3.
    let plan = |q: &str| answerer.plan(q).unwrap().to_json();
    assert_eq!(
        plan(&questions[0].question),
        json!({"version": "v2.0", "subjects": ["session_token"], "predicates": ["expires_after"]})
    );
    assert_eq!(plan(&questions[3].question), json!({"subjects": ["session_token"], "predicates": ["expires_after"]}));
    for q in [&questions[1], &questions[2]] {
        assert!(answerer.plan(&q.question).unwrap().predicates.is_none(), "{}", q.question);
    }
    let q5 = plan(&questions[4].question);
    assert_eq!(q5["version"], "v2.0");
    assert_eq!(q5["params"], json!({"inactivityMinutes": 20}));
    assert_eq!(q5["goal"]["predicate"], "session_expired");
    let _ = Mode::Plan;
}

#[test]
fn exp3_manual_facts_baseline() {
    check_stage(true);
}

#[test]
fn exp3_with_the_pattern_extractor() {
    check_stage(false);
    // §16.2 stage 2: extraction consistency on the first document, R = 3.
    let Some(dir) = exp3() else { return };
    let (docs, _) = parse_json_records("corpus.json", &std::fs::read_to_string(dir.join("corpus.json")).unwrap(), None);
    let runs: Vec<std::collections::BTreeSet<String>> = (0..3)
        .map(|_| {
            let prepared = warrant_store::prepare(&docs[0], &IngestOptions::default());
            prepared.facts.iter().map(|(_, f)| warrant_answer::consistency_key(&f.fact)).collect()
        })
        .collect();
    assert_eq!(runs[0].len(), 2);
    assert_eq!(warrant_answer::jaccard_consistency(&runs), (1.0, 1.0));
}

#[test]
fn ds005_worked_example_session_validity() {
    let Some(dir) = data_dir("vsabrains-exp3") else { return };
    let ex = read_json(&dir.join("spec-examples/ds005_worked_example_session_validity.json"));
    let store = SqliteStore::open_in_memory().unwrap();
    let facts: Vec<Fact> = ex["facts"].as_array().unwrap().iter().map(|v| Fact::from_manual_json(v).unwrap()).collect();
    store.write(&mut std::iter::empty(), &facts, &mut |_| {}).unwrap();
    let answerer = Answerer::new(&store);
    let plan = QueryPlan::from_json(&ex["plan"]).unwrap();
    let from_plan = answerer.answer(&plan).unwrap();
    let from_text = answerer.ask(ex["question"].as_str().unwrap()).unwrap();
    for a in [from_plan, from_text] {
        assert_eq!(a.verdict, Verdict::Supported);
        assert_eq!(a.text.as_deref(), ex["expected"]["text"].as_str());
        assert_eq!(json!(a.chunks_used), ex["expected"]["chunksUsed"]);
        let roles: Vec<Value> = a.fact_chain.iter().map(|e| serde_json::to_value(e.role).unwrap()).collect();
        assert_eq!(json!(roles), ex["expected"]["factChainRoles"]);
        assert_eq!(a.fact_chain[1].fact["predicate"], "session_expired");
        assert_eq!(a.fact_chain[1].fact["subject"], "session_token");
        assert_eq!(a.fact_chain[1].fact["qualifiers"]["version"], "v2.0", "derived qualifiers carry the plan's version");
    }
    // The goal form of the planner example answers directly.
    let goal_form = QueryPlan::from_json(&ex["plannerExample_goalForm"]["plan"]).unwrap();
    let a = answerer.answer(&goal_form).unwrap();
    assert_eq!((a.verdict, a.text.as_deref()), (Verdict::Supported, Some("15 minutes")));
}
