//! Research over Warrant's knowledge graph: the graph-search rule chain of semstreams ADR-045
//! (decisions: `docs/decisions/research-chain.md`), run in-process over a [`warrant_store::Store`].
//!
//! A caller has a topic, not a query. The chain classifies the topic against the graph,
//! routes (synthesise directly, retighten the topic, walk named seeds, or decompose into typed
//! sub-queries), executes and fuses the sub-queries under a token budget, assesses whether the
//! evidence covers the topic (refining what is missing), and synthesises an extractive answer
//! whose every line cites evidence that resolves back to an entity or chunk in the store.
//!
//! - [`payload`]: the payload contracts, exactly upstream's (D30), with their Validate rules;
//! - [`graph`]: the graph over a store (entities, fact edges, chunks) with six-part ids;
//! - [`stages`]: classify, route, execute, assess, synthesize (deterministic, D32);
//! - [`fusion`]: dispatch, dedup, rank and budget;
//! - [`rules`] and [`chain`]: R0–R6 as an in-process state machine, with caps and deadlines;
//! - [`triples`]: status triples and the `research.*` predicates;
//! - [`runlog`]: runs recorded beside the store for `warrant research --show`;
//! - [`llm`]: the [`llm::Model`] trait and the model-backed route, assess and synthesize;
//! - [`model`]: those stages over Warrant's LLM client, validated, repaired once, with rule fallbacks.
//!
//! ```
//! use warrant_research::{Chain, Intent, MemoryRunLog, StoreGraph, research_graph};
//! use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
//!
//! let store = SqliteStore::open_in_memory()?;
//! let doc = DocumentInput {
//!     id: "auth".into(),
//!     text: "Session tokens expire after 15 minutes of inactivity.".into(),
//!     version: None, title: None, metadata: None, origin: "example".into(),
//! };
//! ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {})?;
//! let chain = Chain::new(StoreGraph::new(&store));
//! let run = research_graph(&chain, &MemoryRunLog::default(), &Intent::new("session token expiry"), None)?;
//! assert!(run.search_result.synthesis.contains("expire after 15 minutes"));
//! assert!(run.run_id.starts_with("rg_"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod chain;
mod clock;
pub mod fusion;
mod graph;
mod hints;
mod llm;
mod model;
pub mod payload;
pub mod rules;
mod runlog;
mod stages;
mod subquery;
mod text;
pub mod triples;

pub use chain::{Chain, ChainConfig, ContinuationTask, Parent, ResearchError, RunRecord};
pub use clock::{Clock, FixedClock, SystemClock, Timestamp};
pub use graph::{IdScheme, StoreGraph};
pub use payload::{
    AssessmentOutput, Candidate, ClassifierOutput, DecompTrace, DecomposeArgs, Evidence, ExecutionOutput, Intent, RetightenArgs,
    RouteDecision, SearchResult, SeedRef, ValidationError, WalkSeedsArgs,
};
pub use runlog::{MemoryRunLog, RunLog, RunLogError, SqliteRunLog};

/// Why `research_graph` failed: a bad intent, or the run could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The intent was refused.
    #[error(transparent)]
    Research(#[from] ResearchError),
    /// The run log failed.
    #[error(transparent)]
    RunLog(#[from] RunLogError),
}

/// The entry point (spec §4): validate the intent, run the chain to completion as the log's
/// next run, record the run, and return it (`run_id`, `search_result` and everything else).
pub fn research_graph(chain: &Chain<'_>, log: &dyn RunLog, intent: &Intent, parent: Option<Parent>) -> Result<RunRecord, Error> {
    let seq = log.next_seq()?;
    let record = chain.run(intent, parent, seq)?;
    log.save(&record, Timestamp::parse(&record.started_at).unwrap_or_default())?;
    Ok(record)
}

/// The `research_graph` tool's parameters (spec §4): strict, unlike the Intent payload —
/// an unknown key is an error, and the numbers must be integers ≥ 0.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolParams {
    /// The topic.
    pub topic: String,
    /// Hints.
    #[serde(default)]
    pub hints: std::collections::BTreeMap<String, String>,
    /// Token budget (0 or absent ⇒ 4000).
    #[serde(default)]
    pub budget_tokens: u32,
    /// Refine-iteration cap (0 or absent ⇒ 5).
    #[serde(default)]
    pub max_iterations: u32,
}

impl ToolParams {
    /// Parses tool-call arguments (a JSON object) into a validated intent.
    pub fn parse(json: &str) -> Result<Intent, String> {
        let p: ToolParams = serde_json::from_str(json).map_err(|e| format!("research_graph: {e}"))?;
        let intent = Intent {
            topic: p.topic,
            hints: p.hints,
            budget_tokens: i64::from(p.budget_tokens),
            max_iterations: i64::from(p.max_iterations),
        };
        intent.checked().map_err(|e| format!("research_graph: {e}"))
    }
}

/// `read_result(run_id)`: the SearchResult of a recorded run.
pub fn read_result(log: &dyn RunLog, run_id: &str) -> Result<Option<SearchResult>, RunLogError> {
    Ok(log.load(run_id)?.map(|r| r.search_result))
}
pub use chain::{Classifier, Deadlines, StatusEvent};
pub use graph::{Node, SubQueryRunner, parse_node_id};
pub use hints::check;
pub use llm::{LlmAssessor, LlmRouter, LlmSynthesizer, Model, ModelRequest, ModelResponse, extract_json, router_prompt};
pub use model::{LlmModel, ModelStages, validate_assess, validate_route, validate_synthesis};
pub use stages::{
    AssessConfig, AssessInput, Assessor, RouteInput, Router, RouterConfig, RuleAssessor, RuleRouter, RuleSynthesizer, Synthesis,
    SynthesisInput, Synthesizer, Usage, Working, execute, quote_back, resolve_seed,
};
pub use subquery::{SubQuery, SubQueryKind};
