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
    #[error("store schema version {found} is newer than this build supports ({supported}); upgrade warrant")]
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
