//! The model-backed extractors against a fake chat-completions server (no network): valid
//! replies, repaired replies, and every fallback path.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use warrant_extract::{Answer, Options, extract};
use warrant_extract::{LlmFactExtractor, extract_with_llm};
use warrant_facts::{ChunkContext, Consistency, FactExtractor, RejectionCode, Vocabulary, normalized_key};
use warrant_llm::Llm;
use warrant_llm::{HttpClient, HttpSettings};
use warrant_testkit::{FakeLlm, Reply, Rule};

const CHUNK: &str = "Session tokens expire after 30 minutes of inactivity. Maximum session duration is 8 hours.";

fn llm(server: &FakeLlm) -> Llm {
    let s = HttpSettings {
        endpoint: server.url(),
        model: "fake-model".into(),
        api_key: None,
        timeout: Duration::from_millis(300),
        max_retries: 1,
        backoff: Duration::from_millis(1),
        concurrency: 2,
    };
    Llm::new(Arc::new(HttpClient::new(s).unwrap()))
}

fn expiry_fact() -> Value {
    json!({"span": {"start": 0, "end": 52}, "subject": "session_token", "predicate": "expires_after",
           "object": "30 minutes", "qualifiers": {"condition": "inactivity"}, "polarity": "affirm", "confidence": 0.9})
}

fn summary(x: &warrant_facts::Extraction) -> Vec<(String, String, String, Option<String>)> {
    x.facts
        .iter()
        .map(|f| {
            let f = &f.fact;
            (f.subject.clone(), f.predicate.clone(), f.object.to_string(), f.condition().map(str::to_string))
        })
        .collect()
}

fn ctx() -> ChunkContext<'static> {
    ChunkContext::new(CHUNK, "auth", "auth#1", Some("2.0"))
}

#[test]
fn facts_from_a_valid_reply_are_validated_like_pattern_facts() {
    let reply = json!({"facts": [
        expiry_fact(),
        // Not in the vocabulary: dropped with its code.
        {"span": {"start": 55, "end": 90}, "subject": "session", "predicate": "lasts", "object": "8 hours"},
        // Span text does not contain the object: dropped.
        {"span": {"start": 0, "end": 10}, "subject": "session_token", "predicate": "has_value", "object": "8 hours"},
    ]});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&reply)])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(x.degraded, None);
    assert_eq!(
        summary(&x),
        vec![("session_token".into(), "expires_after".into(), "30 minutes".into(), Some("inactivity".into()))]
    );
    let f = &x.facts[0].fact;
    assert_eq!((f.source.doc_id.as_str(), f.source.chunk_id.as_str(), f.version().as_deref()), ("auth", "auth#1", Some("2.0")));
    assert_eq!(f.confidence, 0.9);
    assert_eq!(x.rejected.get(RejectionCode::PredicateNotInVocabulary), 1);
    assert_eq!(x.rejected.total(), 2);
    // The prompt carries the vocabulary, the field list and the chunk verbatim.
    let prompt = server.received()[0].prompt().to_string();
    for needle in ["- expires_after: entity, duration", "- has_status: entity, status", "\"span\"", "character offsets", CHUNK] {
        assert!(prompt.contains(needle), "prompt lacks {needle:?}");
    }
}

#[test]
fn a_bare_array_is_accepted() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Content(format!("```json\n[{}]\n```", expiry_fact()))])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(x.facts.len(), 1);
    assert_eq!(server.count(), 1);
}

#[test]
fn invalid_json_is_repaired_once() {
    let server = FakeLlm::start(vec![
        Rule::when("was rejected", vec![Reply::json(&json!({"facts": [expiry_fact()]}))]),
        Rule::any(vec![Reply::Content("{\"facts\": [".into())]),
    ]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(x.degraded, None);
    assert_eq!(summary(&x)[0].2, "30 minutes");
    assert_eq!(server.count(), 2);
}

fn pattern_facts() -> Vec<(String, String, String, Option<String>)> {
    vec![
        ("session_token".into(), "expires_after".into(), "30 minutes".into(), Some("inactivity".into())),
        ("maximum_session_duration".into(), "has_value".into(), "8 hours".into(), None),
    ]
}

#[test]
fn schema_violations_fall_back_to_the_pattern_extractor() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&json!({"facts": "none"}))])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(summary(&x), pattern_facts());
    assert_eq!(
        x.degraded.as_deref(),
        Some(
            "facts.extract: the model's output was rejected twice: /facts: expected an array of fact objects; after repair: /facts: expected an array of fact objects"
        )
    );
}

