//! The SQLite implementation of [`Store`].
//!
//! One file, `<dir>/store.sqlite`, in WAL mode: readers never block the writer and see the
//! last committed state; writers take the write lock up front (`BEGIN IMMEDIATE`) and wait up
//! to the busy timeout for another writer, so concurrent ingests serialise. A store keeps one
//! writer connection and a small pool of read-only connections, so many threads can read
//! while one writes. In-memory stores use a single connection.

mod derived;
mod schema;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::types::Value as SqlValue;
use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Row, Statement, Transaction, TransactionBehavior, params, params_from_iter,
};
use serde_json::Value;
use sha2::Digest;
use warrant_facts::numbers_equal;
use warrant_facts::{Bindings, Role, Signature, match_with};
use warrant_facts::{Fact, Object, Polarity, Qualifiers, Source, Span, canonical_entity, entity_match_key, normalize_version};

pub use schema::{APPLICATION_ID, current_version};

use crate::error::{Result, SqlContext, StoreError};
use crate::ingest::PreparedDocument;
use crate::mentions::MentionBuffer;
use crate::model::{
    Chunk, Document, Entity, EntityMention, FactPosition, FactQuery, SearchHit, SignatureMatch, StoreStats, TermStats, constant,
};
use crate::{Derived, PersistedView, Store, WriteReport};

/// File name of the database inside a store directory.
pub const STORE_FILE: &str = "store.sqlite";

/// How long a writer waits for another writer's lock before giving up with
/// [`StoreError::Busy`].
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(600);

/// Read-only connections kept for reuse.
const READER_POOL: usize = 8;

/// Default page cache of the writer connection, in MiB (allocated as used): random inserts into
/// large indexes stay in memory. A transaction spills to the WAL once it outgrows the cache.
pub const DEFAULT_WRITER_CACHE_MIB: u32 = 256;

/// Page cache of each read connection, in KiB.
const READER_CACHE_KIB: i64 = 16 * 1024;

/// Bytes a WAL file is truncated to after a checkpoint (a large ingest grows it).
const WAL_SIZE_LIMIT: i64 = 64 << 20;

/// An SQLite-backed [`Store`].
pub struct SqliteStore {
    /// The database file; `None` for an in-memory store.
    file: Option<PathBuf>,
    // Readers are declared (so dropped) before the writer: the writer, closing last,
    // checkpoints the WAL and removes it.
    readers: Mutex<Vec<Connection>>,
    writer: Mutex<Connection>,
    busy_timeout: Duration,
    terms: Mutex<TermCache>,
    derived: Mutex<DerivedCache>,
    /// Held while a derived value is built ([`Store::derived`]).
    building: Mutex<()>,
}

/// What identifies the state of the chunks and their BM25 index: the FTS5 averages record
/// (rows and tokens indexed) and the last chunk key handed out, so any insert or delete — by
/// this process or another — is noticed with two row reads.
type Fingerprint = (Vec<u8>, i64);

/// Values derived from the chunks ([`Store::derived`]), valid while the fingerprint holds.
#[derive(Default)]
struct DerivedCache {
    fingerprint: Option<Fingerprint>,
    values: HashMap<&'static str, Derived>,
}

