//! The deterministic chain over a real store: evidence resolves back to the store, every
//! synthesis line cites evidence, an absent answer is reported as such.

#![allow(clippy::unwrap_used)]

use warrant_research::{Chain, FixedClock, Intent, MemoryRunLog, RunRecord, StoreGraph, Timestamp, research_graph};
use warrant_research::{Node, parse_node_id};
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, Store, ingest};

fn doc(id: &str, title: Option<&str>, text: &str) -> DocumentInput {
    DocumentInput {
        id: id.into(),
        text: text.into(),
        version: None,
        title: title.map(String::from),
        metadata: None,
        origin: id.into(),
    }
}

fn store() -> SqliteStore {
    let s = SqliteStore::open_in_memory().unwrap();
    let docs = vec![
        doc(
            "docs/auth.md",
            Some("Authentication"),
            "Session tokens expire after 15 minutes of inactivity. Admin login requires hardware keys.\n\n\
             Refresh tokens are valid for 30 days. The gateway requires session tokens.",
        ),
        doc(
            "docs/storage.md",
            Some("Storage"),
            "Backups run every night. Snapshots were created at 2026-06-02T10:00:00Z.\n\nThe archive contains old snapshots.",
        ),
        doc("docs/fleet.md", None, "The delivery drone fleet has forty units. Drone batteries last two hours in cold weather."),
    ];
    ingest(&s, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    s
}

fn research(store: &SqliteStore, intent: Intent) -> RunRecord {
    let chain = Chain::new(StoreGraph::new(store)).with_clock(FixedClock(Timestamp::parse("2026-06-02T12:00:00Z").unwrap()));
    research_graph(&chain, &MemoryRunLog::default(), &intent, None).unwrap()
}

/// Every evidence id resolves to an entity or chunk in the store, and its snippet is quoted
/// from the chunk it names (or from a chunk mentioning the entity).
fn assert_grounded(store: &SqliteStore, r: &RunRecord) {
    let graph = StoreGraph::new(store);
    let sr = &r.search_result;
    for e in &sr.evidence {
        assert!(graph.resolves(&e.entity_id).unwrap(), "{} does not resolve", e.entity_id);
        if !e.snippet_text.is_empty() {
            let chunks: Vec<String> = match parse_node_id(&e.entity_id).unwrap() {
                Node::Chunk(c) => vec![c],
                Node::Entity(_) if !e.objectstore_ref.is_empty() => vec![e.objectstore_ref.clone()],
                Node::Entity(name) => {
                    store.entity(&name).unwrap().unwrap().mentions.into_iter().filter_map(|m| m.chunk_id).collect()
                }
            };
            let quoted = chunks.iter().any(|c| store.chunk(c).unwrap().is_some_and(|ch| ch.text.contains(&e.snippet_text)));
            assert!(quoted, "{:?} is not quoted from {chunks:?}", e.snippet_text);
        }
    }
    // Every line after the header cites at least one evidence ref that is in the result.
    let ids: Vec<&str> = sr.evidence.iter().map(|e| e.entity_id.as_str()).collect();
    for line in sr.synthesis.lines().skip(1) {
        let mut rest = line.strip_prefix("- ").unwrap_or_else(|| panic!("not an evidence line {line:?}"));
        let mut cited = 0;
        while let Some(r) = rest.strip_prefix('[') {
            let (id, tail) = r.split_once(']').unwrap();
            assert!(ids.contains(&id), "{id} is not in the evidence");
            cited += 1;
            rest = tail.trim_start();
        }
        assert!(cited >= 1, "uncited line {line:?}");
    }
}

#[test]
fn named_entity_walks_its_seeds() {
    let s = store();
    let r = research(&s, Intent::new("What do admin login and the gateway require?"));
    assert_eq!(r.search_result.decomp_trace.as_ref().unwrap().router_action, "walk_seeds");
    let ev: Vec<&str> = r.search_result.evidence.iter().map(|e| e.entity_id.as_str()).collect();
    assert!(ev.contains(&"warrant.local.knowledge.graph.entity.admin_login"), "{ev:?}");
    // The fact edge gateway → session_token is walked.
    assert!(ev.contains(&"warrant.local.knowledge.graph.entity.session_token"), "{ev:?}");
    assert!(r.search_result.synthesis.contains("requires hardware keys"));
    assert_grounded(&s, &r);
    assert_eq!(r.sufficient(), Some(true));
}

#[test]
fn broad_topic_decomposes() {
    let s = store();
    let r = research(&s, Intent::new("drone fleet batteries in cold weather"));
    let trace = r.search_result.decomp_trace.clone().unwrap();
    assert_eq!(trace.router_action, "decompose");
    assert!(r.search_result.synthesis.contains("Drone batteries last two hours in cold weather."));
    assert_grounded(&s, &r);
    assert!(r.search_result.tokens_used > 0 && r.search_result.iterations >= 1);
}

#[test]
fn a_whole_topic_naming_an_entity_is_answered_directly() {
    let s = store();
    let r = research(&s, Intent::new("refresh tokens"));
    assert_eq!(r.search_result.decomp_trace.as_ref().unwrap().router_action, "synthesize_directly");
    assert!(r.search_result.synthesis.contains("Refresh tokens are valid for 30 days."));
    assert_grounded(&s, &r);
}

#[test]
fn absent_answer_says_insufficient_and_invents_nothing() {
    let s = store();
    let r = research(&s, Intent::new("quantum cryptography migration timeline"));
    assert_eq!(r.sufficient(), Some(false));
    assert!(
        r.search_result.synthesis.starts_with("No evidence was found for topic")
            || r.search_result.synthesis.starts_with("Insufficient evidence for"),
        "{}",
        r.search_result.synthesis
    );
    assert_grounded(&s, &r);
    // A topic with only some words in the corpus is still reported as insufficient.
    let r = research(&s, Intent::new("session tokens quantum cryptography rotation policy"));
    assert_eq!(r.sufficient(), Some(false));
    assert!(r.search_result.synthesis.starts_with("Insufficient evidence for"), "{}", r.search_result.synthesis);
    assert!(r.search_result.synthesis.contains("not found: quantum, cryptography, rotation, policy"));
    assert_eq!(r.counters.refine_rounds, 5, "refined until the cap");
    assert_grounded(&s, &r);
}

#[test]
fn no_hits_retightens_then_reports_nothing_found() {
    let s = store();
    let r = research(&s, Intent::new("Zyxxy Qwop"));
    assert_eq!(r.counters.retighten_rounds, 1);
    assert_eq!(r.working.topic, "zyxxy qwop");
    assert_eq!(r.search_result.synthesis, "No evidence was found for topic zyxxy qwop.");
    assert!(r.search_result.evidence.is_empty());
}

#[test]
fn time_range_hint_reads_dated_facts() {
    let s = store();
    let intent = Intent {
        hints: [("time_range".to_string(), "2026-06-01/2026-06-03".to_string())].into(),
        ..Intent::new("what happened recently")
    };
    let r = research(&s, intent);
    let trace = r.search_result.decomp_trace.clone().unwrap();
    assert_eq!(trace.router_action, "decompose");
    let exec = r.latest("execution_output").unwrap();
    let sources: Vec<&str> = exec["evidence"].as_array().unwrap().iter().map(|e| e["source"].as_str().unwrap()).collect();
    assert!(sources.contains(&"decompose.time"), "{sources:?}");
    assert_grounded(&s, &r);
}

#[test]
fn runs_are_byte_identical() {
    let s = store();
    let a = research(&s, Intent::new("drone fleet batteries"));
    let b = research(&s, Intent::new("drone fleet batteries"));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}

#[test]
fn common_words_leave_bm25_queries_that_have_rarer_ones() {
    let s = store();
    let g = StoreGraph::new(&s).with_common_chunks(2);
    // "tokens" is in 2 chunks (common at this threshold), "gateway" in 1.
    assert_eq!(g.query_terms("the tokens of the gateway").unwrap(), ["gateway"]);
    // All common: the rarest is kept.
    assert_eq!(g.query_terms("tokens").unwrap(), ["tokens"]);
    let g = StoreGraph::new(&s);
    assert_eq!(g.query_terms("the tokens of the gateway").unwrap(), ["tokens", "gateway"]);
}

#[test]
fn a_dated_topic_walks_the_time_axis() {
    let s = store();
    let r = research(&s, Intent::new("what was created on 2026-06-02"));
    let co = r.latest("classifier_output").unwrap();
    assert_eq!(co["hints"]["time_range"], "2026-06-02/2026-06-02T23:59:59Z");
    let rd = r.latest("route_decision").unwrap();
    assert_eq!(rd["args"]["axes"], serde_json::json!(["entity_type", "time"]));
    let exec = r.latest("execution_output").unwrap();
    let timed: Vec<&str> = exec["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "decompose.time")
        .map(|e| e["entity_id"].as_str().unwrap())
        .collect();
    assert_eq!(timed, ["warrant.local.knowledge.graph.entity.snapshot"]);
    assert_grounded(&s, &r);
}
