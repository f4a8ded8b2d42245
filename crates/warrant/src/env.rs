//! What use cases run against: the knowledge store (found the same way by every shell), the
//! predicate vocabulary, and a model when one is configured.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use warrant_facts::Vocabulary;
use warrant_llm::Llm;
use warrant_store::Store;

use crate::error::{Error, Result};

/// The environment variable that names the store when no flag does.
pub const STORE_ENV: &str = "WARRANT_STORE";
/// The store's folder when neither a flag nor [`STORE_ENV`] names one.
pub const DEFAULT_STORE_DIR: &str = ".warrant";

/// Where the store is: `explicit`, else `$WARRANT_STORE`, else `./.warrant` — an SQLite store
/// folder, or a `postgres://` / `postgresql://` URL (kept in a path).
pub fn store_dir(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(STORE_ENV).filter(|v| !v.is_empty()).map(Into::into))
        .unwrap_or_else(|| DEFAULT_STORE_DIR.into())
}

/// Where research runs over the store at `location` are recorded: its folder; for a
/// PostgreSQL store (no folder), `<temp dir>/warrant-runs/<hash of the redacted URL>` on this
/// machine (runs are kept 24 hours).
pub fn runs_dir(location: &Path) -> PathBuf {
    match location.to_str().filter(|l| warrant_store::is_postgres_url(l)) {
        Some(url) => {
            let key = warrant_store::sha256_hex(&warrant_store::redact(url));
            std::env::temp_dir().join("warrant-runs").join(&key[..16])
        }
        None => location.to_path_buf(),
    }
}

/// The shared context of use cases: cheap to clone (the store and vocabulary are shared).
#[derive(Clone)]
pub struct Env {
    store: Option<Arc<dyn Store>>,
    /// Where research runs are recorded: the store's folder, or for a PostgreSQL store a
    /// folder of its own under the temporary directory ([`runs_dir`]).
    store_dir: Option<PathBuf>,
    vocabulary: Arc<Vocabulary>,
    model: Option<Llm>,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    /// No store, the built-in vocabulary, no model.
    pub fn new() -> Self {
        Self { store: None, store_dir: None, vocabulary: Arc::new(Vocabulary::builtin()), model: None }
    }

    /// Opens the store at `dir` (a folder or a PostgreSQL URL), which must exist (`context`
    /// names where the location came from in the error: `--store DIR`; a password in it is
    /// never shown).
    pub fn open_store(dir: &Path, context: &str) -> Result<Self> {
        let context = warrant_store::redact(context);
        let store = warrant_store::open_existing(dir).map_err(|e| Error::store(e, Some(&context)))?;
        Ok(Self::new().with_store(Arc::from(store)).with_store_dir(runs_dir(dir)))
    }

    /// Opens the store at `dir` (a folder or a PostgreSQL URL), which must exist; the error
    /// is the store's own (it names the location, without a password).
    pub fn open_existing(dir: &Path) -> Result<Self> {
        let store = warrant_store::open_existing(dir).map_err(|e| Error::store(e, None))?;
        Ok(Self::new().with_store(Arc::from(store)).with_store_dir(runs_dir(dir)))
    }

    /// Opens the store at `dir` for writing: an SQLite folder is created if missing; a
    /// PostgreSQL database must have been migrated (`warrant store migrate`).
    pub fn open_for_writing(dir: &Path) -> Result<Self> {
        let store = warrant_store::open(dir).map_err(|e| Error::store(e, None))?;
        Ok(Self::new().with_store(Arc::from(store)).with_store_dir(runs_dir(dir)))
    }

    /// The store a shell finds without being told: `$WARRANT_STORE` (which must exist when
    /// set), else `./.warrant` when it exists, else none.
    pub fn discover() -> Result<Self> {
        if let Some(dir) = std::env::var_os(STORE_ENV).filter(|v| !v.is_empty()) {
            let dir = PathBuf::from(dir);
            return Self::open_store(&dir, &format!("${STORE_ENV}={}", dir.display()));
        }
        let dir = Path::new(DEFAULT_STORE_DIR);
        if dir.exists() { Self::open_store(dir, DEFAULT_STORE_DIR) } else { Ok(Self::new()) }
    }

    /// The same environment over `store`.
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// The same environment, with its store's folder on disk.
    pub fn with_store_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.store_dir = Some(dir.into());
        self
    }

    /// The store's folder, when it is on disk.
    pub fn store_dir(&self) -> Option<&Path> {
        self.store_dir.as_deref()
    }

    /// The same environment reading facts with `vocabulary`.
    pub fn with_vocabulary(mut self, vocabulary: Arc<Vocabulary>) -> Self {
        self.vocabulary = vocabulary;
        self
    }

    /// The same environment with a model for the stages that ask for one.
    pub fn with_model(mut self, model: Option<Llm>) -> Self {
        self.model = model;
        self
    }

    /// The store, when there is one.
    pub fn store(&self) -> Option<&Arc<dyn Store>> {
        self.store.as_ref()
    }

    /// The vocabulary.
    pub fn vocabulary(&self) -> &Arc<Vocabulary> {
        &self.vocabulary
    }

    /// The model, when one is configured.
    pub fn model(&self) -> Option<&Llm> {
        self.model.as_ref()
    }
}
