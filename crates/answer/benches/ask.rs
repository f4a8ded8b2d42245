//! `ask` latency on a store of `WARRANT_BENCH_FACTS` facts (default 1,000,000), excluding
//! process start: the store is opened once and each iteration answers one question.
//!
//! - `ask/one_hop_question`: "How long before <x> tokens expire in v1.0?" — planner (template,
//!   entity index), retrieval, ranking, conflict check, answer;
//! - `ask/three_hop_question`: "Does the <a> module require the <d> module in v1.0?" where `d`
//!   is three `requires` edges from `a` (and no closer): backward chaining through
//!   `requires_transitive`;
//! - `ask/*_plan`: the same with the plan supplied (no planner).
//!
//! The corpus is generated (deterministic; nothing is committed): per module `i`, one
//! paragraph stating `requires(i, i+1)`, `requires(i, i+1000)`, `part_of(i, i/16)`, an
//! expiry and a status — five facts — so 200,000 modules make 1,000,000 facts. Within five
//! hops a module reaches ~20 others, so a three-hop proof explores a realistic neighbourhood.
//! The store is built once into `target/bench-ask-<N>/` and reused by later runs.
//!
//! `cargo bench -p warrant-answer --bench ask`

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use warrant_answer::{Answerer, QueryPlan, Verdict};
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, Store, ingest};

/// A distinct pronounceable pseudo-word per index (letters only, so the extractor's subject
/// pattern takes it whole).
fn word(mut i: usize) -> String {
    const SYL: [&str; 20] =
        ["ka", "lo", "mi", "ra", "tu", "ne", "so", "vi", "de", "po", "zu", "fa", "gi", "ha", "jo", "ku", "le", "mo", "ni", "pa"];
    let mut w = String::new();
    loop {
        w.push_str(SYL[i % SYL.len()]);
        i /= SYL.len();
        if i == 0 {
            break;
        }
    }
    w.push('x');
    w
}

fn module_paragraph(i: usize, n: usize) -> String {
    let w = word(i);
    let status = if i.is_multiple_of(3) { "disabled" } else { "enabled" };
    format!(
        "The {w} module requires the {} module. The {w} module requires the {} module. The {w} module is part of the {} module. {w} tokens expire after {} minutes of inactivity. The {w} module is {status}.",
        word((i + 1) % n),
        word((i + 1000) % n),
        word(i / 16 + n),
        5 + i % 50,
    )
}

fn store_for(facts: usize) -> (SqliteStore, usize) {
    let modules = facts / 5;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/bench-ask-{facts}"));
    let marker = dir.join("complete");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let t0 = Instant::now();
        let per_doc = 4;
        let docs: Vec<DocumentInput> = (0..modules.div_ceil(per_doc))
            .map(|d| {
                let text: Vec<String> =
                    (d * per_doc..((d + 1) * per_doc).min(modules)).map(|i| module_paragraph(i, modules)).collect();
                DocumentInput {
                    id: format!("modules-{d}"),
                    text: text.join("\n\n"),
                    version: Some("1.0".into()),
                    title: None,
                    metadata: None,
                    origin: format!("modules-{d}"),
                }
            })
            .collect();
        let store = SqliteStore::open(&dir).unwrap();
        let s = ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(s.rejected_facts, 0);
        eprintln!("setup: {} documents, {} chunks, {} facts in {:.1?}", s.documents, s.chunks, s.facts, t0.elapsed());
        drop(store);
        std::fs::write(&marker, s.facts.to_string()).unwrap();
    }
    let store = SqliteStore::open_existing(&dir).unwrap();
    let stats = store.stats().unwrap();
    eprintln!("store: {} facts, {} entities, {} chunks", stats.total_facts, stats.entities, stats.chunks);
    (store, modules)
}

fn bench_ask(c: &mut Criterion) {
    let facts: usize = std::env::var("WARRANT_BENCH_FACTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let (store, modules) = store_for(facts);
    let answerer = Answerer::new(&store);
    // Modules spread over the store (avoiding the wrap-around at the end).
    let picks: Vec<usize> = (0..64).map(|k| (k * 7919 + 13) % (modules - 2000)).collect();
    let one_hop: Vec<String> = picks.iter().map(|&i| format!("How long before {} tokens expire in v1.0?", word(i))).collect();
    let three_hop: Vec<String> =
        picks.iter().map(|&i| format!("Does the {} module require the {} module in v1.0?", word(i), word(i + 3))).collect();
    // Check the answers once, outside the timing.
    for (i, q) in picks.iter().zip(&one_hop) {
        let a = answerer.ask(q).unwrap();
        assert_eq!((a.verdict, a.text.clone()), (Verdict::Supported, Some(format!("{} minutes", 5 + i % 50))), "{q}");
    }
    for q in &three_hop {
        let a = answerer.ask(q).unwrap();
        assert_eq!((a.verdict, a.text.as_deref()), (Verdict::Supported, Some("Yes")), "{q}: {:?}", a.diagnostics);
        let premises = a.fact_chain.iter().filter(|e| e.role == warrant_answer::ChainRole::Premise).count();
        assert_eq!(premises, 3, "{q}");
    }
    let one_plans: Vec<QueryPlan> = one_hop.iter().map(|q| answerer.plan(q).unwrap()).collect();
    let three_plans: Vec<QueryPlan> = three_hop.iter().map(|q| answerer.plan(q).unwrap()).collect();

    let mut g = c.benchmark_group("ask");
    for (name, questions) in [("one_hop_question", &one_hop), ("three_hop_question", &three_hop)] {
        let mut k = 0;
        g.bench_function(BenchmarkId::new(name, facts), |b| {
            b.iter(|| {
                k += 1;
                black_box(answerer.ask(black_box(&questions[k % questions.len()])).unwrap())
            })
        });
    }
    for (name, plans) in [("one_hop_plan", &one_plans), ("three_hop_plan", &three_plans)] {
        let mut k = 0;
        g.bench_function(BenchmarkId::new(name, facts), |b| {
            b.iter(|| {
                k += 1;
                black_box(answerer.answer(black_box(&plans[k % plans.len()])).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_ask);
criterion_main!(benches);
