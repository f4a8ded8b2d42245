//! The store schema and its migrations.
//!
//! `PRAGMA user_version` is the schema version: migration `k` (1-based) brings a store from
//! version `k-1` to `k`, inside one transaction. Append migrations; never edit shipped ones.
//! `PRAGMA application_id` marks the file as a Warrant store.

/// `application_id` of a Warrant store ("WRNT").
pub const APPLICATION_ID: i64 = 0x5752_4e54;

/// Migrations in order; the schema version is their count.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3];

/// The newest schema version this build knows.
pub fn current_version() -> i64 {
    MIGRATIONS.len() as i64
}

/// Version 1: documents, chunks (+ FTS5 index), facts, entities, mentions.
const V1: &str = r#"
CREATE TABLE documents (
    seq          INTEGER PRIMARY KEY,          -- ingestion order; kept when a document is replaced
    id           TEXT NOT NULL UNIQUE,
    version      TEXT,                         -- as written
    version_norm TEXT,                         -- D22: one leading v/V dropped
    title        TEXT,
    metadata     TEXT,                         -- JSON object
    sha256       TEXT NOT NULL,                -- of the text
    ingest_key   TEXT NOT NULL,                -- equal key: re-ingest is a no-op
    char_len     INTEGER NOT NULL,
    text         TEXT NOT NULL
);

CREATE TABLE chunks (
    pk       INTEGER PRIMARY KEY AUTOINCREMENT, -- FTS rowid; never reused, so new rows are pk > max
    id       TEXT NOT NULL UNIQUE,             -- <docId>#<n>
    doc_seq  INTEGER NOT NULL,
    idx      INTEGER NOT NULL,                 -- position in the document, from 0
    start    INTEGER NOT NULL,                 -- char offsets into the document text
    "end"    INTEGER NOT NULL,
    text     TEXT NOT NULL
);
CREATE INDEX chunks_doc ON chunks(doc_seq, idx);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, content = 'chunks', content_rowid = 'pk',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- New chunks are indexed in one statement at the end of each write (one FTS flush instead of
-- one per row); deleted ones leave the index through this trigger.
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
END;

CREATE TABLE facts (
    seq          INTEGER PRIMARY KEY,          -- insertion order (last tie-breaker)
    id_key       INTEGER NOT NULL UNIQUE,      -- 64-bit key of the id (see `fact_id_key`)
    id           TEXT NOT NULL,
    subject      TEXT NOT NULL,
    predicate    TEXT NOT NULL,
    object_kind  INTEGER NOT NULL,             -- 0 string, 1 number (text as written), 2 boolean
    object       TEXT NOT NULL,
    qualifiers   TEXT,                         -- JSON object; NULL when empty
    version_norm TEXT,
    polarity     INTEGER NOT NULL,             -- 0 affirm, 1 negate
    confidence   REAL NOT NULL,
    span_start   INTEGER NOT NULL,
    span_end     INTEGER NOT NULL,
    doc_id       TEXT NOT NULL,
    chunk_id     TEXT NOT NULL,
    doc_seq      INTEGER,                      -- source order: the document's seq, if stored
    chunk_idx    INTEGER,                      -- source order: the chunk's index, if stored
    manual       INTEGER NOT NULL              -- 1: loaded as given, kept when documents change
);
CREATE INDEX facts_subject_predicate ON facts(subject, predicate);
CREATE INDEX facts_predicate ON facts(predicate);
CREATE INDEX facts_source ON facts(doc_seq, chunk_idx);       -- by document or chunk (stored ones)
CREATE INDEX facts_manual_chunk ON facts(chunk_id) WHERE manual = 1; -- manual facts keep their chunk ids

CREATE TABLE entities (
    match_key TEXT NOT NULL,                   -- every token singular: plural variants meet
    id        TEXT NOT NULL,                   -- canonical entity string (D23)
    PRIMARY KEY (match_key, id)                -- an id determines its key: one B-tree serves both
) WITHOUT ROWID;

CREATE TABLE mentions (
    entity_id  TEXT NOT NULL,
    surface    TEXT NOT NULL,
    doc_seq    INTEGER,                        -- owning document and chunk (extracted facts)
    chunk_idx  INTEGER,
    span_start INTEGER,                        -- char offsets into the chunk, when known
    span_end   INTEGER,
    doc_id     TEXT,                           -- manual facts (doc_seq NULL): their source as given
    chunk_id   TEXT
);
CREATE INDEX mentions_entity ON mentions(entity_id);
CREATE INDEX mentions_doc ON mentions(doc_seq);
CREATE UNIQUE INDEX mentions_manual ON mentions(entity_id, surface, doc_id, chunk_id) WHERE doc_seq IS NULL;
"#;

/// Version 2: facts by (predicate, object), for patterns whose only constants are the
/// predicate and the object (`part_of(?x, gateway)`: what is part of the gateway?).
const V2: &str = r#"
CREATE INDEX facts_predicate_object ON facts(predicate, object);
"#;

/// Version 3: derived data kept for one state of the chunks (the checker's chunk index), so a
/// fresh process need not rebuild it: values by name and key, and the chunk state
/// (`chunk_state`) each name was computed from.
const V3: &str = r#"
CREATE TABLE derived_state (
    name  TEXT PRIMARY KEY,
    state BLOB NOT NULL
);
CREATE TABLE derived (
    name  TEXT NOT NULL,
    key   BLOB NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (name, key)
);
"#;