/// Word counts of the BM25 index, valid while the index is unchanged ([`Fingerprint`]).
#[derive(Default)]
struct TermCache {
    fingerprint: Option<Fingerprint>,
    chunks: usize,
    frequencies: HashMap<String, usize>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("file", &self.file).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a connection cannot leave a half-written transaction behind
    // (dropping a `Transaction` rolls back), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SqliteStore {
    /// Opens the store in `dir`, creating the directory and the database if needed and
    /// migrating an older schema.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })?;
        Self::open_file(dir.join(STORE_FILE), true, DEFAULT_BUSY_TIMEOUT)
    }

    /// Opens an existing store; [`StoreError::NotFound`] when `dir` holds none.
    pub fn open_existing(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let file = dir.join(STORE_FILE);
        if !file.is_file() {
            return Err(StoreError::NotFound(dir.to_path_buf()));
        }
        Self::open_file(file, false, DEFAULT_BUSY_TIMEOUT)
    }

    /// A private in-memory store (e.g. for `check --sources`).
    pub fn open_in_memory() -> Result<Self> {
        let mut conn = Connection::open_in_memory().ctx("open in-memory store")?;
        migrate(&mut conn, Path::new(":memory:"))?;
        Ok(Self {
            file: None,
            writer: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            terms: Mutex::default(),
            derived: Mutex::default(),
            building: Mutex::new(()),
        })
    }

    fn open_file(file: PathBuf, create: bool, busy_timeout: Duration) -> Result<Self> {
        if !create {
            probe_existing(&file, busy_timeout)?;
        }
        // Two processes creating the same new store at once meet locks that SQLite reports as
        // busy without waiting (switching a new file to WAL, the first migration): opening is
        // retried until the busy timeout, so creating a store is as safe as writing to one.
        // A file another process is creating this very moment can also read, for an instant, as
        // a header without Warrant's application id or as no database at all: a creating open
        // looks again a few times (about 60 ms in all) before calling it not a store.
        let deadline = std::time::Instant::now() + busy_timeout;
        let mut pause = Duration::from_millis(2);
        let mut not_a_store_retries = if create { 5 } else { 0 };
        loop {
            match Self::open_file_once(&file, create, busy_timeout) {
                Err(StoreError::Busy) if std::time::Instant::now() < deadline => {}
                Err(StoreError::NotAStore(_)) if not_a_store_retries > 0 => not_a_store_retries -= 1,
                other => return other,
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }

    fn open_file_once(file: &Path, create: bool, busy_timeout: Duration) -> Result<Self> {
        let file = file.to_path_buf();
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn = Connection::open_with_flags(&file, flags).ctx("open store")?;
        conn.busy_timeout(busy_timeout).ctx("set busy timeout")?;
        // Only takes effect on a new, empty database.
        conn.execute_batch("PRAGMA page_size = 16384").map_err(|e| not_a_store(e, &file, "set page size"))?;
        let mode: String =
            conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| not_a_store(e, &file, "enable WAL"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Invalid(format!("{}: cannot use WAL mode (got {mode})", file.display())));
        }
        conn.execute_batch(&format!(
            "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -{}; PRAGMA temp_store = MEMORY; \
             PRAGMA journal_size_limit = {WAL_SIZE_LIMIT};",
            i64::from(DEFAULT_WRITER_CACHE_MIB) * 1024
        ))
        .ctx("configure store")?;
        migrate(&mut conn, &file)?;
        Ok(Self {
            file: Some(file),
            writer: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
            busy_timeout,
            terms: Mutex::default(),
            derived: Mutex::default(),
            building: Mutex::new(()),
        })
    }

    /// The database file, or `None` for an in-memory store.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Sets how long writes wait for another writer (default [`DEFAULT_BUSY_TIMEOUT`]).
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<()> {
        self.busy_timeout = timeout;
        lock(&self.writer).busy_timeout(timeout).ctx("set busy timeout")
    }

    /// Sets the writer's page cache (default [`DEFAULT_WRITER_CACHE_MIB`]). Smaller caches use
    /// less memory and make large transactions spill to the WAL sooner; larger ones speed up
    /// big ingests into big stores.
    pub fn set_writer_cache_mib(&self, mib: u32) -> Result<()> {
        let kib = i64::from(mib.max(1)) * 1024;
        lock(&self.writer).execute_batch(&format!("PRAGMA cache_size = -{kib}")).ctx("set cache size")
    }

    /// The schema version of the store (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        self.read(|c| c.query_row("PRAGMA user_version", [], |r| r.get(0)).ctx("read schema version"))
    }

    /// `PRAGMA integrity_check` plus FTS5's own check that the BM25 index matches the chunks:
    /// `"ok"` for a sound store, otherwise the problems found.
    pub fn integrity_check(&self) -> Result<String> {
        let conn = lock(&self.writer);
        let mut st = conn.prepare("PRAGMA integrity_check").ctx("integrity check")?;
        let rows: Vec<String> =
            st.query_map([], |r| r.get(0)).ctx("integrity check")?.collect::<rusqlite::Result<_>>().ctx("integrity check")?;
        if rows != ["ok"] {
            return Ok(rows.join("; "));
        }
        match conn.execute_batch("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)") {
            Ok(()) => Ok("ok".into()),
            Err(e) => Ok(format!("search index: {e}")),
        }
    }

    fn open_reader(&self, file: &Path) -> Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(file, flags).ctx("open reader")?;
        conn.busy_timeout(self.busy_timeout).ctx("set busy timeout")?;
        conn.execute_batch(&format!("PRAGMA cache_size = -{READER_CACHE_KIB}")).ctx("configure reader")?;
        Ok(conn)
    }

    /// Runs `f` on a read connection (pooled; the single connection of an in-memory store).
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let Some(file) = &self.file else { return f(&lock(&self.writer)) };
        let pooled = lock(&self.readers).pop();
        let conn = match pooled {
            Some(c) => c,
            None => self.open_reader(file)?,
        };
        let out = f(&conn);
        let mut pool = lock(&self.readers);
        if pool.len() < READER_POOL {
            pool.push(conn);
        }
        out
    }
}

fn not_a_store(e: rusqlite::Error, file: &Path, context: &'static str) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => StoreError::NotAStore(file.to_path_buf()),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => StoreError::Busy,
        _ => StoreError::Sqlite { context, source: e },
    }
}

/// Refuses, without writing anything, a file that is not already a Warrant store: a reading
/// command must not turn an empty file (or another application's database) into a store.
fn probe_existing(file: &Path, busy_timeout: Duration) -> Result<()> {
    let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    if std::fs::metadata(file).map(|m| m.len() == 0).unwrap_or(false) {
        return Err(StoreError::NotFound(dir));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(file, flags).map_err(|e| not_a_store(e, file, "open store"))?;
    conn.busy_timeout(busy_timeout).ctx("set busy timeout")?;
    let app: i64 =
        conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| not_a_store(e, file, "read store header"))?;
    if app != APPLICATION_ID {
        let objects: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(|e| not_a_store(e, file, "read store header"))?;
        return Err(if objects == 0 { StoreError::NotFound(dir) } else { StoreError::NotAStore(file.to_path_buf()) });
    }
    Ok(())
}

/// Brings the schema up to date (a no-op, without taking the write lock, when it is).
fn migrate(conn: &mut Connection, file: &Path) -> Result<()> {
    let read = |c: &Connection| -> rusqlite::Result<(i64, i64, i64)> {
        let app: i64 = c.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let objects: i64 = c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        Ok((app, version, objects))
    };
    let latest = current_version();
    let check = |(app, version, objects): (i64, i64, i64)| -> Result<bool> {
        if app != APPLICATION_ID && (app != 0 || objects > 0) {
            return Err(StoreError::NotAStore(file.to_path_buf()));
        }
        if version > latest {
            return Err(StoreError::SchemaTooNew { found: version, supported: latest });
        }
        Ok(version == latest && app == APPLICATION_ID)
    };
    if check(read(conn).map_err(|e| not_a_store(e, file, "read schema version"))?)? {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx("begin migration")?;
    let state = read(&tx).ctx("read schema version")?;
    if !check(state)? {
        for m in &schema::MIGRATIONS[state.1 as usize..] {
            tx.execute_batch(m).ctx("migrate schema")?;
        }
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {latest};"))
            .ctx("set schema version")?;
    }
    tx.commit().ctx("commit migration")
}

const FACT_COLUMNS: &str =
    "id, subject, predicate, object_kind, object, qualifiers, polarity, confidence, span_start, span_end, doc_id, chunk_id";
const FACT_ORDER: &str = "ORDER BY doc_seq IS NULL, doc_seq, chunk_idx IS NULL, chunk_idx, seq";

/// A fact row as stored (the same columns in every backend).
pub(crate) struct FactRow {
    pub(crate) id: String,
    pub(crate) subject: String,
    pub(crate) predicate: String,
    pub(crate) object_kind: i64,
    pub(crate) object: String,
    pub(crate) qualifiers: Option<String>,
    pub(crate) polarity: i64,
    pub(crate) confidence: f64,
    pub(crate) span: (i64, i64),
    pub(crate) doc_id: String,
    pub(crate) chunk_id: String,
}

impl FactRow {
    fn read(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            subject: r.get(1)?,
            predicate: r.get(2)?,
            object_kind: r.get(3)?,
            object: r.get(4)?,
            qualifiers: r.get(5)?,
            polarity: r.get(6)?,
            confidence: r.get(7)?,
            span: (r.get(8)?, r.get(9)?),
            doc_id: r.get(10)?,
            chunk_id: r.get(11)?,
        })
    }

    pub(crate) fn into_fact(self) -> Result<Fact> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("facts.{what} of fact {}", self.id));
        let object = match self.object_kind {
            0 => Object::String(self.object.clone()),
            1 => match serde_json::from_str::<Value>(&self.object) {
                Ok(Value::Number(n)) => Object::Number(n),
                _ => return Err(corrupt("object")),
            },
            2 => Object::Bool(self.object == "true"),
            _ => return Err(corrupt("object_kind")),
        };
        let qualifiers: Qualifiers = match &self.qualifiers {
            None => Qualifiers::new(),
            Some(q) => serde_json::from_str(q).map_err(|_| corrupt("qualifiers"))?,
        };
        let span = Span::new(
            usize::try_from(self.span.0).map_err(|_| corrupt("span"))?,
            usize::try_from(self.span.1).map_err(|_| corrupt("span"))?,
        );
        Ok(Fact {
            polarity: if self.polarity == 1 { Polarity::Negate } else { Polarity::Affirm },
            id: self.id,
            subject: self.subject,
            predicate: self.predicate,
            object,
            qualifiers,
            confidence: self.confidence,
            span,
            source: Source { doc_id: self.doc_id, chunk_id: self.chunk_id },
        })
    }
}

