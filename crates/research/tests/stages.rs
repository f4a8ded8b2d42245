//! Fusion, templates, seed resolution, routing, synthesis and triples (spec §9), without a
//! store: sub-queries run against scripted runners.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use warrant_research::SubQueryRunner;
use warrant_research::Timestamp;
use warrant_research::execute::{self, ExecuteInput};
use warrant_research::fusion::{self, FusionConfig};
use warrant_research::payload::*;
use warrant_research::triples;
use warrant_research::{
    AssessInput, Assessor, RouteInput, Router, RuleAssessor, RuleRouter, RuleSynthesizer, Synthesis, SynthesisInput, Synthesizer,
    Usage, Working, quote_back, resolve_seed,
};
use warrant_research::{LlmRouter, Model, ModelRequest, ModelResponse, extract_json, router_prompt};
use warrant_research::{SubQuery, SubQueryKind};

fn ev(id: &str, tier: &str, score: f64, source: &str) -> Evidence {
    Evidence { entity_id: id.into(), tier: tier.into(), source: source.into(), score, ..Evidence::default() }
}

/// A runner answering from a script by sub-query source; records calls per type.
#[derive(Default)]
struct Scripted {
    answers: BTreeMap<String, Result<Vec<Evidence>, String>>,
    calls: Mutex<Vec<String>>,
}

impl Scripted {
    fn with(mut self, source: &str, r: Result<Vec<Evidence>, String>) -> Self {
        self.answers.insert(source.into(), r);
        self
    }
}

impl SubQueryRunner for Scripted {
    fn run(&self, q: &SubQuery, _limit: usize) -> Result<Vec<Evidence>, String> {
        self.calls.lock().unwrap().push(q.type_name().to_string());
        self.answers.get(&q.source).cloned().unwrap_or(Ok(Vec::new()))
    }
}

#[test]
fn fusion_happy_path() {
    let r = Scripted::default()
        .with("a", Ok(vec![ev("x.1", "0", 0.0, "a")]))
        .with("b", Ok(vec![ev("x.2", "0", 0.0, "b")]))
        .with("c", Ok(vec![ev("x.3", "1", 1.0, "c")]));
    let qs = vec![
        SubQuery::new("0", "a", SubQueryKind::EntityState(Default::default())),
        SubQuery::new("0", "b", SubQueryKind::PredicateWalk(Default::default())),
        SubQuery::bm25("1", "c", "q"),
    ];
    // entity_state / predicate_walk without ids fail validation: give them ids.
    let qs: Vec<SubQuery> = qs
        .into_iter()
        .map(|mut q| {
            match &mut q.kind {
                SubQueryKind::EntityState(a) => a.entity_ids = vec!["x.1".into()],
                SubQueryKind::PredicateWalk(a) => a.seeds = vec!["x.1".into()],
                _ => {}
            }
            q
        })
        .collect();
    let f = fusion::execute(&r, &qs, FusionConfig::default(), 4000, None, None).unwrap();
    assert_eq!(f.evidence.len(), 3);
    assert!(f.failures.is_empty());
    assert!(f.budget_tokens_used > 0);
    let mut calls = r.calls.lock().unwrap().clone();
    calls.sort();
    assert_eq!(calls, ["bm25", "entity_state", "predicate_walk"], "one call per sub-query type");
}

#[test]
fn failing_subquery_degrades_and_keeps_other_evidence() {
    let r = Scripted::default()
        .with("ok", Ok(vec![ev("x.1", "1", 1.0, "ok")]))
        .with("walk_seeds.bm25_coverage", Err("index gone".into()));
    let qs = vec![SubQuery::bm25("1", "ok", "a"), SubQuery::bm25("1", "walk_seeds.bm25_coverage", "b")];
    let f = fusion::execute(&r, &qs, FusionConfig::default(), 4000, None, None).unwrap();
    assert_eq!(f.evidence.len(), 1);
    assert_eq!(f.failures, ["bm25:walk_seeds.bm25_coverage failed: index gone"]);
}

#[test]
fn zero_subqueries_is_degraded() {
    let intent = Intent::new("t");
    let working = Working { topic: "t".into(), hints: BTreeMap::new() };
    let co = ClassifierOutput { topic: "t".into(), ..ClassifierOutput::default() };
    // A decompose with only the spatial axis still has the focus BM25; an unknown action has none.
    let rd = RouteDecision { action: "synthesize_directly".into(), ..RouteDecision::default() };
    let input = ExecuteInput {
        intent: &intent,
        working: &working,
        classifier: Some(&co),
        route: Some(&rd),
        refined_queries: &[],
        now: Timestamp::default(),
    };
    let out = execute::run(&Scripted::default(), &input, FusionConfig::default(), None, None).unwrap();
    assert!(out.degraded && out.evidence.is_empty());
    // Zero materialised sub-queries: degraded, not an error.
    let m = execute::Materialized { action: "decompose".into(), ..Default::default() };
    let out = execute::run_materialized(&Scripted::default(), "t", &m, 100, FusionConfig::default(), None, None).unwrap();
    assert!(out.degraded && out.evidence.is_empty());
    assert!(out.degraded_reason.contains("zero sub-queries"), "{}", out.degraded_reason);
    assert!(out.validate().is_ok());
}

