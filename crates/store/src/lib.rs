//! Warrant's knowledge store: documents, chunks, facts and entities, with BM25 retrieval.
//!
//! Claims are checked against sources, questions are answered from them, research walks
//! them; all of it reads a [`Store`]. The embedded implementation is [`SqliteStore`]: one
//! SQLite file (WAL mode) holding the documents, their chunks with an FTS5 index for BM25,
//! validated facts and entities, so a store is transactional and can be opened with any
//! SQLite tool.
//!
//! - [`sources`] reads files and folders (`.txt`, `.md`, `.html`, `.jsonl`, `.json`) into
//!   [`DocumentInput`]s, reporting every bad record with its file, line and JSON pointer;
//! - [`chunk`] is the sentence-aware default chunker (spec §2);
//! - [`ingest`] prepares documents (chunks, pattern extraction and validation from
//!   `warrant-facts`) and writes them through a [`Store`] in one transaction: re-ingesting
//!   identical content is a no-op, changed content replaces the document's chunks and facts;
//! - [`sqlite`] is the SQLite implementation (schema versioned with migrations);
//! - [`PostgresStore`] is the same store on PostgreSQL, for several machines and `serve`
//!   replicas: identical results (ids, orders, BM25 scores), migrations applied by
//!   [`PostgresStore::migrate`]. [`open`] picks the backend from the location
//!   (`postgres://…` or a folder).
//!
//! ```
//! use warrant_store::{DocumentInput, FactQuery, IngestOptions, SqliteStore, Store, ingest};
//!
//! let store = SqliteStore::open_in_memory()?;
//! let doc = DocumentInput {
//!     id: "auth".into(),
//!     text: "Session tokens expire after 15 minutes of inactivity.".into(),
//!     version: Some("2.0".into()),
//!     title: None,
//!     metadata: None,
//!     origin: "example".into(),
//! };
//! let summary = ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {})?;
//! assert_eq!((summary.documents, summary.chunks, summary.facts), (1, 1, 1));
//! let facts = store.facts(&FactQuery::subject_predicate("session_token", "expires_after").with_version("v2.0"))?;
//! assert_eq!(facts[0].object.to_string(), "15 minutes");
//! assert_eq!(store.search("inactivity", 10)?[0].chunk_id, "auth#1");
//! # Ok::<(), warrant_store::StoreError>(())
//! ```
#![warn(missing_docs)]

mod chunk;
mod error;
mod html;
mod ingest;
#[cfg(not(feature = "postgres"))]
#[path = "postgres/location.rs"]
mod location;
mod mentions;
mod model;
#[cfg(feature = "postgres")]
mod postgres;
mod sources;
mod sqlite;

use std::collections::HashMap;

use warrant_facts::Fact;
use warrant_facts::Signature;

#[cfg(not(feature = "postgres"))]
pub use self::location::{is_postgres_url, redact};
#[cfg(feature = "postgres")]
pub use self::postgres::{PostgresStore, current_postgres_version, is_postgres_url, redact};
pub use error::{Result, StoreError};
pub use ingest::{IngestOptions, IngestSummary, PreparedDocument, Progress, extraction_consistency, ingest, prepare};
pub use model::{
    Chunk, Document, DocumentInput, Entity, EntityMention, FactPosition, FactQuery, SearchHit, SignatureMatch, StoreStats,
    TermStats, pattern_from_json,
};
pub use sqlite::SqliteStore;

/// A value derived from a store's chunks (a search index, analyses of their sentences), shared
/// between threads; see [`Store::derived`].
pub type Derived = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// What a write changed (see [`Store::write`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Positions (in the order the documents were given) of the documents written: new or changed.
    pub written: Vec<usize>,
    /// Documents whose stored ingest key already matched: left untouched.
    pub unchanged: usize,
    /// Manual facts inserted or updated.
    pub manual_facts: usize,
}

