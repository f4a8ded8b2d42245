#!/usr/bin/env python3
"""Criterion benches of two checkouts side by side, interleaved, on the same machine state.

    python3 bench/criterion_ab.py --before DIR --after DIR [--rounds 2] [--quick]

Runs each bench target of BENCHES in DIR-before, then in DIR-after, alternating for
`--rounds` rounds (so a load change hits both sides), with the same environment (the large
setups scaled down by WARRANT_BENCH_* so a run fits in minutes; both sides get the same
sizes). Prints one Markdown row per benchmark: the best of the rounds' criterion medians on
each side and the change. Builds with `--profile quality` (optimised, no LTO) in each
checkout's own target directory.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

# (package, bench target, criterion filter or "")
BENCHES = [
    ("warrant-check", "check", "check/"),
    ("warrant-extract", "extract", ""),
    ("warrant-cpl", "eval", ""),
    ("warrant-cpl", "tool_schema", ""),
    ("warrant-llm", "replay", ""),
    ("warrant-answer", "ask", ""),
    ("warrant-store", "store", ""),
    ("warrant-research", "research", ""),
    ("warrant-ckf", "compile", ""),
]

ENV = {
    "WARRANT_BENCH_FACTS": "100000",
    "WARRANT_BENCH_CHUNKS": "10000",
}

NAME = re.compile(r"^(\S.*?)\s*(?:time:|$)")
TIME = re.compile(r"time:\s+\[([\d.]+) (\w+) ([\d.]+) (\w+) ([\d.]+) (\w+)\]")
UNIT = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def run(root: str, pkg: str, bench: str, filt: str, quick: bool) -> dict[str, float]:
    args = ["cargo", "bench", "--profile", "quality", "-q", "-p", pkg, "--bench", bench, "--"]
    if filt:
        args.append(filt)
    args += ["--noplot", "--warm-up-time", "1", "--measurement-time", "2" if quick else "4"]
    env = dict(os.environ, **ENV)
    out = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{root}: {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    found: dict[str, float] = {}
    name = None
    for line in out.stdout.splitlines():
        m = TIME.search(line)
        head = line.split("time:")[0].strip()
        if head and not line.startswith(" ") and "Benchmarking" not in line:
            name = head
        if m and name:
            found[name] = float(m.group(3)) * UNIT[m.group(4)]
    return found


def fmt(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-12:.3g} ps"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="package name to run alone")
    a = ap.parse_args()
    print("| bench | benchmark | before (median) | after (median) | change |")
    print("|---|---|---|---|---|")
    for pkg, bench, filt in BENCHES:
        if a.only and a.only != pkg:
            continue
        best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
        for _ in range(a.rounds):
            for side in ("before", "after"):
                for k, v in run(getattr(a, side), pkg, bench, filt, a.quick).items():
                    best[side][k] = min(v, best[side].get(k, v))
        for k in best["after"]:
            b, n = best["before"].get(k), best["after"][k]
            change = f"{(n - b) / b * 100:+.1f} %" if b else "—"
            print(f"| {bench} | {k} | {fmt(b) if b else '—'} | {fmt(n)} | {change} |", flush=True)


if __name__ == "__main__":
    main()
