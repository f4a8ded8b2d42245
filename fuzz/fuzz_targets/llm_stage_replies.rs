//! Any bytes as a model's reply to the stages of `ask --llm-plan`, `research --llm` and
//! `compile --llm`: a QueryPlan, a route decision, an assessment, a synthesis and a CKF
//! partial, each run through its stage's validator. Must never panic; errors are one line, and
//! what validates holds only what the schema allows.
#![no_main]
use std::collections::BTreeSet;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use warrant_answer::RuleLibrary;
use warrant_answer::validate_plan;
use warrant_ckf::chunks;
use warrant_ckf::Lang;
use warrant_ckf::MapInput;
use warrant_ckf::llm::decode_partial;
use warrant_ckf::{Document, ReadOptions, read_source};
use warrant_facts::Vocabulary;
use warrant_llm::parse_reply;
use warrant_research::{validate_assess, validate_route, validate_synthesis};

static VOCAB: LazyLock<Vocabulary> = LazyLock::new(Vocabulary::builtin);
static RULES: LazyLock<RuleLibrary> = LazyLock::new(RuleLibrary::builtin);
static DOC: LazyLock<Document> = LazyLock::new(|| {
    read_source("fees.md", b"# Fees\n\nA late fee of $25 applies after 10 days.\n", &ReadOptions::default()).expect("reads")
});

fn one_line(e: &str) {
    assert!(!e.contains('\n'), "one-line errors: {e}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(v) = parse_reply(text) else { return };
    match validate_plan(&VOCAB, &RULES, &v) {
        Ok(p) => {
            for pred in p.predicate_list() {
                assert!(VOCAB.contains(pred) || RULES.concludes(pred));
            }
        }
        Err(e) => one_line(&e),
    }
    if let Err(e) = validate_route(&v) {
        one_line(&e);
    }
    match validate_assess(&v) {
        Ok(a) => assert!((0.0..=1.0).contains(&a.confidence) && a.refined_queries.len() <= 3),
        Err(e) => one_line(&e),
    }
    let valid: BTreeSet<&str> = ["a.b.c.d.e.f"].into_iter().collect();
    if let Err(e) = validate_synthesis(&v, &valid) {
        one_line(&e);
    }
    let doc = &*DOC;
    let cs = chunks(&doc.spans, 4000);
    let input = MapInput { spans: &doc.spans, base: 0, chunk: &cs[0], language: Lang::En, format: doc.format, first_chunk: true };
    match decode_partial(&v, &input) {
        Ok(p) => {
            for it in &p.items {
                for e in &it.trace.evidence {
                    assert!(doc.spans[0].text.get(e.start as usize..e.end as usize).is_some());
                }
            }
        }
        Err(e) => one_line(&e),
    }
});