/// The 64-bit key a fact id is stored under (unique per store): a content id (`f` + 16 hex
/// digits, already a hash) reads as its number; any other id is hashed.
pub(crate) fn fact_id_key(id: &str) -> i64 {
    let hex =
        id.strip_prefix('f').filter(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    let bits = match hex.and_then(|h| u64::from_str_radix(h, 16).ok()) {
        Some(n) => n,
        None => {
            let d = sha2::Sha256::digest(id.as_bytes());
            u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
        }
    };
    bits as i64
}

/// `(object_kind, object text)` as stored.
pub(crate) fn object_columns(o: &Object) -> (i64, String) {
    match o {
        Object::String(s) => (0, s.clone()),
        Object::Number(n) => (1, n.to_string()),
        Object::Bool(b) => (2, b.to_string()),
    }
}

pub(crate) fn usize_of(v: i64) -> usize {
    usize::try_from(v).unwrap_or(0)
}

fn chunk_from_row(r: &Row<'_>) -> rusqlite::Result<Chunk> {
    Ok(Chunk {
        id: r.get(0)?,
        doc_id: r.get(1)?,
        index: usize_of(r.get(2)?),
        start: usize_of(r.get(3)?),
        end: usize_of(r.get(4)?),
        text: r.get(5)?,
    })
}

const CHUNK_SELECT: &str =
    "SELECT c.id, d.id, c.idx, c.start, c.\"end\", c.text FROM chunks c JOIN documents d ON d.seq = c.doc_seq";

/// The words of a free-text query (letters and digits), each once, at most 64: the phrases
/// of the FTS5 query, in order (every backend ranks these same phrases).
pub(crate) fn query_words(text: &str) -> Vec<&str> {
    let mut words: Vec<&str> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !words.contains(&w) && words.len() < 64 {
            words.push(w);
        }
    }
    words
}

/// The FTS5 query for free text: its [`query_words`], quoted, OR-ed.
fn fts_query(text: &str) -> Option<String> {
    let words = query_words(text);
    (!words.is_empty()).then(|| words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR "))
}

/// The current [`Fingerprint`].
fn fingerprint_of(c: &Connection) -> Result<Fingerprint> {
    Ok((
        c.prepare_cached("SELECT block FROM chunks_fts_data WHERE id = 1")
            .and_then(|mut st| st.query_row([], |r| r.get(0)).optional())
            .ctx("read index averages")?
            .unwrap_or_default(),
        c.prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'")
            .and_then(|mut st| st.query_row([], |r| r.get(0)).optional())
            .ctx("read chunk sequence")?
            .unwrap_or(0),
    ))
}

/// Chunks containing `word` (as the index tokenizes it), counted up to `cap`.
fn chunk_frequency_on(c: &Connection, word: &str, cap: usize) -> Result<usize> {
    let Some(fts) = fts_query(word) else { return Ok(0) };
    if cap == 0 {
        return Ok(0);
    }
    let n: i64 = c
        .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT ?2)")
        .and_then(|mut st| st.query_row(params![fts, i64::try_from(cap).unwrap_or(i64::MAX)], |r| r.get(0)))
        .ctx("count chunks")?;
    Ok(usize::try_from(n).unwrap_or(0))
}

impl Store for SqliteStore {
    fn document(&self, id: &str) -> Result<Option<Document>> {
        self.read(|c| {
            c.prepare_cached("SELECT id, version, title, metadata, sha256, char_len FROM documents WHERE id = ?1")
                .and_then(|mut st| st.query_row([id], document_from_row).optional())
                .ctx("read document")?
                .transpose()
        })
    }

    fn documents(&self) -> Result<Vec<Document>> {
        self.read(|c| {
            let mut st = c
                .prepare_cached("SELECT id, version, title, metadata, sha256, char_len FROM documents ORDER BY seq")
                .ctx("list documents")?;
            let rows = st.query_map([], document_from_row).ctx("list documents")?;
            rows.map(|r| r.ctx("list documents").and_then(|d| d)).collect()
        })
    }

    fn document_text(&self, id: &str) -> Result<Option<String>> {
        self.read(|c| {
            c.prepare_cached("SELECT text FROM documents WHERE id = ?1")
                .and_then(|mut st| st.query_row([id], |r| r.get(0)).optional())
                .ctx("read document text")
        })
    }

