//! The chain (spec §3, §9 "Chain"): rule dispatch, branches, marker clearing, caps, failure
//! paths, counters and the continuation — with scripted stages.

#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use warrant_research::SubQuery;
use warrant_research::SubQueryRunner;
use warrant_research::payload::*;
use warrant_research::rules::{self, Counters, Step};
use warrant_research::triples::{self, Status};
use warrant_research::{AssessInput, Assessor, RouteInput, Router, Synthesis, SynthesisInput, Synthesizer, Usage, Working};
use warrant_research::{
    Chain, ChainConfig, FixedClock, MemoryRunLog, Parent, RunLog, RunRecord, SqliteRunLog, StoreGraph, Timestamp, research_graph,
};
use warrant_research::{Classifier, Deadlines, StatusEvent};
use warrant_store::SqliteStore;

struct Cls(Result<Vec<Candidate>, String>);

impl Classifier for Cls {
    fn classify(&self, w: &Working) -> Result<ClassifierOutput, String> {
        self.0.clone().map(|candidates| ClassifierOutput {
            topic: w.topic.clone(),
            tier: "0".into(),
            candidates,
            ..ClassifierOutput::default()
        })
    }
}

fn cands() -> Vec<Candidate> {
    vec![Candidate {
        entity_id: "warrant.local.knowledge.graph.entity.drone".into(),
        label: "drone".into(),
        tier: "0".into(),
        source: "search_graph".into(),
        relevance: 1.5,
        snippet_text: "The drone flies.".into(),
        ..Candidate::default()
    }]
}

/// A router replaying decisions (the last one repeats).
struct Script(Mutex<Vec<Result<RouteDecision, String>>>);

impl Script {
    fn new(v: Vec<Result<RouteDecision, String>>) -> Self {
        Self(Mutex::new(v))
    }
}

impl Router for Script {
    fn route(&self, _i: &RouteInput<'_>) -> Result<(RouteDecision, Usage), String> {
        let mut g = self.0.lock().unwrap();
        let r = if g.len() > 1 { g.remove(0) } else { g[0].clone() };
        r.map(|d| (d, Usage { prompt_tokens: 7, completion_tokens: 3 }))
    }
}

