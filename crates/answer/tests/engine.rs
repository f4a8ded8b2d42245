//! Behaviour of the answer engine on small stores: ranking and its tie-breakers, limits,
//! polarity, cardinality, derived facts and conflicts, versions, ambiguity, and derivation
//! that always terminates (cycles, depth bound, random graphs checked against BFS).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, VecDeque};

use proptest::prelude::*;
use serde_json::{Value, json};
use warrant_answer::ChainRole;
use warrant_answer::{Answerer, AskOptions, QueryPlan, RuleLibrary, Verdict, check_chain};
use warrant_facts::{Fact, Vocabulary};
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, Store, ingest};

fn doc(id: &str, version: &str, text: &str) -> DocumentInput {
    DocumentInput {
        id: id.into(),
        text: text.into(),
        version: Some(version.into()),
        title: None,
        metadata: None,
        origin: id.into(),
    }
}

fn store_of(docs: Vec<DocumentInput>) -> SqliteStore {
    let store = SqliteStore::open_in_memory().unwrap();
    let s = ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(s.rejected_facts, 0);
    store
}

fn manual_store(facts: &[Value]) -> SqliteStore {
    let store = SqliteStore::open_in_memory().unwrap();
    let facts: Vec<Fact> = facts.iter().map(|v| Fact::from_manual_json(v).unwrap()).collect();
    store.write(&mut std::iter::empty(), &facts, &mut |_| {}).unwrap();
    store
}

fn edge(a: &str, b: &str) -> Value {
    json!({"subject": a, "predicate": "requires", "object": b, "qualifiers": {"version": "1"}, "source": {"docId": "g", "chunkId": "c1"}})
}

#[test]
fn multi_valued_answers_follow_source_order_and_limits() {
    // Ten paragraphs: chunk 10 must come after chunk 9 (positions, never strings).
    let text: Vec<String> = (1..=10).map(|k| format!("The gateway requires the service{k}.")).collect();
    let store = store_of(vec![doc("gw", "1.0", &text.join("\n\n"))]);
    let a = Answerer::new(&store).ask("What does the gateway require?").unwrap();
    let expected: Vec<String> = (1..=10).map(|k| format!("service{k}")).collect();
    assert_eq!(a.text.as_deref(), Some(expected.join(", ").as_str()));
    assert_eq!(a.chunks_used, ["gw#1", "gw#2", "gw#3", "gw#4", "gw#5"], "limitChunks = 5, in chain order");
    let opts = AskOptions { limit_facts: 3, limit_chunks: 2, ..AskOptions::default() };
    let a = Answerer::with(&store, Vocabulary::builtin(), RuleLibrary::builtin(), opts)
        .ask("What does the gateway require?")
        .unwrap();
    assert_eq!(a.text.as_deref(), Some("service1, service2, service3"));
    assert_eq!(a.chunks_used, ["gw#1", "gw#2"]);
    assert!(a.diagnostics.iter().any(|d| d.contains("limitFacts")), "{:?}", a.diagnostics);
}

#[test]
fn ranking_prefers_confidence_then_source_order() {
    let f = |obj: &str, conf: f64, chunk: &str| {
        json!({"subject": "gateway", "predicate": "requires", "object": obj, "confidence": conf,
               "source": {"docId": "d", "chunkId": chunk}})
    };
    let store = manual_store(&[f("low", 0.5, "c1"), f("high", 0.9, "c2"), f("also_high", 0.9, "c3")]);
    let a = Answerer::new(&store).ask("What does the gateway require?").unwrap();
    assert_eq!(a.text.as_deref(), Some("high, also_high, low"));
    let scores: Vec<&Value> = a.fact_chain.iter().map(|e| &a.support_scores[&e.fact_id]).collect();
    assert_eq!(scores, [&json!(0.9), &json!(0.9), &json!(0.5), &json!(0.5)], "the conclusion scores its weakest support");
}

#[test]
fn polarity_negation_and_refusal() {
    let store = store_of(vec![doc("d", "1.0", "Session tokens do not expire after 30 minutes.")]);
    let answerer = Answerer::new(&store);
    let a = answerer.ask("How long before session tokens expire?").unwrap();
    assert_eq!((a.verdict, a.text), (Verdict::Unsupported, None), "a lone negated fact is not an answer");
    let a = answerer.ask("Do session tokens expire after 30 minutes?").unwrap();
    assert_eq!((a.verdict, a.text.as_deref()), (Verdict::Supported, Some("No")));
    assert_eq!(a.fact_chain[0].fact["polarity"], "negate");
    // Nothing stated about 45 minutes either way for a multi-valued predicate: refuse.
    let store = store_of(vec![doc("d", "1.0", "The gateway requires the vault.")]);
    let a = Answerer::new(&store).ask("Does the gateway require the ledger?").unwrap();
    assert_eq!((a.verdict, a.text), (Verdict::Unsupported, None));
}

#[test]
fn derived_facts_do_not_conflict_with_stated_ones_but_premise_groups_do() {
    let store = store_of(vec![doc(
        "d",
        "1.0",
        "The renderer is part of the billing module. The billing module is part of the platform.",
    )]);
    let a = Answerer::new(&store).ask("Is the renderer part of the platform?").unwrap();
    assert_eq!((a.verdict, a.text.as_deref()), (Verdict::Supported, Some("Yes")));
    let roles: Vec<ChainRole> = a.fact_chain.iter().map(|e| e.role).collect();
    assert_eq!(roles, [ChainRole::Premise, ChainRole::Premise, ChainRole::Derived, ChainRole::Conclusion]);
    // A second stated whole for the renderer (functional part_of) puts a premise group in conflict.
    let store = store_of(vec![
        doc("d", "1.0", "The renderer is part of the billing module. The billing module is part of the platform."),
        doc("e", "1.0", "The renderer is part of the print service."),
    ]);
    let a = Answerer::new(&store).ask("Is the renderer part of the platform?").unwrap();
    assert_eq!(a.verdict, Verdict::Conflicting);
    assert_eq!(a.conflicts[0].reason, "object_mismatch");
    assert_eq!(a.text, None);
}

