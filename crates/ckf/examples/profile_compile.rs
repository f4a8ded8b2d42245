//! Compiles the benchmark corpus N times (default 3) and prints the CPU time of this thread per
//! run — immune to other processes' load — for profiling with `perf` or `valgrind`.
//!
//! `cargo run --profile bench -p warrant-ckf --example profile_compile -- [N] [BYTES | FILE]`
//!
//! With a FILE, that file is compiled instead of the generated corpus.

#![allow(clippy::unwrap_used)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../benches/corpus.rs"]
mod corpus;

use warrant_ckf::compile::{Options, SourceInput, compile};

/// CPU time of the current thread, in nanoseconds (Linux), else 0.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|x| x.parse().ok()).unwrap_or(3);
    let (name, text) = match args.get(2) {
        Some(a) if a.parse::<usize>().is_err() => (a.clone(), std::fs::read_to_string(a).unwrap()),
        a => ("handbook.md".to_string(), corpus::corpus(a.and_then(|x| x.parse().ok()).unwrap_or(1 << 20))),
    };
    for _ in 0..runs {
        let t0 = thread_cpu_ns();
        let r = compile(&[SourceInput { name: &name, bytes: text.as_bytes() }], &Options::default()).unwrap();
        let json = warrant_ckf::encode::to_json(&r.package).unwrap();
        let ns = thread_cpu_ns() - t0;
        let items: usize = r.package.sections.iter().map(Vec::len).sum();
        println!(
            "{} bytes → {items} items, {} bytes of JSON: {:.0} ms CPU, {:.2} MB/s",
            text.len(),
            json.len(),
            ns as f64 / 1e6,
            text.len() as f64 / (ns as f64 / 1e9) / 1e6
        );
    }
}