/// An assessor replaying verdicts (the last one repeats): (sufficient, refined queries).
struct Verdicts(Mutex<Vec<(bool, Vec<&'static str>)>>);

impl Assessor for Verdicts {
    fn assess(&self, i: &AssessInput<'_>) -> (AssessmentOutput, Usage) {
        let mut g = self.0.lock().unwrap();
        let (s, q) = if g.len() > 1 { g.remove(0) } else { g[0].clone() };
        let out = AssessmentOutput {
            topic: i.working.topic.clone(),
            sufficient: s,
            refined_queries: q.into_iter().map(String::from).collect(),
            evidence_count: i.execution.map_or(0, |e| e.evidence.len() as i64),
            ..AssessmentOutput::default()
        };
        (out, Usage::default())
    }
}

struct FailingSynth(&'static str);

impl Synthesizer for FailingSynth {
    fn synthesize(&self, _i: &SynthesisInput<'_>) -> Result<(Synthesis, Usage), String> {
        if self.0.is_empty() { Ok((Synthesis::default(), Usage::default())) } else { Err(self.0.into()) }
    }
}

/// Every sub-query yields one item named after its source.
struct Echo;

impl SubQueryRunner for Echo {
    fn run(&self, q: &SubQuery, _limit: usize) -> Result<Vec<Evidence>, String> {
        Ok(vec![Evidence {
            entity_id: format!("warrant.local.knowledge.graph.entity.{}", q.source.replace('.', "_")),
            tier: q.tier.clone(),
            source: q.source.clone(),
            score: 1.0,
            snippet_text: "The drone flies far.".into(),
            objectstore_ref: String::new(),
        }])
    }
}

fn decompose() -> RouteDecision {
    RouteDecision::new(
        "decompose",
        &DecomposeArgs { axes: vec!["entity_type".into()], focus: "drone".into(), scope: String::new() },
        "",
    )
}

fn walk() -> RouteDecision {
    RouteDecision::new(
        "walk_seeds",
        &WalkSeedsArgs {
            seeds: vec![
                SeedRef { reference: "0".into(), ref_type: "candidate_index".into() },
                SeedRef { reference: "drone".into(), ref_type: "name".into() },
            ],
        },
        "",
    )
}

fn retighten() -> RouteDecision {
    RouteDecision::new("retighten", &RetightenArgs { topic: "narrower drone".into(), hints: Default::default() }, "")
}

fn now() -> Timestamp {
    Timestamp::parse("2026-06-02T18:30:45.123456789Z").unwrap()
}

fn chain<'s>(store: &'s SqliteStore, router: Script, verdicts: Vec<(bool, Vec<&'static str>)>) -> Chain<'s> {
    Chain::new(StoreGraph::new(store))
        .with_classifier(Cls(Ok(cands())))
        .with_runner(Echo)
        .with_router(router)
        .with_assessor(Verdicts(Mutex::new(verdicts)))
        .with_clock(FixedClock(now()))
}

fn clears(r: &RunRecord) -> Vec<Vec<String>> {
    r.events
        .iter()
        .filter_map(|e| if let StatusEvent::Clear { predicates } = e { Some(predicates.clone()) } else { None })
        .collect()
}

fn run(c: &Chain<'_>, intent: Intent) -> RunRecord {
    c.run(&intent, None, 1).unwrap()
}

#[test]
fn kickoff_fires_only_for_research_pipeline_runs() {
    let mut s = Status::new();
    triples::apply(
        &mut s,
        &triples::kickoff(
            "e",
            now(),
            &triples::Kickoff {
                topic: "t",
                run_id: "rg_00000000",
                budget: 4000,
                max_iterations: 5,
                parent_loop: "",
                parent_role: "",
            },
        ),
    );
    assert_eq!(rules::dispatch(&s, &Counters::default()), Step::Classify);
    s.insert(triples::ROLE.into(), "planner".into());
    assert_eq!(rules::dispatch(&s, &Counters::default()), Step::Idle);
    // Legacy spellings are folded on read.
    let mut s = Status::new();
    let mut legacy = triples::kickoff(
        "e",
        now(),
        &triples::Kickoff {
            topic: "t",
            run_id: "rg_00000000",
            budget: 4000,
            max_iterations: 5,
            parent_loop: "",
            parent_role: "",
        },
    );
    legacy[0].predicate = "loop.role".into();
    legacy[1].predicate = "research.requested".into();
    triples::apply(&mut s, &legacy);
    assert_eq!(rules::dispatch(&s, &Counters::default()), Step::Classify);
}

#[test]
fn r2_branches_and_marker_clearing() {
    let store = SqliteStore::open_in_memory().unwrap();
    // walk_seeds and decompose execute; no markers cleared.
    for rd in [walk(), decompose()] {
        let r = run(&chain(&store, Script::new(vec![Ok(rd.clone())]), vec![(true, vec![])]), Intent::new("drone range"));
        assert!(clears(&r).is_empty());
        assert_eq!(r.counters.assess_rounds, 1);
        assert_eq!(r.search_result.decomp_trace.as_ref().unwrap().router_action, rd.action);
        assert!(r.failure.is_none());
    }
    // synthesize_directly synthesises from the candidates: no execute, iterations 0 (omitted).
    let direct = RouteDecision { action: "synthesize_directly".into(), ..RouteDecision::default() };
    let r = run(&chain(&store, Script::new(vec![Ok(direct)]), vec![(true, vec![])]), Intent::new("drone"));
    assert!(clears(&r).is_empty());
    assert!(r.latest("execution_output").is_none(), "no execute stage ran");
    assert_eq!(r.search_result.iterations, 0);
    assert_eq!(r.search_result.evidence[0].source, "synthesize_directly.candidate");
    assert!(!serde_json::to_value(&r.search_result).unwrap().as_object().unwrap().contains_key("iterations"));
    // retighten clears exactly the classify and route markers, and the new topic is classified.
    let r = run(&chain(&store, Script::new(vec![Ok(retighten()), Ok(decompose())]), vec![(true, vec![])]), Intent::new("drone"));
    assert_eq!(clears(&r), [vec![triples::CLASSIFY_COMPLETE.to_string(), triples::ROUTE_COMPLETE.to_string()]]);
    assert_eq!(r.working.topic, "narrower drone");
    let topics: Vec<&str> =
        r.history.iter().filter(|h| h.category == "classifier_output").map(|h| h.payload["topic"].as_str().unwrap()).collect();
    assert_eq!(topics, ["drone", "narrower drone"], "retighten re-classifies its refined topic (D31)");
    assert_eq!(r.search_result.decomp_trace.as_ref().unwrap().retighten_rounds, 1);
}

#[test]
fn r4_sufficient_versus_refine() {
    let store = SqliteStore::open_in_memory().unwrap();
    let r = run(
        &chain(&store, Script::new(vec![Ok(decompose())]), vec![(false, vec!["battery"]), (true, vec![])]),
        Intent::new("drone battery"),
    );
    assert_eq!(clears(&r), [vec![triples::EXECUTE_COMPLETE.to_string(), triples::ASSESS_COMPLETE.to_string()]]);
    assert_eq!((r.counters.refine_rounds, r.counters.assess_rounds), (1, 2));
    assert_eq!(r.search_result.iterations, 2);
    // The refine round used the refined query (D31).
    let execs: Vec<&serde_json::Value> =
        r.history.iter().filter(|h| h.category == "execution_output").map(|h| &h.payload).collect();
    assert_eq!(execs.len(), 2);
    assert!(execs[1]["evidence"].as_array().unwrap().iter().any(|e| e["source"] == "refine.bm25"));
    assert!(!execs[0]["evidence"].as_array().unwrap().iter().any(|e| e["source"] == "refine.bm25"));
}

#[test]
fn refine_cap_falls_through_to_synthesize() {
    let store = SqliteStore::open_in_memory().unwrap();
    for (max, refines) in [(0, 5), (5, 5), (2, 2), (1, 1), (9, 5)] {
        let r = run(
            &chain(&store, Script::new(vec![Ok(decompose())]), vec![(false, vec!["more"])]),
            Intent { max_iterations: max, ..Intent::new("drone") },
        );
        assert_eq!(r.counters.refine_rounds, refines, "max_iterations {max}");
        assert_eq!(r.counters.assess_rounds, refines + 1);
        assert_eq!(r.search_result.iterations, i64::from(refines + 1));
        assert_eq!(clears(&r).len(), refines as usize);
        assert!(r.failure.is_none());
        assert!(!r.search_result.synthesis.starts_with(DEGRADED_PREFIX));
    }
    // Insufficient with nothing to refine goes straight to synthesis.
    let r = run(&chain(&store, Script::new(vec![Ok(decompose())]), vec![(false, vec![])]), Intent::new("drone"));
    assert_eq!((r.counters.refine_rounds, r.counters.assess_rounds), (0, 1));
}

#[test]
fn third_retighten_synthesises_from_candidates() {
    let store = SqliteStore::open_in_memory().unwrap();
    let r = run(&chain(&store, Script::new(vec![Ok(retighten())]), vec![(true, vec![])]), Intent::new("drone"));
    assert_eq!(r.counters.retighten_rounds, 2);
    assert_eq!(clears(&r).len(), 2);
    assert!(r.failure.is_none());
    assert_eq!(r.search_result.decomp_trace.as_ref().unwrap().retighten_rounds, 2);
    assert_eq!(r.search_result.evidence[0].entity_id, "warrant.local.knowledge.graph.entity.drone");
    assert!(r.search_result.synthesis.starts_with("Evidence for narrower drone:"));
    assert_eq!(r.status.get(triples::RESULT_COMPLETE).map(String::as_str), Some("2026-06-02T18:30:45.123456789Z"));
}

#[test]
fn every_fail_path_yields_a_degraded_result() {
    let store = SqliteStore::open_in_memory().unwrap();
    let bogus = RouteDecision { action: "bogus".into(), ..RouteDecision::default() };
    let no_args = RouteDecision { action: "decompose".into(), ..RouteDecision::default() };
    let cases: Vec<(Chain<'_>, &str)> = vec![
        (
            chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])])
                .with_classifier(Cls(Err("index missing".into()))),
            "classify: index missing",
        ),
        (
            chain(&store, Script::new(vec![Err("router call: timeout".into())]), vec![(true, vec![])]),
            "route: router call: timeout",
        ),
        (chain(&store, Script::new(vec![Ok(bogus)]), vec![(true, vec![])]), "is not a canonical router action"),
        (chain(&store, Script::new(vec![Ok(no_args)]), vec![(true, vec![])]), "invalid decompose args"),
        (
            chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])])
                .with_synthesizer(FailingSynth("synthesizer call: 500")),
            "synthesize: synthesizer call: 500",
        ),
        (
            chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])]).with_synthesizer(FailingSynth("")),
            "empty synthesis",
        ),
        (
            chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])]).with_config(ChainConfig {
                deadlines: Deadlines { chain: std::time::Duration::ZERO, ..Deadlines::default() },
                ..ChainConfig::default()
            }),
            "chain deadline exceeded",
        ),
    ];
    for (c, want) in cases {
        let r = run(&c, Intent::new("drone"));
        let s = &r.search_result.synthesis;
        assert!(s.starts_with("Synthesis could not be produced for topic drone. Reason: "), "{s}");
        assert!(s.contains(want), "{s} should contain {want}");
        assert!(r.search_result.evidence.is_empty());
        assert!(r.failure.is_some());
        assert!(r.status.contains_key(triples::RESULT_COMPLETE), "the chain ends instead of stalling");
        assert!(r.search_result.validate().is_ok());
    }
}

