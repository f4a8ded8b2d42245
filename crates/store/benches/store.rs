//! Store benchmarks on generated corpora (deterministic seed; nothing is committed):
//!
//! - `ingest/jsonl_to_store`: JSON Lines text → records → chunks → pattern extraction and
//!   validation → one transaction into a fresh on-disk store (throughput in text bytes);
//! - `facts/subject_predicate`: fact lookup by subject and predicate on a store of
//!   `WARRANT_BENCH_FACTS` facts (default 1,000,000);
//! - `search/bm25_top10`: BM25 top-10 over the same store's chunks (100,000 at the default size);
//! - the store's size on disk per million facts is printed during setup.
//!
//! `cargo bench -p warrant-store --bench store`

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use warrant_facts::Fact;
use warrant_store::STORE_FILE;
use warrant_store::parse_jsonl;
use warrant_store::{DocumentInput, FactQuery, IngestOptions, SqliteStore, Store, ingest, pattern_from_json};
use warrant_testkit::synth::{Rng, pseudo_words};

/// Pronounceable pseudo-words: `n` distinct ones.
fn vocabulary(n: usize) -> Vec<String> {
    const SYL: [&str; 24] = [
        "ka", "lo", "mi", "ra", "tu", "ne", "so", "vi", "de", "po", "zu", "fa", "gi", "ha", "jo", "ku", "le", "mo", "ni", "pa",
        "ri", "se", "ta", "we",
    ];
    pseudo_words(n, &SYL, "")
}

/// Generated text: paragraphs (chunks) of `facts_per_chunk` fact sentences (one per default
/// predicate, cycling) and `fillers_per_chunk` filler sentences of Zipf-distributed
/// pseudo-words, `chunks_per_doc` paragraphs per document.
struct Corpus {
    docs: Vec<DocumentInput>,
    /// Some (subject, predicate) pairs present in the store, for lookups.
    pairs: Vec<(String, String)>,
    /// Queries of three mid-frequency words.
    queries: Vec<String>,
    bytes: u64,
}

fn corpus(chunks: usize, chunks_per_doc: usize, facts_per_chunk: usize, fillers_per_chunk: usize, seed: u64) -> Corpus {
    let words = vocabulary(20_000);
    let mut rng = Rng(seed);
    let subjects = (chunks * facts_per_chunk / 5).max(1);
    let mut docs = Vec::new();
    let mut pairs = Vec::new();
    let mut bytes = 0u64;
    let mut text = String::new();
    for c in 0..chunks {
        if c % chunks_per_doc != 0 {
            text.push_str("\n\n");
        }
        for k in 0..facts_per_chunk {
            let s = rng.below(subjects);
            let subject = format!("{} {} {s}", words[s % 97], words[100 + s % 89]);
            let n = 1 + rng.below(500);
            let w = &words[rng.zipf(words.len())];
            let sentence = match (c + k) % 9 {
                0 => format!("The {subject} tokens expire after {n} minutes of inactivity."),
                1 => format!("The {subject} keys are valid for {n} days."),
                2 => format!("The {subject} record was created on 2024-0{}-1{}.", 1 + n % 9, n % 10),
                3 => format!("The {subject} service requires {w} approval."),
                4 => format!("The {subject} bundle contains {w} logs."),
                5 => format!("The {subject} module is part of the {w} platform."),
                6 => format!("The {subject} limit is {n} ms."),
                7 => format!("The {subject} endpoint is deprecated."),
                _ => format!("The {subject} cache is a {w}."),
            };
            text.push_str(&sentence);
            text.push(' ');
        }
        for _ in 0..fillers_per_chunk {
            let filler: Vec<&str> = (0..10).map(|_| words[rng.zipf(words.len())].as_str()).collect();
            text.push_str(&filler.join(" "));
            text.push_str(". ");
        }
        if c % chunks_per_doc == chunks_per_doc - 1 || c == chunks - 1 {
            bytes += text.len() as u64;
            let id = format!("doc-{}", docs.len());
            docs.push(DocumentInput {
                id: id.clone(),
                text: std::mem::take(&mut text),
                version: Some("1.0".into()),
                title: None,
                metadata: None,
                origin: id,
            });
        }
    }
    // Lookup pairs: read back from the generated sentences' subjects, via the extractor's own
    // canonicalisation, so every pair exists.
    let mut prng = Rng(seed ^ 0x9e37);
    while pairs.len() < 1000 {
        let d = &docs[prng.below(docs.len())];
        let out = warrant_store::prepare(d, &IngestOptions::default());
        if let Some((_, f)) = out.facts.get(prng.below(out.facts.len().max(1))) {
            pairs.push((f.fact.subject.clone(), f.fact.predicate.clone()));
        }
    }
    let queries = (0..50).map(|_| (0..3).map(|_| words[200 + prng.below(2000)].as_str()).collect::<Vec<_>>().join(" ")).collect();
    Corpus { docs, pairs, queries, bytes }
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir).unwrap().filter_map(Result::ok).map(|e| e.metadata().map(|m| m.len()).unwrap_or(0)).sum()
}

