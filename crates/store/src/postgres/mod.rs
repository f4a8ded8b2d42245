//! The PostgreSQL implementation of [`Store`], for deployments that outgrow one machine:
//! several `serve` replicas (and ingests from anywhere) share one database.
//!
//! It returns what [`crate::SqliteStore`] returns for the same writes: the same ids, the same
//! orders (text orders are byte orders, `COLLATE "C"`; SQLite's NULLs-first made explicit),
//! and the same search results.
//!
//! **Search.** Chunks are tokenized by FTS5's own tokenizer ([`analyze`]) into Warrant's
//! postings table (`term, chunk, tf`) with each chunk's token count and the index totals in
//! `store_state`. A query is ranked with FTS5's `bm25()` formula reproduced term for term —
//! k1 = 1.2, b = 0.75, `idf = ln((N − n + 0.5) / (n + 0.5))` floored at 1e-6, one phrase per
//! query word (a word that stems like another counts twice, as in FTS5), summed in phrase
//! order in `f64` — and ties broken by chunk key, as the SQLite store's `ORDER BY bm25, rowid`.
//! Scores are therefore bit-identical, not merely in the same order (the conformance suite
//! compares them exactly). A query word that FTS5 splits into several tokens (`x-ray` is
//! never one: the query splits on the same non-alphanumerics; but a word with a character
//! that Rust calls alphanumeric and Unicode 6.1 does not) is a phrase: it matches chunks
//! holding those tokens in sequence, counted from their token positions.
//!
//! **Writes.** One transaction per write, which first takes a transaction-level advisory lock
//! (`pg_advisory_xact_lock`): writers serialise as SQLite's `BEGIN IMMEDIATE` does, so a
//! second ingest of the same documents sees the first one's ingest keys and leaves them
//! unchanged (unique constraints on document ids, chunk ids and fact keys back this up).
//! A killed ingest never commits: readers see the previous state. Documents are written in
//! batches (a few statements per batch, postings by binary `COPY`), with the results of
//! writing them one at a time. Every write bumps
//! `store_state.generation`; [`Store::derived`] values and cached term counts are kept while
//! it holds, so another process's write is seen on the next call.
//!
//! **Schema.** Versioned migrations ([`schema`]) applied by [`PostgresStore::migrate`]
//! (`warrant store migrate`); opening never migrates.

mod analyze;
mod derived;
mod location;
mod schema;
mod tls;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use postgres::{Client, IsolationLevel, Row, Statement, Transaction};
use serde_json::Value;
use tokio_postgres_rustls::MakeRustlsConnect;
use warrant_facts::{
    Fact, Object, Polarity, Signature, Span, canonical_entity, entity_match_key, normalize_version, numbers_equal,
};

pub use location::{is_postgres_url, redact};
pub use schema::current_version as current_postgres_version;

use self::analyze::{Analyzer, Terms};
use crate::error::{Result, SqlContext, StoreError};
use crate::ingest::PreparedDocument;
use crate::mentions::MentionBuffer;
use crate::model::{
    Chunk, Document, Entity, EntityMention, FactPosition, FactQuery, SearchHit, SignatureMatch, StoreStats, TermStats,
};
use crate::sqlite::{
    FactRow, fact_id_key, match_signature_on, metadata_text, object_columns, query_words, usize_of, version_norm,
};
use crate::{Derived, PersistedView, Store, WriteReport};

/// Idle connections kept for reuse.
const POOL: usize = 8;

/// The advisory lock key writers hold for their transaction ("WRNTwrit").
const WRITE_LOCK: i64 = 0x5752_4e54_7772_6974;
/// The advisory lock key migrations hold ("WRNTmigr").
const MIGRATE_LOCK: i64 = 0x5752_4e54_6d69_6772;

/// FTS5's BM25 constants.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// A PostgreSQL-backed [`Store`].
pub struct PostgresStore {
    /// The URL as it may be shown (password redacted).
    location: String,
    endpoint: Endpoint,
    idle: Mutex<Vec<Client>>,
    analyzer: Mutex<Analyzer>,
    terms: Mutex<TermCache>,
    derived: Mutex<DerivedCache>,
    /// Held while a derived value is built ([`Store::derived`]).
    building: Mutex<()>,
}

/// Values derived from the chunks, valid while the store's generation holds.
#[derive(Default)]
struct DerivedCache {
    generation: Option<i64>,
    values: HashMap<&'static str, Derived>,
}

/// Word counts of the BM25 index, valid while the store's generation holds.
#[derive(Default)]
struct TermCache {
    generation: Option<i64>,
    chunks: usize,
    frequencies: HashMap<String, usize>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("location", &self.location).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a connection leaves no half-written transaction (dropping a
    // `Transaction` rolls back), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where and how to connect: the driver's settings and the TLS connector (`sslmode`).
struct Endpoint {
    config: postgres::Config,
    tls: MakeRustlsConnect,
}

impl Endpoint {
    fn of(url: &str, location: &str) -> Result<Self> {
        let (url, settings) = tls::split(url, location)?;
        let mut config = location::config(&url)?;
        config.ssl_mode(settings.mode.ssl_mode());
        Ok(Self { config, tls: tls::connector(&settings, location)? })
    }

    fn connect(&self, location: &str) -> Result<Client> {
        self.config.connect(self.tls.clone()).map_err(|source| StoreError::Connect { location: location.to_string(), source })
    }
}

/// The store's schema version: `None` when the database has no Warrant schema.
fn schema_version_of(c: &mut Client) -> Result<Option<i64>> {
    let exists: bool = c
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .ctx("read schema version")
        .and_then(|r| col(&r, 0))?;
    if !exists {
        return Ok(None);
    }
    let v: Option<i32> =
        c.query_one("SELECT max(version) FROM schema_version", &[]).ctx("read schema version").and_then(|r| col(&r, 0))?;
    Ok(v.map(i64::from))
}

impl PostgresStore {
    /// Opens the migrated store at `url` (`postgres://user[:password]@host[:port]/db`). The
    /// password comes from the URL, else `PGPASSWORD`, else the password file. A database
    /// without the current schema is refused ([`StoreError::NotMigrated`], or
    /// [`StoreError::SchemaTooNew`] when a newer Warrant migrated it).
    pub fn open(url: &str) -> Result<Self> {
        let location = redact(url);
        let endpoint = Endpoint::of(url, &location)?;
        let mut client = endpoint.connect(&location)?;
        let supported = schema::current_version();
        match schema_version_of(&mut client)? {
            Some(v) if v > supported => return Err(StoreError::SchemaTooNew { found: v, supported }),
            Some(v) if v == supported => {}
            found => return Err(StoreError::NotMigrated { location, found, supported }),
        }
        Ok(Self {
            location,
            endpoint,
            idle: Mutex::new(vec![client]),
            analyzer: Mutex::new(Analyzer::new()?),
            terms: Mutex::default(),
            derived: Mutex::default(),
            building: Mutex::new(()),
        })
    }

    /// Brings the database at `url` to the current schema in one transaction (serialised with
    /// other migrations by an advisory lock). Returns the versions before and after; a store
    /// already current is left alone, a newer one refused.
    pub fn migrate(url: &str) -> Result<(i64, i64)> {
        let location = redact(url);
        let mut client = Endpoint::of(url, &location)?.connect(&location)?;
        let mut tx = client.transaction().ctx("begin migration")?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK]).ctx("lock for migration")?;
        tx.batch_execute(schema::VERSION_TABLE).ctx("create schema_version")?;
        let found: Option<i32> =
            tx.query_one("SELECT max(version) FROM schema_version", &[]).ctx("read schema version").and_then(|r| col(&r, 0))?;
        let found = found.map_or(0, i64::from);
        let latest = schema::current_version();
        if found > latest {
            return Err(StoreError::SchemaTooNew { found, supported: latest });
        }
        for (i, m) in schema::MIGRATIONS.iter().enumerate().skip(usize::try_from(found).unwrap_or(0)) {
            tx.batch_execute(m).ctx("migrate schema")?;
            let version = i32::try_from(i + 1).unwrap_or(i32::MAX);
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&version]).ctx("set schema version")?;
        }
        tx.commit().ctx("commit migration")?;
        Ok((found, latest))
    }

    /// The store's URL as it may be shown (password redacted).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The schema version of the store.
    pub fn schema_version(&self) -> Result<i64> {
        self.with_client(schema_version_of).map(|v| v.unwrap_or(0))
    }

    /// The store's generation: bumped by every write.
    pub fn generation(&self) -> Result<i64> {
        self.read(generation_of)
    }

    /// Runs `f` on a pooled connection (a new one when none is idle).
    fn with_client<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        let pooled = lock(&self.idle).pop();
        let mut client = match pooled {
            Some(c) if !c.is_closed() => c,
            _ => self.endpoint.connect(&self.location)?,
        };
        let out = f(&mut client);
        if !client.is_closed() {
            let mut idle = lock(&self.idle);
            if idle.len() < POOL {
                idle.push(client);
            }
        }
        out
    }

    /// Runs `f` in a read-only snapshot (every statement sees the same committed state).
    fn read<T>(&self, f: impl FnOnce(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        self.with_client(|c| {
            let mut tx = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .ctx("begin read")?;
            let out = f(&mut tx)?;
            tx.commit().ctx("end read")?;
            Ok(out)
        })
    }

    /// The query's phrases: each word's FTS5 tokens.
    fn phrases(&self, words: &[&str]) -> Result<Vec<Vec<String>>> {
        lock(&self.analyzer).tokens(words)
    }
}