#[test]
fn iterations_and_tokens_used_are_filled() {
    let store = SqliteStore::open_in_memory().unwrap();
    let r =
        run(&chain(&store, Script::new(vec![Ok(walk())]), vec![(false, vec!["x"]), (true, vec![])]), Intent::new("drone flies"));
    let sr = &r.search_result;
    assert_eq!(sr.iterations, 2);
    let exec: ExecutionOutput = serde_json::from_value(r.latest("execution_output").unwrap().clone()).unwrap();
    let cost: i64 = exec.evidence.iter().map(Evidence::token_cost).sum();
    assert_eq!(sr.tokens_used, cost + 10, "evidence cost plus the router's reported 7 + 3 tokens");
    let t = sr.decomp_trace.as_ref().unwrap();
    assert_eq!(t.seed_entities, ["0", "drone"]);
}

#[test]
fn continuation_goes_to_the_parent_role() {
    let store = SqliteStore::open_in_memory().unwrap();
    let c = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])]);
    let r = c.run(&Intent::new("drone range"), Some(Parent { loop_id: "loop_7".into(), role: "planner".into() }), 3).unwrap();
    let task = r.continuation.as_ref().unwrap();
    assert_eq!(task.role, "planner");
    assert_eq!(task.tools, ["read_result"]);
    assert!(task.prompt.contains(&r.run_id) && task.prompt.contains("drone range") && task.prompt.contains("verbatim"));
    assert_eq!(task.related_loops["research_pipeline"], r.run_id);
    assert_eq!(r.triples().filter(|t| t.predicate.starts_with("research.parent.")).count(), 2);
    // Without a parent role, no task.
    assert!(
        c.run(&Intent::new("drone"), Some(Parent { loop_id: "loop_7".into(), role: String::new() }), 4)
            .unwrap()
            .continuation
            .is_none()
    );
}

