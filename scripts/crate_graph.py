#!/usr/bin/env python3
"""Prints the workspace's crate graph (normal dependencies between workspace crates), lowest
crates first, and checks that every dependency points down the printed order.

    python3 scripts/crate_graph.py          (uses `cargo metadata --no-deps`)
"""

from __future__ import annotations

import json
import subprocess
import sys


def main() -> int:
    meta = json.loads(subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"], check=True,
                                     capture_output=True, text=True).stdout)
    names = {p["name"] for p in meta["packages"]}
    deps = {p["name"]: sorted({d["name"] for d in p["dependencies"] if d["name"] in names and d["kind"] is None})
            for p in meta["packages"]}
    order: list[str] = []
    done: set[str] = set()
    while len(order) < len(deps):
        ready = sorted(n for n in deps if n not in done and all(d in done for d in deps[n]))
        if not ready:
            print("a cycle among: " + ", ".join(sorted(set(deps) - done)), file=sys.stderr)
            return 1
        order.extend(ready)
        done.update(ready)
    for n in order:
        print(f"{n:18} → {', '.join(deps[n]) or '—'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