/// Column `i` of a row as `T`: a value of another type (a hand-edited schema) is an error,
/// not a panic.
fn col<'a, T: postgres::types::FromSql<'a>>(r: &'a Row, i: usize) -> Result<T> {
    r.try_get(i).map_err(|source| StoreError::Postgres { context: "read column", source })
}

fn generation_of(tx: &mut Transaction<'_>) -> Result<i64> {
    tx.query_one("SELECT generation FROM store_state", &[]).ctx("read generation").and_then(|r| col(&r, 0))
}

fn fact_row(r: &Row) -> Result<FactRow> {
    let g = |i: usize| r.try_get::<_, String>(i).ctx("read fact");
    Ok(FactRow {
        id: g(0)?,
        subject: g(1)?,
        predicate: g(2)?,
        object_kind: r.try_get(3).ctx("read fact")?,
        object: g(4)?,
        qualifiers: r.try_get(5).ctx("read fact")?,
        polarity: r.try_get(6).ctx("read fact")?,
        confidence: r.try_get(7).ctx("read fact")?,
        span: (r.try_get(8).ctx("read fact")?, r.try_get(9).ctx("read fact")?),
        doc_id: g(10)?,
        chunk_id: g(11)?,
    })
}

fn chunk_row(r: &Row) -> Result<Chunk> {
    Ok(Chunk {
        id: r.try_get(0).ctx("read chunk")?,
        doc_id: r.try_get(1).ctx("read chunk")?,
        index: usize_of(r.try_get(2).ctx("read chunk")?),
        start: usize_of(r.try_get(3).ctx("read chunk")?),
        end: usize_of(r.try_get(4).ctx("read chunk")?),
        text: r.try_get(5).ctx("read chunk")?,
    })
}

/// The chunks with these ids in the order asked, in one query.
fn chunks_by_id_in(tx: &mut Transaction<'_>, ids: &[&str]) -> Result<Vec<Option<Chunk>>> {
    let rows = tx.query(&format!("{CHUNK_SELECT} WHERE c.id = ANY($1)"), &[&ids]).ctx("read chunks")?;
    let mut found: HashMap<String, Chunk> = HashMap::with_capacity(rows.len());
    for r in &rows {
        let chunk = chunk_row(r)?;
        found.insert(chunk.id.clone(), chunk);
    }
    Ok(ids.iter().map(|id| found.get(*id).cloned()).collect())
}

/// A fact query as SQL: its statement, its text arguments, the number its object must equal
/// (compared in Rust, by exact value) and its limit.
struct FactSelect<'q> {
    sql: String,
    args: Vec<String>,
    number: Option<&'q serde_json::Number>,
    limit: usize,
}

impl<'q> FactSelect<'q> {
    fn of(query: &'q FactQuery) -> Self {
        let mut conds: Vec<String> = Vec::new();
        let mut args: Vec<String> = Vec::new();
        // Each condition names its arguments as `$?`, numbered here in order.
        let mut cond = |sql: &str, values: &[&str], conds: &mut Vec<String>| {
            let mut out = String::new();
            let mut parts = sql.split("$?");
            out.push_str(parts.next().unwrap_or_default());
            for (part, v) in parts.zip(values) {
                args.push((*v).to_string());
                out.push_str(&format!("${}", args.len()));
                out.push_str(part);
            }
            conds.push(out);
        };
        if let Some(s) = &query.subject {
            cond("subject = $?", &[s], &mut conds);
        }
        if let Some(p) = &query.predicate {
            cond("predicate = $?", &[p], &mut conds);
        }
        if let Some(v) = &query.version {
            cond("version_norm = $?", &[normalize_version(v)], &mut conds);
        }
        if let Some(chunk) = &query.chunk_id {
            // Stored chunks by (document, index); manual facts by the chunk id they were given.
            cond(
                "((doc_seq, chunk_idx) = (SELECT doc_seq, idx FROM chunks WHERE id = $?) OR (manual AND chunk_id = $?)) AND chunk_id = $?",
                &[chunk, chunk, chunk],
                &mut conds,
            );
        }
        if let Some(doc) = &query.doc_id {
            cond(
                "(doc_seq = (SELECT seq FROM documents WHERE id = $?) OR (doc_seq IS NULL AND doc_id = $?))",
                &[doc, doc],
                &mut conds,
            );
        }
        let number = match &query.object {
            Some(o @ (Object::String(_) | Object::Bool(_))) => {
                let (kind, text) = object_columns(o);
                cond(
                    if kind == 0 { "object_kind = 0 AND object = $?" } else { "object_kind = 2 AND object = $?" },
                    &[&text],
                    &mut conds,
                );
                None
            }
            Some(Object::Number(n)) => {
                conds.push("object_kind = 1".into());
                Some(n)
            }
            None => None,
        };
        let filter = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
        let sql = format!("SELECT {FACT_COLUMNS} FROM facts {filter} {FACT_ORDER}");
        FactSelect { sql, args, number, limit: query.limit.unwrap_or(usize::MAX) }
    }

