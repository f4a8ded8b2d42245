//! Compile throughput, end to end (read, segment, map, reduce, promote, coverage, sanitize, ids,
//! numeric guard, traceability, metadata, JSON), in bytes of source text per second, wall clock:
//! with the default options (every core) and, for the handbook, on one thread.
//!
//! Corpora: a deterministic generated policy handbook in Markdown (~1 MB: headings, rules,
//! exceptions, definitions, numbered procedures, FAQ-style questions, numbers everywhere), the
//! HaluEval knowledge passages from `../shared/data` (real prose) and the four test fixtures.

#![allow(clippy::unwrap_used)] // benchmark setup

// The allocator the `warrant` binary ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warrant_ckf::{Options, SourceInput, compile};

#[path = "corpus.rs"]
mod corpus;
use corpus::corpus;

fn fixtures() -> Vec<(String, String)> {
    ["faq.md", "policies.jsonl", "runbook.md", "statute.txt"]
        .iter()
        .map(|n| {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(n);
            ((*n).to_string(), std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let text = corpus(1 << 20);
    let mut g = c.benchmark_group("compile");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("generated_handbook_1mb", |b| {
        b.iter(|| {
            let r =
                compile(&[SourceInput { name: "handbook.md", bytes: black_box(text.as_bytes()) }], &Options::default()).unwrap();
            warrant_ckf::to_json(&r.package).unwrap().len()
        })
    });
    let one = Options { threads: 1, ..Options::default() };
    g.bench_function("generated_handbook_1mb_one_thread", |b| {
        b.iter(|| {
            let r = compile(&[SourceInput { name: "handbook.md", bytes: black_box(text.as_bytes()) }], &one).unwrap();
            warrant_ckf::to_json_with_threads(&r.package, 1).unwrap().len()
        })
    });
    // Real prose: the 500 HaluEval knowledge passages (Wikipedia text, dense in names and
    // dates), one paragraph each under one heading. Skipped with a note without the data.
    if let Some(dir) = warrant_testkit::data_dir("halueval") {
        let mut doc = String::from("# Knowledge passages\n\n");
        for line in std::fs::read_to_string(dir.join("qa_one-turn_data.json")).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            doc.push_str(v["knowledge"].as_str().unwrap().trim());
            doc.push_str("\n\n");
        }
        g.throughput(Throughput::Bytes(doc.len() as u64));
        g.bench_function("halueval_passages", |b| {
            b.iter(|| {
                let r = compile(&[SourceInput { name: "passages.md", bytes: black_box(doc.as_bytes()) }], &Options::default())
                    .unwrap();
                warrant_ckf::to_json(&r.package).unwrap().len()
            })
        });
    }
    let fx = fixtures();
    let bytes: usize = fx.iter().map(|(_, t)| t.len()).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("fixtures", |b| {
        b.iter(|| {
            let mut n = 0;
            for (name, t) in &fx {
                let r = compile(&[SourceInput { name, bytes: black_box(t.as_bytes()) }], &Options::default()).unwrap();
                n += warrant_ckf::to_json(&r.package).unwrap().len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches_group, benches);
criterion_main!(benches_group);
