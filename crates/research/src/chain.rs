//! The chain (spec §3.2): classify → route → execute ⇄ assess → synthesize, run in-process
//! over a store, with the caps (retighten 2, refine min(max_iterations, 5)), deadlines, a
//! degraded result on stage failure, and every status triple and payload version recorded in
//! a [`RunRecord`].

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::clock::{Clock, SystemClock, Timestamp};
use crate::fusion::FusionConfig;
use crate::graph::{StoreGraph, SubQueryRunner};
use crate::payload::{
    AssessmentOutput, ClassifierOutput, DecompTrace, ExecutionOutput, Intent, RouteDecision, SearchResult, ValidationError,
};
use crate::rules::{self, Counters, Step};
use crate::stages::{
    self, AssessInput, Assessor, ClassifyConfig, ExecuteInput, RouteInput, Router, RuleAssessor, RuleRouter, RuleSynthesizer,
    SynthesisInput, Synthesizer, Usage, Working,
};
use crate::triples::{self, Status, Triple};

/// A classify stage (the deterministic one runs over the graph; tests plug in others).
pub trait Classifier: Send + Sync {
    /// Finds candidates for the working topic. An error fails the chain.
    fn classify(&self, working: &Working) -> Result<ClassifierOutput, String>;
}

/// Per-stage deadlines (project rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// The whole chain (default 300 s).
    pub chain: Duration,
    /// classify (30 s).
    pub classify: Duration,
    /// route (30 s).
    pub route: Duration,
    /// execute (60 s).
    pub execute: Duration,
    /// assess (30 s).
    pub assess: Duration,
    /// synthesize (30 s).
    pub synthesize: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        let s = Duration::from_secs;
        Self { chain: s(300), classify: s(30), route: s(30), execute: s(60), assess: s(30), synthesize: s(30) }
    }
}

/// Chain settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainConfig {
    /// classify.
    pub classify: ClassifyConfig,
    /// Fusion (parallelism, per-sub-query limit).
    pub fusion: FusionConfig,
    /// Deadlines.
    pub deadlines: Deadlines,
    /// Organisation part of the run entity id.
    pub org: String,
    /// Platform part of the run entity id.
    pub platform: String,
}

impl Default for ChainConfig {
    fn default() -> Self {
        Self {
            classify: ClassifyConfig::default(),
            fusion: FusionConfig::default(),
            deadlines: Deadlines::default(),
            org: "warrant".into(),
            platform: "local".into(),
        }
    }
}

/// The caller of a run (optional metadata; upstream's parent loop).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Parent {
    /// The parent loop id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub loop_id: String,
    /// The parent's role (a continuation task is posted to it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
}

/// The follow-up task posted to the parent's role (spec §3.1 R6, §6.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ContinuationTask {
    /// The parent's role.
    pub role: String,
    /// Model capability (`general`).
    pub model: String,
    /// Tools offered (`read_result`).
    pub tools: Vec<String>,
    /// The prompt: run id, original topic, quote refs verbatim.
    pub prompt: String,
    /// `{research_pipeline: <run_id>}`.
    pub related_loops: BTreeMap<String, String>,
}

/// One stored payload version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HistoryEntry {
    /// `intent`, `classifier_output`, `route_decision`, `execution_output`,
    /// `assessment_output` or `result`.
    pub category: String,
    /// The payload.
    pub payload: Value,
}

/// A change to a run's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")] // externally tagged: internally tagged enums buffer numbers, which arbitrary_precision breaks
pub enum StatusEvent {
    /// A batch of triples written atomically.
    Set {
        /// The batch.
        triples: Vec<Triple>,
    },
    /// Markers cleared by a loop.
    Clear {
        /// Predicates removed.
        predicates: Vec<String>,
    },
}

/// [`StatusEvent`]'s OpenAPI schema with the variants' bodies named: client generators
/// trip over the inline objects utoipa derives for struct variants.
#[cfg(feature = "openapi")]
#[allow(dead_code)] // only described, never built
mod event_schema {
    /// A change to a run's status.
    #[derive(utoipa::ToSchema)]
    #[schema(rename_all = "snake_case")]
    pub enum StatusEvent {
        /// A batch of triples written atomically.
        Set(StatusSet),
        /// Markers cleared by a loop.
        Clear(StatusClear),
    }

