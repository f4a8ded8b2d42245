//! The model's second opinion on claims the rules leave unsupported, against a fake
//! chat-completions server (no network): model verdicts are marked and quote sources exactly;
//! a block is reviewed too (confirmed, rescued by a quote, or demoted when the model finds no
//! conflict); failures leave the rules' result and say so.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use warrant_check::{Checker, Report, Request};
use warrant_extract::Answer;
use warrant_llm::Llm;
use warrant_llm::{HttpClient, HttpSettings};
use warrant_testkit::{FakeLlm, Reply, Rule};
use warrant_verify::{Corpus, Source, Status};

const SOURCE: &str = "The Eiffel Tower was finished in 1889. It was built as the entrance arch to the World's Fair of that year.";
const ANSWER: &str = "The Eiffel Tower served as the gateway to the 1889 World's Fair.";

fn llm(server: &FakeLlm) -> Llm {
    let s = HttpSettings {
        endpoint: server.url(),
        model: "judge".into(),
        api_key: None,
        timeout: Duration::from_millis(400),
        max_retries: 0,
        backoff: Duration::from_millis(1),
        concurrency: 1,
    };
    Llm::new(Arc::new(HttpClient::new(s).unwrap()))
}

fn check(checker: &Checker, answer: &str, source: &str) -> Report {
    let corpus = Corpus::new(vec![Source::new("tower", source)]);
    let answer = Answer { text: answer.into(), tool_calls: vec![], context: None, id: None };
    checker.check(&Request { answer: &answer, question: None, output_id: Some("a1".into()) }, &corpus).unwrap()
}