#[test]
fn materializer_with_zero_subqueries_says_so() {
    // Walk seeds always issue a BM25, decompose the focus BM25: zero sub-queries only arise from
    // an empty template, which we reach through a custom materialised list.
    let intent = Intent::new("t");
    let working = Working { topic: "t".into(), hints: BTreeMap::new() };
    let co = ClassifierOutput { topic: "t".into(), ..ClassifierOutput::default() };
    let rd = RouteDecision::new(
        "decompose",
        &DecomposeArgs { axes: vec!["spatial".into()], focus: "f".into(), scope: String::new() },
        "",
    );
    let input = ExecuteInput {
        intent: &intent,
        working: &working,
        classifier: Some(&co),
        route: Some(&rd),
        refined_queries: &[],
        now: Timestamp::default(),
    };
    let m = execute::materialize(&input).unwrap();
    assert_eq!(m.queries.len(), 1, "spatial yields nothing; only the focus BM25");
    assert_eq!(m.queries[0].source, "decompose.bm25_focus");
}

#[test]
fn dedup_tier_precedence_score_and_order() {
    // Tier "0" beats tier "1" even with a lower score.
    let kept = fusion::dedup(vec![vec![ev("x", "1", 9.0, "bm25")], vec![ev("x", "0", 0.1, "state")]]);
    assert_eq!((kept.len(), kept[0].source.as_str()), (1, "state"));
    // The higher score wins within a tier.
    let kept = fusion::dedup(vec![vec![ev("x", "1", 1.0, "a")], vec![ev("x", "1", 2.0, "b")]]);
    assert_eq!(kept[0].source, "b");
    // A full tie keeps the first sub-query's item.
    let kept = fusion::dedup(vec![vec![ev("x", "1", 1.0, "first")], vec![ev("x", "1", 1.0, "second")]]);
    assert_eq!(kept[0].source, "first");
    // Empty ids are skipped.
    let kept = fusion::dedup(vec![vec![ev("", "0", 5.0, "a"), ev("y", "0", 0.0, "a")]]);
    assert_eq!(kept.len(), 1);
}

#[test]
fn sort_order_is_tier_score_id() {
    let items = vec![
        ev("b", "1", 2.0, "s"),
        ev("a", "1", 2.0, "s"),
        ev("c", "0", 0.0, "s"),
        ev("d", "1", 3.0, "s"),
        ev("e", "2", 9.0, "s"),
    ];
    let (sorted, _) = fusion::rank_and_budget(items, i64::MAX);
    let ids: Vec<&str> = sorted.iter().map(|e| e.entity_id.as_str()).collect();
    assert_eq!(ids, ["c", "d", "a", "b", "e"]);
}

#[test]
fn budget_cut_off_is_sharp() {
    // entity_id (4) + source (8) = 12 bytes → cost 3.
    let item = |id: &str| ev(id, "1", 0.0, "src12345");
    let (kept, used) = fusion::rank_and_budget(vec![item("aaaa"), item("bbbb"), item("cccc")], 8);
    assert_eq!((kept.len(), used), (2, 6));
    let (kept, _) = fusion::rank_and_budget(vec![item("aaaa"), item("bbbb"), item("cccc")], 1_000_000);
    assert_eq!(kept.len(), 3, "a huge budget keeps everything");
    // Sharp: a later, smaller item is not tried after the first that does not fit.
    let big = Evidence { snippet_text: "x".repeat(40), ..item("aaaa") }; // cost 13
    let small = ev("z", "1", -1.0, "s"); // cost 1, sorted last
    let (kept, used) = fusion::rank_and_budget(vec![big, small], 10);
    assert_eq!((kept.len(), used), (0, 0));
    // Cost is at least 1.
    assert_eq!(ev("a", "0", 0.0, "b").token_cost(), 1);
}

/// Blocks each call until `want` calls are in flight at once (or a timeout), recording the
/// peak: proves the dispatcher runs exactly `parallelism` sub-queries concurrently.
struct Gate {
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    want: usize,
}

impl SubQueryRunner for Gate {
    fn run(&self, q: &SubQuery, _limit: usize) -> Result<Vec<Evidence>, String> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        let start = std::time::Instant::now();
        while self.peak.load(Ordering::SeqCst) < self.want && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(2));
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        Ok(vec![ev(&format!("id.{}", q.source), "1", 1.0, &q.source)])
    }
}