#[test]
fn versions_conditions_and_ambiguity() {
    let store = store_of(vec![
        doc("v1", "1.0", "Session tokens expire after 30 minutes of inactivity."),
        doc(
            "v2",
            "2.0",
            "Session tokens expire after 15 minutes of inactivity. Guest carts expire after 10 minutes of inactivity.",
        ),
    ]);
    let answerer = Answerer::new(&store);
    for q in [
        "How long before session tokens expire in version 2?",
        "How long before session tokens expire in v2.0?",
        "How long before session tokens expire for version 2.0.0?",
    ] {
        assert_eq!(answerer.ask(q).unwrap().text.as_deref(), Some("15 minutes"), "{q}");
    }
    // A plan without subjects whose candidates span several subjects is ambiguous.
    let plan = QueryPlan::from_json(&json!({"version": "2.0", "predicates": ["expires_after"]})).unwrap();
    let a = answerer.answer(&plan).unwrap();
    assert_eq!(a.verdict, Verdict::Unsupported);
    assert!(a.diagnostics[0].starts_with("ambiguous subject"), "{:?}", a.diagnostics);
    // The session rule applies to sessions only, so guest carts do not make it ambiguous.
    let a = answerer.ask("If a user is inactive for 12 minutes in v2.0, is their session valid?").unwrap();
    assert_eq!(a.text.as_deref(), Some("Yes"));
}

#[test]
fn derivation_terminates_on_cycles_and_respects_the_depth_bound() {
    // a → b → c → a, and a chain of 20 edges n0 → … → n20.
    let mut facts = vec![edge("a", "b"), edge("b", "c"), edge("c", "a")];
    facts.extend((0..20).map(|i| edge(&format!("n{i}"), &format!("n{}", i + 1))));
    let store = manual_store(&facts);
    let answerer = Answerer::new(&store);
    let yes_no = |a: &str, b: &str, depth: usize| {
        let opts = AskOptions { max_depth: depth, ..AskOptions::default() };
        let answerer = Answerer::with(&store, Vocabulary::builtin(), RuleLibrary::builtin(), opts);
        let plan = QueryPlan::from_json(&json!({"goal": {"subject": a, "predicate": "requires", "object": b}})).unwrap();
        answerer.answer(&plan).unwrap()
    };
    assert_eq!(yes_no("a", "a", 5).text.as_deref(), Some("Yes"), "around the cycle");
    assert_eq!(yes_no("a", "z", 5).verdict, Verdict::Unsupported, "unreachable: terminates and refuses");
    // Depth d proves chains of up to 2^(d-1) edges: 16 at the default 5, so 20 needs 6.
    assert_eq!(yes_no("n0", "n16", 5).text.as_deref(), Some("Yes"));
    assert_eq!(yes_no("n0", "n20", 5).verdict, Verdict::Unsupported);
    let a = yes_no("n0", "n20", 6);
    assert_eq!(a.text.as_deref(), Some("Yes"));
    check_chain(&a.to_json(), &store, answerer.rules(), &BTreeMap::new(), Some(20)).unwrap();
    // What does a require (transitively, through the cycle)?
    let a = answerer.ask("What does a require?").unwrap();
    assert_eq!(a.text.as_deref(), Some("b, c, a"));
}

/// Reachability within `hops` edges (BFS).
fn reachable(edges: &[(usize, usize)], from: usize, to: usize, hops: usize) -> bool {
    let mut dist = BTreeMap::from([(from, 0usize)]);
    let mut q = VecDeque::from([from]);
    while let Some(n) = q.pop_front() {
        let d = dist[&n];
        for &(x, y) in edges {
            if x == n && !dist.contains_key(&y) {
                if y == to && d < hops {
                    return true;
                }
                dist.insert(y, d + 1);
                q.push_back(y);
            } else if x == n && y == to && d < hops {
                return true;
            }
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// On random graphs (cycles included), every proof is a valid chain over real edges
    /// (sound), every pair within 5 edges is proved (complete up to the bound), and
    /// derivation always returns.
    #[test]
    fn transitive_requires_is_sound_and_complete_within_bounds(
        edges in prop::collection::vec((0usize..8, 0usize..8), 0..20),
        from in 0usize..8,
        to in 0usize..8,
    ) {
        let facts: Vec<Value> = edges.iter().map(|(a, b)| edge(&format!("m{a}"), &format!("m{b}"))).collect();
        let store = manual_store(&facts);
        let answerer = Answerer::new(&store);
        let plan = QueryPlan::from_json(&json!({"goal": {"subject": format!("m{from}"), "predicate": "requires", "object": format!("m{to}")}})).unwrap();
        let a = answerer.answer(&plan).unwrap();
        let path = reachable(&edges, from, to, 16);
        match a.verdict {
            Verdict::Supported => {
                prop_assert!(path, "proved without a path: {}", a.to_json());
                check_chain(&a.to_json(), &store, answerer.rules(), &BTreeMap::new(), None).unwrap();
            }
            Verdict::Unsupported => prop_assert!(!reachable(&edges, from, to, 5), "missed a path of ≤ 5 edges"),
            Verdict::Conflicting => prop_assert!(false, "requires facts never conflict here"),
        }
    }
}
