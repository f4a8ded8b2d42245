//! Store errors.

use std::path::PathBuf;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No store where one was expected (reading commands never create one).
    #[error("no store at {0} (create one with `warrant ingest`)")]
    NotFound(PathBuf),
    /// The file is an SQLite database but not a Warrant store.
    #[error("{0} is not a Warrant store")]
    NotAStore(PathBuf),
    /// The store was written by a newer Warrant.
    #[error("store schema version {found} is newer than this binary supports ({supported}); upgrade warrant")]
    SchemaTooNew {
        /// Version in the file.
        found: i64,
        /// Newest version this build knows.
        supported: i64,
    },
    /// Another process held the write lock for longer than the busy timeout.
    #[error("the store is busy (another ingest is writing); try again")]
    Busy,
    /// A file-system error.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An SQLite error (with what was being done).
    #[error("store: {context}: {source}")]
    Sqlite {
        /// What was being done.
        context: &'static str,
        /// The error.
        source: rusqlite::Error,
    },
    /// A PostgreSQL error (with what was being done, and the server's own message: the
    /// driver's is only "db error").
    #[cfg(feature = "postgres")]
    #[error("store: {context}: {}", with_causes(.source))]
    Postgres {
        /// What was being done.
        context: &'static str,
        /// The error.
        source: postgres::Error,
    },
    /// A PostgreSQL store that cannot be reached (the location is shown without its password).
    #[cfg(feature = "postgres")]
    #[error("cannot connect to the PostgreSQL store {location}: {}", with_causes(.source))]
    Connect {
        /// The store's URL, password redacted.
        location: String,
        /// The error.
        source: postgres::Error,
    },
    /// A PostgreSQL database whose schema is missing or older than this build's.
    #[error(
        "the PostgreSQL store {location} is not migrated ({}, this build needs {supported}); run `warrant store migrate --store {location}`",
        match found { Some(v) => format!("schema version {v}"), None => "no Warrant schema".to_string() }
    )]
    NotMigrated {
        /// The store's URL, password redacted.
        location: String,
        /// The schema version found, if any.
        found: Option<i64>,
        /// The version this build needs.
        supported: i64,
    },
    /// A PostgreSQL URL given to a build without PostgreSQL support.
    #[error("the store {location} is on PostgreSQL, and this build has no PostgreSQL support (the `postgres` feature)")]
    Unsupported {
        /// The store's URL, password redacted.
        location: String,
    },
    /// A stored value that cannot be read back (a corrupt or hand-edited store).
    #[error("store: corrupt value in {0}")]
    Corrupt(String),
    /// A bad argument to a store call.
    #[error("{0}")]
    Invalid(String),
}

/// Shorthand for store results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Attaches a context to SQLite errors, mapping lock timeouts to [`StoreError::Busy`].
pub(crate) trait SqlContext<T> {
    fn ctx(self, context: &'static str) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    fn ctx(self, context: &'static str) -> Result<T> {
        self.map_err(|source| match source.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => StoreError::Busy,
            _ => StoreError::Sqlite { context, source },
        })
    }
}

#[cfg(feature = "postgres")]
impl<T> SqlContext<T> for std::result::Result<T, postgres::Error> {
    fn ctx(self, context: &'static str) -> Result<T> {
        self.map_err(|source| StoreError::Postgres { context, source })
    }
}

/// An error with its causes (`a: b: c`): the driver's message alone can be only the stage that
/// failed ("error performing TLS handshake"), its cause the reason (which certificate check).
#[cfg(feature = "postgres")]
fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}