#[test]
fn server_errors_and_timeouts_fall_back() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::Status(500, "down".into())])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(summary(&x), pattern_facts());
    assert_eq!(x.degraded.as_deref(), Some("facts.extract: the LLM endpoint answered HTTP 500 after 2 attempt(s): down"));

    let slow = Reply::Delay(Duration::from_millis(1000), Box::new(Reply::json(&json!({"facts": []}))));
    let server = FakeLlm::start(vec![Rule::any(vec![slow])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!(summary(&x), pattern_facts());
    assert_eq!(x.degraded.as_deref(), Some("facts.extract: the LLM request timed out after 2 attempt(s)"));

    let server = FakeLlm::start(vec![Rule::any(vec![Reply::RateLimited, Reply::json(&json!({"facts": [expiry_fact()]}))])]);
    let x = LlmFactExtractor::new(llm(&server)).extract(&Vocabulary::builtin(), &ctx());
    assert_eq!((x.facts.len(), x.degraded), (1, None), "a 429 is retried");
}

fn run_keys(x: &warrant_facts::Extraction) -> BTreeSet<String> {
    x.facts.iter().map(|f| normalized_key(&f.fact)).collect()
}

#[test]
fn consistency_runs_use_distinct_seeds_and_measure_agreement() {
    // Run seeds 0 and 2 agree; seed 1 also reports the maximum duration.
    let max = json!({"span": {"start": 54, "end": 89}, "subject": "maximum_session_duration", "predicate": "has_value", "object": "8 hours"});
    let server = FakeLlm::start(vec![
        Rule::when("__never__", vec![]),
        Rule::any(vec![
            Reply::json(&json!({"facts": [expiry_fact()]})),
            Reply::json(&json!({"facts": [expiry_fact(), max]})),
            Reply::json(&json!({"facts": [expiry_fact()]})),
        ]),
    ]);
    let llm = llm(&server);
    let runs: Vec<BTreeSet<String>> =
        (0..3).map(|r| run_keys(&LlmFactExtractor::run(llm.clone(), r).extract(&Vocabulary::builtin(), &ctx()))).collect();
    let seeds: Vec<Value> = server.received().iter().map(|r| r.body["seed"].clone()).collect();
    assert_eq!(seeds, vec![json!(0), json!(1), json!(2)]);
    let c = Consistency::of_runs(&runs);
    // Pairs: (0,1) = 1/2, (0,2) = 1, (1,2) = 1/2.
    assert!((c.jaccard_avg - 2.0 / 3.0).abs() < 1e-12, "{c:?}");
    assert_eq!((c.jaccard_min, c.reliable), (0.5, false));
    let fp: BTreeSet<String> = (0..3).map(|r| LlmFactExtractor::run(llm.clone(), r).fingerprint()).collect();
    assert_eq!(fp.len(), 3);
    assert!(fp.iter().all(|f| f.starts_with("llm:fake-model:facts.extract.v1:")), "{fp:?}");
}

const ANSWER: &str = "Paris is the capital of France [1]. I think it is lovely.\n\n[1] https://example.org/paris";

#[test]
fn graph_claims_from_the_model_keep_exact_spans_and_references() {
    let reply = json!({"claims": [
        {"text": "Paris is the capital of France", "modality": "factual", "domain": "geography"},
        {"text": "it is lovely", "modality": "opinion"}]});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&reply)])]);
    let answer = Answer { text: ANSWER.into(), tool_calls: vec![], context: None, id: None };
    let x = extract_with_llm(&answer, &Options::default(), &llm(&server));
    let g = &x.graph;
    let claims: Vec<(&str, &str, u64, u64)> =
        g.claims.iter().map(|c| (c.id.as_str(), c.text.as_str(), c.span.start, c.span.end)).collect();
    assert_eq!(claims, vec![("c1", "Paris is the capital of France", 0, 30), ("c2", "it is lovely", 44, 56)]);
    assert_eq!(g.claims[1].modality.as_str(), "opinion");
    for c in &g.citations {
        assert!(g.claims.iter().any(|k| k.id == c.claim_id), "citation {} points at a claim", c.id);
    }
    assert_eq!(
        g.context.as_ref().unwrap()["extraction_method"],
        json!({"claims": "llm", "prompt": "graph.extract.v1", "model": "fake-model"})
    );
    let report = warrant_graph::check_graph(serde_json::to_value(g).unwrap());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

#[test]
fn graph_extraction_falls_back_to_the_deterministic_graph() {
    // The quoted text is not in the answer, twice.
    let reply = json!({"claims": [{"text": "Rome is the capital of France", "modality": "factual"}]});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&reply)])]);
    let answer = Answer { text: ANSWER.into(), tool_calls: vec![], context: None, id: None };
    let x = extract_with_llm(&answer, &Options::default(), &llm(&server));
    let plain = extract(&answer, &Options::default());
    assert_eq!(x.graph.claims, plain.graph.claims);
    assert_eq!(
        x.graph.context.as_ref().unwrap()["extraction_degraded"],
        "graph.extract: the model's output was rejected twice: /claims/0/text: not found verbatim in the output; after repair: /claims/0/text: not found verbatim in the output"
    );
    assert_eq!(server.count(), 2);
}
