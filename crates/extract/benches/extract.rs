//! Extraction throughput on the GSM8K model solutions (every solution of the four variants
//! and the ground truth), in bytes of answer text per second, on one core.

#![allow(clippy::unwrap_used)] // benchmark setup

// The allocator the `warrant` binary ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warrant_extract::{Answer, Options, extract};

fn corpus() -> Vec<String> {
    warrant_testkit::gsm8k_solution_texts().unwrap_or_else(|| {
        eprintln!("../shared/data/gsm8k not found: benchmarking the README instead");
        vec![include_str!("../../../README.md").to_string()]
    })
}

fn benches(c: &mut Criterion) {
    let texts = corpus();
    let answers: Vec<Answer> = texts.iter().map(|t| Answer { text: t.clone(), ..Answer::default() }).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    g.bench_function("gsm8k_solutions", |b| {
        b.iter(|| {
            let mut n = 0;
            for a in &answers {
                n += extract(black_box(a), &Options::default()).graph.operations.len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches_group, benches);
criterion_main!(benches_group);