    /// Visits the facts it selects in `tx`, through `statement` (its SQL, prepared), as
    /// [`Store::visit_facts`].
    fn visit(&self, tx: &mut Transaction<'_>, statement: &Statement, visit: &mut dyn FnMut(Fact) -> bool) -> Result<()> {
        let mut rows = tx.query_raw(statement, self.args.iter().map(|a| a as &dyn ToSql)).ctx("query facts")?;
        let mut n = 0;
        while let Some(r) = rows.next().ctx("query facts")? {
            let fact = fact_row(&r)?.into_fact()?;
            if let (Some(want), Object::Number(got)) = (self.number, &fact.object)
                && !numbers_equal(want, got)
            {
                continue;
            }
            n += 1;
            if !visit(fact) || n >= self.limit {
                break;
            }
        }
        Ok(())
    }
}

fn document_row(r: &Row) -> Result<Document> {
    let id: String = r.try_get(0).ctx("read document")?;
    let metadata: Option<String> = r.try_get(3).ctx("read document")?;
    let metadata = match metadata.map(|m| serde_json::from_str::<Value>(&m)) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => return Err(StoreError::Corrupt(format!("documents.metadata of {id}"))),
    };
    Ok(Document {
        version: r.try_get(1).ctx("read document")?,
        title: r.try_get(2).ctx("read document")?,
        metadata,
        sha256: r.try_get(4).ctx("read document")?,
        char_len: usize_of(r.try_get(5).ctx("read document")?),
        id,
    })
}

const FACT_COLUMNS: &str =
    "id, subject, predicate, object_kind, object, qualifiers, polarity, confidence, span_start, span_end, doc_id, chunk_id";
const FACT_ORDER: &str = "ORDER BY doc_seq IS NULL, doc_seq, chunk_idx IS NULL, chunk_idx, seq";
const CHUNK_SELECT: &str =
    "SELECT c.id, d.id, c.idx, c.start, c.\"end\", c.text FROM chunks c JOIN documents d ON d.seq = c.doc_seq";
const DOCUMENT_COLUMNS: &str = "id, version, title, metadata, sha256, char_len";

/// Per chunk matched by a query: its key, token count and each phrase's frequency.
struct Candidate {
    tokens: i64,
    freq: Vec<f64>,
}

/// Chunks holding phrase `tokens` in sequence, with how often: single tokens from the
/// postings; longer phrases from the positions of their tokens in the candidate chunks.
/// The analyzer is locked only to tokenize those chunks: concurrent searches do not wait on it.
fn phrase_hits(tx: &mut Transaction<'_>, analyzer: &Mutex<Analyzer>, tokens: &[String]) -> Result<Vec<(i64, i64, i64)>> {
    match tokens {
        [] => Ok(Vec::new()),
        [term] => {
            let rows = tx
                .query(
                    "SELECT p.chunk_pk, p.tf::bigint, c.tokens FROM postings p JOIN chunks c ON c.pk = p.chunk_pk \
                     WHERE p.term = $1",
                    &[term],
                )
                .ctx("search")?;
            rows.iter().map(|r| Ok((col(r, 0)?, col(r, 1)?, col(r, 2)?))).collect()
        }
        _ => {
            let distinct: BTreeSet<&str> = tokens.iter().map(String::as_str).collect();
            let distinct: Vec<&str> = distinct.into_iter().collect();
            let n = i64::try_from(distinct.len()).unwrap_or(i64::MAX);
            let rows = tx
                .query(
                    "SELECT c.pk, c.tokens, c.text FROM chunks c WHERE c.pk IN \
                     (SELECT chunk_pk FROM postings WHERE term = ANY($1) GROUP BY chunk_pk HAVING count(*) = $2) ORDER BY c.pk",
                    &[&distinct, &n],
                )
                .ctx("search")?;
            let texts: Vec<String> = rows.iter().map(|r| col(r, 2)).collect::<Result<_>>()?;
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let seqs = lock(analyzer).tokens(&refs)?;
            let mut out = Vec::new();
            for (r, seq) in rows.iter().zip(seqs) {
                let count = seq.windows(tokens.len()).filter(|w| *w == tokens).count();
                if count > 0 {
                    out.push((col(r, 0)?, i64::try_from(count).unwrap_or(i64::MAX), col(r, 1)?));
                }
            }
            Ok(out)
        }
    }
}