#[test]
fn an_unsupported_claim_gets_a_marked_model_verdict_with_an_exact_quote() {
    let rules = check(&Checker::default(), ANSWER, SOURCE);
    assert_eq!(rules.claims.len(), 1);
    let by_rules = rules.claims[0].status;
    assert!(matches!(by_rules, Status::Unsupported | Status::PartiallySupported), "rules gave {by_rules:?}");

    let verdict = json!({"status": "supported", "passage": 2, "quote": "built as the entrance arch to the World's Fair",
                         "confidence": 0.85, "rationale": "The entrance arch is the gateway."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let checker = Checker { second_opinion: Some(llm(&server)), ..Checker::default() };
    let r = check(&checker, ANSWER, SOURCE);
    let c = &r.claims[0];
    assert_eq!(c.status, Status::Supported);
    assert_eq!(c.confidence, 0.85);
    assert_eq!(c.reason, "model second opinion (claims.verify.v1): The entrance arch is the gateway.");
    let e = &c.support_edges[0];
    assert_eq!((e.edge_id.as_str(), e.source_id.as_str()), ("c1-m1", "tower"));
    assert_eq!(e.selector.exact, "built as the entrance arch to the World's Fair");
    let quoted: String = SOURCE.chars().skip(e.selector.start).take(e.selector.end - e.selector.start).collect();
    assert_eq!(quoted, e.selector.exact);
    let op = c.second_opinion.as_ref().unwrap();
    assert_eq!(
        (op.method, op.model.as_str(), op.prompt, op.rules_status, op.status),
        ("llm", "judge", "claims.verify.v1", by_rules, Some(Status::Supported))
    );
    let j = serde_json::to_value(c).unwrap();
    assert_eq!(j["second_opinion"]["method"], "llm");
    // The prompt carries the claim and numbered source sentences.
    let prompt = server.received()[0].prompt().to_string();
    assert!(prompt.contains("Claim: The Eiffel Tower served as the gateway to the 1889 World's Fair\n"), "{prompt}");
    assert!(prompt.contains("[1] (tower) The Eiffel Tower was finished in 1889."), "{prompt}");
    assert!(prompt.contains("[2] (tower) It was built as the entrance arch to the World's Fair of that year."), "{prompt}");
}

#[test]
fn an_unsupported_verdict_changes_nothing_but_is_recorded() {
    let verdict =
        json!({"status": "unsupported", "passage": null, "quote": "", "confidence": 0.6, "rationale": "No passage says so."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let rules = check(&Checker::default(), ANSWER, SOURCE);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, ANSWER, SOURCE);
    let (a, b) = (&rules.claims[0], &r.claims[0]);
    assert_eq!((a.status, a.confidence, &a.reason, &a.support_edges), (b.status, b.confidence, &b.reason, &b.support_edges));
    assert_eq!(b.second_opinion.as_ref().unwrap().status, Some(Status::Unsupported));
}

const TOLD: &str = "The Eiffel Tower was finished in 1889.";
const WRONG: &str = "The Eiffel Tower was finished in 1901.";

#[test]
fn a_contradiction_the_model_confirms_stays_a_block_with_both_quotes() {
    let rules = check(&Checker::default(), WRONG, TOLD);
    assert_eq!(rules.claims[0].status, Status::Contradicted);
    let verdict = json!({"status": "contradicted", "passage": 1, "quote": "finished in 1889", "confidence": 0.9,
                         "rationale": "The source gives 1889."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, WRONG, TOLD);
    let c = &r.claims[0];
    assert_eq!((c.status, r.gate), (Status::Contradicted, rules.gate));
    assert_eq!(server.count(), 1);
    assert_eq!(c.support_edges[0].selector.exact, "finished in 1889");
    // The rules' own contradicting quote is still there, still a conflict.
    assert_eq!(c.support_edges[1..], rules.claims[0].support_edges[..]);
    assert_eq!(c.second_opinion.as_ref().unwrap().rules_status, Status::Contradicted);
}

#[test]
fn a_false_block_is_rescued_by_a_quoted_supported_verdict() {
    let rules = check(&Checker::default(), WRONG, TOLD);
    assert_eq!(rules.gate, warrant_check::Gate::Block);
    let verdict = json!({"status": "supported", "passage": 1, "quote": "The Eiffel Tower was finished", "confidence": 0.7,
                         "rationale": "It says the tower was finished."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, WRONG, TOLD);
    let c = &r.claims[0];
    assert_eq!((c.status, c.confidence), (Status::Supported, 0.7));
    assert_ne!(r.gate, warrant_check::Gate::Block);
    // The rules' quote is kept for the reader, as background: no longer a conflict.
    assert!(c.support_edges[1..].iter().all(|e| e.relationship == warrant_verify::Relationship::Background), "{c:?}");
    assert_eq!(c.support_edges.len(), 1 + rules.claims[0].support_edges.len());
}

#[test]
fn a_block_the_model_cannot_confirm_becomes_unsupported() {
    let verdict = json!({"status": "unsupported", "passage": null, "quote": "", "confidence": 0.6, "rationale": "No conflict."});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&verdict)])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, WRONG, TOLD);
    let c = &r.claims[0];
    assert_eq!((c.status, c.confidence), (Status::Unsupported, 0.0));
    assert_eq!(c.reason, "the rules found a conflict the model did not (claims.verify.v1): No conflict.");
    assert_eq!(r.gate, warrant_check::Gate::Review);
    assert!(c.support_edges.iter().all(|e| e.relationship == warrant_verify::Relationship::Background));
}

#[test]
fn a_degraded_second_opinion_is_said_in_the_text_report() {
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::RateLimited])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, WRONG, TOLD);
    assert_eq!(r.claims[0].status, Status::Contradicted);
    let text = warrant_check::text::render(&r);
    assert!(text.contains("model second opinion DEGRADED (judge): "), "{text}");
    assert!(text.contains("HTTP 429"), "{text}");
}

#[test]
fn failures_keep_the_rules_result_with_a_degraded_reason() {
    let rules = check(&Checker::default(), ANSWER, SOURCE);
    // A quote that is not in the passage, twice.
    let bad = json!({"status": "supported", "passage": 1, "quote": "gateway", "confidence": 0.9, "rationale": "x"});
    let server = FakeLlm::start(vec![Rule::any(vec![Reply::json(&bad)])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, ANSWER, SOURCE);
    assert_eq!(r.claims[0].status, rules.claims[0].status);
    assert_eq!(r.claims[0].support_edges, rules.claims[0].support_edges);
    assert_eq!(
        r.claims[0].second_opinion.as_ref().unwrap().degraded.as_deref(),
        Some(
            "claims.verify: the model's output was rejected twice: /quote: not found verbatim in passage 1; after repair: /quote: not found verbatim in passage 1"
        )
    );
    assert_eq!(r.gate, rules.gate);

    let server = FakeLlm::start(vec![Rule::any(vec![Reply::RateLimited])]);
    let r = check(&Checker { second_opinion: Some(llm(&server)), ..Checker::default() }, ANSWER, SOURCE);
    assert_eq!(r.claims[0].status, rules.claims[0].status);
    assert!(r.claims[0].second_opinion.as_ref().unwrap().degraded.as_deref().unwrap().contains("HTTP 429"));
}
