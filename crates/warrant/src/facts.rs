//! Listing the store's facts, in source order.

use serde::Deserialize;
use warrant_facts::Fact;
use warrant_facts::canonical_entity;
use warrant_store::FactQuery;

use crate::env::Env;
use crate::error::{Error, Result};

/// Which facts. Every field narrows the list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactsRequest {
    /// Only facts of this subject: as stored (manual facts keep theirs), else its canonical
    /// form ("Session tokens" → `session_token`).
    #[serde(default)]
    pub subject: Option<String>,
    /// Only facts of this predicate.
    #[serde(default)]
    pub predicate: Option<String>,
    /// Only facts of this version (`v2.0` and `2.0` are equal).
    #[serde(default)]
    pub version: Option<String>,
}

/// Hands each fact `req` selects to `visit`, in source order, until `visit` returns false.
pub fn visit(env: &Env, req: &FactsRequest, visit: &mut dyn FnMut(Fact) -> bool) -> Result<()> {
    let store = env.store().ok_or_else(|| Error::input("no store to list facts from (create one with `warrant ingest`)"))?;
    let mut query = FactQuery { predicate: req.predicate.clone(), version: req.version.clone(), ..FactQuery::default() };
    if let Some(s) = &req.subject {
        let exact = FactQuery { subject: Some(s.clone()), limit: Some(1), ..query.clone() };
        let found = !store.facts(&exact).map_err(|e| Error::store(e, None))?.is_empty();
        query.subject = Some(if found { s.clone() } else { canonical_entity(s) });
    }
    store.visit_facts(&query, visit).map_err(|e| Error::store(e, None))
}

/// Every fact `req` selects, in source order.
pub fn list(env: &Env, req: &FactsRequest) -> Result<Vec<Fact>> {
    let mut out = Vec::new();
    visit(env, req, &mut |f| {
        out.push(f);
        true
    })?;
    Ok(out)
}
