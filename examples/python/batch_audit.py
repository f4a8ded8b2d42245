"""Audit a JSON Lines file of model answers (`{"id", "answer", "question"?, "sources"?}` per
line, as `warrant check --batch` reads it) on every core, and print one line per answer.

    python3 examples/python/batch_audit.py answers.jsonl [--sources DIR]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections import Counter

import warrant


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("jsonl", type=pathlib.Path)
    ap.add_argument("--sources", type=pathlib.Path, action="append", default=None)
    args = ap.parse_args(argv)
    items: list[object] = []
    bad: list[str] = []
    with args.jsonl.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as e:
                    # A bad line is that line's error, as in `warrant check --batch`.
                    bad.append(f"line {number}\terror\tinvalid JSON: {e}")
    results = warrant.check_batch(items, sources=args.sources)
    gates: Counter[str] = Counter(error=len(bad))
    for line in bad:
        print(line)
    for r in results:
        if isinstance(r, warrant.ItemError):
            gates["error"] += 1
            print(f"{r.id}\terror\t{r.message}")
        else:
            gates[r.gate] += 1
            s = r.summary
            print(f"{r.output_id}\t{r.gate}\t{s.supported}/{s.claims} supported, {s.contradicted} contradicted")
    print(dict(sorted(gates.items())), file=sys.stderr)
    return 1 if gates["block"] or gates["error"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
