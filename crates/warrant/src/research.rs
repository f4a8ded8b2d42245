//! Researching a topic over the store's knowledge graph: classify, route, execute and assess
//! in rounds, then an extractive synthesis citing its evidence; the run is recorded beside the
//! store.
//!
//! [`research`] serves a [`ResearchRequest`] (the body of `POST /v1/research`);
//! [`research_intent`] takes an [`Intent`] as the command line builds it (its numbers may be
//! out of range, to be refused here), with a model for the stages; [`run`] reads a recorded
//! run back.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use warrant_research::ModelStages;
pub use warrant_research::RunRecord;
use warrant_research::{Chain, FixedClock, Intent, RunLog, SqliteRunLog, StoreGraph, Timestamp};
use warrant_research::{RuleAssessor, RuleRouter};

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
    // A PostgreSQL store's runs go to a folder of this machine's own, made on first use.
    std::fs::create_dir_all(dir).map_err(|e| Error::internal(format!("{}: {e}", dir.display())))?;
    SqliteRunLog::open(dir).map_err(|e| Error::internal(e.to_string()))
}

/// A research run, and what the model stages fell back on.
#[derive(Debug, Clone)]
pub struct Researched {
    /// The recorded run.
    pub record: RunRecord,
    /// Why a model stage fell back to its rule stage, one line each (also among the run's
    /// warnings).
    pub degraded: Vec<String>,
}

impl Researched {
    /// The result (`{synthesis, evidence, decomp_trace, tokens_used, iterations, run_id,
    /// sufficient?}`), with `degraded` when a model stage fell back and `warnings` when the
    /// run has any (hints no stage reads, model fallbacks).
    pub fn result_json(&self) -> Value {
        let mut v = self.record.result_json();
        if let Some(m) = v.as_object_mut() {
            if !self.degraded.is_empty() {
                m.insert("degraded".into(), serde_json::json!(self.degraded));
            }
            if !self.record.warnings.is_empty() {
                m.insert("warnings".into(), serde_json::json!(self.record.warnings));
            }
        }
        v
    }
}

/// The run clock `now` (RFC 3339) names; `at` names it in the error (`--now`, `/now`).
fn clock(now: &str, at: &str) -> Result<Timestamp> {
    Timestamp::parse(now).ok_or_else(|| {
        let e = Error::input(format!("{at}: expected an RFC 3339 time such as 2026-06-02T18:30:45Z, got {now:?}"));
        if at.starts_with('/') { e.at_pointer(at) } else { e }
    })
}

/// Researches `req.topic` over the environment's store and records the run: the result
/// (`{synthesis, evidence, decomp_trace, tokens_used, iterations, run_id, sufficient?}`).
pub fn research(env: &Env, req: &ResearchRequest) -> Result<Value> {
    let intent = Intent {
        topic: req.topic.clone(),
        hints: req.hints.clone(),
        budget_tokens: i64::from(req.budget_tokens),
        max_iterations: i64::from(req.max_iterations),
    };
    let now = req.now.as_deref().map(|n| (n, "/now"));
    Ok(research_intent(env, intent, now)?.result_json())
}

/// Researches `intent` over the environment's store (classify, route, execute ⇄ assess,
/// synthesize) and records the run beside the store. With a model in the environment, it
/// routes, assesses and synthesizes (each reply validated, else the rule stage runs and the
/// reason is in [`Researched::degraded`]). `now`: the run clock (RFC 3339) and what names it
/// in errors (`--now`, `/now`).
pub fn research_intent(env: &Env, intent: Intent, now: Option<(&str, &str)>) -> Result<Researched> {
    let store = env.store().ok_or_else(|| Error::input("no store to research (create one with `warrant ingest`)"))?;
    let intent = intent.checked().map_err(Error::input)?;
    let mut chain = Chain::new(StoreGraph::new(store.as_ref()));
    let stages = env.model().cloned().map(ModelStages::new);
    if let Some(m) = &stages {
        chain = chain
            .with_router(m.router(RuleRouter::default()))
            .with_assessor(m.assessor(RuleAssessor::default()))
            .with_synthesizer(m.synthesizer());
    }
    if let Some((now, at)) = now {
        chain = chain.with_clock(FixedClock(clock(now, at)?));
    }
    let log = run_log(env)?;
    // research_graph's steps, with the model stages' fallbacks added to the run's warnings
    // before it is recorded.
    let seq = log.next_seq().map_err(|e| Error::internal(e.to_string()))?;
    let mut record = chain.run(&intent, None, seq).map_err(|e| Error::input(e.to_string()))?;
    let degraded = stages.as_ref().map(ModelStages::degraded).unwrap_or_default();
    record.warnings.extend(degraded.iter().map(|d| format!("model degraded: {d}")));
    log.save(&record, Timestamp::parse(&record.started_at).unwrap_or_default()).map_err(|e| Error::internal(e.to_string()))?;
    Ok(Researched { record, degraded })
}

/// A recorded run (its intent, every payload version, its status triples, its result), or
/// `None` when there is no such run (runs are kept 24 h).
pub fn run(env: &Env, run_id: &str) -> Result<Option<RunRecord>> {
    run_log(env)?.load(run_id.trim()).map_err(|e| Error::internal(e.to_string()))
}
