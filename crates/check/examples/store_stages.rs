//! Times the stages of a store check (retrieval, corpus analysis, verification, fact signals,
//! whole check) on a store directory: `cargo run --profile bench -p warrant-check --example
//! store_stages -- STORE_DIR ANSWER_FILE [N]`.

#![allow(clippy::unwrap_used, clippy::print_stdout)] // a profiling tool

// The allocator the `warrant` binary ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_facts::Vocabulary;
use warrant_store::SqliteStore;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let store = SqliteStore::open(std::path::Path::new(&args[1])).unwrap();
    let text = std::fs::read_to_string(&args[2]).unwrap();
    let n: usize = args.get(3).map_or(50, |s| s.parse().unwrap());
    let vocab = Vocabulary::builtin();
    let answer = Answer { text, tool_calls: vec![], context: None, id: Some("a".into()) };
    let graph = warrant_extract::extract(&answer, &warrant_extract::Options::default()).graph;
    let texts: Vec<&str> = graph.claims.iter().map(|c| c.text.as_str()).collect();
    let checker = Checker::default();
    let req = Request { answer: &answer, question: None, output_id: None };
    let mut times = [0f64; 5];
    if std::env::var_os("MEMORY").is_some() {
        let rss = || {
            std::fs::read_to_string("/proc/self/statm").unwrap().split(' ').nth(1).unwrap().parse::<f64>().unwrap() * 4096.0 / 1e6
        };
        let r0 = rss();
        let index = warrant_check::ChunkIndex::of(&store).unwrap();
        let r1 = rss();
        let text: usize = (0..index.len()).map(|i| index.chunk(i).text.len()).sum();
        let t = Instant::now();
        for i in 0..index.len() {
            std::hint::black_box(index.analysed(i));
        }
        println!("analysed every chunk in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
        let r2 = rss();
        println!(
            "chunk text {:.1} MB; index {:.1} MB of memory; all chunks analysed +{:.1} MB",
            text as f64 / 1e6,
            r1 - r0,
            r2 - r1
        );
        return;
    }
    if let Some(k) = std::env::var_os("BUILD_ONLY") {
        let k: usize = k.to_string_lossy().parse().unwrap();
        let t = Instant::now();
        for _ in 0..k {
            std::hint::black_box(warrant_check::ChunkIndex::build(&store).unwrap());
        }
        println!("index build {:.1} ms", t.elapsed().as_secs_f64() * 1e3 / k as f64);
        return;
    }
    let t = Instant::now();
    let index = warrant_check::ChunkIndex::of(&store).unwrap();
    println!("index of {} chunks built in {:.1} ms", index.len(), t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    checker.check_with_store(&req, &store, &vocab, None).unwrap();
    println!("first check (chunks analysed) {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    if std::env::var_os("WHOLE_ONLY").is_some() {
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(checker.check_with_store(&req, &store, &vocab, None).unwrap());
        }
        println!("whole check {:.3} ms", t.elapsed().as_secs_f64() * 1e3 / n as f64);
        return;
    }
    for round in 0..n {
        let t = Instant::now();
        let corpus = warrant_check::retrieve(&store, &texts, None, warrant_check::CHUNKS_PER_CLAIM).unwrap().corpus;
        let t1 = t.elapsed().as_secs_f64();
        let sources: Vec<warrant_verify::Source> = (0..corpus.len()).map(|i| corpus.doc(i).clone()).collect();
        let t = Instant::now();
        let c2 = warrant_verify::Corpus::new(sources);
        let t2 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let claims = warrant_verify::verify(&graph, &c2, &warrant_verify::Options::default());
        let t3 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let report = checker.check_with_store(&req, &store, &vocab, None).unwrap();
        let t4 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = warrant_extract::extract(&answer, &warrant_extract::Options::default());
        let t5 = t.elapsed().as_secs_f64();
        if round == 0 {
            println!(
                "{} claims, {} chunks retrieved, {} sentences; statuses {:?}",
                claims.len(),
                corpus.len(),
                c2.sentences().len(),
                report.claims.iter().map(|c| c.status.as_str()).collect::<Vec<_>>()
            );
            continue;
        }
        for (s, v) in times.iter_mut().zip([t1, t2, t3, t4, t5]) {
            *s += v;
        }
    }
    let k = (n - 1) as f64 * 1e-3;
    println!(
        "per check (ms): retrieve {:.2}  corpus analysis {:.2}  verify {:.2}  whole check {:.2}  extract {:.2}",
        times[0] / k,
        times[1] / k,
        times[2] / k,
        times[3] / k,
        times[4] / k
    );
}