    fn chunk(&self, id: &str) -> Result<Option<Chunk>> {
        self.read(|c| {
            c.prepare_cached(&format!("{CHUNK_SELECT} WHERE c.id = ?1"))
                .and_then(|mut st| st.query_row([id], chunk_from_row).optional())
                .ctx("read chunk")
        })
    }

    fn chunks_of(&self, doc_id: &str) -> Result<Vec<Chunk>> {
        self.read(|c| {
            let mut st = c.prepare_cached(&format!("{CHUNK_SELECT} WHERE d.id = ?1 ORDER BY c.idx")).ctx("read chunks")?;
            let rows = st.query_map([doc_id], chunk_from_row).ctx("read chunks")?;
            rows.collect::<rusqlite::Result<_>>().ctx("read chunks")
        })
    }

    fn visit_facts(&self, query: &FactQuery, visit: &mut dyn FnMut(Fact) -> bool) -> Result<()> {
        let mut conds: Vec<&str> = Vec::new();
        let mut args: Vec<SqlValue> = Vec::new();
        let mut text_arg = |cond: &'static str, v: &Option<String>, conds: &mut Vec<&str>| {
            if let Some(v) = v {
                conds.push(cond);
                args.push(SqlValue::Text(v.clone()));
            }
        };
        text_arg("subject = ?", &query.subject, &mut conds);
        text_arg("predicate = ?", &query.predicate, &mut conds);
        text_arg("version_norm = ?", &query.version.as_deref().map(|v| normalize_version(v).to_string()), &mut conds);
        if let Some(chunk) = &query.chunk_id {
            // Stored chunks by (document, index); manual facts by the chunk id they were given.
            conds.push(
                "((doc_seq, chunk_idx) = (SELECT doc_seq, idx FROM chunks WHERE id = ?) OR (manual = 1 AND chunk_id = ?)) AND chunk_id = ?",
            );
            args.extend([chunk, chunk, chunk].map(|c| SqlValue::Text(c.clone())));
        }
        if let Some(doc) = &query.doc_id {
            // By the document's seq (indexed), or by id for manual facts whose document is not stored.
            conds.push("(doc_seq = (SELECT seq FROM documents WHERE id = ?) OR (doc_seq IS NULL AND doc_id = ?))");
            args.push(SqlValue::Text(doc.clone()));
            args.push(SqlValue::Text(doc.clone()));
        }
        let number = match &query.object {
            Some(o @ (Object::String(_) | Object::Bool(_))) => {
                let (kind, text) = object_columns(o);
                conds.push(if kind == 0 { "object_kind = 0 AND object = ?" } else { "object_kind = 2 AND object = ?" });
                args.push(SqlValue::Text(text));
                None
            }
            Some(Object::Number(n)) => {
                conds.push("object_kind = 1");
                Some(n)
            }
            None => None,
        };
        let filter = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
        let sql = format!("SELECT {FACT_COLUMNS} FROM facts {filter} {FACT_ORDER}");
        let limit = query.limit.unwrap_or(usize::MAX);
        if limit == 0 {
            return Ok(());
        }
        self.read(|c| {
            let mut st = c.prepare_cached(&sql).ctx("query facts")?;
            let mut rows = st.query(params_from_iter(args.iter())).ctx("query facts")?;
            let mut n = 0;
            while let Some(r) = rows.next().ctx("query facts")? {
                let fact = FactRow::read(r).ctx("read fact")?.into_fact()?;
                if let (Some(want), Object::Number(got)) = (number, &fact.object)
                    && !numbers_equal(want, got)
                {
                    continue;
                }
                n += 1;
                if !visit(fact) || n >= limit {
                    break;
                }
            }
            Ok(())
        })
    }

    fn fact(&self, id: &str) -> Result<Option<Fact>> {
        self.read(|c| {
            c.prepare_cached(&format!("SELECT {FACT_COLUMNS} FROM facts WHERE id_key = ?1 AND id = ?2"))
                .and_then(|mut st| st.query_row(params![fact_id_key(id), id], FactRow::read).optional())
                .ctx("read fact")?
                .map(FactRow::into_fact)
                .transpose()
        })
    }

    fn match_signature(&self, pattern: &Signature) -> Result<Vec<SignatureMatch>> {
        match_signature_on(self, pattern)
    }

    fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else { return Ok(Vec::new()) };
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.read(|c| {
            let mut st = c
                .prepare_cached(
                    // Rank inside the index first (only rowids and scores are sorted), then
                    // fetch the k winners: sorting joined rows with their text is ~40× slower.
                    "WITH top AS (SELECT rowid AS pk, bm25(chunks_fts) AS score FROM chunks_fts \
                     WHERE chunks_fts MATCH ?1 ORDER BY score, rowid LIMIT ?2) \
                     SELECT c.id, d.id, top.score, c.idx, c.start, c.\"end\", c.text \
                     FROM top JOIN chunks c ON c.pk = top.pk JOIN documents d ON d.seq = c.doc_seq \
                     ORDER BY top.score, top.pk",
                )
                .ctx("search")?;
            let rows = st
                .query_map(params![fts, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                    Ok(SearchHit {
                        chunk_id: r.get(0)?,
                        doc_id: r.get(1)?,
                        score: -r.get::<_, f64>(2)?,
                        index: usize_of(r.get(3)?),
                        start: usize_of(r.get(4)?),
                        end: usize_of(r.get(5)?),
                        text: r.get(6)?,
                    })
                })
                .ctx("search")?;
            rows.collect::<rusqlite::Result<_>>().ctx("search")
        })
    }

    fn visit_chunks(&self, visit: &mut dyn FnMut(Chunk)) -> Result<()> {
        self.read(|c| {
            let mut st = c.prepare_cached(&format!("{CHUNK_SELECT} ORDER BY c.doc_seq, c.idx")).ctx("read chunks")?;
            let mut rows = st.query([]).ctx("read chunks")?;
            while let Some(r) = rows.next().ctx("read chunks")? {
                visit(chunk_from_row(r).ctx("read chunks")?);
            }
            Ok(())
        })
    }

    fn derived(&self, name: &'static str, build: &dyn Fn(&dyn Store) -> Result<Derived>) -> Result<Derived> {
        let kept = |fingerprint: &Fingerprint| {
            let cache = lock(&self.derived);
            (cache.fingerprint.as_ref() == Some(fingerprint)).then(|| cache.values.get(name).cloned()).flatten()
        };
        if let Some(v) = kept(&self.read(fingerprint_of)?) {
            return Ok(v);
        }
        // One build at a time: threads that miss together (a batch's first checks) wait for
        // the first one's value instead of each building their own. Readers of kept values
        // are not held up.
        let _building = lock(&self.building);
        let before = self.read(fingerprint_of)?;
        if let Some(v) = kept(&before) {
            return Ok(v);
        }
        let value = build(self)?;
        // Kept only if nothing was written meanwhile: the value must describe one state.
        if self.read(fingerprint_of)? == before {
            let mut cache = lock(&self.derived);
            if cache.fingerprint.as_ref() != Some(&before) {
                *cache = DerivedCache { fingerprint: Some(before), values: HashMap::new() };
            }
            cache.values.insert(name, Arc::clone(&value));
        }
        Ok(value)
    }

    fn chunk_state(&self) -> Result<Vec<u8>> {
        self.read(derived::state_of)
    }

    fn persist_derived(&self, name: &str, state: &[u8], entries: &mut dyn Iterator<Item = (Vec<u8>, Vec<u8>)>) -> Result<bool> {
        self.persist_derived_entries(name, state, entries)
    }

    fn read_persisted(&self, name: &str, read: &mut dyn FnMut(&dyn PersistedView) -> Result<()>) -> Result<bool> {
        self.read_persisted_entries(name, read)
    }

    fn chunk_frequency(&self, word: &str, cap: usize) -> Result<usize> {
        self.read(|c| chunk_frequency_on(c, word, cap))
    }

    fn term_stats(&self, words: &[&str]) -> Result<TermStats> {
        self.read(|c| {
            let fingerprint = fingerprint_of(c)?;
            let mut cache = lock(&self.terms);
            if cache.fingerprint.as_ref() != Some(&fingerprint) {
                let n: i64 = c.query_row("SELECT count(*) FROM chunks", [], |r| r.get(0)).ctx("count chunks")?;
                *cache =
                    TermCache { fingerprint: Some(fingerprint), chunks: usize::try_from(n).unwrap_or(0), ..TermCache::default() };
            }
            let cap = cache.chunks / 2 + 1;
            let mut frequencies = Vec::with_capacity(words.len());
            for w in words {
                let n = match cache.frequencies.get(*w) {
                    Some(n) => *n,
                    None => {
                        let n = chunk_frequency_on(c, w, cap)?;
                        cache.frequencies.insert((*w).to_string(), n);
                        n
                    }
                };
                frequencies.push(n);
            }
            Ok(TermStats { chunks: cache.chunks, frequencies })
        })
    }

    fn entity(&self, name: &str) -> Result<Option<Entity>> {
        self.entity_with_mentions(name, None)
    }

    fn entity_head(&self, name: &str, max_mentions: usize) -> Result<Option<Entity>> {
        self.entity_with_mentions(name, Some(max_mentions))
    }

    fn entity_id(&self, name: &str) -> Result<Option<String>> {
        let canonical = canonical_entity(name);
        if canonical.is_empty() {
            return Ok(None);
        }
        let key = entity_match_key(name);
        self.read(|c| {
            c.prepare_cached("SELECT id FROM entities WHERE match_key = ?1 ORDER BY id <> ?2, id LIMIT 1")
                .and_then(|mut st| st.query_row([&key, &canonical], |r| r.get(0)).optional())
                .ctx("look up entity")
        })
    }

    fn fact_positions(&self, ids: &[&str]) -> Result<HashMap<String, FactPosition>> {
        self.read(|c| {
            let mut st = c
                .prepare_cached("SELECT doc_seq, chunk_idx, seq FROM facts WHERE id_key = ?1 AND id = ?2")
                .ctx("read fact positions")?;
            let mut out = HashMap::with_capacity(ids.len());
            for id in ids {
                let row: Option<(Option<i64>, Option<i64>, i64)> = st
                    .query_row(params![fact_id_key(id), id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
                    .ctx("read fact positions")?;
                if let Some((d, k, seq)) = row {
                    let pos = FactPosition {
                        document: (d.is_none(), d.unwrap_or(0)),
                        chunk: (k.is_none(), k.unwrap_or(0)),
                        insertion: seq,
                    };
                    out.insert((*id).to_string(), pos);
                }
            }
            Ok(out)
        })
    }

    fn stats(&self) -> Result<StoreStats> {
        self.read(|c| {
            let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).ctx("count").map(|n| n.max(0) as u64);
            let mut by_predicate = std::collections::BTreeMap::new();
            let mut st = c.prepare("SELECT predicate, count(*) FROM facts GROUP BY predicate").ctx("count facts")?;
            for row in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).ctx("count facts")? {
                let (p, n) = row.ctx("count facts")?;
                by_predicate.insert(p, n.max(0) as u64);
            }
            Ok(StoreStats {
                documents: count("SELECT count(*) FROM documents")?,
                chunks: count("SELECT count(*) FROM chunks")?,
                total_facts: count("SELECT count(*) FROM facts")?,
                by_predicate,
                entities: count("SELECT count(*) FROM entities")?,
            })
        })
    }

    fn ingest_keys(&self, ids: &[&str]) -> Result<HashMap<String, String>> {
        self.read(|c| {
            let mut out = HashMap::new();
            if ids.len() > 1000 {
                let wanted: std::collections::HashSet<&str> = ids.iter().copied().collect();
                let mut st = c.prepare("SELECT id, ingest_key FROM documents").ctx("read ingest keys")?;
                for row in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).ctx("read ingest keys")? {
                    let (id, key) = row.ctx("read ingest keys")?;
                    if wanted.contains(id.as_str()) {
                        out.insert(id, key);
                    }
                }
            } else {
                let mut st = c.prepare_cached("SELECT ingest_key FROM documents WHERE id = ?1").ctx("read ingest keys")?;
                for id in ids {
                    if let Some(k) = st.query_row([id], |r| r.get::<_, String>(0)).optional().ctx("read ingest keys")? {
                        out.insert((*id).to_string(), k);
                    }
                }
            }
            Ok(out)
        })
    }

    fn write(
        &self,
        documents: &mut dyn Iterator<Item = PreparedDocument>,
        manual_facts: &[Fact],
        progress: &mut dyn FnMut(usize),
    ) -> Result<WriteReport> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx("begin write")?;
        let report = Writer::new(&tx)?.write(documents, manual_facts, progress)?;
        tx.commit().ctx("commit")?;
        Ok(report)
    }
}