    /// A batch of triples written atomically.
    #[derive(utoipa::ToSchema)]
    pub struct StatusSet {
        /// The batch.
        pub triples: Vec<super::Triple>,
    }

    /// Markers cleared by a loop.
    #[derive(utoipa::ToSchema)]
    pub struct StatusClear {
        /// Predicates removed.
        pub predicates: Vec<String>,
    }
}

/// The loop counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunCounters {
    /// Retighten rounds.
    pub retighten_rounds: u32,
    /// Refine rounds.
    pub refine_rounds: u32,
    /// Assess rounds (the result's `iterations`).
    pub assess_rounds: u32,
}

/// Everything a run did, as stored and shown by `warrant research --show`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunRecord {
    /// `rg_` + 8 hex.
    pub run_id: String,
    /// The six-part run entity id the triples attach to.
    pub run_entity_id: String,
    /// The run's sequence number in its log.
    pub seq: u64,
    /// When the run started (run clock).
    pub started_at: String,
    /// The intent with defaults resolved.
    pub intent: Intent,
    /// The caller, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<Parent>,
    /// The final working topic and hints.
    pub working: Working,
    /// Loop counters.
    pub counters: RunCounters,
    /// Every payload version, in order.
    pub history: Vec<HistoryEntry>,
    /// Every status change, in order.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<event_schema::StatusEvent>))]
    pub events: Vec<StatusEvent>,
    /// The final status (predicate → object).
    pub status: Status,
    /// The result.
    pub search_result: SearchResult,
    /// Why the chain failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Warnings (stripped refs, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The continuation task, when the run has a parent role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<ContinuationTask>,
}

impl RunRecord {
    /// The latest payload of a category.
    pub fn latest(&self, category: &str) -> Option<&Value> {
        self.history.iter().rev().find(|h| h.category == category).map(|h| &h.payload)
    }

    /// Every status triple ever written, in order.
    pub fn triples(&self) -> impl Iterator<Item = &Triple> {
        self.events.iter().flat_map(|e| match e {
            StatusEvent::Set { triples } => triples.as_slice(),
            StatusEvent::Clear { .. } => &[],
        })
    }

    /// The last assessment's verdict, if the run assessed.
    pub fn sufficient(&self) -> Option<bool> {
        self.latest("assessment_output").and_then(|v| v.get("sufficient")).and_then(Value::as_bool)
    }

    /// What a caller is answered with (`warrant research --format json`, `POST /v1/research`):
    /// the SearchResult with the run id added, and `sufficient` (the last assessment's
    /// verdict; absent when the run answered directly from the candidates or failed).
    pub fn result_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.search_result).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("run_id".into(), Value::from(self.run_id.clone()));
            if let (Some(s), None) = (self.sufficient(), &self.failure) {
                m.insert("sufficient".into(), Value::Bool(s));
            }
        }
        v
    }
}

/// Why a run did not start.
#[derive(Debug, thiserror::Error)]
pub enum ResearchError {
    /// The intent is invalid (spec §5.1).
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// A hint is unknown or malformed.
    #[error("intent: {0}")]
    Hint(String),
    /// The run id could not be built.
    #[error("{0}")]
    Run(String),
}

/// The run id (project rule, spec §2): `rg_` + the first 8 hex of SHA-256 over the canonical
/// resolved intent JSON, the parent loop id and the run's sequence number.
pub fn run_id(intent: &Intent, parent_loop: &str, seq: u64) -> String {
    let json = serde_json::to_string(&intent.resolved()).unwrap_or_default();
    let mut h = Sha256::new();
    h.update(json.as_bytes());
    h.update([0]);
    h.update(parent_loop.as_bytes());
    h.update([0]);
    h.update(seq.to_string().as_bytes());
    let d = h.finalize();
    let hex: String = d.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("rg_{hex}")
}

/// The research chain over one store.
pub struct Chain<'s> {
    graph: StoreGraph<'s>,
    classifier: Option<Box<dyn Classifier + 's>>,
    runner: Option<Box<dyn SubQueryRunner + 's>>,
    router: Box<dyn Router + 's>,
    assessor: Box<dyn Assessor + 's>,
    synthesizer: Box<dyn Synthesizer + 's>,
    clock: Box<dyn Clock + 's>,
    config: ChainConfig,
}

