//! Searching the store: its top chunks for a query, by BM25.

use serde::Deserialize;
pub use warrant_store::SearchHit;

use crate::env::Env;
use crate::error::{Error, Result};

/// A query. The body of `POST /v1/search`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// How many chunks (default 10).
    #[serde(default = "default_limit")]
    pub limit: usize,
}

fn default_limit() -> usize {
    10
}

/// The environment's store's top chunks for `req.query`, best first.
pub fn search(env: &Env, req: &SearchRequest) -> Result<Vec<SearchHit>> {
    let store = env.store().ok_or_else(|| Error::input("no store to search (create one with `warrant ingest`)"))?;
    store.search(&req.query, req.limit).map_err(|e| Error::store(e, None))
}