#[test]
fn twenty_bm25_queries_run_four_at_a_time() {
    let g = Gate { in_flight: AtomicUsize::new(0), peak: AtomicUsize::new(0), want: 4 };
    let qs: Vec<SubQuery> = (0..20).map(|i| SubQuery::bm25("1", format!("q{i:02}"), "x")).collect();
    let cfg = FusionConfig { parallelism: 4, ..FusionConfig::default() };
    let f = fusion::execute(&g, &qs, cfg, 100_000, None, None).unwrap();
    assert_eq!(f.evidence.len(), 20);
    assert_eq!(g.peak.load(Ordering::SeqCst), 4, "exactly 4 in flight at the peak, never more");
}

#[test]
fn cancellation_is_the_only_hard_error() {
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let qs = vec![SubQuery::bm25("1", "s", "x")];
    assert!(fusion::execute(&Scripted::default(), &qs, FusionConfig::default(), 10, None, Some(&cancel)).is_err());
}

fn cand(id: &str, label: &str) -> Candidate {
    Candidate {
        entity_id: id.into(),
        label: label.into(),
        tier: "0".into(),
        source: "search_graph".into(),
        ..Candidate::default()
    }
}

fn seed(r: &str, t: &str) -> SeedRef {
    SeedRef { reference: r.into(), ref_type: t.into() }
}

#[test]
fn seed_resolution_tables() {
    let cs = vec![
        cand("acme.ops.robotics.gcs.drone.001", "Drone One"),
        cand("acme.ops.robotics.gcs.drone.002", "Drone Two"),
        cand(" ", "Blank"),
    ];
    // candidate_index
    assert_eq!(resolve_seed(&cs, &seed(" 1 ", "candidate_index")).as_deref(), Some("acme.ops.robotics.gcs.drone.002"));
    for bad in ["-1", "x", "9", "2"] {
        assert_eq!(resolve_seed(&cs, &seed(bad, "candidate_index")), None, "{bad}");
    }
    // partial_id: exact or dot-bounded suffix; never a prefix.
    assert_eq!(resolve_seed(&cs, &seed("drone.001", "partial_id")).as_deref(), Some("acme.ops.robotics.gcs.drone.001"));
    assert_eq!(
        resolve_seed(&cs, &seed("acme.ops.robotics.gcs.drone.002", "partial_id")).as_deref(),
        Some("acme.ops.robotics.gcs.drone.002")
    );
    assert_eq!(resolve_seed(&cs, &seed("robotics", "partial_id")), None);
    assert_eq!(resolve_seed(&cs, &seed("one.001", "partial_id")), None, "suffix must be dot-bounded");
    // name: case-insensitive equality with the label.
    assert_eq!(resolve_seed(&cs, &seed("drone two", "name")).as_deref(), Some("acme.ops.robotics.gcs.drone.002"));
    assert_eq!(resolve_seed(&cs, &seed("Drone", "name")), None);
}

fn walk_input<'a>(intent: &'a Intent, working: &'a Working, co: &'a ClassifierOutput, rd: &'a RouteDecision) -> ExecuteInput<'a> {
    ExecuteInput {
        intent,
        working,
        classifier: Some(co),
        route: Some(rd),
        refined_queries: &[],
        now: Timestamp::parse("2026-06-02T18:30:45Z").unwrap(),
    }
}

#[test]
fn walk_seeds_template() {
    let intent = Intent::new("drone battery");
    let working = Working { topic: "drone battery".into(), hints: BTreeMap::new() };
    let co = ClassifierOutput {
        topic: "t".into(),
        candidates: vec![cand("a.b.c.d.drone.001", "Drone")],
        ..ClassifierOutput::default()
    };
    let rd = RouteDecision::new("walk_seeds", &WalkSeedsArgs { seeds: vec![seed("0", "candidate_index")] }, "");
    let m = execute::materialize(&walk_input(&intent, &working, &co, &rd)).unwrap();
    let got: Vec<(&str, &str, &str)> = m.queries.iter().map(|q| (q.type_name(), q.tier.as_str(), q.source.as_str())).collect();
    assert_eq!(
        got,
        [
            ("entity_state", "0", "walk_seeds.entity_state"),
            ("predicate_walk", "0", "walk_seeds.predicate_walk"),
            ("bm25", "1", "walk_seeds.bm25_coverage"),
        ]
    );
    match &m.queries[1].kind {
        SubQueryKind::PredicateWalk(a) => assert_eq!(a.max_hops, 1),
        k => panic!("{k:?}"),
    }
    // No seed resolves: BM25 only, and the output is degraded with the count.
    let rd =
        RouteDecision::new("walk_seeds", &WalkSeedsArgs { seeds: vec![seed("7", "candidate_index"), seed("nope", "name")] }, "");
    let input = walk_input(&intent, &working, &co, &rd);
    let m = execute::materialize(&input).unwrap();
    assert_eq!(m.queries.len(), 1);
    assert_eq!(m.queries[0].type_name(), "bm25");
    let out = execute::run(&Scripted::default(), &input, FusionConfig::default(), None, None).unwrap();
    assert!(out.degraded);
    assert!(out.degraded_reason.contains("2 seed references unresolved"), "{}", out.degraded_reason);
}

