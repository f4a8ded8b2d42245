#!/usr/bin/env python3
"""`import warrant` measured from Python: import time, one check in process, a batch of the
HaluEval QA judgments on every core, and memory over many calls.

    python3 -m pip install ./python            # a release build (or: maturin develop --release)
    python3 bench/python/run.py [--calls N] [--leak-calls N]

Needs ../shared/data (or $WARRANT_CONFORMANCE_DATA) for the HaluEval batch.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("WARRANT_CONFORMANCE_DATA", ROOT.parent / "shared/data"))


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def import_ms(runs: int = 15) -> float:
    """Median of (python -c 'import warrant') minus (python -c 'pass'), in ms."""
    def once(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t
    base = statistics.median(once("pass") for _ in range(runs))
    full = statistics.median(once("import warrant") for _ in range(runs))
    return (full - base) * 1000


def halueval_items() -> list[dict[str, object]]:
    path = DATA / "halueval/qa_one-turn_data.json"
    items = []
    with open(path) as f:
        for i, line in enumerate(l for l in f if l.strip()):
            item = json.loads(line)
            for field in ("right_answer", "hallucinated_answer"):
                items.append({"id": f"{i}-{field}", "answer": item[field], "question": item["question"],
                              "sources": [{"id": "knowledge", "text": item["knowledge"]}]})
    return items


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--leak-calls", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    print(f"import warrant: {import_ms():.1f} ms (median, interpreter start subtracted)")
    import warrant

    answer = (ROOT / "examples/check/answer.md").read_text(encoding="utf-8")
    sources = [(f"examples/check/sources/{p.name}", p.read_text(encoding="utf-8"))
               for p in sorted((ROOT / "examples/check/sources").iterdir())]
    for _ in range(50):
        warrant.check(answer, sources=sources)
    times = []
    for _ in range(args.calls):
        t = time.perf_counter()
        warrant.check(answer, sources=sources)
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"warrant.check, the demo answer against its 3 sources: median {statistics.median(times) * 1e3:.3f} ms, "
          f"p90 {times[int(len(times) * 0.9)] * 1e3:.3f} ms over {args.calls} calls")

    items = halueval_items()
    walls = []
    for _ in range(args.runs):
        t = time.perf_counter()
        out = warrant.check_batch(items)
        walls.append(time.perf_counter() - t)
    # As bench/check/halueval_batch.sh scores it: flagged = a claim unsupported or contradicted.
    correct = sum(1 for it, r in zip(items, out) if isinstance(r, warrant.Report)
                  and any(c.status in ("unsupported", "contradicted") for c in r.claims)
                  == str(it["id"]).endswith("hallucinated_answer"))
    print(f"warrant.check_batch, {len(items)} HaluEval QA judgments, {os.cpu_count()} cores: median "
          f"{statistics.median(walls):.3f} s over {args.runs} runs (accuracy {correct / len(items):.3f})")

    short = "The Team plan costs $12 per user per month."
    src = [("plans", "The Team plan costs $12 per user per month.")]
    for _ in range(1000):
        warrant.check(short, sources=src)
    before = rss_mib()
    t = time.perf_counter()
    for _ in range(args.leak_calls):
        warrant.check(short, sources=src).gate
    after = rss_mib()
    print(f"memory over {args.leak_calls} calls: RSS {before:.1f} MiB before, {after:.1f} MiB after "
          f"({time.perf_counter() - t:.1f} s)")


if __name__ == "__main__":
    main()