#[test]
fn run_ids_are_deterministic_and_records_persist() {
    let store = SqliteStore::open_in_memory().unwrap();
    let c = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])]);
    let a = c.run(&Intent::new("drone"), None, 1).unwrap();
    let b = c.run(&Intent::new("drone"), None, 1).unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "same input, same record");
    assert!(triples::is_run_id(&a.run_id));
    assert_eq!(a.run_entity_id, format!("warrant.local.agentic-loop.agent.execution.{}", a.run_id));
    assert_ne!(c.run(&Intent::new("drone"), None, 2).unwrap().run_id, a.run_id);
    // Defaults are persisted resolved.
    assert_eq!(a.intent.budget_tokens, 4000);
    assert_eq!(a.latest("intent").unwrap()["max_iterations"], 5);
    // A SQLite run log keeps runs and their triples; sequence numbers are not reused.
    let dir = tempfile::tempdir().unwrap();
    let log = SqliteRunLog::open(dir.path()).unwrap();
    let r1 = research_graph(&c, &log, &Intent::new("drone"), None).unwrap();
    let r2 = research_graph(&c, &log, &Intent::new("drone"), None).unwrap();
    assert_eq!((r1.seq, r2.seq), (1, 2));
    assert_ne!(r1.run_id, r2.run_id);
    assert_eq!(log.list().unwrap(), [r1.run_id.clone(), r2.run_id.clone()]);
    let back = SqliteRunLog::open(dir.path()).unwrap().load(&r1.run_id).unwrap().unwrap();
    assert_eq!(back, r1);
    assert_eq!(warrant_research::read_result(&log, &r2.run_id).unwrap().unwrap(), r2.search_result);
    // Runs older than the retention are pruned when a new run is saved.
    let mem = MemoryRunLog::default();
    assert_eq!(mem.next_seq().unwrap(), 1);
}