#[test]
fn decompose_template() {
    let intent = Intent::new("fleet");
    let working = Working { topic: "fleet".into(), hints: BTreeMap::new() };
    let cands: Vec<Candidate> = (0..30).map(|i| cand(&format!("a.b.c.d.e.n{i:02}"), "x")).collect();
    let co = ClassifierOutput { topic: "t".into(), candidates: cands, ..ClassifierOutput::default() };
    let mk = |axes: &[&str], scope: &str| {
        RouteDecision::new(
            "decompose",
            &DecomposeArgs { axes: axes.iter().map(|s| s.to_string()).collect(), focus: "fleet".into(), scope: scope.into() },
            "",
        )
    };
    // entity_type anchors on candidates; scope caps 3/8/20/8.
    for (scope, n) in [("narrow", 3), ("medium", 8), ("broad", 20), ("", 8)] {
        let rd = mk(&["entity_type"], scope);
        let m = execute::materialize(&walk_input(&intent, &working, &co, &rd)).unwrap();
        assert_eq!(m.queries[0].source, "decompose.bm25_focus");
        match &m.queries[1].kind {
            SubQueryKind::EntityState(a) => assert_eq!(a.entity_ids.len(), n, "{scope}"),
            k => panic!("{k:?}"),
        }
    }
    // Time axis: ±24 h around the frozen clock.
    let rd = mk(&["Time"], "");
    let m = execute::materialize(&walk_input(&intent, &working, &co, &rd)).unwrap();
    match &m.queries[1].kind {
        SubQueryKind::TemporalRange(a) => {
            assert_eq!((a.start.as_str(), a.end.as_str()), ("2026-06-01T18:30:45Z", "2026-06-03T18:30:45Z"));
            assert_eq!(a.topic, "fleet");
        }
        k => panic!("{k:?}"),
    }
    // Spatial yields nothing; an unknown axis adds a second BM25.
    let rd = mk(&["spatial", "battery"], "");
    let m = execute::materialize(&walk_input(&intent, &working, &co, &rd)).unwrap();
    let got: Vec<(&str, &str)> = m.queries.iter().map(|q| (q.type_name(), q.source.as_str())).collect();
    assert_eq!(got, [("bm25", "decompose.bm25_focus"), ("bm25", "decompose.axis.battery")]);
    match &m.queries[1].kind {
        SubQueryKind::Bm25(a) => assert_eq!(a.query, "fleet battery"),
        k => panic!("{k:?}"),
    }
    // Axes with no candidates ship BM25 only.
    let empty = ClassifierOutput { topic: "t".into(), ..ClassifierOutput::default() };
    let rd = mk(&["entity_type", "predicate"], "");
    let m = execute::materialize(&walk_input(&intent, &working, &empty, &rd)).unwrap();
    assert_eq!(m.queries.len(), 1);
    // Refine rounds add one BM25 per refined query.
    let refined = vec!["battery".to_string(), "fleet battery".to_string()];
    let input = ExecuteInput { refined_queries: &refined, ..walk_input(&intent, &working, &empty, &rd) };
    let m = execute::materialize(&input).unwrap();
    let got: Vec<&str> = m.queries.iter().map(|q| q.source.as_str()).collect();
    assert_eq!(got, ["decompose.bm25_focus", "refine.bm25", "refine.bm25"]);
}

#[test]
fn execute_degrades_on_missing_payloads_and_bad_args() {
    let intent = Intent::new("t");
    let working = Working { topic: "t".into(), hints: BTreeMap::new() };
    let co = ClassifierOutput { topic: "t".into(), ..ClassifierOutput::default() };
    let bad = RouteDecision { action: "walk_seeds".into(), ..RouteDecision::default() };
    for (c, r, want) in [
        (None, Some(&bad), "missing classifier output"),
        (Some(&co), None, "missing route decision"),
        (Some(&co), Some(&bad), "invalid walk_seeds args"),
    ] {
        let input = ExecuteInput {
            intent: &intent,
            working: &working,
            classifier: c,
            route: r,
            refined_queries: &[],
            now: Timestamp::default(),
        };
        let out = execute::run(&Scripted::default(), &input, FusionConfig::default(), None, None).unwrap();
        assert!(out.degraded && out.degraded_reason.contains(want), "{}", out.degraded_reason);
        assert!(out.validate().is_ok());
    }
}

#[test]
fn from_candidates_fuses_the_candidates() {
    let co = ClassifierOutput {
        topic: "t".into(),
        candidates: vec![
            Candidate { relevance: 0.5, tier: "1".into(), ..cand("x.2", "b") },
            Candidate { relevance: 1.5, ..cand("x.1", "a") },
        ],
        ..ClassifierOutput::default()
    };
    let out = execute::from_candidates(&co, "t", 4000, None);
    assert_eq!(out.action, "synthesize_directly");
    assert_eq!(out.subquery_count, 0);
    assert_eq!(out.evidence[0].entity_id, "x.1");
    assert_eq!(out.evidence[0].source, "synthesize_directly.candidate");
    assert!(out.validate().is_ok());
}

