//! DS005 facts: what Warrant knows, in a form that can be checked.
//!
//! Text becomes facts like `expires_after(session_token, "30 minutes")`, each pointing at the
//! chunk and char span it was read from. This crate holds everything about a fact that does
//! not need a store (spec §3–§6, §11.4, §15; decisions: `docs/decisions/verifiable-answers.md`):
//!
//! - [`fact`]: the normalised [`Fact`] (camelCase JSON), its stable content-derived id, and
//!   loading manual (gold) facts;
//! - [`canonical`]: canonical entity strings ("Session tokens" → `session_token`, D23) and
//!   D22 version normalisation;
//! - [`vocab`]: the predicate [`Vocabulary`] — DS005's nine predicates with English surface
//!   patterns, extendable by JSON or TOML files — with argument types and cardinality (D25);
//! - [`validate`]: the §5.3 validate-and-filter pipeline with the spec's rejection codes and
//!   §6 span validation;
//! - [`extract`]: the deterministic pattern extractor (§5.4);
//! - [`consistency`]: the [`FactExtractor`] interface and extraction consistency (§14);
//! - [`value`]: duration, timestamp and number parsers with exact arithmetic (§11.4);
//! - [`signature`]: WorkSignature unification and the Workpad (§15).
//!
//! ```
//! use warrant_facts::{ChunkContext, Vocabulary, extract_facts};
//!
//! let vocab = Vocabulary::builtin();
//! let text = "Session tokens expire after 30 minutes of inactivity.";
//! let out = extract_facts(&vocab, &ChunkContext::new(text, "auth", "auth#1", Some("1.0")));
//! let f = &out.facts[0].fact;
//! assert_eq!((f.subject.as_str(), f.predicate.as_str()), ("session_token", "expires_after"));
//! assert_eq!(f.object.to_string(), "30 minutes");
//! assert_eq!(f.condition(), Some("inactivity"));
//! ```
#![warn(missing_docs)]

mod attribute;
mod canonical;
mod consistency;
mod diag;
mod extract;
mod fact;
mod signature;
mod validate;
mod value;
mod vocab;

pub use attribute::{ATTRIBUTE_PREFIX, attribute_candidates, attribute_name};
pub use canonical::{canonical_entity, entity_match_key, normalize_version};
pub use consistency::{Consistency, FactExtractor, PatternExtractor, normalized_key};
pub use diag::{one_line, pointer_token};
pub use extract::{Extraction, LayerCount, extract_candidates, extract_facts, split_sentences};
pub use fact::{Fact, FactError, Object, Polarity, Qualifiers, Source, Span};
pub use fact::{confidence_json, numbers_equal};
pub use signature::{Bindings, Signature, Workpad, match_pattern};
pub use signature::{Role, canonicalize, is_variable, match_with, merge, values_equal};
pub use validate::{
    Candidate, ChunkContext, Mention, Rejection, RejectionCode, RejectionCounts, ValidatedFact, check_span, parse_candidate,
    validate_candidate,
};
pub use value::{ValueError, minutes_of, number_of, parse_duration_minutes, parse_number, parse_timestamp_ms};
pub use vocab::{ArgType, Cardinality, PredicateEntry, VocabError, VocabFormat, Vocabulary};