impl Store for PostgresStore {
    fn document(&self, id: &str) -> Result<Option<Document>> {
        self.read(|tx| {
            tx.query_opt(&format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = $1"), &[&id])
                .ctx("read document")?
                .as_ref()
                .map(document_row)
                .transpose()
        })
    }

    fn documents(&self) -> Result<Vec<Document>> {
        self.read(|tx| {
            let rows = tx.query(&format!("SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY seq"), &[]).ctx("list documents")?;
            rows.iter().map(document_row).collect()
        })
    }

    fn document_text(&self, id: &str) -> Result<Option<String>> {
        self.read(|tx| {
            tx.query_opt("SELECT text FROM documents WHERE id = $1", &[&id])
                .ctx("read document text")?
                .map(|r| col(&r, 0))
                .transpose()
        })
    }

    fn chunk(&self, id: &str) -> Result<Option<Chunk>> {
        self.read(|tx| {
            tx.query_opt(&format!("{CHUNK_SELECT} WHERE c.id = $1"), &[&id])
                .ctx("read chunk")?
                .as_ref()
                .map(chunk_row)
                .transpose()
        })
    }

    fn chunks_by_id(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read(|tx| chunks_by_id_in(tx, ids))
    }

    fn chunks_of(&self, doc_id: &str) -> Result<Vec<Chunk>> {
        self.read(|tx| {
            let rows = tx.query(&format!("{CHUNK_SELECT} WHERE d.id = $1 ORDER BY c.idx"), &[&doc_id]).ctx("read chunks")?;
            rows.iter().map(chunk_row).collect()
        })
    }

    fn visit_facts(&self, query: &FactQuery, visit: &mut dyn FnMut(Fact) -> bool) -> Result<()> {
        let select = FactSelect::of(query);
        if query.limit == Some(0) {
            return Ok(());
        }
        self.read(|tx| {
            let statement = tx.prepare(&select.sql).ctx("query facts")?;
            select.visit(tx, &statement, visit)
        })
    }

    fn facts_each(&self, queries: &[FactQuery]) -> Result<Vec<Vec<Fact>>> {
        let selects: Vec<FactSelect<'_>> = queries.iter().map(FactSelect::of).collect();
        self.read(|tx| {
            // Queries of one shape (a claim's facts by subject and predicate) share a statement.
            let mut prepared: HashMap<&str, Statement> = HashMap::new();
            let mut answers = Vec::with_capacity(selects.len());
            for select in &selects {
                let mut out = Vec::new();
                if select.limit > 0 {
                    let statement = match prepared.get(select.sql.as_str()) {
                        Some(s) => s.clone(),
                        None => {
                            let s = tx.prepare(&select.sql).ctx("query facts")?;
                            prepared.insert(&select.sql, s.clone());
                            s
                        }
                    };
                    select.visit(tx, &statement, &mut |f| {
                        out.push(f);
                        true
                    })?;
                }
                answers.push(out);
            }
            Ok(answers)
        })
    }

    fn fact(&self, id: &str) -> Result<Option<Fact>> {
        self.read(|tx| {
            tx.query_opt(&format!("SELECT {FACT_COLUMNS} FROM facts WHERE id_key = $1 AND id = $2"), &[&fact_id_key(id), &id])
                .ctx("read fact")?
                .as_ref()
                .map(|r| fact_row(r).and_then(FactRow::into_fact))
                .transpose()
        })
    }

    fn match_signature(&self, pattern: &Signature) -> Result<Vec<SignatureMatch>> {
        match_signature_on(self, pattern)
    }

    fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        let words = query_words(query);
        if words.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let phrases = self.phrases(&words)?;
        self.read(|tx| {
            let row = tx.query_one("SELECT chunks, tokens FROM store_state", &[]).ctx("search")?;
            let (n_row, n_token): (i64, i64) = (col(&row, 0)?, col(&row, 1)?);
            if n_row <= 0 {
                return Ok(Vec::new());
            }
            // FTS5: avgdl = tokens / rows; per phrase, idf from the chunks holding it.
            let avgdl = n_token as f64 / n_row as f64;
            let mut idf = Vec::with_capacity(phrases.len());
            let mut candidates: HashMap<i64, Candidate> = HashMap::new();
            let mut seen: HashMap<&[String], usize> = HashMap::new();
            let mut hits_of: Vec<Vec<(i64, i64, i64)>> = Vec::with_capacity(phrases.len());
            for (i, p) in phrases.iter().enumerate() {
                // Two words with one stem share their postings (read once).
                let hits = match seen.get(p.as_slice()) {
                    Some(&j) => hits_of[j].clone(),
                    None => {
                        phrase_hits(tx, &self.analyzer, p)?
                    }
                };
                seen.entry(p.as_slice()).or_insert(i);
                let n_hit = i64::try_from(hits.len()).unwrap_or(i64::MAX);
                let mut w = (((n_row - n_hit) as f64 + 0.5) / (n_hit as f64 + 0.5)).ln();
                if w <= 0.0 {
                    w = 1e-6;
                }
                idf.push(w);
                for &(pk, tf, tokens) in &hits {
                    let c = candidates.entry(pk).or_insert_with(|| Candidate { tokens, freq: vec![0.0; phrases.len()] });
                    c.freq[i] = tf as f64;
                }
                hits_of.push(hits);
            }
            let mut ranked: Vec<(f64, i64)> = candidates
                .into_iter()
                .map(|(pk, c)| {
                    let d = c.tokens as f64;
                    let mut score = 0.0;
                    for (i, f) in c.freq.iter().enumerate() {
                        score += idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
                    }
                    // FTS5's bm25() is −score; SQLite orders by it, then by rowid.
                    (-score, pk)
                })
                .collect();
            ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            ranked.truncate(limit);
            let pks: Vec<i64> = ranked.iter().map(|r| r.1).collect();
            let rows = tx
                .query(
                    "SELECT c.pk, c.id, d.id, c.idx, c.start, c.\"end\", c.text FROM chunks c JOIN documents d ON d.seq = c.doc_seq \
                     WHERE c.pk = ANY($1)",
                    &[&pks],
                )
                .ctx("search")?;
            let mut by_pk: HashMap<i64, &Row> = rows.iter().map(|r| Ok((col::<i64>(r, 0)?, r))).collect::<Result<_>>()?;
            let mut out = Vec::with_capacity(ranked.len());
            for (bm25, pk) in ranked {
                let Some(r) = by_pk.remove(&pk) else { continue };
                out.push(SearchHit {
                    chunk_id: col(r, 1)?,
                    doc_id: col(r, 2)?,
                    score: -bm25,
                    index: usize_of(col(r, 3)?),
                    start: usize_of(col(r, 4)?),
                    end: usize_of(col(r, 5)?),
                    text: col(r, 6)?,
                });
            }
            Ok(out)
        })
    }

    fn visit_chunks(&self, visit: &mut dyn FnMut(Chunk)) -> Result<()> {
        self.read(|tx| {
            let none: [&dyn ToSql; 0] = [];
            let mut rows = tx.query_raw(format!("{CHUNK_SELECT} ORDER BY c.doc_seq, c.idx").as_str(), none).ctx("read chunks")?;
            while let Some(r) = rows.next().ctx("read chunks")? {
                visit(chunk_row(&r)?);
            }
            Ok(())
        })
    }

