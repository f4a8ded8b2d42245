//! Validation and evaluation speed on a typical graph (bench/fixtures/typical.graph.json):
//! parse + schema + lints, and the four core packs evaluated over an already-loaded graph.

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use warrant_cpl::{Engine, Pack, packs};
use warrant_graph::parse_graph;

const TYPICAL: &str = include_str!("../../../bench/fixtures/typical.graph.json");
const CORE: [&str; 4] = ["core.tool-use.v1", "core.citation-grounding.v1", "core.safe-code.v1", "example.customer-support.v1"];

fn benches(c: &mut Criterion) {
    c.bench_function("validate/typical_graph", |b| {
        b.iter(|| {
            let r = parse_graph(black_box(TYPICAL));
            assert!(r.errors.is_empty());
            r
        })
    });
    let graph = parse_graph(TYPICAL).graph.unwrap();
    let packs: Vec<Pack> = CORE.iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect();
    let engine = Engine::default();
    c.bench_function("eval/four_core_packs", |b| b.iter(|| engine.evaluate(black_box(&packs), black_box(&graph)).unwrap()));
    let passing: Vec<Pack> = packs.iter().filter(|p| p.pack_id != "core.citation-grounding.v1").cloned().collect();
    c.bench_function("eval/three_passing_packs", |b| b.iter(|| engine.evaluate(black_box(&passing), black_box(&graph)).unwrap()));
}

criterion_group!(benches_group, benches);
criterion_main!(benches_group);
