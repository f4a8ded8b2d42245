//! Where runs are recorded so they can be inspected afterwards (`warrant research --show`).
//!
//! [`SqliteRunLog`] keeps them in `research.sqlite` beside the store's database, in the store
//! directory: a `runs` table (one row per run, the [`RunRecord`] as JSON) and a `triples`
//! table with every status triple of every run (`op` `set` or `clear`, in order), so a run can
//! be read with any SQLite tool. Each run is written in one transaction. Runs older than the
//! retention (default 24 h, by the run clock) are pruned when a new run is saved.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use crate::chain::{RunRecord, StatusEvent};
use crate::clock::Timestamp;

/// File name of the run log inside a store directory.
pub const RUNLOG_FILE: &str = "research.sqlite";
/// Default retention of runs.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// A run log error.
#[derive(Debug, thiserror::Error)]
pub enum RunLogError {
    /// SQLite failed.
    #[error("research run log: {context}: {source}")]
    Sqlite {
        /// What was being done.
        context: &'static str,
        /// The error.
        source: rusqlite::Error,
    },
    /// A stored record does not decode.
    #[error("research run log: run {0} is corrupt")]
    Corrupt(String),
    /// Two runs got the same id (retry the run).
    #[error("research run log: run id {0} already exists; run again")]
    Collision(String),
}

type Result<T> = std::result::Result<T, RunLogError>;

fn ctx<T>(r: rusqlite::Result<T>, context: &'static str) -> Result<T> {
    r.map_err(|source| RunLogError::Sqlite { context, source })
}

/// Stores runs.
pub trait RunLog: Send + Sync {
    /// The sequence number of the next run (never reused).
    fn next_seq(&self) -> Result<u64>;
    /// Saves a run (pruning runs older than the retention before `now`).
    fn save(&self, record: &RunRecord, now: Timestamp) -> Result<()>;
    /// A run by id.
    fn load(&self, run_id: &str) -> Result<Option<RunRecord>>;
    /// Run ids, oldest first.
    fn list(&self) -> Result<Vec<String>>;
}

/// Runs kept in memory.
#[derive(Debug, Default)]
pub struct MemoryRunLog {
    runs: Mutex<(u64, Vec<RunRecord>)>,
}

impl RunLog for MemoryRunLog {
    fn next_seq(&self) -> Result<u64> {
        Ok(self.runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0 + 1)
    }
    fn save(&self, record: &RunRecord, _now: Timestamp) -> Result<()> {
        let mut g = self.runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if g.1.iter().any(|r| r.run_id == record.run_id) {
            return Err(RunLogError::Collision(record.run_id.clone()));
        }
        g.0 = g.0.max(record.seq);
        g.1.push(record.clone());
        Ok(())
    }
    fn load(&self, run_id: &str) -> Result<Option<RunRecord>> {
        Ok(self.runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).1.iter().find(|r| r.run_id == run_id).cloned())
    }
    fn list(&self) -> Result<Vec<String>> {
        Ok(self.runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).1.iter().map(|r| r.run_id.clone()).collect())
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    seq        INTEGER PRIMARY KEY,
    run_id     TEXT NOT NULL UNIQUE,
    topic      TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    record     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS triples (
    run_id     TEXT NOT NULL,
    n          INTEGER NOT NULL,
    op         TEXT NOT NULL,
    subject    TEXT NOT NULL,
    predicate  TEXT NOT NULL,
    object     TEXT,
    source     TEXT,
    timestamp  TEXT,
    confidence REAL,
    PRIMARY KEY (run_id, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
";

/// Runs in `research.sqlite` in a store directory.
pub struct SqliteRunLog {
    conn: Mutex<Connection>,
    retention: Duration,
}

impl std::fmt::Debug for SqliteRunLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteRunLog").finish_non_exhaustive()
    }
}

