//! Compiles the benchmark corpus N times (default 3) and prints, per run (compile and JSON
//! encoding): the CPU time of the whole process (every thread), the CPU time of the calling
//! thread (all of it on one thread; near zero on more, where the whole compile runs on the
//! worker pool and the caller waits), the wall-clock time, and
//! the first hex digits of the package's SHA-256 (the same for any thread count). CPU times are
//! less sensitive to other processes' load than wall clock; for profiling with `perf`.
//!
//! `cargo run --profile bench -p warrant-ckf --example profile_compile -- [N] [BYTES | FILE]`
//!
//! With a FILE, that file is compiled instead of the generated corpus. `WARRANT_CKF_THREADS=1`
//! runs on one thread (default: every core). `WARRANT_CKF_WRITE_CORPUS=PATH` also writes the
//! compiled text to PATH (to time `warrant compile` on the same bytes).

#![allow(clippy::unwrap_used)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../benches/corpus.rs"]
mod corpus;

use warrant_ckf::{Options, SourceInput, compile};

/// CPU time of the current thread, in nanoseconds (Linux), else 0.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0)
}

/// CPU time of the whole process (every thread, finished ones included), in nanoseconds, at
/// the kernel's tick resolution (10 ms) (Linux), else 0.
fn process_cpu_ns() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0 };
    // After the command name (in parentheses), utime and stime are the 12th and 13th fields.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest.split_whitespace().skip(11).take(2).filter_map(|x| x.parse().ok()).collect();
    f.iter().sum::<u64>() * 10_000_000
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|x| x.parse().ok()).unwrap_or(3);
    let (name, text) = match args.get(2) {
        Some(a) if a.parse::<usize>().is_err() => (a.clone(), std::fs::read_to_string(a).unwrap()),
        a => ("handbook.md".to_string(), corpus::corpus(a.and_then(|x| x.parse().ok()).unwrap_or(1 << 20))),
    };
    if let Some(path) = std::env::var_os("WARRANT_CKF_WRITE_CORPUS") {
        // For end-to-end runs of the CLI on the same text.
        std::fs::write(&path, &text).unwrap();
    }
    let threads = std::env::var("WARRANT_CKF_THREADS").ok().and_then(|x| x.parse().ok()).unwrap_or(0);
    let opts = Options { threads, ..Options::default() };
    for _ in 0..runs {
        let wall = std::time::Instant::now();
        let t0 = process_cpu_ns();
        let t_main = thread_cpu_ns();
        let r = compile(&[SourceInput { name: &name, bytes: text.as_bytes() }], &opts).unwrap();
        let json = warrant_ckf::to_json_with_threads(&r.package, threads).unwrap();
        let main_ns = thread_cpu_ns() - t_main;
        let ns = process_cpu_ns() - t0;
        let wall = wall.elapsed().as_secs_f64();
        let items: usize = r.package.sections.iter().map(Vec::len).sum();
        println!(
            "{} bytes → {items} items, {} bytes of JSON (sha256 {}): CPU {:.0} ms all threads, {:.0} ms this thread ({:.2} MB/s per CPU second); wall {:.0} ms ({:.2} MB/s)",
            text.len(),
            json.len(),
            &warrant_ckf::sha256_hex(json.as_bytes())[..12],
            ns as f64 / 1e6,
            main_ns as f64 / 1e6,
            text.len() as f64 / (ns as f64 / 1e9) / 1e6,
            wall * 1e3,
            text.len() as f64 / wall / 1e6
        );
    }
}
