//! The optional model-backed extractors. Each validates the model's JSON against its stage's
//! schema (one repair retry, [`warrant_llm::complete_json`]) and falls back to the
//! deterministic extractor with a `degraded` reason when the model fails.
//!
//! - [`facts`]: text → facts on ingest (`warrant ingest --llm`), the predicate vocabulary in
//!   the prompt, every fact through the same validate-and-filter pipeline as pattern facts.
//! - [`graph`]: the claims of a PredicateGraph (`warrant extract --llm`), quoted exactly from
//!   the answer so every claim keeps an exact span.

pub mod facts;
pub mod graph;

pub use facts::LlmFactExtractor;
pub use graph::extract_with_llm;