impl SqliteStore {
    /// An entity with its mentions in source order: all of them, or the first `max`.
    fn entity_with_mentions(&self, name: &str, max: Option<usize>) -> Result<Option<Entity>> {
        let limit = max.map_or(-1, |m| i64::try_from(m).unwrap_or(i64::MAX));
        let canonical = canonical_entity(name);
        if canonical.is_empty() {
            return Ok(None);
        }
        let key = entity_match_key(name);
        self.read(|c| {
            // The canonical id itself if stored, else the first id sharing the looser key.
            let id: Option<String> = c
                .prepare_cached("SELECT id FROM entities WHERE match_key = ?1 ORDER BY id <> ?2, id LIMIT 1")
                .and_then(|mut st| st.query_row([&key, &canonical], |r| r.get(0)).optional())
                .ctx("look up entity")?;
            let Some(id) = id else { return Ok(None) };
            let mut st = c
                .prepare_cached(
                    "SELECT m.surface, coalesce(m.doc_id, d.id), coalesce(m.chunk_id, c.id), m.span_start, m.span_end \
                     FROM (SELECT *, rowid AS rid FROM mentions WHERE entity_id = ?1 \
                           ORDER BY doc_seq IS NULL, doc_seq, chunk_idx, span_start, rowid LIMIT ?2) m \
                     LEFT JOIN documents d ON d.seq = m.doc_seq \
                     LEFT JOIN chunks c ON c.doc_seq = m.doc_seq AND c.idx = m.chunk_idx \
                     ORDER BY m.doc_seq IS NULL, m.doc_seq, m.chunk_idx, m.span_start, m.rid",
                )
                .ctx("read mentions")?;
            let mentions: Vec<EntityMention> = st
                .query_map(params![&id, limit], |r| {
                    let (s, e): (Option<i64>, Option<i64>) = (r.get(3)?, r.get(4)?);
                    Ok(EntityMention {
                        surface: r.get(0)?,
                        doc_id: r.get(1)?,
                        chunk_id: r.get(2)?,
                        span: s.zip(e).map(|(s, e)| Span::new(usize_of(s), usize_of(e))),
                    })
                })
                .ctx("read mentions")?
                .collect::<rusqlite::Result<_>>()
                .ctx("read mentions")?;
            let aliases: BTreeSet<String> = mentions.iter().map(|m| m.surface.clone()).collect();
            Ok(Some(Entity { id, aliases: aliases.into_iter().collect(), mentions }))
        })
    }
}