/// Derived data persisted for one state of a store, read in one snapshot with that state's
/// chunks ([`Store::read_persisted`]).
pub trait PersistedView {
    /// The values kept under `keys`, in that order (`None` for a key not kept).
    fn values(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>>;

    /// Chunks by id, in that order (`None` for an id not stored).
    fn chunks(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>>;

    /// The state of the chunks the kept data describes ([`Store::chunk_state`]): what a
    /// process keeps of it between reads is good for views of the same state only.
    fn state(&self) -> &[u8];
}

/// A knowledge store. Every read returns results in a deterministic order; every write is
/// one transaction (readers see the old state or the new one, never a mix). Implementations
/// are shared between threads: many readers may read while one writer writes.
pub trait Store: Send + Sync {
    /// Metadata of a document (without its text).
    fn document(&self, id: &str) -> Result<Option<Document>>;

    /// Every document, in ingestion order (a re-ingested document keeps its place).
    fn documents(&self) -> Result<Vec<Document>>;

    /// A document's full text (chunk offsets and evidence quotes index into it).
    fn document_text(&self, id: &str) -> Result<Option<String>>;

    /// A chunk by id (`<docId>#<n>`).
    fn chunk(&self, id: &str) -> Result<Option<Chunk>>;

    /// The chunks with these ids, in the order asked (`None` for an id not stored). The
    /// PostgreSQL store reads them in one query instead of one each.
    fn chunks_by_id(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>> {
        ids.iter().map(|id| self.chunk(id)).collect()
    }

    /// A document's chunks in order, with their char offsets into the document.
    fn chunks_of(&self, doc_id: &str) -> Result<Vec<Chunk>>;

    /// Visits the facts matching `query` in source order — document ingestion order, chunk
    /// index, then insertion order (spec §9's last two tie-breakers); manual facts whose
    /// document or chunk is not in the store come after those that are. `visit` returns
    /// `false` to stop early.
    fn visit_facts(&self, query: &FactQuery, visit: &mut dyn FnMut(Fact) -> bool) -> Result<()>;

    /// The facts matching `query`, in source order (see [`Store::visit_facts`]).
    fn facts(&self, query: &FactQuery) -> Result<Vec<Fact>> {
        let mut out = Vec::new();
        self.visit_facts(query, &mut |f| {
            out.push(f);
            true
        })?;
        Ok(out)
    }

    /// The facts matching each query, in the order asked, each list in source order (as
    /// [`Store::facts`]). The PostgreSQL store reads them in one transaction (one snapshot)
    /// instead of one each.
    fn facts_each(&self, queries: &[FactQuery]) -> Result<Vec<Vec<Fact>>> {
        queries.iter().map(|q| self.facts(q)).collect()
    }

    /// A fact by id.
    fn fact(&self, id: &str) -> Result<Option<Fact>>;

    /// `matchSignature(pattern)` (spec §7, §15): every fact that unifies with the pattern,
    /// with the bindings, in source order. Pattern roles `subject`, `predicate` and `object`
    /// match the fact's; any other role matches the qualifier of that name, and `version`
    /// compares after D22 normalisation. An omitted role is unconstrained; a repeated
    /// variable must take one value; equality is typed and exact. Build patterns with
    /// [`Signature`] or [`pattern_from_json`].
    fn match_signature(&self, pattern: &Signature) -> Result<Vec<SignatureMatch>>;

    /// BM25 top-`limit` chunks for a free-text query (its words, OR-ed, stemmed), best first;
    /// equal scores in the order the chunks were stored.
    fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>>;

    /// Every chunk, in stored order (documents as stored, chunks in document order).
    fn visit_chunks(&self, visit: &mut dyn FnMut(Chunk)) -> Result<()>;

    /// The value `build` derives from the chunks, named `name`. Stores that can tell when
    /// their chunks change keep it and hand it out again until they do (from any process's
    /// write); others may build it on every call. `build` reads the store it is given.
    fn derived(&self, name: &'static str, build: &dyn Fn(&dyn Store) -> Result<Derived>) -> Result<Derived>;

    /// A token of the state of the store's chunks: equal tokens, equal chunks (any write that
    /// changes a chunk changes it). Read it before and after deriving something from the
    /// chunks: equal tokens mean the value describes that state.
    fn chunk_state(&self) -> Result<Vec<u8>>;

    /// Keeps `entries` (key → value) as the derived data `name` of the chunks at `state`
    /// ([`Store::chunk_state`]), replacing what was kept under `name`, in one transaction.
    /// `Ok(false)`, with nothing written, when the store has moved past `state`: the entries
    /// would describe a state nobody can read any more.
    fn persist_derived(&self, name: &str, state: &[u8], entries: &mut dyn Iterator<Item = (Vec<u8>, Vec<u8>)>) -> Result<bool>;

    /// Calls `read` with the derived data `name` kept for the store's current chunks, in one
    /// read snapshot together with those chunks. `Ok(false)`, without calling `read`, when
    /// none is kept for the current state (never persisted, or written since).
    fn read_persisted(&self, name: &str, read: &mut dyn FnMut(&dyn PersistedView) -> Result<()>) -> Result<bool>;

    /// How many chunks contain `word` (as the BM25 index sees it: stemmed), counting at most
    /// `cap`: cheap even for a word in every chunk, so callers can leave very common words out
    /// of a query. A store that cannot tell returns 0.
    fn chunk_frequency(&self, word: &str, cap: usize) -> Result<usize> {
        let _ = (word, cap);
        Ok(0)
    }

    /// How many chunks the index holds, and how many contain each word (as
    /// [`Store::chunk_frequency`] counts, exact up to half the chunks and capped just above:
    /// a word in more than half of them has no BM25 weight, so its exact count is never
    /// needed). Stores may cache the counts until their content changes.
    fn term_stats(&self, words: &[&str]) -> Result<TermStats> {
        let chunks = usize::try_from(self.stats()?.chunks).unwrap_or(usize::MAX);
        let cap = chunks / 2 + 1;
        let frequencies = words.iter().map(|w| self.chunk_frequency(w, cap)).collect::<Result<_>>()?;
        Ok(TermStats { chunks, frequencies })
    }

    /// An entity by any surface form: its canonical id ("Session tokens" → `session_token`),
    /// else the looser plural/singular key ("sessions tokens"); `None` if unknown.
    fn entity(&self, name: &str) -> Result<Option<Entity>>;

    /// [`Store::entity`] with only the first `max_mentions` mentions (in source order) and the
    /// aliases among them: cheap for entities mentioned thousands of times.
    fn entity_head(&self, name: &str, max_mentions: usize) -> Result<Option<Entity>> {
        Ok(self.entity(name)?.map(|mut e| {
            e.mentions.truncate(max_mentions);
            let aliases: std::collections::BTreeSet<String> = e.mentions.iter().map(|m| m.surface.clone()).collect();
            e.aliases = aliases.into_iter().collect();
            e
        }))
    }

    /// The canonical id of an entity by any surface form (as [`Store::entity`], without
    /// reading its mentions); `None` if unknown.
    fn entity_id(&self, name: &str) -> Result<Option<String>> {
        Ok(self.entity(name)?.map(|e| e.id))
    }

    /// The source-order position of each fact id (see [`Store::visit_facts`]): results of
    /// several queries can be merged into one source order by comparing positions. Ids not
    /// in the store are left out.
    fn fact_positions(&self, ids: &[&str]) -> Result<HashMap<String, FactPosition>>;

    /// Counts of documents, chunks, facts (by predicate) and entities.
    fn stats(&self) -> Result<StoreStats>;

    /// The stored ingest keys of the given document ids (absent ids are left out), so
    /// unchanged documents can be skipped before they are prepared.
    fn ingest_keys(&self, ids: &[&str]) -> Result<HashMap<String, String>>;

    /// Writes prepared documents and manual facts in one transaction: all or nothing. A
    /// document whose stored ingest key equals its own is left untouched; a changed one
    /// replaces the old chunks, extracted facts and mentions; a new one is appended. Manual
    /// facts are stored as given (no span validation), replacing a fact with the same id.
    /// Documents are consumed as the iterator yields them (so preparation can overlap the
    /// write); `progress` is called with the number of documents handled so far.
    fn write(
        &self,
        documents: &mut dyn Iterator<Item = PreparedDocument>,
        manual_facts: &[Fact],
        progress: &mut dyn FnMut(usize),
    ) -> Result<WriteReport>;
}
pub use chunk::{ChunkRange, chunk_text};
pub use ingest::sha256_hex;
pub use sources::{
    SourceSet, display_path, parse_json_records, parse_jsonl, parse_manual_facts, read_sources, read_sources_within,
};
pub use sqlite::{STORE_FILE, current_version};

/// Opens the store at `location`, for writing: a `postgres://` or `postgresql://` URL names a
/// PostgreSQL store (which must have been migrated: `warrant store migrate`), anything else an
/// SQLite store folder, created if missing.
pub fn open(location: impl AsRef<std::ffi::OsStr>) -> Result<Box<dyn Store>> {
    let location = location.as_ref();
    match location.to_str().filter(|l| is_postgres_url(l)) {
        Some(url) => open_postgres(url),
        None => Ok(Box::new(SqliteStore::open(std::path::Path::new(location))?)),
    }
}

/// Opens an existing store at `location` (a PostgreSQL URL, or an SQLite store folder, which
/// must hold a store: [`StoreError::NotFound`] otherwise).
pub fn open_existing(location: impl AsRef<std::ffi::OsStr>) -> Result<Box<dyn Store>> {
    let location = location.as_ref();
    match location.to_str().filter(|l| is_postgres_url(l)) {
        Some(url) => open_postgres(url),
        None => Ok(Box::new(SqliteStore::open_existing(std::path::Path::new(location))?)),
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Box<dyn Store>> {
    Ok(Box::new(PostgresStore::open(url)?))
}

/// A build without the `postgres` feature (the Python package: no network code) names the
/// missing backend instead of reading the URL as a folder.
#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str) -> Result<Box<dyn Store>> {
    Err(StoreError::Unsupported { location: redact(url) })
}
