//! Research runs over a generated 100,000-chunk store (deterministic seed; nothing is
//! committed), without an LLM: the whole chain — classify, route, execute with fusion, assess
//! (and refine rounds), synthesize — per topic kind, plus the same with the run recorded in an
//! on-disk run log.
//!
//! `cargo bench -p warrant-research --bench research`
//!
//! `WARRANT_BENCH_CHUNKS` changes the store size (default 100,000); `WARRANT_BENCH_STORE=DIR`
//! builds the store there once and reuses it on later runs.

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use warrant_research::{Chain, FixedClock, Intent, SqliteRunLog, StoreGraph, Timestamp, research_graph};
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, Store, ingest};
use warrant_testkit::synth::{Rng, pseudo_words};

/// `n` distinct pronounceable pseudo-words.
fn words(n: usize) -> Vec<String> {
    const SYL: [&str; 20] =
        ["ba", "ko", "mi", "ru", "te", "na", "so", "vi", "de", "pu", "zo", "fa", "gi", "he", "jo", "ku", "la", "mo", "ni", "pe"];
    pseudo_words(n, &SYL, "x")
}

const ENTITIES: usize = 20_000;

fn entity(words: &[String], i: usize) -> String {
    format!("{} {}", words[5000 + i % 3000], words[8000 + i / 3000])
}

/// Documents of two chunks each; a chunk holds three fact sentences (edges between entities,
/// durations, dates), a sentence about a hub entity in one chunk of a hundred, and three
/// filler sentences of Zipf-distributed words.
fn corpus(chunks: usize) -> Vec<DocumentInput> {
    let w = words(12_000);
    let mut rng = Rng(0x5eed);
    let mut docs = Vec::new();
    let mut text = String::new();
    for c in 0..chunks {
        if c % 2 == 1 {
            text.push_str("\n\n");
        }
        for k in 0..3 {
            let a = entity(&w, rng.below(ENTITIES));
            let b = entity(&w, rng.below(ENTITIES));
            let n = 1 + rng.below(500);
            let s = match (c + k) % 4 {
                0 => format!("The {a} requires {b}. "),
                1 => format!("The {a} tokens expire after {n} minutes of inactivity. "),
                2 => format!("The {a} record was created on 2024-0{}-1{}. ", 1 + n % 9, n % 10),
                _ => format!("The {a} bundle contains {b}. "),
            };
            text.push_str(&s);
        }
        if c % 100 == 0 {
            text.push_str(&format!("The central gateway requires {}. ", entity(&w, rng.below(ENTITIES))));
        }
        for _ in 0..3 {
            let f: Vec<&str> = (0..10).map(|_| w[rng.zipf(5000)].as_str()).collect();
            text.push_str(&f.join(" "));
            text.push_str(". ");
        }
        if c % 2 == 1 || c == chunks - 1 {
            let id = format!("doc-{}", docs.len());
            docs.push(DocumentInput {
                id: id.clone(),
                text: std::mem::take(&mut text),
                version: None,
                title: None,
                metadata: None,
                origin: id,
            });
        }
    }
    docs
}

fn open_store() -> (SqliteStore, Option<tempfile::TempDir>) {
    let chunks: usize = std::env::var("WARRANT_BENCH_CHUNKS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let (dir, tmp) = match std::env::var_os("WARRANT_BENCH_STORE") {
        Some(d) => (PathBuf::from(d), None),
        None => {
            let t = tempfile::tempdir().unwrap();
            (t.path().to_path_buf(), Some(t))
        }
    };
    let store = SqliteStore::open(&dir).unwrap();
    if store.stats().unwrap().chunks == 0 {
        let t0 = Instant::now();
        let s = ingest(&store, corpus(chunks), Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
        eprintln!("setup: {} documents, {} chunks, {} facts in {:.1?}", s.documents, s.chunks, s.facts, t0.elapsed());
    }
    let st = store.stats().unwrap();
    eprintln!("store: {} chunks, {} facts, {} entities", st.chunks, st.total_facts, st.entities);
    (store, tmp)
}

fn bench(c: &mut Criterion) {
    let (store, _tmp) = open_store();
    let w = words(12_000);
    let chain = Chain::new(StoreGraph::new(&store)).with_clock(FixedClock(Timestamp::parse("2026-06-02T18:30:45Z").unwrap()));
    let topics = [
        // Names one entity: walk_seeds (entity state, one-hop walk, BM25 coverage).
        ("walk_seeds", format!("what does the {} require", entity(&w, 4242))),
        // Names none: decompose along entity_type with BM25 on the focus.
        ("decompose", format!("{} {} {}", w[300], w[1200], w[2500])),
        // A hub entity with ~1,000 mentions and its edges.
        ("hub_entity", "central gateway requirements".to_string()),
        // Half the terms absent: insufficient, five refine rounds, then synthesis.
        ("partial_refine", format!("{} {} quantum cryptography", w[300], w[1200])),
        // Nothing matches: retighten, then nothing found.
        ("absent", "Quantum Cryptography Migration".to_string()),
    ];
    let mut g = c.benchmark_group("research");
    g.sample_size(50).measurement_time(Duration::from_secs(8));
    for (name, topic) in &topics {
        let r = chain.run(&Intent::new(topic.as_str()), None, 1).unwrap();
        eprintln!(
            "{name}: {:?} → route {}, {} evidence, {} iterations, {} tokens, sufficient {:?}",
            topic,
            r.search_result.decomp_trace.as_ref().map_or("", |t| t.router_action.as_str()),
            r.search_result.evidence.len(),
            r.search_result.iterations,
            r.search_result.tokens_used,
            r.sufficient()
        );
        g.bench_function(BenchmarkId::new("run", name), |b| {
            b.iter(|| chain.run(black_box(&Intent::new(topic.as_str())), None, 1).unwrap())
        });
    }
    // The CLI path: the run recorded (one transaction) in an on-disk run log.
    let logdir = tempfile::tempdir().unwrap();
    let log = SqliteRunLog::open(logdir.path()).unwrap();
    let topic = &topics[0].1;
    g.bench_function(BenchmarkId::new("run_and_record", "walk_seeds"), |b| {
        b.iter(|| research_graph(&chain, &log, black_box(&Intent::new(topic.as_str())), None).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
