//! The PostgreSQL schema and its migrations.
//!
//! `schema_version` holds one row per applied migration; the store's version is the largest.
//! Migration `k` (1-based) brings a store from version `k-1` to `k`; all pending ones are
//! applied in one transaction by `warrant store migrate`. Append migrations; never edit
//! shipped ones. Ordered text columns are `COLLATE "C"` (byte order, as SQLite's BINARY), so
//! every order matches the SQLite store whatever the database's locale.

/// Migrations in order; the schema version is their count.
pub const MIGRATIONS: &[&str] = &[V1, V2];

/// The newest schema version this build knows.
pub fn current_version() -> i64 {
    MIGRATIONS.len() as i64
}

/// Created before any migration runs (so the version can be read on a fresh database).
pub const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_version (
    version    integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)";

/// Version 1: documents, chunks with their postings (Warrant's own BM25 index), facts,
/// entities, mentions, and the store state (generation and index totals).
const V1: &str = r#"
CREATE TABLE store_state (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    generation bigint NOT NULL,                 -- bumped by every write: derived values follow it
    chunks     bigint NOT NULL,                 -- rows in the BM25 index (FTS5's averages record)
    tokens     bigint NOT NULL                  -- tokens in them
);
INSERT INTO store_state (generation, chunks, tokens) VALUES (0, 0, 0);

CREATE TABLE documents (
    seq          bigserial PRIMARY KEY,         -- ingestion order; kept when a document is replaced
    id           text COLLATE "C" NOT NULL UNIQUE,
    version      text,
    version_norm text,
    title        text,
    metadata     text,                          -- JSON object, as written by the SQLite store
    sha256       text NOT NULL,
    ingest_key   text NOT NULL,
    char_len     bigint NOT NULL,
    text         text NOT NULL
);

CREATE TABLE chunks (
    pk      bigserial PRIMARY KEY,              -- stored order (writers serialise: commit order)
    id      text COLLATE "C" NOT NULL UNIQUE,   -- <docId>#<n>
    doc_seq bigint NOT NULL,
    idx     bigint NOT NULL,
    start   bigint NOT NULL,
    "end"   bigint NOT NULL,
    text    text NOT NULL,
    tokens  bigint NOT NULL                     -- BM25 length (FTS5 tokens)
);
CREATE INDEX chunks_doc ON chunks(doc_seq, idx);

CREATE TABLE postings (
    term     text COLLATE "C" NOT NULL,         -- FTS5 term (porter unicode61 remove_diacritics 2)
    chunk_pk bigint NOT NULL,
    tf       integer NOT NULL,                  -- occurrences in the chunk
    PRIMARY KEY (term, chunk_pk)
);
CREATE INDEX postings_chunk ON postings(chunk_pk);

CREATE TABLE facts (
    seq          bigserial PRIMARY KEY,         -- insertion order (last tie-breaker)
    id_key       bigint NOT NULL UNIQUE,
    id           text COLLATE "C" NOT NULL,
    subject      text COLLATE "C" NOT NULL,
    predicate    text COLLATE "C" NOT NULL,
    object_kind  bigint NOT NULL,
    object       text COLLATE "C" NOT NULL,
    qualifiers   text,
    version_norm text COLLATE "C",
    polarity     bigint NOT NULL,
    confidence   double precision NOT NULL,
    span_start   bigint NOT NULL,
    span_end     bigint NOT NULL,
    doc_id       text COLLATE "C" NOT NULL,
    chunk_id     text COLLATE "C" NOT NULL,
    doc_seq      bigint,
    chunk_idx    bigint,
    manual       boolean NOT NULL
);
CREATE INDEX facts_subject_predicate ON facts(subject, predicate);
CREATE INDEX facts_predicate_object ON facts(predicate, object);
CREATE INDEX facts_source ON facts(doc_seq, chunk_idx);
CREATE INDEX facts_manual_chunk ON facts(chunk_id) WHERE manual;
CREATE INDEX facts_manual_doc ON facts(doc_id) WHERE doc_seq IS NULL;

CREATE TABLE entities (
    match_key text COLLATE "C" NOT NULL,
    id        text COLLATE "C" NOT NULL,
    PRIMARY KEY (match_key, id)
);

CREATE TABLE mentions (
    rid        bigserial PRIMARY KEY,           -- insertion order (last tie-breaker)
    entity_id  text COLLATE "C" NOT NULL,
    surface    text COLLATE "C" NOT NULL,
    doc_seq    bigint,
    chunk_idx  bigint,
    span_start bigint,
    span_end   bigint,
    doc_id     text COLLATE "C",
    chunk_id   text COLLATE "C"
);
CREATE INDEX mentions_entity ON mentions(entity_id);
CREATE INDEX mentions_doc ON mentions(doc_seq);
CREATE UNIQUE INDEX mentions_manual ON mentions(entity_id, surface, doc_id, chunk_id) WHERE doc_seq IS NULL;
"#;

/// Version 2: derived data kept for one state of the chunks (the checker's chunk index), so a
/// fresh process need not rebuild it: values by name and key, and the generation each name
/// was computed at.
const V2: &str = r#"
CREATE TABLE derived_state (
    name  text COLLATE "C" PRIMARY KEY,
    state bytea NOT NULL
);
CREATE TABLE derived (
    name  text COLLATE "C" NOT NULL,
    key   bytea NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (name, key)
);
"#;