/// `matchSignature` over any store's [`Store::visit_facts`]: the constant roles narrow the
/// query, unification decides (shared by every backend, so they match alike).
pub(crate) fn match_signature_on(store: &(impl Store + ?Sized), pattern: &Signature) -> Result<Vec<SignatureMatch>> {
    let text_of = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let mut q = FactQuery::default();
    for (role, slot) in [("subject", &mut q.subject), ("predicate", &mut q.predicate)] {
        if let Some(v) = constant(pattern, role) {
            match v.as_str() {
                Some(s) => *slot = Some(s.to_string()),
                None => return Ok(Vec::new()), // subjects and predicates are strings
            }
        }
    }
    if let Some(v) = constant(pattern, "object") {
        match Object::from_json(v) {
            Some(o) => q.object = Some(o),
            None => return Ok(Vec::new()),
        }
    }
    // D22: a constant version matches after normalisation on both sides.
    let mut pattern = pattern.clone();
    let version_constant = match constant(&pattern, "version").map(text_of) {
        Some(Some(v)) => {
            let norm = normalize_version(&v).to_string();
            q.version = Some(norm.clone());
            pattern.set("version".into(), Role { value: Value::String(norm), is_variable: false });
            true
        }
        Some(None) => return Ok(Vec::new()),
        None => false,
    };
    let mut out = Vec::new();
    store.visit_facts(&q, &mut |fact| {
        let mut sig = Signature::of_fact(&fact);
        if version_constant && let Some(v) = fact.normalized_version() {
            sig.set("version".into(), Role { value: Value::String(v), is_variable: false });
        }
        if let Some(bindings) = match_with(&pattern, |role| sig.get(role).map(|r| &r.value), Bindings::new()) {
            out.push(SignatureMatch { fact, bindings });
        }
        true
    })?;
    Ok(out)
}

fn document_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Document>> {
    let id: String = r.get(0)?;
    let metadata: Option<String> = r.get(3)?;
    let metadata = match metadata.map(|m| serde_json::from_str::<Value>(&m)) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => return Ok(Err(StoreError::Corrupt(format!("documents.metadata of {id}")))),
    };
    Ok(Ok(Document { version: r.get(1)?, title: r.get(2)?, metadata, sha256: r.get(4)?, char_len: usize_of(r.get(5)?), id }))
}

pub(crate) fn version_norm(v: &Option<String>) -> Option<String> {
    v.as_deref().map(|v| normalize_version(v).to_string())
}

pub(crate) fn metadata_text(m: &Option<Value>) -> Option<String> {
    m.as_ref().map(Value::to_string)
}

const INSERT_FACT: &str = "INSERT INTO facts (id_key, id, subject, predicate, object_kind, object, qualifiers, version_norm, polarity, \
     confidence, span_start, span_end, doc_id, chunk_id, doc_seq, chunk_idx, manual) \
     VALUES (?17, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