#[test]
fn malformed_intents_are_refused_before_a_run() {
    let store = SqliteStore::open_in_memory().unwrap();
    let c = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])]);
    let log = MemoryRunLog::default();
    for (intent, want) in [
        (Intent::new(" "), "topic required"),
        (Intent { budget_tokens: -1, ..Intent::new("t") }, "budget_tokens must be >= 0, got -1"),
        (Intent { hints: [("colour".to_string(), " ".to_string())].into(), ..Intent::new("t") }, "hints[\"colour\"] is empty"),
    ] {
        let e = research_graph(&c, &log, &intent, None).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
    assert!(log.list().unwrap().is_empty(), "no run was recorded");
}

#[test]
fn run_log_prunes_runs_past_the_retention() {
    let store = SqliteStore::open_in_memory().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = SqliteRunLog::open(dir.path()).unwrap();
    let old = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])])
        .with_clock(FixedClock(Timestamp::parse("2026-06-01T00:00:00Z").unwrap()));
    let r_old = research_graph(&old, &log, &Intent::new("drone"), None).unwrap();
    let new = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])])
        .with_clock(FixedClock(Timestamp::parse("2026-06-01T23:00:00Z").unwrap()));
    let r1 = research_graph(&new, &log, &Intent::new("drone"), None).unwrap();
    assert_eq!(log.list().unwrap().len(), 2, "23 h later both are kept");
    let later = chain(&store, Script::new(vec![Ok(decompose())]), vec![(true, vec![])])
        .with_clock(FixedClock(Timestamp::parse("2026-06-02T12:00:00Z").unwrap()));
    let r2 = research_graph(&later, &log, &Intent::new("drone"), None).unwrap();
    assert_eq!(log.list().unwrap(), [r1.run_id, r2.run_id.clone()], "the 36 h old run is pruned");
    assert!(log.load(&r_old.run_id).unwrap().is_none());
    assert_eq!(r2.seq, 3, "sequence numbers are never reused");
}
