//! The fusion engine (spec §6.5): dispatch sub-queries with bounded concurrency, then dedup,
//! rank and cut the evidence to the token budget. Pure code; deterministic whatever order the
//! sub-queries finish in.

use std::cmp::Ordering;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

use crate::graph::SubQueryRunner;
use crate::payload::Evidence;
use crate::subquery::SubQuery;

/// Default sub-queries in flight.
pub const DEFAULT_PARALLELISM: usize = 8;
/// Most sub-queries in flight.
pub const MAX_PARALLELISM: usize = 64;
/// Default results per sub-query.
pub const DEFAULT_PER_QUERY_LIMIT: usize = 50;
/// Most results per sub-query.
pub const MAX_PER_QUERY_LIMIT: usize = 500;

/// Fusion settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FusionConfig {
    /// Sub-queries in flight (1..=64; default 8).
    pub parallelism: usize,
    /// Results per sub-query (1..=500; default 50), passed as `limit`.
    pub per_query_limit: usize,
}

impl Default for FusionConfig {
    fn default() -> Self {
        Self { parallelism: DEFAULT_PARALLELISM, per_query_limit: DEFAULT_PER_QUERY_LIMIT }
    }
}

impl FusionConfig {
    fn clamped(self) -> Self {
        Self {
            parallelism: self.parallelism.clamp(1, MAX_PARALLELISM),
            per_query_limit: self.per_query_limit.clamp(1, MAX_PER_QUERY_LIMIT),
        }
    }
}

/// The whole stage was cancelled: the only hard error of execute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("execute cancelled")]
pub struct Cancelled;

/// One sub-query's outcome, once it has run.
type Slot = Option<Result<Vec<Evidence>, String>>;

/// What fusion produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fused {
    /// Ranked, deduplicated evidence within the budget.
    pub evidence: Vec<Evidence>,
    /// Sum of the kept items' costs.
    pub budget_tokens_used: i64,
    /// Failures (`<type>:<source> failed: <err>`), in materialised order.
    pub failures: Vec<String>,
}

/// Runs `queries` (at most `parallelism` at once, each capped at `per_query_limit` results)
/// and fuses their evidence under `budget` tokens. A failing sub-query (an error, or taking
/// longer than `timeout`) only adds a failure; `cancel` set before or during the run is the
/// one hard error.
pub fn execute(
    runner: &dyn SubQueryRunner,
    queries: &[SubQuery],
    config: FusionConfig,
    budget: i64,
    timeout: Option<Duration>,
    cancel: Option<&AtomicBool>,
) -> Result<Fused, Cancelled> {
    let config = config.clamped();
    let cancelled = || cancel.is_some_and(|c| c.load(AtomicOrdering::Relaxed));
    if cancelled() {
        return Err(Cancelled);
    }
    let run_one = |q: &SubQuery| -> Result<Vec<Evidence>, String> {
        let started = Instant::now();
        let out = q.validate().and_then(|()| runner.run(q, config.per_query_limit));
        match timeout {
            Some(t) if started.elapsed() > t => Err(format!("timed out after {t:?}")),
            _ => out,
        }
    };
    let results: Vec<Result<Vec<Evidence>, String>> = if config.parallelism == 1 || queries.len() <= 1 {
        queries.iter().map(run_one).collect()
    } else {
        let slots: Mutex<Vec<Slot>> = Mutex::new(vec![None; queries.len()]);
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..config.parallelism.min(queries.len()) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, AtomicOrdering::Relaxed);
                        if i >= queries.len() || cancelled() {
                            break;
                        }
                        let r = run_one(&queries[i]);
                        slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(r);
                    }
                });
            }
        });
        let slots = slots.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        slots.into_iter().map(|r| r.unwrap_or_else(|| Err("not run".into()))).collect()
    };
    if cancelled() {
        return Err(Cancelled);
    }
    let mut failures = Vec::new();
    let mut batches = Vec::with_capacity(results.len());
    for (q, r) in queries.iter().zip(results) {
        match r {
            Ok(ev) => batches.push(ev),
            Err(e) => failures.push(format!("{}:{} failed: {e}", q.type_name(), q.source)),
        }
    }
    let (evidence, budget_tokens_used) = rank_and_budget(dedup(batches), budget);
    Ok(Fused { evidence, budget_tokens_used, failures })
}

/// Whether `a` should replace the kept `b` (spec §6.5 step 4): the lower tier, then the higher
/// score; a full tie keeps the earlier item.
fn better(a: &Evidence, b: &Evidence) -> bool {
    match a.tier.cmp(&b.tier) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => a.score > b.score,
    }
}

/// Dedup by `entity_id` over the batches in materialised order; empty ids are dropped. Keeps
/// first-seen order (the sort comes next).
pub fn dedup(batches: Vec<Vec<Evidence>>) -> Vec<Evidence> {
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out: Vec<Evidence> = Vec::new();
    for ev in batches.into_iter().flatten() {
        if ev.entity_id.is_empty() {
            continue;
        }
        match index.get(&ev.entity_id) {
            Some(&i) => {
                if better(&ev, &out[i]) {
                    out[i] = ev;
                }
            }
            None => {
                index.insert(ev.entity_id.clone(), out.len());
                out.push(ev);
            }
        }
    }
    out
}

/// Steps 5–6: stable sort (tier ascending, score descending, id ascending), then the sharp
/// budget cut-off. Returns the kept items and their total cost.
pub fn rank_and_budget(mut evidence: Vec<Evidence>, budget: i64) -> (Vec<Evidence>, i64) {
    evidence.sort_by(|a, b| {
        a.tier.cmp(&b.tier).then_with(|| b.score.total_cmp(&a.score)).then_with(|| a.entity_id.cmp(&b.entity_id))
    });
    let mut used = 0i64;
    let mut kept = 0;
    for e in &evidence {
        let cost = e.token_cost();
        if used + cost > budget {
            break;
        }
        used += cost;
        kept += 1;
    }
    evidence.truncate(kept);
    (evidence, used)
}