impl<'s> Chain<'s> {
    /// A deterministic chain over a graph: rule router, assessor and synthesizer, the system
    /// clock.
    pub fn new(graph: StoreGraph<'s>) -> Self {
        Self {
            graph,
            classifier: None,
            runner: None,
            router: Box::new(RuleRouter::default()),
            assessor: Box::new(RuleAssessor::default()),
            synthesizer: Box::new(RuleSynthesizer),
            clock: Box::new(SystemClock),
            config: ChainConfig::default(),
        }
    }

    /// Replaces the router (e.g. a model-backed one).
    pub fn with_router(mut self, r: impl Router + 's) -> Self {
        self.router = Box::new(r);
        self
    }

    /// Replaces the assessor.
    pub fn with_assessor(mut self, a: impl Assessor + 's) -> Self {
        self.assessor = Box::new(a);
        self
    }

    /// Replaces the synthesizer.
    pub fn with_synthesizer(mut self, s: impl Synthesizer + 's) -> Self {
        self.synthesizer = Box::new(s);
        self
    }

    /// Replaces classify.
    pub fn with_classifier(mut self, c: impl Classifier + 's) -> Self {
        self.classifier = Some(Box::new(c));
        self
    }

    /// Replaces the sub-query runner (default: the graph).
    pub fn with_runner(mut self, r: impl SubQueryRunner + 's) -> Self {
        self.runner = Some(Box::new(r));
        self
    }

    /// Uses another clock (a [`crate::clock::FixedClock`] for reproducible runs).
    pub fn with_clock(mut self, c: impl Clock + 's) -> Self {
        self.clock = Box::new(c);
        self
    }

    /// Uses other settings.
    pub fn with_config(mut self, config: ChainConfig) -> Self {
        self.config = config;
        self
    }

    /// The graph.
    pub fn graph(&self) -> &StoreGraph<'s> {
        &self.graph
    }

    /// Validates the intent (spec §5.1, then the hint check) and runs the chain to completion
    /// as run number `seq`. Stage failures do not return `Err`: they end the run with a
    /// degraded result (D31).
    pub fn run(&self, intent: &Intent, parent: Option<Parent>, seq: u64) -> Result<RunRecord, ResearchError> {
        intent.validate()?;
        crate::hints::check(&intent.hints).map_err(ResearchError::Hint)?;
        let hint_notes = crate::hints::notes(&intent.hints);
        let resolved = intent.resolved();
        let parent = parent.filter(|p| !p.loop_id.is_empty() || !p.role.is_empty());
        let parent_loop = parent.as_ref().map_or("", |p| p.loop_id.as_str()).to_string();
        let id = run_id(intent, &parent_loop, seq);
        let entity = triples::run_entity_id(&self.config.org, &self.config.platform, &id)
            .map_err(|e| ResearchError::Run(e.to_string()))?;
        let started = self.clock.now();
        let mut run = Run {
            chain: self,
            started: Instant::now(),
            record: RunRecord {
                run_id: id.clone(),
                run_entity_id: entity.clone(),
                seq,
                started_at: started.rfc3339_nano(),
                intent: resolved.clone(),
                parent: parent.clone(),
                working: Working { topic: intent.topic.clone(), hints: intent.hints.clone() },
                counters: RunCounters::default(),
                history: Vec::new(),
                events: Vec::new(),
                status: Status::new(),
                search_result: SearchResult::default(),
                failure: None,
                warnings: hint_notes,
                continuation: None,
            },
            classifier_output: None,
            route: None,
            execution: None,
            assessment: None,
            usage: Usage::default(),
        };
        run.store("intent", &resolved);
        let p = parent.clone().unwrap_or_default();
        run.set(triples::kickoff(
            &entity,
            started,
            &triples::Kickoff {
                topic: &intent.topic,
                run_id: &id,
                budget: resolved.budget_tokens,
                max_iterations: resolved.max_iterations,
                parent_loop: &p.loop_id,
                parent_role: &p.role,
            },
        ));
        run.drive();
        if let Some(role) = parent.as_ref().map(|p| p.role.clone()).filter(|r| !r.is_empty()) {
            run.record.continuation = Some(continuation(&role, &id, &intent.topic));
        }
        Ok(run.record)
    }
}

