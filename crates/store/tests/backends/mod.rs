//! The backends the conformance suite runs on, each test on a fresh store of its own.
//!
//! PostgreSQL needs a server: `WARRANT_TEST_POSTGRES` is its URL (any database; each test
//! creates and later drops its own). Unset, the PostgreSQL tests fail under CI (`CI=true`)
//! with how to start one, and elsewhere say on stderr that they were skipped.

#![allow(dead_code)] // each test binary uses part of it

use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use warrant_store::{PostgresStore, SqliteStore, Store};

/// The environment variable naming the PostgreSQL server the tests use.
pub const POSTGRES_ENV: &str = "WARRANT_TEST_POSTGRES";

/// A store backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh, empty store; [`Fixture::open`] opens a handle on it (as another process would).
pub struct Fixture {
    backend: Backend,
    location: String,
    /// Removes the store when the fixture is dropped.
    _cleanup: Cleanup,
}

enum Cleanup {
    Dir(tempfile::TempDir),
    Database { admin: String, name: String },
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Cleanup::Database { admin, name } = self
            && let Ok(mut c) = postgres::Client::connect(admin, postgres::NoTls)
        {
            // FORCE: handles a test leaked (or a panicking test left) do not keep it alive.
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        }
    }
}

/// The PostgreSQL server URL, or `None` (after saying so) when the tests cannot run.
pub fn postgres_url() -> Option<String> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(
                !ci,
                "{POSTGRES_ENV} is unset, and CI runs the store suite on PostgreSQL too: start a throwaway cluster with \
                 `eval \"$(scripts/pg_cluster.sh start)\"` (stop it with `scripts/pg_cluster.sh stop`), as .ci/run does"
            );
            // Written to the process's stderr directly, past the test harness's capture, so
            // the skip shows in a normal `cargo test` run.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {POSTGRES_ENV} unset (start a cluster with `eval \"$(scripts/pg_cluster.sh start)\"`)"
            );
            None
        }
    }
}

/// `url` naming database `db` instead of its own.
pub fn with_database(url: &str, db: &str) -> String {
    let rest = url.find("://").map_or(0, |i| i + 3);
    let path = url[rest..].find(['/', '?']).map_or(url.len(), |i| rest + i);
    let query = url[path..].find('?').map_or(url.len(), |i| path + i);
    format!("{}/{db}{}", &url[..path], &url[query..])
}

/// A new, empty, migrated database on the test server: `(its URL, cleanup)`.
fn fresh_database(admin: &str) -> (String, Cleanup) {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let name = format!("warrant_test_{}_{}_{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
    let mut c = postgres::Client::connect(admin, postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {POSTGRES_ENV}={}: {e}", warrant_store::redact(admin)));
    c.batch_execute(&format!("CREATE DATABASE \"{name}\"")).unwrap();
    let url = with_database(admin, &name);
    (url, Cleanup::Database { admin: admin.to_string(), name })
}

impl Backend {
    /// A fresh empty store, or `None` when this backend cannot run here (said on stderr).
    pub fn fresh(self) -> Option<Fixture> {
        match self {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let location = dir.path().join("store").display().to_string();
                SqliteStore::open(&location).unwrap();
                Some(Fixture { backend: self, location, _cleanup: Cleanup::Dir(dir) })
            }
            Backend::Postgres => {
                let admin = postgres_url()?;
                let (location, cleanup) = fresh_database(&admin);
                PostgresStore::migrate(&location).unwrap();
                Some(Fixture { backend: self, location, _cleanup: cleanup })
            }
        }
    }

    /// A fresh database that has not been migrated (PostgreSQL only).
    pub fn unmigrated(self) -> Option<Fixture> {
        let admin = postgres_url()?;
        let (location, cleanup) = fresh_database(&admin);
        Some(Fixture { backend: self, location, _cleanup: cleanup })
    }
}

impl Fixture {
    /// A new handle on the store.
    pub fn open(&self) -> Box<dyn Store> {
        warrant_store::open_existing(&self.location).unwrap()
    }

    /// Where the store is (a folder or a URL).
    pub fn location(&self) -> &str {
        &self.location
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The backend's own consistency checks pass (SQLite: `integrity_check`, FTS5 included;
    /// PostgreSQL: the index totals equal the chunks' and every chunk's postings add up).
    pub fn assert_sound(&self) {
        match self.backend {
            Backend::Sqlite => {
                let s = SqliteStore::open_existing(&self.location).unwrap();
                assert_eq!(s.integrity_check().unwrap(), "ok");
            }
            Backend::Postgres => {
                let mut c = postgres::Client::connect(&self.location, postgres::NoTls).unwrap();
                let row = c
                    .query_one(
                        "SELECT s.chunks = (SELECT count(*) FROM chunks), \
                                s.tokens = (SELECT coalesce(sum(tokens), 0) FROM chunks), \
                                NOT EXISTS (SELECT 1 FROM chunks c WHERE c.tokens <> \
                                    (SELECT coalesce(sum(tf), 0) FROM postings p WHERE p.chunk_pk = c.pk)), \
                                NOT EXISTS (SELECT 1 FROM postings p WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.pk = p.chunk_pk)) \
                         FROM store_state s",
                        &[],
                    )
                    .unwrap();
                let checks: (bool, bool, bool, bool) = (row.get(0), row.get(1), row.get(2), row.get(3));
                assert_eq!(checks, (true, true, true, true), "store_state totals, chunk lengths, orphan postings");
            }
        }
    }
}
