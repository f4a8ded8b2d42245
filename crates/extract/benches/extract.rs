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
    let Some(dir) = warrant_testkit::data_root().map(|r| r.join("gsm8k")) else {
        eprintln!("../shared/data/gsm8k not found: benchmarking the README instead");
        return vec![include_str!("../../../README.md").to_string()];
    };
    let rows = warrant_testkit::read_jsonl(&dir.join("example_model_solutions.jsonl"));
    let mut out = Vec::new();
    for r in rows {
        out.push(r["ground_truth"].as_str().unwrap().to_string());
        for v in ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"] {
            out.push(r[v]["solution"].as_str().unwrap().to_string());
        }
    }
    out
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
