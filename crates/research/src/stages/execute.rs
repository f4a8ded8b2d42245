//! execute (spec §6.3–§6.5): materialise sub-queries from the route decision, run them against
//! the graph and fuse the evidence under the token budget. Never fails the chain on bad input:
//! it emits a degraded output instead; only cancellation is a hard error.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::clock::Timestamp;
use crate::fusion::{self, Cancelled, FusionConfig};
use crate::graph::SubQueryRunner;
use crate::hints;
use crate::payload::{
    ACTION_DECOMPOSE, ACTION_SYNTHESIZE_DIRECTLY, ACTION_WALK_SEEDS, Candidate, ClassifierOutput, Evidence, ExecutionOutput,
    Intent, RouteDecision, SeedRef,
};
use crate::stages::Working;
use crate::subquery::{EntityStateArgs, PredicateWalkArgs, SubQuery, SubQueryKind, TemporalRangeArgs};

/// What execute reads.
#[derive(Debug, Clone, Copy)]
pub struct ExecuteInput<'a> {
    /// The validated intent (its budget).
    pub intent: &'a Intent,
    /// The working topic and hints.
    pub working: &'a Working,
    /// The latest classifier output.
    pub classifier: Option<&'a ClassifierOutput>,
    /// The latest route decision.
    pub route: Option<&'a RouteDecision>,
    /// Refined queries of the last assessment (refine rounds).
    pub refined_queries: &'a [String],
    /// The run clock's time (centre of the time axis).
    pub now: Timestamp,
}

/// Resolves one seed reference against the candidates in canonical order (spec §6.3).
pub fn resolve_seed(candidates: &[Candidate], seed: &SeedRef) -> Option<String> {
    let r = seed.reference.trim();
    let found = match seed.ref_type.as_str() {
        "candidate_index" => r.parse::<usize>().ok().and_then(|i| candidates.get(i)),
        "partial_id" => {
            let suffix = format!(".{r}");
            candidates.iter().find(|c| c.entity_id == r || c.entity_id.ends_with(&suffix))
        }
        "name" => candidates.iter().find(|c| c.label.to_lowercase() == r.to_lowercase()),
        _ => None,
    };
    found.map(|c| c.entity_id.clone()).filter(|id| !id.trim().is_empty())
}

/// Anchors of a decompose scope: the first N non-blank candidate ids.
fn anchor_count(scope: &str) -> usize {
    match scope {
        "narrow" => 3,
        "broad" => 20,
        _ => 8,
    }
}

/// Materialised sub-queries plus notes that degrade the output (unresolved seeds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Materialized {
    /// The action executed.
    pub action: String,
    /// Sub-queries in order.
    pub queries: Vec<SubQuery>,
    /// Degradation notes.
    pub notes: Vec<String>,
}

/// Spec §6.4: the walk_seeds or decompose template, plus one BM25 per refined query. `Err` is
/// the degraded reason (missing payloads, invalid args, an unexpected action).
pub fn materialize(input: &ExecuteInput<'_>) -> Result<Materialized, (String, String)> {
    let Some(co) = input.classifier else { return Err((String::new(), "missing classifier output".into())) };
    let Some(rd) = input.route else { return Err((String::new(), "missing route decision".into())) };
    let action = rd.action.clone();
    let mut m = Materialized { action: action.clone(), ..Materialized::default() };
    let predicates = input.working.hints.get("path_predicates").map(|p| hints::predicates(p)).unwrap_or_default();
    match action.as_str() {
        ACTION_WALK_SEEDS => {
            let args = rd.parse_walk_seeds_args().map_err(|e| (action.clone(), format!("invalid walk_seeds args: {e}")))?;
            let mut seeds: Vec<String> = Vec::new();
            let mut unresolved = 0;
            for s in &args.seeds {
                match resolve_seed(&co.candidates, s) {
                    Some(id) if !seeds.contains(&id) => seeds.push(id),
                    Some(_) => {}
                    None => unresolved += 1,
                }
            }
            if unresolved > 0 {
                m.notes.push(format!("{unresolved} seed references unresolved"));
            }
            if !seeds.is_empty() {
                m.queries.push(SubQuery::new(
                    "0",
                    "walk_seeds.entity_state",
                    SubQueryKind::EntityState(EntityStateArgs { entity_ids: seeds.clone() }),
                ));
                m.queries.push(SubQuery::new(
                    "0",
                    "walk_seeds.predicate_walk",
                    SubQueryKind::PredicateWalk(PredicateWalkArgs { seeds, predicates, max_hops: 1 }),
                ));
            }
            m.queries.push(SubQuery::bm25("1", "walk_seeds.bm25_coverage", input.working.topic.clone()));
        }
        ACTION_DECOMPOSE => {
            let args = rd.parse_decompose_args().map_err(|e| (action.clone(), format!("invalid decompose args: {e}")))?;
            let anchors: Vec<String> = co
                .candidates
                .iter()
                .map(|c| c.entity_id.clone())
                .filter(|id| !id.trim().is_empty())
                .take(anchor_count(&args.scope))
                .collect();
            let query = if args.focus.trim().is_empty() { input.working.topic.clone() } else { args.focus.clone() };
            m.queries.push(SubQuery::bm25("1", "decompose.bm25_focus", query.clone()));
            for axis in &args.axes {
                let axis = axis.trim().to_lowercase();
                match axis.as_str() {
                    "entity_type" | "entity" => {
                        if !anchors.is_empty() {
                            m.queries.push(SubQuery::new(
                                "0",
                                "decompose.entity_type",
                                SubQueryKind::EntityState(EntityStateArgs { entity_ids: anchors.clone() }),
                            ));
                        }
                    }
                    "time" | "temporal" => {
                        // The caller's window, else one derived from the topic, else ±24 h.
                        let window = input
                            .working
                            .hints
                            .get("time_range")
                            .map(String::as_str)
                            .or_else(|| co.hints.get("time_range").and_then(|v| v.as_str()))
                            .and_then(|v| hints::time_range(v).ok());
                        let (start, end) = window.unwrap_or_else(|| {
                            (input.now.plus_secs(-86_400).rfc3339_nano(), input.now.plus_secs(86_400).rfc3339_nano())
                        });
                        m.queries.push(SubQuery::new(
                            "0",
                            "decompose.time",
                            SubQueryKind::TemporalRange(TemporalRangeArgs { start, end, topic: query.clone() }),
                        ));
                    }
                    "predicate" | "relationship" => {
                        if !anchors.is_empty() {
                            m.queries.push(SubQuery::new(
                                "0",
                                "decompose.predicate",
                                SubQueryKind::PredicateWalk(PredicateWalkArgs {
                                    seeds: anchors.clone(),
                                    predicates: predicates.clone(),
                                    max_hops: 1,
                                }),
                            ));
                        }
                    }
                    "spatial" => {}
                    other => m.queries.push(SubQuery::bm25("1", format!("decompose.axis.{other}"), format!("{query} {other}"))),
                }
            }
        }
        other => return Err((other.to_string(), format!("unexpected action {other:?} for execute"))),
    }
    for q in input.refined_queries.iter().filter(|q| !q.trim().is_empty()) {
        m.queries.push(SubQuery::bm25("1", "refine.bm25", q.clone()));
    }
    Ok(m)
}