impl SqliteRunLog {
    /// Opens (creating if needed) the run log of a store directory.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let conn = ctx(Connection::open(dir.as_ref().join(RUNLOG_FILE)), "open")?;
        ctx(conn.busy_timeout(Duration::from_secs(30)), "set busy timeout")?;
        let _: String = ctx(conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)), "enable WAL")?;
        // WAL with NORMAL sync: a run survives a crash of the process; only a power loss can drop the last run.
        ctx(conn.execute_batch("PRAGMA synchronous = NORMAL"), "configure")?;
        ctx(conn.execute_batch(SCHEMA), "create schema")?;
        Ok(Self { conn: Mutex::new(conn), retention: DEFAULT_RETENTION })
    }

    /// Sets the retention.
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RunLog for SqliteRunLog {
    fn next_seq(&self) -> Result<u64> {
        let c = self.conn();
        let v: Option<i64> =
            ctx(c.query_row("SELECT value FROM meta WHERE key = 'last_seq'", [], |r| r.get(0)).optional(), "read seq")?;
        Ok(v.unwrap_or(0).max(0) as u64 + 1)
    }

    fn save(&self, record: &RunRecord, now: Timestamp) -> Result<()> {
        let mut c = self.conn();
        let tx = ctx(c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate), "begin")?;
        let exists: bool = ctx(
            tx.query_row("SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = ?1)", [&record.run_id], |r| r.get(0)),
            "read run",
        )?;
        if exists {
            return Err(RunLogError::Collision(record.run_id.clone()));
        }
        let cutoff = now.millis() - i64::try_from(self.retention.as_millis()).unwrap_or(i64::MAX);
        ctx(
            tx.execute("DELETE FROM triples WHERE run_id IN (SELECT run_id FROM runs WHERE started_ms < ?1)", [cutoff]),
            "prune",
        )?;
        ctx(tx.execute("DELETE FROM runs WHERE started_ms < ?1", [cutoff]), "prune")?;
        let started = Timestamp::parse(&record.started_at).map_or(now.millis(), |t| t.millis());
        let json = serde_json::to_string(record).map_err(|_| RunLogError::Corrupt(record.run_id.clone()))?;
        ctx(
            tx.execute(
                "INSERT INTO runs (seq, run_id, topic, started_ms, record) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![record.seq as i64, record.run_id, record.intent.topic, started, json],
            ),
            "insert run",
        )?;
        {
            let mut st = ctx(
                tx.prepare(
                    "INSERT INTO triples (run_id, n, op, subject, predicate, object, source, timestamp, confidence) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                ),
                "prepare",
            )?;
            let mut n = 0i64;
            for e in &record.events {
                match e {
                    StatusEvent::Set { triples } => {
                        for t in triples {
                            n += 1;
                            ctx(
                                st.execute(params![
                                    record.run_id,
                                    n,
                                    "set",
                                    t.subject,
                                    t.predicate,
                                    t.object,
                                    t.source,
                                    t.timestamp,
                                    t.confidence
                                ]),
                                "insert triple",
                            )?;
                        }
                    }
                    StatusEvent::Clear { predicates } => {
                        for p in predicates {
                            n += 1;
                            ctx(
                                st.execute(params![
                                    record.run_id,
                                    n,
                                    "clear",
                                    record.run_entity_id,
                                    p,
                                    None::<String>,
                                    None::<String>,
                                    None::<String>,
                                    None::<f64>
                                ]),
                                "insert triple",
                            )?;
                        }
                    }
                }
            }
        }
        ctx(
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('last_seq', ?1) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
                [record.seq as i64],
            ),
            "write seq",
        )?;
        ctx(tx.commit(), "commit")
    }

    fn load(&self, run_id: &str) -> Result<Option<RunRecord>> {
        let c = self.conn();
        let json: Option<String> =
            ctx(c.query_row("SELECT record FROM runs WHERE run_id = ?1", [run_id], |r| r.get(0)).optional(), "read run")?;
        json.map(|j| serde_json::from_str(&j).map_err(|e| RunLogError::Corrupt(format!("{run_id} ({e})")))).transpose()
    }

    fn list(&self) -> Result<Vec<String>> {
        let c = self.conn();
        let mut st = ctx(c.prepare("SELECT run_id FROM runs ORDER BY seq"), "list runs")?;
        let rows = ctx(st.query_map([], |r| r.get::<_, String>(0)), "list runs")?;
        ctx(rows.collect::<rusqlite::Result<Vec<_>>>(), "list runs")
    }
}