fn working(topic: &str) -> Working {
    Working { topic: topic.into(), hints: BTreeMap::new() }
}

#[test]
fn rule_router_branches() {
    let intent = Intent::new("x");
    let route = |w: &Working, co: &ClassifierOutput, rounds: u32| {
        RuleRouter::default()
            .route(&RouteInput { intent: &intent, working: w, classifier: co, retighten_rounds: rounds })
            .unwrap()
            .0
    };
    // No candidates → retighten with the normalised topic (hints kept).
    let w = Working { hints: BTreeMap::from([("limit".into(), "5".into())]), ..working("What is the Drone fleet?") };
    let empty = ClassifierOutput { topic: "t".into(), ..ClassifierOutput::default() };
    let rd = route(&w, &empty, 0);
    let a = rd.parse_retighten_args().unwrap();
    assert_eq!(a.topic, "drone fleet?");
    assert_eq!(a.hints["limit"], "5");
    // ... unless retighten is capped or the topic is already normal → decompose narrow.
    assert_eq!(route(&w, &empty, 2).action, "decompose");
    assert_eq!(route(&working("drone fleet"), &empty, 0).action, "decompose");
    // Named candidates → walk_seeds by canonical index.
    let co = ClassifierOutput {
        topic: "t".into(),
        candidates: vec![cand("a.b.c.d.e.f", "chunk label"), cand("a.b.c.d.e.g", "drone")],
        ..ClassifierOutput::default()
    };
    let rd = route(&working("drone battery life"), &co, 0);
    assert_eq!(rd.action, "walk_seeds");
    assert_eq!(rd.parse_walk_seeds_args().unwrap().seeds, [seed("1", "candidate_index")]);
    // Nothing named → decompose with the scope from the candidate count.
    let many = ClassifierOutput {
        topic: "t".into(),
        candidates: (0..9).map(|i| cand(&format!("a.b.c.d.e.{i}"), "zzz")).collect(),
        ..ClassifierOutput::default()
    };
    let rd = route(&working("drone battery"), &many, 0);
    let a = rd.parse_decompose_args().unwrap();
    assert_eq!(
        (a.axes.as_slice(), a.focus.as_str(), a.scope.as_str()),
        (&["entity_type".to_string()][..], "drone battery", "broad")
    );
    // Hints add axes.
    let hinted = ClassifierOutput {
        hints: BTreeMap::from([("time_range".into(), json!("a/b")), ("path_predicates".into(), json!(["x"]))]),
        ..many
    };
    assert_eq!(route(&working("q"), &hinted, 0).parse_decompose_args().unwrap().axes, ["entity_type", "time", "predicate"]);
    // A strong direct hit → synthesize_directly.
    let direct = ClassifierOutput {
        topic: "t".into(),
        candidates: vec![Candidate {
            entity_type: "entity".into(),
            snippet_text: "Session tokens expire; a session token lasts.".into(),
            ..cand("w.l.k.g.entity.session_token", "session token")
        }],
        ..ClassifierOutput::default()
    };
    assert_eq!(route(&working("Session token"), &direct, 0).action, "synthesize_directly");
}

/// A model that replies with a fixed text.
struct Reply(Result<String, String>);

impl Model for Reply {
    fn complete(&self, _r: &ModelRequest) -> Result<ModelResponse, String> {
        self.0.clone().map(|content| ModelResponse {
            content,
            finish_reason: "stop".into(),
            usage: Usage { prompt_tokens: 10, completion_tokens: 5 },
        })
    }
}

