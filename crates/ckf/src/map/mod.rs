//! The map step (§7.4): one chunk in, a partial package out.
//!
//! [`Mapper`] is the seam for extraction back-ends. [`RuleMapper`] is the deterministic,
//! offline path: cue words and clause patterns over sentences, lists and FAQ pairs, emitting
//! the package shape of §2 directly. A model-backed mapper (the `emit_ckf_partial` tool call)
//! plugs in behind the same trait: it returns items whose entity relations name their target
//! (`related[{name, relation}]`), and reduce resolves them.

pub mod cues;
pub mod entities;
pub mod evidence;
pub mod llm;
mod rules;

use crate::chunk::Chunk;
use crate::lang::Lang;
use crate::model::Item;
use crate::source::{Format, Span};

pub use rules::RuleMapper;

/// What a mapper sees: one chunk of one span, with the document's other spans for
/// cross-references.
#[derive(Debug, Clone, Copy)]
pub struct MapInput<'a> {
    /// Every span of the chunk's document.
    pub spans: &'a [Span],
    /// Package-wide index of `spans[0]` (span ids are package-wide).
    pub base: u32,
    /// The chunk; `chunk.span` is package-wide.
    pub chunk: &'a Chunk,
    /// The package language.
    pub language: Lang,
    /// The document's format.
    pub format: Format,
    /// True for the first chunk of the document (intro material).
    pub first_chunk: bool,
}

impl MapInput<'_> {
    /// The chunk's span.
    pub fn span(&self) -> &Span {
        &self.spans[(self.chunk.span - self.base) as usize]
    }
}

/// Metadata hints a chunk gives (§7.4 partial `metadata`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    /// Best guess at the title.
    pub source_title: Option<String>,
    /// `policy`, `article`, …
    pub source_type: Option<String>,
    /// Author.
    pub source_author: Option<String>,
    /// Language tag.
    pub language: Option<String>,
    /// Suggested domain (mapped onto the closed enum in reduce).
    pub suggested_domain: Option<String>,
    /// Suggested subdomains.
    pub suggested_subdomains: Vec<String>,
}

/// Intro material (§2.4: `core_intent` is filled only from intro, abstract or summary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intro {
    /// Sentences that state the source's purpose.
    pub purpose: Vec<String>,
    /// `applies to …` / `is intended for …` phrases.
    pub audience: Vec<String>,
    /// Sentences that state why it matters (`helps`, `ensures`, `so that`).
    pub value: Vec<String>,
}

/// A partial package: the items of one chunk.
#[derive(Debug, Clone, Default)]
pub struct Partial {
    /// Items (entity relations hold target *names*; reduce resolves them).
    pub items: Vec<Item>,
    /// Metadata hints.
    pub hints: Hints,
    /// Intro material.
    pub intro: Intro,
    /// Items dropped because their numbers could not be shown in two excerpts.
    pub dropped_numeric: u32,
}

/// Why a mapper failed on a chunk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("map step failed on span {span}: {message}")]
pub struct MapError {
    /// Span id.
    pub span: String,
    /// What went wrong.
    pub message: String,
}

/// A per-chunk extractor.
pub trait Mapper: Sync {
    /// A short name for the compiler profile (`rules`, `llm:<model>`).
    fn name(&self) -> &str;

    /// Extracts one chunk.
    fn map(&self, input: &MapInput<'_>) -> Result<Partial, MapError>;
}
