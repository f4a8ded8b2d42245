//! Any bytes as what a model endpoint or a cache file might hand back: a chat-completion body,
//! a reply for each JSON stage (facts, claims, claim verdicts, verifier outputs), a cache
//! entry, and a `warrant.toml`. Must never panic; errors are one line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use warrant_cpl::check_output;
use warrant_extract::facts::facts_of_reply;
use warrant_extract::graph::claims_of_reply;
use warrant_facts::{ChunkContext, Vocabulary, parse_candidate, validate_candidate};
use warrant_graph::CompiledSchema;
use warrant_llm::parse_reply;

const CHUNK: &str = "Session tokens expire after 30 minutes of inactivity. Maximum session duration is 8 hours.";
const ANSWER: &str = "Paris is the capital of France. I think it is lovely.";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = warrant_llm::parse_chat_completion(text) {
        assert!(!e.to_string().contains('\n'));
    }
    let _ = warrant_llm::parse_entry(text, "k");
    if let Err(e) = warrant_llm::LlmConfig::from_toml(text, "warrant.toml") {
        assert!(!e.to_string().contains('\n'), "one-line errors: {e}");
    }
    let Ok(v) = parse_reply(text) else { return };
    if let Ok(facts) = facts_of_reply(&v) {
        let vocab = Vocabulary::builtin();
        let ctx = ChunkContext::new(CHUNK, "d", "d#1", Some("1"));
        for raw in &facts {
            if let Ok(f) = parse_candidate(raw).and_then(|c| validate_candidate(c, &vocab, &ctx)) {
                assert!(f.fact.span.end <= CHUNK.chars().count());
            }
        }
    }
    if let Ok(claims) = claims_of_reply(&v, ANSWER) {
        for c in claims {
            assert!(ANSWER.get(c.range.clone()).is_some());
        }
    }
    let _ = warrant_verify::parse_verdict(&v, &["Paris is the capital of France.", "Lyon is large."]);
    let schema = json!({"type": "object", "required": ["evaluation", "issues", "score", "reasoning"],
        "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "issues": {"type": "array"}}});
    if let Ok(schema) = CompiledSchema::compile(&schema.to_string()) {
        if let Ok((out, score)) = check_output("verifier.x.y", &schema, &v) {
            assert!((0.0..=1.0).contains(&score));
            let _ = warrant_cpl::meta_verify(&out, score);
        }
    }
});