/// The statements of one write transaction, prepared once.
struct Writer<'c> {
    tx: &'c Transaction<'c>,
    find_document: Statement<'c>,
    insert_document: Statement<'c>,
    update_document: Statement<'c>,
    chunk: Statement<'c>,
    fact: Statement<'c>,
    manual_fact: Statement<'c>,
    mention: Statement<'c>,
    manual_mention: Statement<'c>,
    entity: Statement<'c>,
    buffer: MentionBuffer,
    /// The highest chunk key in the full-text index: chunks above it were inserted by this
    /// write and are indexed together, at the end or before a document is replaced.
    indexed: i64,
}

impl<'c> Writer<'c> {
    fn new(tx: &'c Transaction<'c>) -> Result<Self> {
        let p = |sql: &str| tx.prepare(sql).ctx("prepare write");
        Ok(Self {
            tx,
            find_document: p("SELECT seq, ingest_key FROM documents WHERE id = ?1")?,
            insert_document: p(
                "INSERT INTO documents (id, version, version_norm, title, metadata, sha256, ingest_key, char_len, text) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            update_document: p(
                "UPDATE documents SET id = ?1, version = ?2, version_norm = ?3, title = ?4, metadata = ?5, sha256 = ?6, \
                 ingest_key = ?7, char_len = ?8, text = ?9 WHERE seq = ?10",
            )?,
            chunk: p("INSERT INTO chunks (id, doc_seq, idx, start, \"end\", text) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?,
            fact: p(&format!("{INSERT_FACT} ON CONFLICT(id_key) DO NOTHING"))?,
            manual_fact: p(&format!(
                "{INSERT_FACT} ON CONFLICT(id_key) DO UPDATE SET id = excluded.id, subject = excluded.subject, predicate = excluded.predicate, \
                 object_kind = excluded.object_kind, object = excluded.object, qualifiers = excluded.qualifiers, \
                 version_norm = excluded.version_norm, polarity = excluded.polarity, confidence = excluded.confidence, \
                 span_start = excluded.span_start, span_end = excluded.span_end, doc_id = excluded.doc_id, \
                 chunk_id = excluded.chunk_id, doc_seq = excluded.doc_seq, chunk_idx = excluded.chunk_idx, manual = 1"
            ))?,
            mention: p("INSERT INTO mentions (entity_id, surface, doc_seq, chunk_idx, span_start, span_end) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?,
            manual_mention: p(
                "INSERT OR IGNORE INTO mentions (entity_id, surface, doc_id, chunk_id, span_start, span_end, doc_seq, chunk_idx) \
                 VALUES (?1, ?2, ?3, ?4, NULL, NULL, NULL, NULL)",
            )?,
            entity: p("INSERT OR IGNORE INTO entities (match_key, id) VALUES (?1, ?2)")?,
            buffer: MentionBuffer::default(),
            indexed: 0,
        })
    }

    fn write(
        mut self,
        documents: &mut dyn Iterator<Item = PreparedDocument>,
        manual_facts: &[Fact],
        progress: &mut dyn FnMut(usize),
    ) -> Result<WriteReport> {
        let mut report = WriteReport::default();
        let deferred = self.defer_indexes()?;
        self.indexed = self.tx.query_row("SELECT coalesce(max(pk), 0) FROM chunks", [], |r| r.get(0)).ctx("read chunks")?;
        for (i, d) in documents.enumerate() {
            let existing: Option<(i64, String)> =
                self.find_document.query_row([&d.id], |r| Ok((r.get(0)?, r.get(1)?))).optional().ctx("read document")?;
            let (version, metadata, len) = (version_norm(&d.version), metadata_text(&d.metadata), d.char_len as i64);
            let seq = match existing {
                Some((_, key)) if key == d.ingest_key => {
                    report.unchanged += 1;
                    progress(i + 1);
                    continue;
                }
                Some((seq, _)) => {
                    self.clear_document(seq)?;
                    self.update_document
                        .execute(params![d.id, d.version, version, d.title, metadata, d.sha256, d.ingest_key, len, d.text, seq])
                        .ctx("update document")?;
                    seq
                }
                None => {
                    self.insert_document
                        .execute(params![d.id, d.version, version, d.title, metadata, d.sha256, d.ingest_key, len, d.text])
                        .ctx("insert document")?;
                    self.tx.last_insert_rowid()
                }
            };
            self.write_content(seq, d)?;
            report.written.push(i);
            progress(i + 1);
        }
        self.flush()?;
        self.index_new_chunks()?;
        for f in manual_facts {
            self.write_manual_fact(f)?;
            report.manual_facts += 1;
        }
        for sql in &deferred {
            self.tx.execute_batch(sql).ctx("create index")?;
        }
        let mut orphan = self
            .tx
            .prepare("DELETE FROM entities WHERE match_key = ?1 AND id = ?2 AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity_id = ?2)")
            .ctx("prune entities")?;
        for e in self.buffer.touched() {
            orphan.execute([entity_match_key(e).as_str(), e]).ctx("prune entities")?;
        }
        Ok(report)
    }

    /// Bulk load: into a store without facts, the secondary indexes of facts and mentions are
    /// dropped for the write and rebuilt at its end (one sort each instead of a random insert
    /// per row), inside the same transaction. Returns the statements that rebuild them.
    fn defer_indexes(&mut self) -> Result<Vec<String>> {
        let empty: bool = self
            .tx
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM facts) AND NOT EXISTS (SELECT 1 FROM mentions)", [], |r| r.get(0))
            .ctx("read facts")?;
        if !empty {
            return Ok(Vec::new());
        }
        let mut st = self
            .tx
            .prepare(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('facts', 'mentions') \
                 AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' ORDER BY name",
            )
            .ctx("read schema")?;
        let indexes: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .ctx("read schema")?
            .collect::<rusqlite::Result<_>>()
            .ctx("read schema")?;
        drop(st);
        for (name, _) in &indexes {
            self.tx.execute_batch(&format!("DROP INDEX \"{name}\"")).ctx("drop index")?;
        }
        Ok(indexes.into_iter().map(|(_, sql)| sql).collect())
    }

    /// Removes a document's chunks (and their FTS entries), extracted facts and mentions,
    /// remembering the entities mentioned so orphans can be pruned.
    fn clear_document(&mut self, seq: i64) -> Result<()> {
        self.flush()?;
        // The delete trigger removes each chunk from the full-text index, which must hold it
        // then: a document given twice in one write has chunks this write inserted.
        self.index_new_chunks()?;
        let mut st = self.tx.prepare_cached("SELECT DISTINCT entity_id FROM mentions WHERE doc_seq = ?1").ctx("read mentions")?;
        for e in st.query_map([seq], |r| r.get::<_, String>(0)).ctx("read mentions")? {
            self.buffer.forget(e.ctx("read mentions")?);
        }
        for sql in [
            "DELETE FROM chunks WHERE doc_seq = ?1",
            "DELETE FROM facts WHERE doc_seq = ?1 AND manual = 0",
            "DELETE FROM mentions WHERE doc_seq = ?1",
        ] {
            self.tx.prepare_cached(sql).and_then(|mut st| st.execute([seq])).ctx("replace document")?;
        }
        Ok(())
    }

    /// Adds the chunks inserted since the last call to the full-text index. Chunk keys only
    /// grow (AUTOINCREMENT): the new chunks are those above the last maximum.
    fn index_new_chunks(&mut self) -> Result<()> {
        let added = self
            .tx
            .prepare_cached("INSERT INTO chunks_fts(rowid, text) SELECT pk, text FROM chunks WHERE pk > ?1")
            .and_then(|mut st| st.execute([self.indexed]))
            .ctx("index chunks")?;
        if added > 0 {
            self.indexed = self.tx.query_row("SELECT coalesce(max(pk), 0) FROM chunks", [], |r| r.get(0)).ctx("read chunks")?;
        }
        Ok(())
    }

    /// Inserts a prepared document's chunks, facts, mentions and entities.
    fn write_content(&mut self, seq: i64, d: PreparedDocument) -> Result<()> {
        for c in &d.chunks {
            self.chunk
                .execute(params![d.chunk_id(c.index), seq, c.index as i64, c.start as i64, c.end as i64, d.chunk_text(c)])
                .ctx("insert chunk")?;
        }
        for (chunk_idx, v) in d.facts {
            let chunk_idx = chunk_idx as i64;
            insert_fact(&mut self.fact, &v.fact, Some(seq), Some(chunk_idx), false)?;
            self.buffer.push(v.mentions, seq, chunk_idx, &d.entity_keys);
        }
        if self.buffer.full() {
            self.flush()?;
        }
        Ok(())
    }

    /// Inserts the buffered entities and mentions, in the buffer's (sorted) order.
    fn flush(&mut self) -> Result<()> {
        let (entities, mentions) = self.buffer.take();
        for (key, id) in entities {
            self.entity.execute(params![key, id]).ctx("insert entity")?;
        }
        for m in mentions {
            let (s, e) = (m.span.map(|s| s.0), m.span.map(|s| s.1));
            self.mention.execute(params![m.entity, m.surface, m.doc_seq, m.chunk_idx, s, e]).ctx("insert mention")?;
        }
        Ok(())
    }

    /// A manual fact, stored as given; its source order comes from its document and chunk when
    /// they are in the store. Its subject is recorded as an entity alias.
    fn write_manual_fact(&mut self, f: &Fact) -> Result<()> {
        let doc_seq: Option<i64> = self
            .tx
            .prepare_cached("SELECT seq FROM documents WHERE id = ?1")
            .and_then(|mut st| st.query_row([&f.source.doc_id], |r| r.get(0)).optional())
            .ctx("read document")?;
        let chunk_idx: Option<i64> = self
            .tx
            .prepare_cached("SELECT idx FROM chunks WHERE id = ?1")
            .and_then(|mut st| st.query_row([&f.source.chunk_id], |r| r.get(0)).optional())
            .ctx("read chunk")?;
        insert_fact(&mut self.manual_fact, f, doc_seq, chunk_idx, true)?;
        let entity = canonical_entity(&f.subject);
        if !entity.is_empty() {
            self.buffer.entity(&entity);
            self.flush()?;
            self.manual_mention.execute(params![entity, f.subject, f.source.doc_id, f.source.chunk_id]).ctx("insert mention")?;
        }
        Ok(())
    }
}

fn insert_fact(st: &mut Statement<'_>, f: &Fact, doc_seq: Option<i64>, chunk_idx: Option<i64>, manual: bool) -> Result<()> {
    let (kind, object) = object_columns(&f.object);
    let qualifiers = (!f.qualifiers.is_empty())
        .then(|| serde_json::to_string(&f.qualifiers))
        .transpose()
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    st.execute(params![
        f.id,
        f.subject,
        f.predicate,
        kind,
        object,
        qualifiers,
        f.normalized_version(),
        i64::from(f.polarity == Polarity::Negate),
        f.confidence,
        f.span.start as i64,
        f.span.end as i64,
        f.source.doc_id,
        f.source.chunk_id,
        doc_seq,
        chunk_idx,
        i64::from(manual),
        fact_id_key(&f.id),
    ])
    .ctx("insert fact")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The store contract (search, term counts, derived values, entities) is tested once for
    // every backend in tests/store.rs.

    #[test]
    fn fts_queries_quote_words() {
        assert_eq!(
            fts_query("session \"tokens\" OR NEAR(x)").as_deref(),
            Some("\"session\" OR \"tokens\" OR \"OR\" OR \"NEAR\" OR \"x\"")
        );
        assert_eq!(fts_query("  ?! "), None);
        assert_eq!(fts_query("a a a").as_deref(), Some("\"a\""));
    }

    #[test]
    fn fts5_is_compiled_in_and_schema_migrates() {
        let s = SqliteStore::open_in_memory().unwrap();
        assert_eq!(s.schema_version().unwrap(), current_version());
        let c = lock(&s.writer);
        let fts5: i64 = c.query_row("SELECT sqlite_compileoption_used('ENABLE_FTS5')", [], |r| r.get(0)).unwrap();
        assert_eq!(fts5, 1);
        let plan: String = c
            .query_row("EXPLAIN QUERY PLAN SELECT id FROM facts WHERE predicate = 'part_of' AND object = 'gateway'", [], |r| {
                r.get(3)
            })
            .unwrap();
        assert!(plan.contains("facts_predicate_object"), "{plan}");
    }
}
