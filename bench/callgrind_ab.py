#!/usr/bin/env python3
"""Instructions executed by two checkouts on the same workload, counted by callgrind.

    python3 bench/callgrind_ab.py --before DIR --after DIR

Wall-clock medians of two separately built binaries can differ by ±15 % on this machine with
the same work (code layout, allocator placement, load); the number of instructions a workload
executes cannot. For each workload below the script writes a small example program into each
checkout (made from that checkout's own criterion bench, so both sides run their own setup),
builds it with `--profile quality`, runs it under `valgrind --tool=callgrind` counting only the
measured function, prints one Markdown row per workload, and removes the example again.

Workloads: one pass of `extract/gsm8k_solutions` (every GSM8K solution text), the store
check of `check/store_10k_chunks` (the bench's 10,000-chunk store; 20 checks of its answer
and one each of its 64 shifted answers), and 20 checks of `check/answer_2kb_sources_5kb`
(the sources analysed in each). `--only TEXT` runs the workloads whose label contains TEXT.
Needs valgrind and ../shared/data.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

EXTRACT = """#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use warrant_extract::{Answer, Options, extract};
#[inline(never)]
fn measured(answers: &[Answer]) -> usize {
    answers.iter().map(|a| extract(std::hint::black_box(a), &Options::default()).graph.operations.len()).sum()
}
fn main() {
    let texts = warrant_testkit::gsm8k_solution_texts().expect("../shared/data/gsm8k");
    let answers: Vec<Answer> = texts.iter().map(|t| Answer { text: t.clone(), ..Answer::default() }).collect();
    println!("{}", measured(&answers));
}
"""

STORE_HEAD = """#![allow(clippy::unwrap_used, dead_code)]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::hint::black_box;
use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_facts::Vocabulary;
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
"""

STORE_MAIN = """
#[inline(never)]
fn measured(checker: &Checker, store: &SqliteStore, vocab: &Vocabulary, answers: &[Answer]) -> usize {
    let mut n = 0;
    for a in answers {
        let req = Request { answer: a, question: None, output_id: None };
        n += black_box(checker.check_with_store(&req, store, vocab, None).unwrap()).claims.len();
    }
    n
}
fn main() {
    let store = store_with_10k_chunks();
    let vocab = Vocabulary::builtin();
    let checker = Checker::default();
    let mut answers: Vec<Answer> = (0..20).map(|_| answer()).collect();
    answers.extend((0..64).map(|i| shifted_answer(i * 131)));
    println!("{}", measured(&checker, &store, &vocab, &answers));
}
"""


def store_example(root: str) -> str:
    """The store workload, with the bench's own data helpers (everything before `fn bench`)."""
    bench = open(os.path.join(root, "crates/check/benches/check.rs"), encoding="utf-8").read()
    start, end = bench.index("const PRODUCTS"), bench.index("fn bench(c: &mut Criterion)")
    return STORE_HEAD + bench[start:end] + STORE_MAIN


ANSWER_HEAD = """#![allow(clippy::unwrap_used, dead_code)]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::hint::black_box;
use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
use warrant_verify::{Corpus, Source};
"""

ANSWER_MEASURED = """
#[inline(never)]
fn measured(checker: &Checker, answer: &Answer, sources: &[Source]) -> usize {
    let mut n = 0;
    for _ in 0..20 {
        let corpus = Corpus::new(sources.to_vec());
        let req = Request { answer, question: None, output_id: None };
        n += black_box(checker.check(&req, &corpus).unwrap()).claims.len();
    }
    n
}
fn main() {
    let checker = Checker::default();
"""


def answer_example(root: str) -> str:
    """The 2 KB answer against 5 KB of sources, with the bench's own data and setup: the
    sources analysed in each check, as each request does."""
    bench = open(os.path.join(root, "crates/check/benches/check.rs"), encoding="utf-8").read()
    helpers = bench[bench.index("const PRODUCTS") : bench.index("fn bench(c: &mut Criterion)")]
    setup = bench[bench.index("    let two_kb = Answer") : bench.index('    c.bench_function("check/answer_2kb_sources_5kb"')]
    return ANSWER_HEAD + helpers + ANSWER_MEASURED + setup + "    println!(\"{}\", measured(&checker, &two_kb, &sources));\n}\n"


# (label, package, example path, program)
WORKLOADS = [
    ("extract/gsm8k_solutions, one pass", "warrant-extract", "crates/extract/examples/ab_callgrind.rs", lambda _: EXTRACT),
    ("check/store_10k_chunks, 84 checks", "warrant-check", "crates/check/examples/ab_callgrind.rs", store_example),
    ("check/answer_2kb_sources_5kb, 20 checks", "warrant-check", "crates/check/examples/ab_callgrind.rs", answer_example),
]

IR = re.compile(r"I\s+refs:\s+([\d,]+)")


def count(root: str, pkg: str, path: str, program: str) -> int:
    target = os.path.join(root, path)
    with open(target, "w", encoding="utf-8") as f:
        f.write(program)
    try:
        subprocess.run(["cargo", "build", "-q", "--profile", "quality", "-p", pkg, "--example", "ab_callgrind"], cwd=root, check=True)
        exe = os.path.join(root, "target", "quality", "examples", "ab_callgrind")
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=ab_callgrind::measured",
             "--callgrind-out-file=/dev/null", exe],
            cwd=root, capture_output=True, text=True, check=True)
    finally:
        os.remove(target)
    m = IR.search(out.stderr)
    if not m:
        sys.exit(f"{root}: no instruction count in callgrind's output:\n{out.stderr[-1000:]}")
    return int(m.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--only", help="run only the workloads whose label contains this text")
    a = ap.parse_args()
    print("| workload | before (instructions) | after (instructions) | change |")
    print("|---|---|---|---|")
    for label, pkg, path, make in WORKLOADS:
        if a.only and a.only not in label:
            continue
        b = count(a.before, pkg, path, make(a.before))
        n = count(a.after, pkg, path, make(a.after))
        print(f"| {label} | {b:,} | {n:,} | {(n - b) / b * 100:+.2f} % |", flush=True)


if __name__ == "__main__":
    main()
