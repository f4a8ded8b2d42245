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
    // `quick`: wall clock, min of 15 runs (A/B comparisons of two builds on a busy machine).
    let quick = std::env::args().nth(1).as_deref() == Some("quick");
    let time = |name: &str, f: &dyn Fn(&str)| {
        // The minimum of several runs: other processes only ever add time.
        let mut secs = f64::MAX;
        for _ in 0..if quick { 15 } else { 5 } {
            // Thread CPU time can tick coarsely (4 ms here): `quick` uses the wall clock.
            let (t, w) = (thread_cpu(), std::time::Instant::now());
            for s in &texts {
                f(s);
            }
            secs = secs.min(if quick { w.elapsed().as_secs_f64() } else { thread_cpu() - t });
        }
        println!("{name:<24} {:>8.1} ms  {:>8.1} MB/s", secs * 1e3, bytes as f64 / secs / 1e6);
    };
    use warrant_extract::*;
    if std::env::args().nth(1).as_deref() == Some("dump") {
        // An equivalence guard for speed work: every graph of a broad corpus, serialised, to
        // the file given (diff two dumps; the last line is a digest).
        let out = std::env::args().nth(2).expect("dump OUTPUT");
        dump(&out);
        return;
    }
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
            claims::modality_with(&s[r.clone()], &s[r.clone()], &claims::cues(&s[r.clone()]));
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

/// Every string of the shared data's JSON files, its Markdown files, the shared specs, the
/// GSM8K solutions and pseudo-random splices of them (a fixed seed).
fn dump_corpus() -> Vec<String> {
    fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if s.len() > 1 => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, files);
            } else {
                files.push(p);
            }
        }
    }
    let root = warrant_testkit::data_root().expect("../shared/data");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut texts = warrant_testkit::gsm8k_solution_texts().unwrap();
    for f in files {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let body = std::fs::read_to_string(&f).unwrap_or_default();
        match ext {
            "json" => {
                if let Ok(v) = serde_json::from_str(&body) {
                    strings(&v, &mut texts);
                }
            }
            "jsonl" => body.lines().filter_map(|l| serde_json::from_str(l).ok()).for_each(|v| strings(&v, &mut texts)),
            "md" | "cpl" => texts.push(body),
            _ => {}
        }
    }
    // The shared specs (prose, tables, code, URLs); not the repository's READMEs, which change
    // with every merge and would change the digest.
    let mut specs: Vec<_> =
        std::fs::read_dir(root.join("../specs")).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    specs.sort();
    texts.extend(specs.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
    // Splices: a slice of one text glued to a slice of another, at char boundaries.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let n = texts.len();
    for _ in 0..20_000 {
        let mut s = String::new();
        for _ in 0..1 + next() % 3 {
            let t = &texts[(next() % n as u64) as usize];
            let mut a = (next() % (t.len() as u64 + 1)) as usize;
            let mut b = a + (next() % 400) as usize;
            b = b.min(t.len());
            while !t.is_char_boundary(a) {
                a -= 1;
            }
            while !t.is_char_boundary(b) {
                b -= 1;
            }
            s.push_str(&t[a..b.max(a)]);
        }
        texts.push(s);
    }
    texts
}

fn dump(out: &str) {
    use std::hash::Hasher;
    use std::io::Write;
    let texts = dump_corpus();
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let mut h = warrant_text::fasthash::Fnv::default();
    for t in &texts {
        let g = warrant_extract::extract(&warrant_extract::Answer { text: t.clone(), ..Default::default() }, &Default::default());
        let line = serde_json::to_string(&g.graph).unwrap();
        h.write(line.as_bytes());
        writeln!(f, "{line}").unwrap();
    }
    writeln!(f, "{} texts, digest {:016x}", texts.len(), h.finish()).unwrap();
    println!("{} texts, digest {:016x}", texts.len(), h.finish());
}
