//! Researching a topic over the store's knowledge graph: classify, route, execute and assess
//! in rounds, then an extractive synthesis citing its evidence; the run is recorded beside the
//! store.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
pub use warrant_research::RunRecord;
use warrant_research::{Chain, FixedClock, Intent, RunLog, SqliteRunLog, StoreGraph, Timestamp, research_graph};

use crate::env::Env;
use crate::error::{Error, Result};

/// A research request. The body of `POST /v1/research` (the `research_graph` tool's
/// parameters, plus the run clock).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ResearchRequest {
    /// The topic to research.
    pub topic: String,
    /// Hints: `time_range=START/END`, `path_predicates`, `path_intent`, `path_start_node`,
    /// `limit` (an unknown key is 422).
    #[serde(default)]
    pub hints: BTreeMap<String, String>,
    /// Evidence token budget (absent or 0: 4000).
    #[serde(default)]
    pub budget_tokens: u32,
    /// Most refine rounds (absent or 0: 5; at most 5 are run).
    #[serde(default)]
    pub max_iterations: u32,
    /// The run clock, RFC 3339 (default: the system clock), for reproducible runs.
    #[serde(default)]
    pub now: Option<String>,
}

/// The body [`research`] returns, for the OpenAPI document only (the value itself is built by
/// `RunRecord::result_json`; the server's schema test keeps the two in step).
#[cfg(feature = "openapi")]
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ResearchResult {
    /// The SearchResult.
    #[serde(flatten)]
    pub result: warrant_research::SearchResult,
    /// The run's id (`rg_` and 8 hex digits), for `GET /v1/research/{run_id}`.
    pub run_id: String,
    /// The last assessment's verdict; absent when the run answered directly from the
    /// candidates or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sufficient: Option<bool>,
}

fn run_log(env: &Env) -> Result<SqliteRunLog> {
    let dir = env.store_dir().ok_or_else(|| Error::input("research needs a store on disk (its runs are recorded beside it)"))?;
    SqliteRunLog::open(dir).map_err(|e| Error::internal(e.to_string()))
}

/// Researches `req.topic` over the environment's store and records the run: the result
/// (`{synthesis, evidence, decomp_trace, tokens_used, iterations, run_id, sufficient?}`).
pub fn research(env: &Env, req: &ResearchRequest) -> Result<Value> {
    let store = env.store().ok_or_else(|| Error::input("no store to research (create one with `warrant ingest`)"))?;
    let intent = Intent {
        topic: req.topic.clone(),
        hints: req.hints.clone(),
        budget_tokens: i64::from(req.budget_tokens),
        max_iterations: i64::from(req.max_iterations),
    }
    .checked()
    .map_err(Error::input)?;
    let mut chain = Chain::new(StoreGraph::new(store.as_ref()));
    if let Some(now) = &req.now {
        let t = Timestamp::parse(now).ok_or_else(|| {
            Error::input_at("/now", format!("/now: expected an RFC 3339 time such as 2026-06-02T18:30:45Z, got {now:?}"))
        })?;
        chain = chain.with_clock(FixedClock(t));
    }
    let log = run_log(env)?;
    let record = research_graph(&chain, &log, &intent, None).map_err(|e| match e {
        warrant_research::Error::Research(e) => Error::input(e.to_string()),
        warrant_research::Error::RunLog(e) => Error::internal(e.to_string()),
    })?;
    Ok(record.result_json())
}

/// A recorded run (its intent, every payload version, its status triples, its result), or
/// `None` when there is no such run (runs are kept 24 h).
pub fn run(env: &Env, run_id: &str) -> Result<Option<RunRecord>> {
    run_log(env)?.load(run_id.trim()).map_err(|e| Error::internal(e.to_string()))
}