#[test]
fn json_extraction_table() {
    assert_eq!(extract_json("```json\n{\"a\": 1}\n```").unwrap(), "{\"a\": 1}");
    assert_eq!(extract_json("```\n{\"a\": 1}\n```").unwrap(), "{\"a\": 1}");
    assert_eq!(extract_json("Sure! Here: {\"a\": {\"b\": 2}} hope it helps {x}").unwrap(), "{\"a\": {\"b\": 2}}");
    assert_eq!(extract_json(r#"{"s": "a } brace and \" quote {"}"#).unwrap(), r#"{"s": "a } brace and \" quote {"}"#);
    assert_eq!(extract_json("no object here").unwrap_err(), "no JSON object");
    assert_eq!(extract_json("{\"a\": {").unwrap_err(), "unbalanced braces");
}

#[test]
fn llm_router_happy_paths_and_failures() {
    let intent = Intent::new("t");
    let w = working("drones");
    let co = ClassifierOutput {
        topic: "t".into(),
        candidates: (0..12).map(|i| cand(&format!("a.b.c.d.e.n{i}"), "L")).collect(),
        ..ClassifierOutput::default()
    };
    let input = RouteInput { intent: &intent, working: &w, classifier: &co, retighten_rounds: 0 };
    let go = |reply: Result<&str, &str>| LlmRouter { model: Reply(reply.map(String::from).map_err(String::from)) }.route(&input);
    for (text, action) in [
        (r#"{"action": "synthesize_directly", "args": {"ignored": 1}}"#, "synthesize_directly"),
        (r#"{"action": "retighten", "args": {"topic": "drone fleet"}}"#, "retighten"),
        (
            r#"```json
{"action": "walk_seeds", "args": {"seeds": [{"ref": "0", "ref_type": "candidate_index"}]}}
```"#,
            "walk_seeds",
        ),
        (r#"Decision: {"action": "decompose", "args": {"axes": ["time"], "focus": "drones"}}"#, "decompose"),
    ] {
        let (rd, usage) = go(Ok(text)).unwrap();
        assert_eq!(rd.action, action);
        assert_eq!(usage.total(), 15);
    }
    for (reply, want) in [
        (Err("connection refused"), "router call"),
        (Ok("   "), "empty content"),
        (Ok(r#"{"action": "explode"}"#), "explode"),
        (Ok(r#"{"action": "decompose", "args": {"focus": "x"}}"#), "invalid decompose args"),
        (Ok(r#"{"action": "walk_seeds", "args": {}}"#), "invalid walk_seeds args"),
        (Ok(r#"{"action": "retighten", "args": {"topic": ""}}"#), "invalid retighten args"),
        (Ok("nothing"), "no JSON object"),
    ] {
        let e = go(reply).unwrap_err();
        assert!(e.contains(want), "{e} should contain {want}");
    }
    // The prompt lists at most 10 candidates, numbered in canonical order.
    let p = router_prompt(&input);
    assert!(p.contains("[9] a.b.c.d.e.n9") && !p.contains("[10]"));
}

#[test]
fn rule_assessor_coverage_and_refined_queries() {
    let intent = Intent::new("t");
    let w = working("drone battery charging");
    let exec = ExecutionOutput {
        topic: "t".into(),
        action: "decompose".into(),
        evidence: vec![Evidence { snippet_text: "The drone flies.".into(), ..ev("x.y", "1", 1.0, "s") }],
        ..ExecutionOutput::default()
    };
    let (a, _) = RuleAssessor::default().assess(&AssessInput {
        intent: &intent,
        working: &w,
        execution: Some(&exec),
        action: "decompose",
    });
    assert!(!a.sufficient);
    assert_eq!(a.refined_queries, ["battery charging", "battery", "charging"]);
    assert_eq!(a.confidence, 0.33);
    assert_eq!(a.rationale, "covered 1/3 topic terms; 1 evidence items");
    assert!(a.validate().is_ok());
    let w = working("drone flies");
    let (a, _) = RuleAssessor::default().assess(&AssessInput {
        intent: &intent,
        working: &w,
        execution: Some(&exec),
        action: "decompose",
    });
    assert!(a.sufficient && a.refined_queries.is_empty());
    let (a, _) = RuleAssessor::default().assess(&AssessInput { intent: &intent, working: &w, execution: None, action: "" });
    assert!(a.degraded && !a.sufficient);
}

fn synth_input<'a>(intent: &'a Intent, w: &'a Working, exec: &'a ExecutionOutput) -> SynthesisInput<'a> {
    SynthesisInput { intent, working: w, execution: exec, route: None, assessment: None }
}

#[test]
fn synthesis_quote_back() {
    let items = vec![
        Evidence { objectstore_ref: "doc#1".into(), snippet_text: "One.".into(), ..ev("a.b.c.d.e.one", "0", 0.0, "s") },
        Evidence { snippet_text: "Two.".into(), ..ev("a.b.c.d.e.two", "1", 1.0, "s") },
        Evidence { snippet_text: "Three.".into(), ..ev("a.b.c.d.e.three", "1", 0.5, "s") },
    ];
    // Valid refs kept (an entity id and an object-store ref); fabricated ones stripped; input order.
    let s = Synthesis {
        synthesis: "Answer [a.b.c.d.e.three] and [doc#1].\n- [x.y.z.q.r.fake] invented line".into(),
        evidence_refs: vec![
            "a.b.c.d.e.three".into(),
            " doc#1 ".into(),
            "x.y.z.q.r.fake".into(),
            "a.b.c.d.e.three".into(),
            "".into(),
        ],
    };
    let q = quote_back(&s, &items);
    let ids: Vec<&str> = q.evidence.iter().map(|e| e.entity_id.as_str()).collect();
    assert_eq!(ids, ["a.b.c.d.e.one", "a.b.c.d.e.three"], "input order, duplicates collapsed");
    assert_eq!(q.synthesis, "Answer [a.b.c.d.e.three] and [doc#1].", "the line citing only a fabricated ref is dropped");
    assert_eq!(q.stripped, ["x.y.z.q.r.fake"]);
    // No valid refs: echo the top items with the note.
    let q = quote_back(&Synthesis { synthesis: "Text.".into(), evidence_refs: vec!["nope.x".into()] }, &items);
    assert_eq!(q.evidence.len(), 3);
    assert!(q.synthesis.ends_with("[Note: no valid evidence references were cited; showing the top 3 evidence items.]"));
    // Empty evidence is fine.
    let q = quote_back(&Synthesis { synthesis: "No evidence.".into(), evidence_refs: vec![] }, &[]);
    assert!(q.evidence.is_empty() && q.synthesis == "No evidence.");
}

#[test]
fn rule_synthesizer_is_extractive() {
    let intent = Intent::new("t");
    let w = working("drones");
    let empty = ExecutionOutput { topic: "drones".into(), action: "decompose".into(), ..ExecutionOutput::default() };
    let (s, _) = RuleSynthesizer.synthesize(&synth_input(&intent, &w, &empty)).unwrap();
    assert_eq!(s.synthesis, "No evidence was found for topic drones.");
    let items: Vec<Evidence> = (0..10)
        .map(|i| Evidence { snippet_text: format!("Fact {i}.\n  more"), ..ev(&format!("a.b.c.d.e.n{i}"), "1", 1.0, "s") })
        .collect();
    let exec = ExecutionOutput { evidence: items, ..empty.clone() };
    let (s, _) = RuleSynthesizer.synthesize(&synth_input(&intent, &w, &exec)).unwrap();
    assert_eq!(s.evidence_refs.len(), 8);
    let lines: Vec<&str> = s.synthesis.lines().collect();
    assert_eq!(lines[0], "Evidence for drones:");
    assert_eq!(lines[1], "- [a.b.c.d.e.n0] Fact 0. more");
    // The lines that answer most of the topic come first; a heading is never a line.
    let w3 = working("drone battery life");
    let ranked = ExecutionOutput {
        evidence: vec![
            Evidence { snippet_text: "Drones are sold in kits.".into(), ..ev("a.b.c.d.e.kits", "0", 1.0, "s") },
            Evidence { snippet_text: "## Drone battery life".into(), ..ev("a.b.c.d.e.head", "0", 1.0, "s") },
            Evidence { snippet_text: "Drone battery life is 40 minutes.".into(), ..ev("a.b.c.d.e.life", "1", 0.5, "s") },
        ],
        ..empty.clone()
    };
    let (s, _) = RuleSynthesizer.synthesize(&synth_input(&intent, &w3, &ranked)).unwrap();
    let lines: Vec<&str> = s.synthesis.lines().collect();
    assert_eq!(
        lines,
        [
            "Evidence for drone battery life:",
            "- [a.b.c.d.e.life] Drone battery life is 40 minutes.",
            "- [a.b.c.d.e.kits] Drones are sold in kits."
        ]
    );
    assert_eq!(s.evidence_refs, ["a.b.c.d.e.life", "a.b.c.d.e.kits"]);
    // Insufficient: says so first and names what is missing.
    let a = AssessmentOutput { topic: "drones".into(), ..AssessmentOutput::default() };
    let w2 = working("drones batteries");
    let (s, _) =
        RuleSynthesizer.synthesize(&SynthesisInput { assessment: Some(&a), ..synth_input(&intent, &w2, &exec) }).unwrap();
    assert!(
        s.synthesis
            .starts_with("Insufficient evidence for drones batteries (covered 0/2 topic terms; not found: drones, batteries)."),
        "{}",
        s.synthesis
    );
}

const T: &str = "2026-06-02T18:30:45.123456789Z";
const E: &str = "acme.ops.agentic-loop.agent.execution.rg_abc12345";

fn check_batch(ts: &[triples::Triple], source: &str) {
    for t in ts {
        assert_eq!((t.subject.as_str(), t.source.as_str(), t.confidence, t.timestamp.as_str()), (E, source, 1.0, T));
    }
}

fn objects(ts: &[triples::Triple]) -> Vec<(&str, &str)> {
    ts.iter().map(|t| (t.predicate.as_str(), t.object.as_str())).collect()
}

#[test]
fn status_triples() {
    let now = Timestamp::parse(T).unwrap();
    let c = triples::classify(E, now, 12, false);
    check_batch(&c, "research-graph-classify");
    assert_eq!(
        objects(&c),
        [("research.classify.complete", T), ("research.classify.candidate-count", "12"), ("research.classify.degraded", "false")]
    );
    assert_eq!(objects(&triples::classify(E, now, 0, true))[2], ("research.classify.degraded", "true"));
    for a in ROUTE_ACTIONS {
        let r = triples::route(E, now, a);
        check_batch(&r, "research-graph-route");
        assert_eq!(objects(&r), [("research.route.complete", T), ("research.route.action", a)]);
    }
    let x = triples::execute(E, now, 7);
    check_batch(&x, "research-graph-execute");
    assert_eq!(objects(&x), [("research.execute.complete", T), ("research.execute.evidence-count", "7")]);
    for (b, s) in [(true, "true"), (false, "false")] {
        let a = triples::assess(E, now, b);
        check_batch(&a, "research-graph-assess");
        assert_eq!(objects(&a)[1], ("research.assess.sufficient", s));
    }
    let k = triples::kickoff(
        E,
        now,
        &triples::Kickoff {
            topic: "drones",
            run_id: "rg_abc12345",
            budget: 4000,
            max_iterations: 5,
            parent_loop: "loop_1",
            parent_role: "planner",
        },
    );
    check_batch(&k, "agent-research-graph");
    assert_eq!(
        objects(&k),
        [
            ("agent.loop.role", "research_pipeline"),
            ("research.request.received", "true"),
            ("research.request.topic", "drones"),
            ("research.loop.id", "rg_abc12345"),
            ("research.request.budget-tokens", "4000"),
            ("research.request.max-iterations", "5"),
            ("research.parent.loop", "loop_1"),
            ("research.parent.role", "planner"),
        ]
    );
    assert_eq!(
        triples::kickoff(
            E,
            now,
            &triples::Kickoff {
                topic: "d",
                run_id: "rg_abc12345",
                budget: 4000,
                max_iterations: 5,
                parent_loop: "",
                parent_role: ""
            }
        )
        .len(),
        6
    );
    assert_eq!(
        triples::kickoff(
            E,
            now,
            &triples::Kickoff {
                topic: "d",
                run_id: "rg_abc12345",
                budget: 4000,
                max_iterations: 5,
                parent_loop: "l",
                parent_role: ""
            }
        )
        .len(),
        7
    );
    assert_eq!(
        triples::kickoff(
            E,
            now,
            &triples::Kickoff {
                topic: "d",
                run_id: "rg_abc12345",
                budget: 4000,
                max_iterations: 5,
                parent_loop: "",
                parent_role: "r"
            }
        )
        .len(),
        7
    );
    let r = triples::result(E, now, "rg_abc12345");
    check_batch(&r, "research-graph-synthesize");
    assert_eq!(
        objects(&r),
        [("research.search-result.complete", T), ("research.search-result.ref", "search_result.complete.rg_abc12345")]
    );
}

#[test]
fn run_entity_ids_and_run_id_extraction() {
    assert_eq!(triples::run_entity_id("acme", "ops", "rg_abc12345").unwrap(), E);
    assert!(triples::run_entity_id("ac.me", "ops", "rg_abc12345").is_err());
    assert!(triples::run_entity_id("acme", "", "rg_abc12345").is_err());
    assert_eq!(triples::run_id_of(E), Some("rg_abc12345"));
    assert_eq!(triples::run_id_of("acme.ops.agentic-loop.agent.execution.rg_ABC12345"), None);
    assert_eq!(triples::run_id_of("rg_abc1234"), None);
    assert_eq!(triples::canonical_predicate("research.loop_id"), "research.loop.id");
    assert_eq!(triples::canonical_predicate("loop.role"), "agent.loop.role");
}

#[test]
fn llm_assessor_and_synthesizer() {
    use warrant_research::{LlmAssessor, LlmSynthesizer};
    let intent = Intent::new("t");
    let w = working("drones");
    let exec = ExecutionOutput {
        topic: "drones".into(),
        action: "decompose".into(),
        evidence: vec![Evidence {
            snippet_text: "Drones fly.".into(),
            objectstore_ref: "d#1".into(),
            ..ev("a.b.c.d.e.f", "1", 1.0, "s")
        }],
        ..ExecutionOutput::default()
    };
    let input = AssessInput { intent: &intent, working: &w, execution: Some(&exec), action: "decompose" };
    let reply = |s: &str| Reply(Ok(s.to_string()));
    let (a, u) = LlmAssessor {
        model: reply(r#"{"sufficient": false, "refined_queries": ["x", " "], "confidence": 3, "rationale": "r"}"#),
    }
    .assess(&input);
    assert_eq!(
        (a.sufficient, a.refined_queries.as_slice(), a.confidence, a.evidence_count),
        (false, &["x".to_string()][..], 1.0, 1)
    );
    assert_eq!(u.total(), 15);
    assert!(a.validate().is_ok());
    let (a, _) = LlmAssessor { model: Reply(Err("down".into())) }.assess(&input);
    assert!(a.degraded && !a.sufficient && a.degraded_reason.contains("assessor call"));
    let (a, _) = LlmAssessor { model: reply("no json") }.assess(&input);
    assert!(a.degraded && a.degraded_reason.contains("extract JSON"));

    let si = synth_input(&intent, &w, &exec);
    let (s, _) =
        LlmSynthesizer { model: reply(r#"{"synthesis": "Drones fly [a.b.c.d.e.f].", "evidence_refs": ["a.b.c.d.e.f"]}"#) }
            .synthesize(&si)
            .unwrap();
    assert_eq!(s.evidence_refs, ["a.b.c.d.e.f"]);
    for (m, want) in [
        (reply(r#"{"synthesis": " ", "evidence_refs": []}"#), "empty synthesis"),
        (reply("prose only"), "extract JSON"),
        (Reply(Err("500".into())), "synthesizer call"),
    ] {
        let e = LlmSynthesizer { model: m }.synthesize(&si).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
}
