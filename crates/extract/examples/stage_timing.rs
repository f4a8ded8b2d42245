//! Times each extraction stage over the GSM8K solutions (a profiling aid for `bench/`).
#![allow(clippy::unwrap_used)]
// The allocator the `warrant` binary ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time of this thread in seconds (from /proc/thread-self/schedstat, in nanoseconds):
/// unaffected by other processes competing for the cores.
fn thread_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()).unwrap_or(0.0) * 1e-9
}

fn main() {
    let texts = warrant_testkit::gsm8k_solution_texts().expect("../shared/data/gsm8k");
    let bytes: usize = texts.iter().map(String::len).sum();
    let time = |name: &str, f: &dyn Fn(&str)| {
        // The minimum of several runs: other processes only ever add time.
        let mut secs = f64::MAX;
        for _ in 0..5 {
            let t = thread_cpu();
            for s in &texts {
                f(s);
            }
            secs = secs.min(thread_cpu() - t);
        }
        println!("{name:<24} {:>8.1} ms  {:>8.1} MB/s", secs * 1e3, bytes as f64 / secs / 1e6);
    };
    use warrant_extract::*;
    if let Some(n) = std::env::args().nth(1).and_then(|a| a.strip_prefix("whole").map(|n| n.parse::<usize>().unwrap_or(10))) {
        for _ in 0..n {
            for s in &texts {
                extract(&Answer { text: s.to_string(), ..Answer::default() }, &Options::default());
            }
        }
        return;
    }
    if let Some(n) = std::env::args().nth(1).and_then(|a| a.strip_prefix("entities").map(|n| n.parse::<usize>().unwrap_or(20))) {
        for _ in 0..n {
            for s in &texts {
                entities::find(s, &[0..s.len()], &[]);
            }
        }
        return;
    }
    time("whole extract", &|s| {
        extract(&Answer { text: s.to_string(), ..Answer::default() }, &Options::default());
    });
    time("markdown scan", &|s| {
        markdown::scan(s);
    });
    time("sentences", &|s| {
        for p in warrant_text::segment::paragraphs(s) {
            warrant_text::segment::sentences_in(s, p);
        }
    });
    time("discourse classify", &|s| {
        for r in warrant_text::segment::sentences(s) {
            discourse::classify(&s[r]);
        }
    });
    time("clauses+tidy", &|s| {
        for r in warrant_text::segment::sentences(s) {
            for c in claims::clauses(s, r) {
                claims::tidy(s, c);
            }
        }
    });
    time("modality+domain", &|s| {
        for r in warrant_text::segment::sentences(s) {
            claims::modality(&s[r.clone()], &s[r.clone()]);
            claims::domain(&s[r]);
        }
    });
    time("operations", &|s| {
        operations::find(s, &[0..s.len()]);
    });
    time("  annotations", &|s| {
        operations::annotations(s);
    });
    time("  symbolic", &|s| {
        operations::symbolic(s, 0..s.len());
    });
    time("  prose ops", &|s| {
        operations::prose(s, 0..s.len());
    });
    time("quantities", &|s| {
        warrant_text::quantity::find_quantities(s);
    });
    time("dates", &|s| {
        warrant_text::date::find_dates(s);
    });
    time("entities", &|s| {
        let sents = warrant_text::segment::sentences(s);
        entities::find(s, &[0..s.len()], &sents);
    });
    time("citations", &|s| {
        citations::find(s, 0..s.len(), &Default::default());
    });
}
