//! What use cases run against: the knowledge store (found the same way by every shell), the
//! predicate vocabulary, and a model when one is configured.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use warrant_facts::Vocabulary;
use warrant_llm::Llm;
use warrant_store::SqliteStore;

use crate::error::{Error, Result};

/// The environment variable that names the store when no flag does.
pub const STORE_ENV: &str = "WARRANT_STORE";
/// The store's folder when neither a flag nor [`STORE_ENV`] names one.
pub const DEFAULT_STORE_DIR: &str = ".warrant";

/// The store directory: `explicit`, else `$WARRANT_STORE`, else `./.warrant`.
pub fn store_dir(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(STORE_ENV).filter(|v| !v.is_empty()).map(Into::into))
        .unwrap_or_else(|| DEFAULT_STORE_DIR.into())
}

/// The shared context of use cases: cheap to clone (the store and vocabulary are shared).
#[derive(Clone)]
pub struct Env {
    store: Option<Arc<SqliteStore>>,
    /// Where the store lives on disk (research runs are recorded beside it).
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

    /// Opens the store at `dir`, which must exist (`context` names where the path came from
    /// in the error: `--store DIR`).
    pub fn open_store(dir: &Path, context: &str) -> Result<Self> {
        let store = SqliteStore::open_existing(dir).map_err(|e| Error::store(e, Some(context)))?;
        Ok(Self::new().with_store(Arc::new(store)).with_store_dir(dir))
    }

    /// Opens the store at `dir`, which must exist; the error is the store's own (it names
    /// the folder).
    pub fn open_existing(dir: &Path) -> Result<Self> {
        let store = SqliteStore::open_existing(dir).map_err(|e| Error::store(e, None))?;
        Ok(Self::new().with_store(Arc::new(store)).with_store_dir(dir))
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
    pub fn with_store(mut self, store: Arc<SqliteStore>) -> Self {
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
    pub fn store(&self) -> Option<&Arc<SqliteStore>> {
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
