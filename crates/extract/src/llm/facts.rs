//! Fact extraction by a model (spec §5.2; decisions: `docs/decisions/verifiable-answers.md`).
//!
//! The prompt ([`warrant_llm::prompts::FACTS_EXTRACT`]) lists the fact fields, the allowed
//! predicates with their argument types (in vocabulary order), says that spans are char
//! offsets into the given text and that subjects are canonical entity strings, and carries the
//! chunk verbatim. The reply must be `{"facts": [...]}` or a bare array (OpenAI's JSON mode
//! only returns objects, hence the wrapper); anything else is a schema violation, repaired
//! once. Each raw fact then goes through §5.3 ([`parse_candidate`], [`validate_candidate`]):
//! a fact that fails a step is dropped and counted under its rejection code, exactly like a
//! pattern fact. When the model fails, the chunk falls back to the pattern extractor and
//! [`Extraction::degraded`] says why.
//!
//! Consistency runs (§14) use seed `s + r` for run `r`, so each run is a distinct, recordable
//! request and a replayed consistency check reproduces the recorded one.

use serde_json::Value;
use warrant_facts::{ChunkContext, Extraction, FactExtractor, Vocabulary, extract_facts, parse_candidate, validate_candidate};
use warrant_llm::{CompletionOptions, Llm, complete_json, prompts};

/// The stage name in call logs and degraded reasons.
pub const STAGE: &str = "facts.extract";

/// A [`FactExtractor`] backed by a model.
#[derive(Debug, Clone)]
pub struct LlmFactExtractor {
    llm: Llm,
    run: u64,
}

impl LlmFactExtractor {
    /// The extractor for an ingest (run 0).
    pub fn new(llm: Llm) -> Self {
        Self::run(llm, 0)
    }

    /// The extractor for consistency run `run`: the configured seed plus `run`.
    pub fn run(llm: Llm, run: u64) -> Self {
        let base = llm.defaults().clone();
        let seed = base.seed.unwrap_or(0).wrapping_add(run);
        let llm = llm.with_defaults(CompletionOptions { seed: Some(seed), ..base });
        Self { llm, run }
    }

    /// The prompt for one chunk.
    pub fn prompt(vocab: &Vocabulary, text: &str) -> String {
        let predicates: Vec<String> = vocab
            .entries()
            .iter()
            .map(|e| format!("- {}: {}, {}", e.id, e.arg_types[0].as_str(), e.arg_types[1].as_str()))
            .collect();
        prompts::render(prompts::FACTS_EXTRACT, &[("predicates", &predicates.join("\n")), ("text", text)])
    }
}

/// The stage's schema: a bare array or `{"facts": array}`.
pub fn facts_of_reply(v: &Value) -> Result<Vec<Value>, String> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::Object(m) => match m.get("facts") {
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err("/facts: expected an array of fact objects".into()),
            None => Err("/facts: missing; expected {\"facts\": [...]}".into()),
        },
        _ => Err("expected a JSON object {\"facts\": [...]}".into()),
    }
}

impl FactExtractor for LlmFactExtractor {
    fn extract(&self, vocab: &Vocabulary, chunk: &ChunkContext<'_>) -> Extraction {
        let prompt = Self::prompt(vocab, chunk.text);
        match complete_json(&self.llm, STAGE, &prompt, facts_of_reply) {
            Ok(out) => {
                let mut x = Extraction::default();
                for raw in &out.value {
                    match parse_candidate(raw).and_then(|c| validate_candidate(c, vocab, chunk)) {
                        Ok(f) => {
                            x.facts.push(f);
                            x.count("model", true);
                        }
                        Err(r) => {
                            x.rejected.add(r.code);
                            x.count("model", false);
                        }
                    }
                }
                x
            }
            Err(e) => Extraction { degraded: Some(e.reason), ..extract_facts(vocab, chunk) },
        }
    }

    fn fingerprint(&self) -> String {
        let p = prompts::FACTS_EXTRACT;
        format!(
            "llm:{}:{}:{}:seed={}:run={}",
            self.llm.model(),
            p.id,
            p.sha256(),
            self.llm.defaults().seed.unwrap_or(0),
            self.run
        )
    }
}
