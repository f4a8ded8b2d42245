//! Status triples and the `research.*` predicates (spec §7), and the run entity id (§8).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// `agent.loop.role`.
pub const ROLE: &str = "agent.loop.role";
/// `research.request.received`.
pub const REQUEST_RECEIVED: &str = "research.request.received";
/// `research.request.topic`.
pub const REQUEST_TOPIC: &str = "research.request.topic";
/// `research.loop.id`.
pub const LOOP_ID: &str = "research.loop.id";
/// `research.request.budget-tokens`.
pub const REQUEST_BUDGET: &str = "research.request.budget-tokens";
/// `research.request.max-iterations`.
pub const REQUEST_MAX_ITERATIONS: &str = "research.request.max-iterations";
/// `research.parent.loop`.
pub const PARENT_LOOP: &str = "research.parent.loop";
/// `research.parent.role`.
pub const PARENT_ROLE: &str = "research.parent.role";
/// `research.request.hint` (declared; not emitted by kickoff).
pub const REQUEST_HINT: &str = "research.request.hint";
/// `research.classify.complete`.
pub const CLASSIFY_COMPLETE: &str = "research.classify.complete";
/// `research.classify.candidate-count`.
pub const CLASSIFY_CANDIDATES: &str = "research.classify.candidate-count";
/// `research.classify.degraded`.
pub const CLASSIFY_DEGRADED: &str = "research.classify.degraded";
/// `research.route.complete`.
pub const ROUTE_COMPLETE: &str = "research.route.complete";
/// `research.route.action`.
pub const ROUTE_ACTION: &str = "research.route.action";
/// `research.execute.complete`.
pub const EXECUTE_COMPLETE: &str = "research.execute.complete";
/// `research.execute.evidence-count`.
pub const EXECUTE_EVIDENCE: &str = "research.execute.evidence-count";
/// `research.assess.complete`.
pub const ASSESS_COMPLETE: &str = "research.assess.complete";
/// `research.assess.sufficient`.
pub const ASSESS_SUFFICIENT: &str = "research.assess.sufficient";
/// `research.search-result.complete`.
pub const RESULT_COMPLETE: &str = "research.search-result.complete";
/// `research.search-result.ref`.
pub const RESULT_REF: &str = "research.search-result.ref";
/// Reserved: `research.evidence.present`.
pub const EVIDENCE_PRESENT: &str = "research.evidence.present";
/// Reserved: `research.state.status`.
pub const STATE_STATUS: &str = "research.state.status";

/// Older spellings accepted on read (never written): (old, canonical).
pub const LEGACY_PREDICATES: [(&str, &str); 4] = [
    ("loop.role", ROLE),
    ("research.loop_id", LOOP_ID),
    ("research.requested", REQUEST_RECEIVED),
    ("research.search_result.complete", RESULT_COMPLETE),
];

/// The canonical spelling of a predicate read from elsewhere.
pub fn canonical_predicate(p: &str) -> &str {
    LEGACY_PREDICATES.iter().find(|(old, _)| *old == p).map_or(p, |(_, new)| new)
}

/// One status triple.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Triple {
    /// The run entity id.
    pub subject: String,
    /// A `research.*` (or `agent.loop.role`) predicate.
    pub predicate: String,
    /// Booleans `"true"`/`"false"`, counts in decimal, times in RFC3339Nano.
    pub object: String,
    /// The emitting stage.
    pub source: String,
    /// The batch time (RFC3339Nano).
    pub timestamp: String,
    /// Always 1.0.
    pub confidence: f64,
    /// Optional context.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
    /// Optional datatype.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub datatype: String,
}

/// A batch of triples sharing subject, source and time.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    /// The run entity id.
    pub subject: &'a str,
    /// The emitting stage.
    pub source: &'a str,
    /// The batch time.
    pub time: Timestamp,
}

impl Batch<'_> {
    /// Triples from `(predicate, object)` pairs.
    pub fn triples(&self, pairs: &[(&str, String)]) -> Vec<Triple> {
        let ts = self.time.rfc3339_nano();
        pairs
            .iter()
            .map(|(p, o)| Triple {
                subject: self.subject.into(),
                predicate: (*p).into(),
                object: o.clone(),
                source: self.source.into(),
                timestamp: ts.clone(),
                confidence: 1.0,
                context: String::new(),
                datatype: String::new(),
            })
            .collect()
    }
}

fn boolean(b: bool) -> String {
    if b { "true" } else { "false" }.into()
}

/// Sources of the batches.
pub mod source {
    /// Kickoff.
    pub const KICKOFF: &str = "agent-research-graph";
    /// classify.
    pub const CLASSIFY: &str = "research-graph-classify";
    /// route.
    pub const ROUTE: &str = "research-graph-route";
    /// execute.
    pub const EXECUTE: &str = "research-graph-execute";
    /// assess.
    pub const ASSESS: &str = "research-graph-assess";
    /// The result.
    pub const RESULT: &str = "research-graph-synthesize";
}