fn bench_ingest(c: &mut Criterion) {
    let mut g = c.benchmark_group("ingest");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    // Dense: every sentence states a fact. Prose: one sentence in five does.
    for (name, facts, fillers) in [("dense", 8, 0), ("prose", 2, 8)] {
        let corpus = corpus(8_000, 4, facts, fillers, 7);
        let jsonl: String =
            corpus.docs.iter().map(|d| json!({"id": d.id, "text": d.text, "version": d.version}).to_string() + "\n").collect();
        g.throughput(Throughput::Bytes(corpus.bytes));
        let id = BenchmarkId::new(format!("jsonl_to_store_{name}"), format!("{:.1}MB", corpus.bytes as f64 / 1e6));
        g.bench_function(id, |b| {
            b.iter_with_large_drop(|| {
                let dir = tempfile::tempdir().unwrap();
                let store = SqliteStore::open(dir.path()).unwrap();
                let (docs, errors) = parse_jsonl("bench.jsonl", black_box(&jsonl), None);
                assert!(errors.is_empty());
                let s = ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
                assert_eq!(s.rejected_facts, 0);
                (store, dir)
            })
        });
    }
    g.finish();
}

fn bench_lookups(c: &mut Criterion) {
    let facts: usize = std::env::var("WARRANT_BENCH_FACTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let per_chunk = 10;
    let chunks = facts / per_chunk;
    let dir = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let corpus = corpus(chunks, 2, per_chunk, 2, 42);
    let store = SqliteStore::open(dir.path()).unwrap();
    let s = ingest(&store, corpus.docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    drop(store);
    let size = dir_size(dir.path());
    eprintln!(
        "setup: {} documents, {} chunks, {} facts ({} rejected), {:.1} MB of text in {:.1?}; store {:.1} MB on disk = {:.1} MB per million facts ({:.0} B/fact)",
        s.documents,
        s.chunks,
        s.facts,
        s.rejected_facts,
        corpus.bytes as f64 / 1e6,
        t0.elapsed(),
        size as f64 / 1e6,
        size as f64 / 1e6 / (s.facts as f64 / 1e6),
        size as f64 / s.facts as f64,
    );
    facts_only_size(s.facts as usize);
    let store = SqliteStore::open_existing(dir.path()).unwrap();

    let mut g = c.benchmark_group("facts");
    let mut i = 0;
    g.bench_function(BenchmarkId::new("subject_predicate", s.facts), |b| {
        b.iter(|| {
            let (subject, predicate) = &corpus.pairs[i % corpus.pairs.len()];
            i += 1;
            let f = store.facts(&FactQuery::subject_predicate(subject, predicate)).unwrap();
            assert!(!f.is_empty());
            f
        })
    });
    let mut i = 0;
    g.bench_function(BenchmarkId::new("match_signature", s.facts), |b| {
        b.iter(|| {
            let (subject, predicate) = &corpus.pairs[i % corpus.pairs.len()];
            i += 1;
            let p = pattern_from_json(
                &json!({"subject": subject, "predicate": predicate, "object": "?o", "qualifiers": {"version": "v1.0"}}),
            )
            .unwrap();
            let m = store.match_signature(&p).unwrap();
            assert!(!m.is_empty());
            m
        })
    });
    g.finish();

    let mut g = c.benchmark_group("search");
    let mut i = 0;
    g.bench_function(BenchmarkId::new("bm25_top10", format!("{}_chunks", s.chunks)), |b| {
        b.iter(|| {
            let q = &corpus.queries[i % corpus.queries.len()];
            i += 1;
            store.search(black_box(q), 10).unwrap()
        })
    });
    g.finish();
}

/// Size of a store holding only `n` manual facts (no documents, chunks or index), per million.
fn facts_only_size(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    let mut rng = Rng(3);
    let facts: Vec<Fact> = (0..n)
        .map(|i| {
            let v = json!({"subject": format!("component_{}", rng.below(n / 5 + 1)), "predicate": "has_value",
                           "object": format!("{} ms", rng.below(1000)), "qualifiers": {"version": "1.0"},
                           "span": {"start": 0, "end": 40}, "source": {"docId": format!("doc-{}", i / 20), "chunkId": format!("doc-{}#{}", i / 20, i % 2 + 1)}});
            Fact::from_manual_json(&v).unwrap()
        })
        .collect();
    store.write(&mut std::iter::empty(), &facts, &mut |_| {}).unwrap();
    drop(store);
    let size = std::fs::metadata(dir.path().join(STORE_FILE)).unwrap().len();
    eprintln!("setup: facts-only store of {n} manual facts: {:.1} MB = {:.0} B/fact", size as f64 / 1e6, size as f64 / n as f64);
}

criterion_group!(benches, bench_ingest, bench_lookups);
criterion_main!(benches);