/// The continuation task for a parent role.
pub fn continuation(role: &str, run_id: &str, topic: &str) -> ContinuationTask {
    ContinuationTask {
        role: role.into(),
        model: "general".into(),
        tools: vec!["read_result".into()],
        prompt: format!(
            "Research run {run_id} on the topic \"{topic}\" is complete. Read its SearchResult with read_result(\"{run_id}\") \
             and answer from it, quoting the evidence refs verbatim."
        ),
        related_loops: BTreeMap::from([(crate::payload::PIPELINE_ROLE.to_string(), run_id.to_string())]),
    }
}

/// One run in progress.
struct Run<'c, 's> {
    chain: &'c Chain<'s>,
    started: Instant,
    record: RunRecord,
    classifier_output: Option<ClassifierOutput>,
    route: Option<RouteDecision>,
    execution: Option<ExecutionOutput>,
    assessment: Option<AssessmentOutput>,
    usage: Usage,
}

impl Run<'_, '_> {
    fn now(&self) -> Timestamp {
        self.chain.clock.now()
    }

    fn store(&mut self, category: &str, payload: &impl Serialize) {
        let payload = serde_json::to_value(payload).unwrap_or(Value::Null);
        self.record.history.push(HistoryEntry { category: category.into(), payload });
    }

    fn set(&mut self, batch: Vec<Triple>) {
        triples::apply(&mut self.record.status, &batch);
        self.record.events.push(StatusEvent::Set { triples: batch });
    }

    fn clear(&mut self, predicates: &[&str]) {
        for p in predicates {
            self.record.status.remove(*p);
        }
        self.record.events.push(StatusEvent::Clear { predicates: predicates.iter().map(|p| p.to_string()).collect() });
    }

    fn counters(&self) -> Counters {
        Counters {
            retighten_rounds: self.record.counters.retighten_rounds,
            refine_rounds: self.record.counters.refine_rounds,
            refine_cap: self.record.intent.resolved_max_iterations().clamp(0, i64::from(rules::REFINE_CAP)) as u32,
            has_refined_queries: self.assessment.as_ref().is_some_and(|a| !a.refined_queries.is_empty()),
        }
    }

    fn remaining(&self) -> Duration {
        self.chain.config.deadlines.chain.saturating_sub(self.started.elapsed())
    }

    /// Runs steps until the result is complete.
    fn drive(&mut self) {
        let mut refined: Vec<String> = Vec::new();
        loop {
            if self.remaining().is_zero() && !rules::dispatch(&self.record.status, &self.counters()).eq(&Step::Continue) {
                self.fail("chain deadline exceeded".into());
                continue;
            }
            match rules::dispatch(&self.record.status, &self.counters()) {
                Step::Classify => self.classify(),
                Step::Route => self.route(),
                Step::Retighten => self.retighten(),
                Step::SynthesizeFromCandidates => {
                    self.synthesize_from_candidates(Some("retighten cap reached"));
                }
                Step::SynthesizeDirectly => self.synthesize_from_candidates(None),
                Step::Execute => self.execute(&refined),
                Step::Assess => self.assess(),
                Step::Refine => {
                    self.record.counters.refine_rounds += 1;
                    refined = self.assessment.as_ref().map(|a| a.refined_queries.clone()).unwrap_or_default();
                    self.clear(&triples::REFINE_CLEARS);
                }
                Step::Synthesize => self.synthesize(),
                Step::Invalid => {
                    let action = self.record.status.get(triples::ROUTE_ACTION).cloned().unwrap_or_default();
                    self.fail(format!("route: action \"{action}\" is not a canonical router action"));
                }
                Step::Continue | Step::Idle => return,
            }
        }
    }

    /// Whether a stage that started at `started` overran its deadline or the chain's.
    fn over(&self, started: Instant, limit: Duration) -> bool {
        started.elapsed() > limit || self.remaining().is_zero()
    }