/// What the kickoff batch records.
#[derive(Debug, Clone, Copy)]
pub struct Kickoff<'a> {
    /// The original topic.
    pub topic: &'a str,
    /// The run id.
    pub run_id: &'a str,
    /// The resolved budget.
    pub budget: i64,
    /// The resolved iteration cap.
    pub max_iterations: i64,
    /// The parent loop id (may be empty).
    pub parent_loop: &'a str,
    /// The parent role (may be empty).
    pub parent_role: &'a str,
}

/// Kickoff: 6 triples, plus the parent loop and role only when non-empty.
pub fn kickoff(subject: &str, time: Timestamp, k: &Kickoff<'_>) -> Vec<Triple> {
    let mut pairs = vec![
        (ROLE, crate::payload::PIPELINE_ROLE.to_string()),
        (REQUEST_RECEIVED, boolean(true)),
        (REQUEST_TOPIC, k.topic.to_string()),
        (LOOP_ID, k.run_id.to_string()),
        (REQUEST_BUDGET, k.budget.to_string()),
        (REQUEST_MAX_ITERATIONS, k.max_iterations.to_string()),
    ];
    if !k.parent_loop.is_empty() {
        pairs.push((PARENT_LOOP, k.parent_loop.to_string()));
    }
    if !k.parent_role.is_empty() {
        pairs.push((PARENT_ROLE, k.parent_role.to_string()));
    }
    Batch { subject, source: source::KICKOFF, time }.triples(&pairs)
}

/// classify: complete, candidate count, degraded.
pub fn classify(subject: &str, time: Timestamp, candidates: usize, degraded: bool) -> Vec<Triple> {
    Batch { subject, source: source::CLASSIFY, time }.triples(&[
        (CLASSIFY_COMPLETE, time.rfc3339_nano()),
        (CLASSIFY_CANDIDATES, candidates.to_string()),
        (CLASSIFY_DEGRADED, boolean(degraded)),
    ])
}

/// route: complete, the action verbatim.
pub fn route(subject: &str, time: Timestamp, action: &str) -> Vec<Triple> {
    Batch { subject, source: source::ROUTE, time }
        .triples(&[(ROUTE_COMPLETE, time.rfc3339_nano()), (ROUTE_ACTION, action.to_string())])
}

/// execute: complete, evidence count.
pub fn execute(subject: &str, time: Timestamp, evidence: usize) -> Vec<Triple> {
    Batch { subject, source: source::EXECUTE, time }
        .triples(&[(EXECUTE_COMPLETE, time.rfc3339_nano()), (EXECUTE_EVIDENCE, evidence.to_string())])
}

/// assess: complete, sufficient.
pub fn assess(subject: &str, time: Timestamp, sufficient: bool) -> Vec<Triple> {
    Batch { subject, source: source::ASSESS, time }
        .triples(&[(ASSESS_COMPLETE, time.rfc3339_nano()), (ASSESS_SUFFICIENT, boolean(sufficient))])
}

/// The result: complete, the ref `search_result.complete.<run_id>`.
pub fn result(subject: &str, time: Timestamp, run_id: &str) -> Vec<Triple> {
    Batch { subject, source: source::RESULT, time }
        .triples(&[(RESULT_COMPLETE, time.rfc3339_nano()), (RESULT_REF, format!("search_result.complete.{run_id}"))])
}

/// The markers a retighten clears.
pub const RETIGHTEN_CLEARS: [&str; 2] = [CLASSIFY_COMPLETE, ROUTE_COMPLETE];
/// The markers a refine clears.
pub const REFINE_CLEARS: [&str; 2] = [EXECUTE_COMPLETE, ASSESS_COMPLETE];

/// Why a run entity id cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("run entity id: {0}")]
pub struct EntityIdError(String);

/// The run entity id from `(org, platform, run_id)`: each part non-empty and dot-free. The
/// ordering of the middle parts lives here only (upstream's older ordering is
/// `agent.agentic-loop.execution`).
pub fn run_entity_id(org: &str, platform: &str, run_id: &str) -> Result<String, EntityIdError> {
    for (name, v) in [("org", org), ("platform", platform), ("run_id", run_id)] {
        if v.is_empty() || v.contains('.') {
            return Err(EntityIdError(format!("{name} {v:?} must be non-empty and contain no dots")));
        }
    }
    Ok(format!("{org}.{platform}.agentic-loop.agent.execution.{run_id}"))
}

/// The run id from an entity id (its last part), when it looks like one (`rg_` + 8 hex).
pub fn run_id_of(entity_id: &str) -> Option<&str> {
    let last = entity_id.rsplit('.').next()?;
    is_run_id(last).then_some(last)
}

/// `rg_` followed by 8 lower-case hex digits.
pub fn is_run_id(s: &str) -> bool {
    s.strip_prefix("rg_").is_some_and(|h| h.len() == 8 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The current status of a run: predicate → object (legacy spellings folded).
pub type Status = BTreeMap<String, String>;

/// Applies a batch to a status map.
pub fn apply(status: &mut Status, triples: &[Triple]) {
    for t in triples {
        status.insert(canonical_predicate(&t.predicate).to_string(), t.object.clone());
    }
}