/// Runs execute: materialise, dispatch, fuse. `timeout` is the per-sub-query timeout.
pub fn run(
    runner: &dyn SubQueryRunner,
    input: &ExecuteInput<'_>,
    config: FusionConfig,
    timeout: Option<Duration>,
    cancel: Option<&AtomicBool>,
) -> Result<ExecutionOutput, Cancelled> {
    let topic = input.working.topic.as_str();
    match materialize(input) {
        Ok(m) => run_materialized(runner, topic, &m, input.intent.resolved_budget_tokens(), config, timeout, cancel),
        Err((action, reason)) => Ok(ExecutionOutput::degraded(topic, &action, reason)),
    }
}

/// Dispatches materialised sub-queries and fuses their evidence into an execution output.
pub fn run_materialized(
    runner: &dyn SubQueryRunner,
    topic: &str,
    m: &Materialized,
    budget: i64,
    config: FusionConfig,
    timeout: Option<Duration>,
    cancel: Option<&AtomicBool>,
) -> Result<ExecutionOutput, Cancelled> {
    let mut out = ExecutionOutput { topic: topic.into(), action: m.action.clone(), ..ExecutionOutput::default() };
    out.subquery_count = m.queries.len() as i64;
    if m.queries.is_empty() {
        out.add_degradation("materializer produced zero sub-queries");
    } else {
        let fused = fusion::execute(runner, &m.queries, config, budget, timeout, cancel)?;
        out.evidence = fused.evidence;
        out.budget_tokens_used = fused.budget_tokens_used;
        if !fused.failures.is_empty() {
            out.add_degradation(&fused.failures.join("; "));
        }
    }
    for n in &m.notes {
        out.add_degradation(n);
    }
    Ok(out)
}

/// The synthesize_directly path (D31): the classifier's candidates as evidence, fused (dedup,
/// sort, budget); `note` (e.g. "retighten cap reached") degrades the output.
pub fn from_candidates(co: &ClassifierOutput, topic: &str, budget: i64, note: Option<&str>) -> ExecutionOutput {
    let items: Vec<Evidence> = co
        .candidates
        .iter()
        .map(|c| Evidence {
            entity_id: c.entity_id.clone(),
            tier: c.tier.clone(),
            source: "synthesize_directly.candidate".into(),
            score: c.relevance,
            snippet_text: c.snippet_text.clone(),
            // A chunk candidate's text is quoted from that chunk.
            objectstore_ref: match crate::graph::parse_node_id(&c.entity_id) {
                Some(crate::graph::Node::Chunk(chunk)) => chunk,
                _ => String::new(),
            },
        })
        .collect();
    let (evidence, used) = fusion::rank_and_budget(fusion::dedup(vec![items]), budget);
    let mut out = ExecutionOutput {
        topic: topic.into(),
        action: ACTION_SYNTHESIZE_DIRECTLY.into(),
        evidence,
        budget_tokens_used: used,
        ..ExecutionOutput::default()
    };
    if let Some(n) = note {
        out.add_degradation(n);
    }
    out
}