    fn classify(&mut self) {
        let t = Instant::now();
        let working = self.record.working.clone();
        let out = match &self.chain.classifier {
            Some(c) => c.classify(&working),
            None => stages::classify(&self.chain.graph.focused(&working.topic), &working, &self.chain.config.classify),
        };
        let co = match out.and_then(|co| co.validate().map(|()| co).map_err(|e| e.to_string())) {
            Ok(co) => co,
            Err(e) => return self.fail(format!("classify: {e}")),
        };
        if self.over(t, self.chain.config.deadlines.classify) {
            return self.fail("classify: deadline exceeded".into());
        }
        self.store("classifier_output", &co);
        let batch = triples::classify(&self.record.run_entity_id, self.now(), co.candidates.len(), co.degraded);
        self.classifier_output = Some(co);
        self.set(batch);
    }

    fn route(&mut self) {
        let t = Instant::now();
        let Some(co) = self.classifier_output.clone() else { return self.fail("route: missing classifier output".into()) };
        let input = RouteInput {
            intent: &self.record.intent,
            working: &self.record.working,
            classifier: &co,
            retighten_rounds: self.record.counters.retighten_rounds,
        };
        let (rd, usage) = match self.chain.router.route(&input) {
            Ok(r) => r,
            Err(e) => return self.fail(format!("route: {e}")),
        };
        self.add_usage(usage);
        if let Err(e) = rd.validate() {
            return self.fail(format!("route: {e}"));
        }
        let args_ok = match rd.action.as_str() {
            crate::payload::ACTION_DECOMPOSE => {
                rd.parse_decompose_args().map(drop).map_err(|e| format!("invalid decompose args: {e}"))
            }
            crate::payload::ACTION_WALK_SEEDS => {
                rd.parse_walk_seeds_args().map(drop).map_err(|e| format!("invalid walk_seeds args: {e}"))
            }
            crate::payload::ACTION_RETIGHTEN => {
                rd.parse_retighten_args().map(drop).map_err(|e| format!("invalid retighten args: {e}"))
            }
            _ => {
                if !rd.args.is_empty() {
                    self.record.warnings.push("synthesize_directly: args ignored".into());
                }
                Ok(())
            }
        };
        if let Err(e) = args_ok {
            return self.fail(format!("route: {e}"));
        }
        if self.over(t, self.chain.config.deadlines.route) {
            return self.fail("route: deadline exceeded".into());
        }
        self.store("route_decision", &rd);
        let batch = triples::route(&self.record.run_entity_id, self.now(), &rd.action);
        self.route = Some(rd);
        self.set(batch);
    }

    fn retighten(&mut self) {
        let args = match self.route.as_ref().map(RouteDecision::parse_retighten_args) {
            Some(Ok(a)) => a,
            Some(Err(e)) => return self.fail(format!("route: invalid retighten args: {e}")),
            None => return self.fail("route: missing route decision".into()),
        };
        self.record.counters.retighten_rounds += 1;
        let hints = if args.hints.is_empty() { self.record.working.hints.clone() } else { args.hints };
        self.record.working = Working { topic: args.topic, hints };
        self.clear(&triples::RETIGHTEN_CLEARS);
    }

    fn synthesize_from_candidates(&mut self, note: Option<&str>) {
        let co = self.classifier_output.clone().unwrap_or_default();
        let exec = stages::from_candidates(&co, &self.record.working.topic, self.record.intent.resolved_budget_tokens(), note);
        self.execution = Some(exec);
        self.synthesize();
    }

    fn execute(&mut self, refined: &[String]) {
        let t = Instant::now();
        let limit = self.chain.config.deadlines.execute.min(self.remaining());
        let focused;
        let runner: &dyn SubQueryRunner = match &self.chain.runner {
            Some(r) => r.as_ref(),
            None => {
                focused = self.chain.graph.focused(&self.record.working.topic);
                &focused
            }
        };
        let input = ExecuteInput {
            intent: &self.record.intent,
            working: &self.record.working,
            classifier: self.classifier_output.as_ref(),
            route: self.route.as_ref(),
            refined_queries: refined,
            now: self.chain.clock.now(),
        };
        let mut exec = match stages::execute::run(runner, &input, self.chain.config.fusion, Some(limit / 2), None) {
            Ok(e) => e,
            Err(e) => return self.fail(format!("execute: {e}")),
        };
        if let Err(e) = exec.validate() {
            exec = ExecutionOutput::degraded(&self.record.working.topic, &exec.action, format!("invalid execution output: {e}"));
        }
        if self.over(t, self.chain.config.deadlines.execute) {
            exec.add_degradation("execute deadline exceeded");
        }
        self.store("execution_output", &exec);
        let batch = triples::execute(&self.record.run_entity_id, self.now(), exec.evidence.len());
        self.execution = Some(exec);
        self.set(batch);
    }

