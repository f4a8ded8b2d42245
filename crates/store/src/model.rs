//! What a store holds and returns: documents, chunks, search hits, entities, queries.
//! JSON field names are camelCase, as in the DS005 answer contract.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use warrant_facts::{Bindings, Role, Signature};
use warrant_facts::{Fact, Object};

/// A document to ingest: `{"id"|"docId", "text", "version"?, "title"?, "metadata"?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentInput {
    /// Unique document id (a file's path as given, or the record's `id`/`docId`).
    pub id: String,
    /// The full text; chunk offsets index into it.
    pub text: String,
    /// Version as written (compared after D22 normalisation).
    pub version: Option<String>,
    /// Title (a Markdown file's first heading, an HTML `<title>`, or the record's).
    pub title: Option<String>,
    /// Free metadata (a JSON object).
    pub metadata: Option<Value>,
    /// Where it came from (`docs/a.md`, `corpus.jsonl:3`), for messages only; not stored.
    pub origin: String,
}

impl DocumentInput {
    /// A document with only an id and its text (no version, title or metadata).
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        DocumentInput { id: id.into(), text: text.into(), version: None, title: None, metadata: None, origin: String::new() }
    }
}

/// A stored document (without its text; see [`crate::Store::document_text`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// The document id.
    #[serde(rename = "docId")]
    pub id: String,
    /// Version as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Metadata object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// SHA-256 of the text (hex).
    pub sha256: String,
    /// Length of the text in chars.
    pub char_len: usize,
}

/// A chunk (spec §2): `{docId, chunkId, index, start, end, text}`; `start`/`end` are char
/// offsets into the document text and `text` is exactly `document.text[start..end]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// `<docId>#<n>`, n from 1 within the document.
    #[serde(rename = "chunkId")]
    pub id: String,
    /// The document id.
    pub doc_id: String,
    /// Position within the document, from 0.
    pub index: usize,
    /// First char in the document.
    pub start: usize,
    /// One past the last char in the document.
    pub end: usize,
    /// The chunk text.
    pub text: String,
}

/// A BM25 search result: the chunk and its score (higher is better).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The chunk id.
    pub chunk_id: String,
    /// The document id.
    pub doc_id: String,
    /// BM25 score (SQLite FTS5's `bm25()`, negated so that higher is better).
    pub score: f64,
    /// Chunk position within the document.
    pub index: usize,
    /// First char of the chunk in the document.
    pub start: usize,
    /// One past the last char of the chunk in the document.
    pub end: usize,
    /// The chunk text.
    pub text: String,
}

/// Filters of a fact lookup (spec §7 `query`): criteria that are `Some` are intersected.
/// Values are compared exactly (subjects are canonical entity strings for extracted facts);
/// `version` compares after D22 normalisation, and a fact without a version never matches a
/// version-filtered query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactQuery {
    /// Subject.
    pub subject: Option<String>,
    /// Predicate id.
    pub predicate: Option<String>,
    /// Object (typed equality).
    pub object: Option<Object>,
    /// Version (D22-normalised on both sides).
    pub version: Option<String>,
    /// Source document id.
    pub doc_id: Option<String>,
    /// Source chunk id.
    pub chunk_id: Option<String>,
    /// At most this many facts.
    pub limit: Option<usize>,
}

impl FactQuery {
    /// Every fact.
    pub fn all() -> Self {
        Self::default()
    }

    /// Facts of a subject and predicate.
    pub fn subject_predicate(subject: &str, predicate: &str) -> Self {
        Self { subject: Some(subject.into()), predicate: Some(predicate.into()), ..Self::default() }
    }

    /// Restricts to a version.
    pub fn with_version(mut self, version: &str) -> Self {
        self.version = Some(version.into());
        self
    }
}

/// Where a fact stands in source order (spec §9's last tie-breakers): facts from stored
/// documents first, by document ingestion order, then chunk index; then manual facts whose
/// document or chunk is not stored; insertion order last. Compare positions with `Ord`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FactPosition {
    /// `(missing, seq)`: the document's ingestion order; `missing` (sorting after every
    /// stored document) for manual facts whose document is not stored.
    pub document: (bool, i64),
    /// `(missing, index)`: the chunk's index within its document; `missing` sorts last.
    pub chunk: (bool, i64),
    /// Insertion order.
    pub insertion: i64,
}

/// One result of [`crate::Store::match_signature`]: the fact and the variable bindings.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureMatch {
    /// The stored fact.
    pub fact: Fact,
    /// `"?x"` → value.
    pub bindings: Bindings,
}

/// A fact pattern for [`crate::Store::match_signature`], read from the spec's JSON form
/// `{subject?, predicate?, object?, qualifiers?: {…}}` (§7). Any value may be a variable
/// (`"?name"`); an omitted role is unconstrained; each qualifier (and any other key) becomes a
/// role looked up in the fact's qualifiers.
pub fn pattern_from_json(v: &Value) -> Option<Signature> {
    let m = v.as_object()?;
    let mut sig = Signature::new();
    for (k, val) in m {
        if k == "qualifiers" {
            for (qk, qv) in val.as_object()? {
                sig = sig.with(qk.clone(), qv.clone());
            }
        } else {
            sig = sig.with(k.clone(), val.clone());
        }
    }
    Some(sig)
}

/// A constant role of a pattern, if the pattern has it.
pub(crate) fn constant<'a>(pattern: &'a Signature, role: &str) -> Option<&'a Value> {
    pattern.get(role).filter(|r| !r.is_variable).map(|r: &Role| &r.value)
}

/// An entity: a canonical id, the surface forms seen, and where they were seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    /// Canonical entity string (D23), e.g. `session_token`.
    pub id: String,
    /// Distinct surface forms, sorted ("Session tokens", "session token").
    pub aliases: Vec<String>,
    /// Mentions in source order.
    pub mentions: Vec<EntityMention>,
}

/// Where an entity was mentioned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntityMention {
    /// The text as written.
    pub surface: String,
    /// Document id.
    pub doc_id: String,
    /// Chunk id (absent for manual facts whose chunk is not in the store).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_id: Option<String>,
    /// Char offsets into the chunk text, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<warrant_facts::Span>,
}

/// Word statistics of the BM25 index (see `Store::term_stats`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermStats {
    /// Chunks in the BM25 index.
    pub chunks: usize,
    /// Per word asked about, the chunks containing it (at most `chunks / 2 + 1`).
    pub frequencies: Vec<usize>,
}

/// Counts of what a store holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStats {
    /// Documents.
    pub documents: u64,
    /// Chunks.
    pub chunks: u64,
    /// Facts (extracted and manual).
    pub total_facts: u64,
    /// Facts per predicate.
    pub by_predicate: BTreeMap<String, u64>,
    /// Entities.
    pub entities: u64,
}