    fn derived(&self, name: &'static str, build: &dyn Fn(&dyn Store) -> Result<Derived>) -> Result<Derived> {
        let kept = |generation: i64| {
            let cache = lock(&self.derived);
            (cache.generation == Some(generation)).then(|| cache.values.get(name).cloned()).flatten()
        };
        if let Some(v) = kept(self.generation()?) {
            return Ok(v);
        }
        // One build at a time: threads that miss together wait for the first one's value.
        let _building = lock(&self.building);
        let before = self.generation()?;
        if let Some(v) = kept(before) {
            return Ok(v);
        }
        let value = build(self)?;
        // Kept only if nothing was written meanwhile: the value must describe one state.
        if self.generation()? == before {
            let mut cache = lock(&self.derived);
            if cache.generation != Some(before) {
                *cache = DerivedCache { generation: Some(before), values: HashMap::new() };
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
        let words = query_words(word);
        if words.is_empty() || cap == 0 {
            return Ok(0);
        }
        let phrases = self.phrases(&words)?;
        self.read(|tx| chunk_frequency_in(tx, &self.analyzer, &phrases, cap))
    }

    fn term_stats(&self, words: &[&str]) -> Result<TermStats> {
        let asked: Vec<(String, Vec<Vec<String>>)> =
            words.iter().map(|w| Ok(((*w).to_string(), self.phrases(&query_words(w))?))).collect::<Result<_>>()?;
        self.read(|tx| {
            let generation = generation_of(tx)?;
            let mut cache = lock(&self.terms);
            if cache.generation != Some(generation) {
                let n: i64 = tx.query_one("SELECT count(*) FROM chunks", &[]).ctx("count chunks").and_then(|r| col(&r, 0))?;
                *cache = TermCache { generation: Some(generation), chunks: usize_of(n), ..TermCache::default() };
            }
            let cap = cache.chunks / 2 + 1;
            let mut frequencies = Vec::with_capacity(asked.len());
            for (w, phrases) in &asked {
                let n = match cache.frequencies.get(w) {
                    Some(n) => *n,
                    None => {
                        let n = if phrases.is_empty() { 0 } else { chunk_frequency_in(tx, &self.analyzer, phrases, cap)? };
                        cache.frequencies.insert(w.clone(), n);
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
        self.read(|tx| entity_id_in(tx, &key, &canonical))
    }

    fn fact_positions(&self, ids: &[&str]) -> Result<HashMap<String, FactPosition>> {
        self.read(|tx| {
            let st = tx
                .prepare("SELECT doc_seq, chunk_idx, seq FROM facts WHERE id_key = $1 AND id = $2")
                .ctx("read fact positions")?;
            let mut out = HashMap::with_capacity(ids.len());
            for id in ids {
                if let Some(r) = tx.query_opt(&st, &[&fact_id_key(id), id]).ctx("read fact positions")? {
                    let (d, k, seq): (Option<i64>, Option<i64>, i64) = (col(&r, 0)?, col(&r, 1)?, col(&r, 2)?);
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
        self.read(|tx| {
            let mut count = |sql: &str| -> Result<u64> {
                let n: i64 = tx.query_one(sql, &[]).ctx("count").and_then(|r| col(&r, 0))?;
                Ok(n.max(0) as u64)
            };
            let documents = count("SELECT count(*) FROM documents")?;
            let chunks = count("SELECT count(*) FROM chunks")?;
            let total_facts = count("SELECT count(*) FROM facts")?;
            let entities = count("SELECT count(*) FROM entities")?;
            let mut by_predicate = std::collections::BTreeMap::new();
            for r in tx.query("SELECT predicate, count(*) FROM facts GROUP BY predicate", &[]).ctx("count facts")? {
                by_predicate.insert(col::<String>(&r, 0)?, col::<i64>(&r, 1)?.max(0) as u64);
            }
            Ok(StoreStats { documents, chunks, total_facts, by_predicate, entities })
        })
    }

    fn ingest_keys(&self, ids: &[&str]) -> Result<HashMap<String, String>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        self.read(|tx| {
            let rows = tx.query("SELECT id, ingest_key FROM documents WHERE id = ANY($1)", &[&ids]).ctx("read ingest keys")?;
            rows.iter().map(|r| Ok((col(r, 0)?, col(r, 1)?))).collect()
        })
    }

    fn write(
        &self,
        documents: &mut dyn Iterator<Item = PreparedDocument>,
        manual_facts: &[Fact],
        progress: &mut dyn FnMut(usize),
    ) -> Result<WriteReport> {
        self.with_client(|c| {
            let mut tx = c.transaction().ctx("begin write")?;
            // Writers take turns (as SQLite's BEGIN IMMEDIATE): a second ingest of the same
            // documents waits, then finds their ingest keys and leaves them.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).ctx("lock for write")?;
            let report = Writer::new(&mut tx)?.write(documents, manual_facts, progress)?;
            tx.commit().ctx("commit")?;
            Ok(report)
        })
    }
}

/// Chunks matching any of `phrases`, counted up to `cap`.
fn chunk_frequency_in(
    tx: &mut Transaction<'_>,
    analyzer: &Mutex<Analyzer>,
    phrases: &[Vec<String>],
    cap: usize,
) -> Result<usize> {
    let cap_i = i64::try_from(cap).unwrap_or(i64::MAX);
    if phrases.iter().all(|p| p.len() <= 1) {
        let terms: Vec<&str> = phrases.iter().filter_map(|p| p.first().map(String::as_str)).collect();
        if terms.is_empty() {
            return Ok(0);
        }
        let n: i64 = tx
            .query_one(
                "SELECT count(*) FROM (SELECT DISTINCT chunk_pk FROM postings WHERE term = ANY($1) LIMIT $2) x",
                &[&terms, &cap_i],
            )
            .ctx("count chunks")
            .and_then(|r| col(&r, 0))?;
        return Ok(usize_of(n));
    }
    let mut chunks = BTreeSet::new();
    for p in phrases {
        chunks.extend(phrase_hits(tx, analyzer, p)?.into_iter().map(|h| h.0));
    }
    Ok(chunks.len().min(cap))
}

fn entity_id_in(tx: &mut Transaction<'_>, key: &str, canonical: &str) -> Result<Option<String>> {
    tx.query_opt("SELECT id FROM entities WHERE match_key = $1 ORDER BY id <> $2, id LIMIT 1", &[&key, &canonical])
        .ctx("look up entity")?
        .map(|r| col(&r, 0))
        .transpose()
}

impl PostgresStore {
    /// An entity with its mentions in source order: all of them, or the first `max`.
    fn entity_with_mentions(&self, name: &str, max: Option<usize>) -> Result<Option<Entity>> {
        let limit: Option<i64> = max.map(|m| i64::try_from(m).unwrap_or(i64::MAX));
        let canonical = canonical_entity(name);
        if canonical.is_empty() {
            return Ok(None);
        }
        let key = entity_match_key(name);
        self.read(|tx| {
            let Some(id) = entity_id_in(tx, &key, &canonical)? else { return Ok(None) };
            // SQLite sorts NULLs first; PostgreSQL is told to.
            let rows = tx
                .query(
                    "SELECT m.surface, coalesce(m.doc_id, d.id), coalesce(m.chunk_id, c.id), m.span_start, m.span_end \
                     FROM (SELECT * FROM mentions WHERE entity_id = $1 \
                           ORDER BY doc_seq IS NULL, doc_seq, chunk_idx NULLS FIRST, span_start NULLS FIRST, rid LIMIT $2) m \
                     LEFT JOIN documents d ON d.seq = m.doc_seq \
                     LEFT JOIN chunks c ON c.doc_seq = m.doc_seq AND c.idx = m.chunk_idx \
                     ORDER BY m.doc_seq IS NULL, m.doc_seq, m.chunk_idx NULLS FIRST, m.span_start NULLS FIRST, m.rid",
                    &[&id, &limit],
                )
                .ctx("read mentions")?;
            let mut mentions = Vec::with_capacity(rows.len());
            for r in &rows {
                let (s, e): (Option<i64>, Option<i64>) = (col(r, 3)?, col(r, 4)?);
                mentions.push(EntityMention {
                    surface: col(r, 0)?,
                    doc_id: r.try_get::<_, Option<String>>(1).ctx("read mentions")?.unwrap_or_default(),
                    chunk_id: col(r, 2)?,
                    span: s.zip(e).map(|(s, e)| Span::new(usize_of(s), usize_of(e))),
                });
            }
            let aliases: BTreeSet<String> = mentions.iter().map(|m| m.surface.clone()).collect();
            Ok(Some(Entity { id, aliases: aliases.into_iter().collect(), mentions }))
        })
    }
}

const INSERT_FACT: &str = "INSERT INTO facts (id_key, id, subject, predicate, object_kind, object, qualifiers, version_norm, polarity, \
     confidence, span_start, span_end, doc_id, chunk_id, doc_seq, chunk_idx, manual) \
     VALUES ($17, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

/// Extracted facts in one statement, in insertion order; a fact whose key is already stored
/// (or earlier in the batch) is skipped, as the SQLite writer's `ON CONFLICT DO NOTHING`.
const INSERT_FACTS: &str = "INSERT INTO facts (id_key, id, subject, predicate, object_kind, object, qualifiers, version_norm, polarity, \
     confidence, span_start, span_end, doc_id, chunk_id, doc_seq, chunk_idx, manual) \
     SELECT k, i, s, p, ok, o, q, v, pol, c, ss, se, d, ch, ds, ci, m FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], \
     $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::float8[], $11::bigint[], $12::bigint[], $13::text[], \
     $14::text[], $15::bigint[], $16::bigint[], $17::boolean[]) \
     WITH ORDINALITY AS f(k, i, s, p, ok, o, q, v, pol, c, ss, se, d, ch, ds, ci, m, n) ORDER BY n \
     ON CONFLICT (id_key) DO NOTHING";

/// The columns of facts to insert in one statement ([`INSERT_FACTS`]).
#[derive(Default)]
struct FactColumns {
    id_key: Vec<i64>,
    id: Vec<String>,
    subject: Vec<String>,
    predicate: Vec<String>,
    object_kind: Vec<i64>,
    object: Vec<String>,
    qualifiers: Vec<Option<String>>,
    version: Vec<Option<String>>,
    polarity: Vec<i64>,
    confidence: Vec<f64>,
    span_start: Vec<i64>,
    span_end: Vec<i64>,
    doc_id: Vec<String>,
    chunk_id: Vec<String>,
    doc_seq: Vec<Option<i64>>,
    chunk_idx: Vec<Option<i64>>,
    manual: Vec<bool>,
}

impl FactColumns {
    fn push(&mut self, f: &Fact, doc_seq: Option<i64>, chunk_idx: Option<i64>, manual: bool) -> Result<()> {
        let (kind, object) = object_columns(&f.object);
        let qualifiers = (!f.qualifiers.is_empty())
            .then(|| serde_json::to_string(&f.qualifiers))
            .transpose()
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        self.id_key.push(fact_id_key(&f.id));
        self.id.push(f.id.clone());
        self.subject.push(f.subject.clone());
        self.predicate.push(f.predicate.clone());
        self.object_kind.push(kind);
        self.object.push(object);
        self.qualifiers.push(qualifiers);
        self.version.push(f.normalized_version());
        self.polarity.push(i64::from(f.polarity == Polarity::Negate));
        self.confidence.push(f.confidence);
        self.span_start.push(f.span.start as i64);
        self.span_end.push(f.span.end as i64);
        self.doc_id.push(f.source.doc_id.clone());
        self.chunk_id.push(f.source.chunk_id.clone());
        self.doc_seq.push(doc_seq);
        self.chunk_idx.push(chunk_idx);
        self.manual.push(manual);
        Ok(())
    }

    fn insert(&self, tx: &mut Transaction<'_>, st: &Statement) -> Result<()> {
        if self.id.is_empty() {
            return Ok(());
        }
        let params: [&(dyn ToSql + Sync); 17] = [
            &self.id_key,
            &self.id,
            &self.subject,
            &self.predicate,
            &self.object_kind,
            &self.object,
            &self.qualifiers,
            &self.version,
            &self.polarity,
            &self.confidence,
            &self.span_start,
            &self.span_end,
            &self.doc_id,
            &self.chunk_id,
            &self.doc_seq,
            &self.chunk_idx,
            &self.manual,
        ];
        tx.execute(st, &params).ctx("insert fact")?;
        Ok(())
    }
}

/// Documents gathered into one batch: the batch's documents, chunks, postings and facts are
/// each one statement (round trips, not rows, are what a remote database charges for).
const DOC_BATCH: usize = 512;
/// Text bytes gathered into one batch at most (a large document is a batch of its own).
const BATCH_BYTES: usize = 4 << 20;

/// A document waiting in the batch: its stored key (`None`: new, inserted with the batch)
/// and its tokenized chunks.
struct PendingDocument {
    seq: Option<i64>,
    document: PreparedDocument,
    terms: Vec<Terms>,
}

/// One write transaction's statements and buffers. It writes what the SQLite writer writes,
/// in the same order: documents in input order, a replaced document's old rows removed only
/// after every earlier document's rows are in, mentions flushed at the same points.
struct Writer<'a, 't> {
    tx: &'a mut Transaction<'t>,
    analyzer: Analyzer,
    find_documents: Statement,
    insert_documents: Statement,
    update_document: Statement,
    clear_document: Statement,
    chunks: Statement,
    facts: Statement,
    manual_fact: Statement,
    entities: Statement,
    mentions: Statement,
    buffer: MentionBuffer,
    pending: Vec<PendingDocument>,
    /// Change to the index totals (chunks, tokens).
    delta: (i64, i64),
}

impl<'a, 't> Writer<'a, 't> {
    fn new(tx: &'a mut Transaction<'t>) -> Result<Self> {
        let mut p = |sql: &str| tx.prepare(sql).ctx("prepare write");
        let find_documents = p("SELECT id, seq, ingest_key FROM documents WHERE id = ANY($1)")?;
        // WITH ORDINALITY … ORDER BY: keys are drawn in input order (stored order), in every
        // multi-row insert below.
        let insert_documents =
            p("INSERT INTO documents (id, version, version_norm, title, metadata, sha256, ingest_key, char_len, text) \
             SELECT i, v, vn, t, m, s, k, l, x FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], \
             $6::text[], $7::text[], $8::bigint[], $9::text[]) WITH ORDINALITY AS d(i, v, vn, t, m, s, k, l, x, n) ORDER BY n \
             RETURNING id, seq")?;
        let update_document =
            p("UPDATE documents SET id = $1, version = $2, version_norm = $3, title = $4, metadata = $5, sha256 = $6, \
             ingest_key = $7, char_len = $8, text = $9 WHERE seq = $10")?;
        // A replaced document's chunks with their postings, its extracted facts and its
        // mentions, in one statement: the chunks' count and tokens come back for the index
        // totals, the entities mentioned for pruning.
        let clear_document = p("WITH c AS (DELETE FROM chunks WHERE doc_seq = $1 RETURNING pk, tokens), \
             p AS (DELETE FROM postings WHERE chunk_pk IN (SELECT pk FROM c)), \
             f AS (DELETE FROM facts WHERE doc_seq = $1 AND NOT manual), \
             m AS (DELETE FROM mentions WHERE doc_seq = $1 RETURNING entity_id) \
             SELECT (SELECT count(*) FROM c), (SELECT coalesce(sum(tokens), 0)::bigint FROM c), \
             ARRAY(SELECT DISTINCT entity_id FROM m)")?;
        let chunks = p("INSERT INTO chunks (id, doc_seq, idx, start, \"end\", text, tokens) \
             SELECT i, d, x, s, e, t, k FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], \
             $7::bigint[]) WITH ORDINALITY AS c(i, d, x, s, e, t, k, n) ORDER BY n RETURNING pk, doc_seq, idx")?;
        let facts = p(INSERT_FACTS)?;
        let manual_fact = p(&format!(
            "{INSERT_FACT} ON CONFLICT (id_key) DO UPDATE SET id = excluded.id, subject = excluded.subject, predicate = excluded.predicate, \
             object_kind = excluded.object_kind, object = excluded.object, qualifiers = excluded.qualifiers, \
             version_norm = excluded.version_norm, polarity = excluded.polarity, confidence = excluded.confidence, \
             span_start = excluded.span_start, span_end = excluded.span_end, doc_id = excluded.doc_id, \
             chunk_id = excluded.chunk_id, doc_seq = excluded.doc_seq, chunk_idx = excluded.chunk_idx, manual = true"
        ))?;
        let entities =
            p("INSERT INTO entities (match_key, id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING")?;
        let mentions = p("INSERT INTO mentions (entity_id, surface, doc_seq, chunk_idx, span_start, span_end) \
             SELECT e, s, d, c, a, b FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) \
             WITH ORDINALITY AS m(e, s, d, c, a, b, n) ORDER BY n")?;
        Ok(Self {
            tx,
            analyzer: Analyzer::new()?,
            find_documents,
            insert_documents,
            update_document,
            clear_document,
            chunks,
            facts,
            manual_fact,
            entities,
            mentions,
            buffer: MentionBuffer::default(),
            pending: Vec::new(),
            delta: (0, 0),
        })
    }

    fn write(
        mut self,
        documents: &mut dyn Iterator<Item = PreparedDocument>,
        manual_facts: &[Fact],
        progress: &mut dyn FnMut(usize),
    ) -> Result<WriteReport> {
        let mut report = WriteReport::default();
        let mut documents = documents.peekable();
        let mut handled = 0;
        loop {
            // Gather a batch; a document whose id is already in it starts the next one (its
            // stored state is read after the first one is written, as one at a time would).
            let mut batch: Vec<PreparedDocument> = Vec::new();
            let (mut ids, mut bytes) = (HashSet::new(), 0);
            while batch.len() < DOC_BATCH
                && bytes < BATCH_BYTES
                && let Some(d) = documents.next_if(|d| !ids.contains(&d.id))
            {
                bytes += d.text.len();
                ids.insert(d.id.clone());
                batch.push(d);
            }
            if batch.is_empty() {
                break;
            }
            let ids: Vec<&str> = batch.iter().map(|d| d.id.as_str()).collect();
            let mut stored: HashMap<String, (i64, String)> = HashMap::with_capacity(batch.len());
            for r in self.tx.query(&self.find_documents, &[&ids]).ctx("read documents")? {
                stored.insert(col(&r, 0)?, (col(&r, 1)?, col(&r, 2)?));
            }
            for d in batch {
                let i = handled;
                handled += 1;
                let seq = match stored.get(&d.id) {
                    Some((_, key)) if *key == d.ingest_key => {
                        report.unchanged += 1;
                        continue;
                    }
                    Some(&(seq, _)) => {
                        // Every earlier document is written before this one's old rows go.
                        self.flush_documents()?;
                        self.clear_document(seq)?;
                        let (version, metadata, len) = (version_norm(&d.version), metadata_text(&d.metadata), d.char_len as i64);
                        self.tx
                            .execute(
                                &self.update_document,
                                &[
                                    &d.id,
                                    &d.version,
                                    &version,
                                    &d.title,
                                    &metadata,
                                    &d.sha256,
                                    &d.ingest_key,
                                    &len,
                                    &d.text,
                                    &seq,
                                ],
                            )
                            .ctx("update document")?;
                        Some(seq)
                    }
                    None => None,
                };
                let texts: Vec<&str> = d.chunks.iter().map(|c| d.chunk_text(c)).collect();
                let terms = self.analyzer.terms(&texts)?;
                self.pending.push(PendingDocument { seq, document: d, terms });
                report.written.push(i);
            }
            self.flush_documents()?;
            progress(handled);
        }
        self.flush_mentions()?;
        self.write_manual_facts(manual_facts)?;
        report.manual_facts = manual_facts.len();
        let touched: Vec<&String> = self.buffer.touched().iter().collect();
        if !touched.is_empty() {
            let keys: Vec<String> = touched.iter().map(|e| entity_match_key(e)).collect();
            self.tx
                .execute(
                    "DELETE FROM entities e USING unnest($1::text[], $2::text[]) AS t(k, i) \
                     WHERE e.match_key = t.k AND e.id = t.i AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity_id = t.i)",
                    &[&keys, &touched],
                )
                .ctx("prune entities")?;
        }
        self.tx
            .execute(
                "UPDATE store_state SET generation = generation + 1, chunks = chunks + $1, tokens = tokens + $2",
                &[&self.delta.0, &self.delta.1],
            )
            .ctx("update store state")?;
        Ok(report)
    }

    /// Removes a document's chunks (and their postings), extracted facts and mentions,
    /// remembering the entities mentioned so orphans can be pruned.
    fn clear_document(&mut self, seq: i64) -> Result<()> {
        self.flush_mentions()?;
        let r = self.tx.query_one(&self.clear_document, &[&seq]).ctx("replace document")?;
        self.delta.0 -= col::<i64>(&r, 0)?;
        self.delta.1 -= col::<i64>(&r, 1)?;
        for e in col::<Vec<String>>(&r, 2)? {
            self.buffer.forget(e);
        }
        Ok(())
    }

    /// Writes the batch's documents: the new ones, then all their chunks, postings and
    /// extracted facts, a statement each; their mentions are buffered (flushed, as the SQLite
    /// writer does, whenever the buffer fills after a document).
    fn flush_documents(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut pending = std::mem::take(&mut self.pending);
        self.insert_new_documents(&mut pending)?;
        let seq_of =
            |p: &PendingDocument| p.seq.ok_or_else(|| StoreError::Corrupt(format!("document {} not stored", p.document.id)));

        let mut c = ChunkColumns::default();
        for p in &pending {
            let (d, seq) = (&p.document, seq_of(p)?);
            for (chunk, terms) in d.chunks.iter().zip(&p.terms) {
                c.id.push(d.chunk_id(chunk.index));
                c.doc_seq.push(seq);
                c.idx.push(chunk.index as i64);
                c.start.push(chunk.start as i64);
                c.end.push(chunk.end as i64);
                c.text.push(d.chunk_text(chunk));
                c.tokens.push(terms.tokens);
            }
        }
        if !c.id.is_empty() {
            let rows = self
                .tx
                .query(&self.chunks, &[&c.id, &c.doc_seq, &c.idx, &c.start, &c.end, &c.text, &c.tokens])
                .ctx("insert chunk")?;
            let mut pks: HashMap<(i64, i64), i64> = HashMap::with_capacity(rows.len());
            for r in &rows {
                pks.insert((col(r, 1)?, col(r, 2)?), col(r, 0)?);
            }
            let mut postings: Vec<(&str, i64, i32)> = Vec::new();
            for p in &pending {
                let (d, seq) = (&p.document, seq_of(p)?);
                for (chunk, t) in d.chunks.iter().zip(&p.terms) {
                    let pk = pks
                        .get(&(seq, chunk.index as i64))
                        .copied()
                        .ok_or_else(|| StoreError::Corrupt(format!("chunk {} not stored", d.chunk_id(chunk.index))))?;
                    self.delta.0 += 1;
                    self.delta.1 += t.tokens;
                    postings.extend(t.frequencies.iter().map(|(term, tf)| (term.as_str(), pk, *tf)));
                }
            }
            // In key order (term bytes, as COLLATE "C", then chunk): the primary key's B-tree is
            // filled page by page instead of at random, most of the cost of a posting. Rows of
            // postings have no order of their own (searches order what they read).
            postings.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            if !postings.is_empty() {
                // Binary COPY: the server's bulk path (rows inserted in groups), no arrays to
                // build and unpack; a posting never conflicts (one row per term and chunk).
                let sink = self.tx.copy_in("COPY postings (term, chunk_pk, tf) FROM STDIN BINARY").ctx("index chunks")?;
                let mut w = BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::INT8, Type::INT4]);
                for (term, pk, tf) in &postings {
                    w.write(&[term, pk, tf]).ctx("index chunks")?;
                }
                w.finish().ctx("index chunks")?;
            }
        }

        let mut facts = FactColumns::default();
        for p in &pending {
            let seq = seq_of(p)?;
            for (chunk_idx, v) in &p.document.facts {
                facts.push(&v.fact, Some(seq), Some(*chunk_idx as i64), false)?;
            }
        }
        facts.insert(self.tx, &self.facts)?;

        for p in pending {
            let seq = seq_of(&p)?;
            let d = p.document;
            for (chunk_idx, v) in d.facts {
                self.buffer.push(v.mentions, seq, chunk_idx as i64, &d.entity_keys);
            }
            if self.buffer.full() {
                self.flush_mentions()?;
            }
        }
        Ok(())
    }

    /// Inserts the batch's new documents in one statement and records their keys.
    fn insert_new_documents(&mut self, pending: &mut [PendingDocument]) -> Result<()> {
        let rows = {
            let new: Vec<&PreparedDocument> = pending.iter().filter(|p| p.seq.is_none()).map(|p| &p.document).collect();
            if new.is_empty() {
                return Ok(());
            }
            let ids: Vec<&str> = new.iter().map(|d| d.id.as_str()).collect();
            let versions: Vec<Option<&str>> = new.iter().map(|d| d.version.as_deref()).collect();
            let norms: Vec<Option<String>> = new.iter().map(|d| version_norm(&d.version)).collect();
            let titles: Vec<Option<&str>> = new.iter().map(|d| d.title.as_deref()).collect();
            let metadata: Vec<Option<String>> = new.iter().map(|d| metadata_text(&d.metadata)).collect();
            let sha256: Vec<&str> = new.iter().map(|d| d.sha256.as_str()).collect();
            let keys: Vec<&str> = new.iter().map(|d| d.ingest_key.as_str()).collect();
            let lens: Vec<i64> = new.iter().map(|d| d.char_len as i64).collect();
            let texts: Vec<&str> = new.iter().map(|d| d.text.as_str()).collect();
            self.tx
                .query(&self.insert_documents, &[&ids, &versions, &norms, &titles, &metadata, &sha256, &keys, &lens, &texts])
                .ctx("insert document")?
        };
        let mut seqs: HashMap<String, i64> = HashMap::with_capacity(rows.len());
        for r in &rows {
            seqs.insert(col(r, 0)?, col(r, 1)?);
        }
        for p in pending.iter_mut().filter(|p| p.seq.is_none()) {
            p.seq = seqs.get(&p.document.id).copied();
        }
        Ok(())
    }

    /// Inserts the buffered entities and mentions (sorted as the SQLite writer inserts them,
    /// so the mentions' insertion order is the same).
    fn flush_mentions(&mut self) -> Result<()> {
        let (entities, mentions) = self.buffer.take();
        if !entities.is_empty() {
            let (keys, ids): (Vec<String>, Vec<String>) = entities.into_iter().unzip();
            self.tx.execute(&self.entities, &[&keys, &ids]).ctx("insert entity")?;
        }
        if mentions.is_empty() {
            return Ok(());
        }
        let n = mentions.len();
        let (mut entity, mut surface) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut doc_seq, mut chunk_idx) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut start, mut end): (Vec<Option<i64>>, Vec<Option<i64>>) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for m in mentions {
            entity.push(m.entity);
            surface.push(m.surface);
            doc_seq.push(m.doc_seq);
            chunk_idx.push(m.chunk_idx);
            start.push(m.span.map(|s| s.0));
            end.push(m.span.map(|s| s.1));
        }
        self.tx.execute(&self.mentions, &[&entity, &surface, &doc_seq, &chunk_idx, &start, &end]).ctx("insert mention")?;
        Ok(())
    }

    /// Manual facts, stored as given, one at a time (a later fact with the same id replaces an
    /// earlier one); their source order comes from their document and chunk when those are in
    /// the store (looked up for all of them at once: manual facts add neither). Each subject
    /// is recorded as an entity alias.
    fn write_manual_facts(&mut self, facts: &[Fact]) -> Result<()> {
        if facts.is_empty() {
            return Ok(());
        }
        let doc_ids: Vec<&str> = facts.iter().map(|f| f.source.doc_id.as_str()).collect();
        let chunk_ids: Vec<&str> = facts.iter().map(|f| f.source.chunk_id.as_str()).collect();
        let mut docs: HashMap<String, i64> = HashMap::new();
        for r in self.tx.query("SELECT id, seq FROM documents WHERE id = ANY($1)", &[&doc_ids]).ctx("read document")? {
            docs.insert(col(&r, 0)?, col(&r, 1)?);
        }
        let mut chunks: HashMap<String, i64> = HashMap::new();
        for r in self.tx.query("SELECT id, idx FROM chunks WHERE id = ANY($1)", &[&chunk_ids]).ctx("read chunk")? {
            chunks.insert(col(&r, 0)?, col(&r, 1)?);
        }
        let mention = self
            .tx
            .prepare(
                "INSERT INTO mentions (entity_id, surface, doc_id, chunk_id) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (entity_id, surface, doc_id, chunk_id) WHERE doc_seq IS NULL DO NOTHING",
            )
            .ctx("prepare write")?;
        for f in facts {
            let (doc_seq, chunk_idx) = (docs.get(&f.source.doc_id).copied(), chunks.get(&f.source.chunk_id).copied());
            insert_fact(self.tx, &self.manual_fact, f, doc_seq, chunk_idx, true)?;
            let entity = canonical_entity(&f.subject);
            if !entity.is_empty() {
                self.buffer.entity(&entity);
                self.flush_mentions()?;
                self.tx.execute(&mention, &[&entity, &f.subject, &f.source.doc_id, &f.source.chunk_id]).ctx("insert mention")?;
            }
        }
        Ok(())
    }
}

/// The columns of chunks to insert in one statement.
#[derive(Default)]
struct ChunkColumns<'d> {
    id: Vec<String>,
    doc_seq: Vec<i64>,
    idx: Vec<i64>,
    start: Vec<i64>,
    end: Vec<i64>,
    text: Vec<&'d str>,
    tokens: Vec<i64>,
}

fn insert_fact(
    tx: &mut Transaction<'_>,
    st: &Statement,
    f: &Fact,
    doc_seq: Option<i64>,
    chunk_idx: Option<i64>,
    manual: bool,
) -> Result<()> {
    let (kind, object) = object_columns(&f.object);
    let qualifiers = (!f.qualifiers.is_empty())
        .then(|| serde_json::to_string(&f.qualifiers))
        .transpose()
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    let params: [&(dyn ToSql + Sync); 17] = [
        &f.id,
        &f.subject,
        &f.predicate,
        &kind,
        &object,
        &qualifiers,
        &f.normalized_version(),
        &i64::from(f.polarity == Polarity::Negate),
        &f.confidence,
        &(f.span.start as i64),
        &(f.span.end as i64),
        &f.source.doc_id,
        &f.source.chunk_id,
        &doc_seq,
        &chunk_idx,
        &manual,
        &fact_id_key(&f.id),
    ];
    tx.execute(st, &params).ctx("insert fact")?;
    Ok(())
}