    fn assess(&mut self) {
        let t = Instant::now();
        let action = self.route.as_ref().map(|r| r.action.clone()).unwrap_or_default();
        let input = AssessInput {
            intent: &self.record.intent,
            working: &self.record.working,
            execution: self.execution.as_ref(),
            action: &action,
        };
        let (mut ao, usage) = self.chain.assessor.assess(&input);
        self.add_usage(usage);
        if let Err(e) = ao.validate() {
            ao = AssessmentOutput {
                topic: self.record.working.topic.clone(),
                degraded: true,
                degraded_reason: format!("invalid assessment: {e}"),
                ..AssessmentOutput::default()
            };
        }
        if self.over(t, self.chain.config.deadlines.assess) {
            ao.sufficient = false;
            ao.refined_queries.clear();
            ao.degraded = true;
            ao.degraded_reason = "assess deadline exceeded".into();
        }
        self.record.counters.assess_rounds += 1;
        self.store("assessment_output", &ao);
        let batch = triples::assess(&self.record.run_entity_id, self.now(), ao.sufficient);
        self.assessment = Some(ao);
        self.set(batch);
    }

    fn synthesize(&mut self) {
        let t = Instant::now();
        let Some(exec) = self.execution.clone() else { return self.fail("synthesize: missing execution output".into()) };
        let assessment = if exec.action == crate::payload::ACTION_SYNTHESIZE_DIRECTLY { None } else { self.assessment.clone() };
        let input = SynthesisInput {
            intent: &self.record.intent,
            working: &self.record.working,
            execution: &exec,
            route: self.route.as_ref(),
            assessment: assessment.as_ref(),
        };
        let (syn, usage) = match self.chain.synthesizer.synthesize(&input) {
            Ok(s) => s,
            Err(e) => return self.fail(format!("synthesize: {e}")),
        };
        self.add_usage(usage);
        if syn.synthesis.trim().is_empty() {
            return self.fail("synthesize: empty synthesis".into());
        }
        if self.over(t, self.chain.config.deadlines.synthesize) {
            return self.fail("synthesize: deadline exceeded".into());
        }
        let q = stages::quote_back(&syn, &exec.evidence);
        for r in &q.stripped {
            self.record.warnings.push(format!("synthesize: stripped unknown evidence ref {r:?}"));
        }
        let evidence_cost: i64 = exec.evidence.iter().map(crate::payload::Evidence::token_cost).sum();
        let sr = SearchResult {
            evidence: q.evidence,
            synthesis: q.synthesis,
            decomp_trace: self.trace(),
            tokens_used: evidence_cost + self.usage.total(),
            iterations: i64::from(self.record.counters.assess_rounds),
        };
        if let Err(e) = sr.validate() {
            return self.fail(format!("synthesize: {e}"));
        }
        self.finish(sr);
    }

    fn trace(&self) -> Option<DecompTrace> {
        let t =
            DecompTrace::build(self.route.as_ref(), self.execution.as_ref(), i64::from(self.record.counters.retighten_rounds));
        (!t.is_empty()).then_some(t)
    }

    fn add_usage(&mut self, u: Usage) {
        self.usage.prompt_tokens += u.prompt_tokens;
        self.usage.completion_tokens += u.completion_tokens;
    }

    fn fail(&mut self, reason: String) {
        let mut sr = SearchResult::degraded(&self.record.working.topic, &reason);
        sr.decomp_trace = self.trace();
        let evidence_cost: i64 =
            self.execution.as_ref().map_or(0, |e| e.evidence.iter().map(crate::payload::Evidence::token_cost).sum());
        sr.tokens_used = evidence_cost + self.usage.total();
        sr.iterations = i64::from(self.record.counters.assess_rounds);
        self.record.failure = Some(reason);
        self.finish(sr);
    }

    fn finish(&mut self, sr: SearchResult) {
        self.store("result", &sr);
        let batch = triples::result(&self.record.run_entity_id, self.now(), &self.record.run_id);
        self.record.search_result = sr;
        self.set(batch);
    }
}
