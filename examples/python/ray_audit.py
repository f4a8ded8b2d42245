"""The batch audit on Ray Data, for when one machine is not enough: the JSON Lines of answers
are read as a Ray dataset and ``warrant.check_batch`` is mapped over its blocks, so Ray
schedules the blocks across its workers and machines. Each worker checks a block on every core
it has (the GIL released); the output is one row per answer, in the input's order.

Why Ray rather than Spark: a ``pip install`` (no JVM), Python objects end to end, and
``map_batches`` hands a worker a whole block, which is the unit ``check_batch`` parallelises.

    python3 -m pip install ./python "ray[data]"
    python3 examples/python/ray_audit.py answers.jsonl [--sources DIR] [--address auto]
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import sys
from typing import Any

import ray

import warrant


def audit_block(batch: dict[str, Any], sources: list[str] | None) -> dict[str, list[Any]]:
    """One block of rows (columns as lists) → one result row per answer."""
    items: list[Any] = []
    for line in batch["line"]:
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            # A line that is not JSON is that line's error, as in `warrant check --batch`.
            items.append({"id": None, "answer": None, "invalid": f"invalid JSON: {e}"})
    paths = [pathlib.Path(s) for s in sources] if sources else None
    out: dict[str, list[Any]] = {"id": [], "gate": [], "supported": [], "claims": [], "error": []}
    for item, r in zip(items, warrant.check_batch(items, sources=paths)):
        out["id"].append(str(item.get("id")))
        if isinstance(r, warrant.ItemError):
            message = item.get("invalid", r.message)
            out["gate"].append("error")
            out["supported"].append(0)
            out["claims"].append(0)
            out["error"].append(message)
        else:
            out["gate"].append(r.gate)
            out["supported"].append(r.summary.supported)
            out["claims"].append(r.summary.claims)
            out["error"].append("")
    return out


def audit(jsonl: pathlib.Path, sources: list[str] | None, block_rows: int = 256) -> list[dict[str, Any]]:
    """Every answer's result, in input order."""
    lines = [line for line in jsonl.read_text(encoding="utf-8").splitlines() if line.strip()]
    ds = ray.data.from_items([{"line": line} for line in lines])
    # Workers need not share this process's working directory.
    absolute = [str(pathlib.Path(s).resolve()) for s in sources] if sources else None
    def block(batch: Any) -> Any:
        return audit_block(batch, absolute)

    results = ds.map_batches(block, batch_size=block_rows, batch_format="numpy")
    return list(results.iter_rows())


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("jsonl", type=pathlib.Path)
    ap.add_argument("--sources", action="append", default=None)
    ap.add_argument("--address", default=None, help="a Ray cluster (default: a local one)")
    args = ap.parse_args(argv)
    ray.init(address=args.address, include_dashboard=False, logging_level=logging.ERROR)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    rows = audit(args.jsonl, args.sources)
    for row in rows:
        print(f"{row['id']}\t{row['gate']}\t{row['supported']}/{row['claims']} supported\t{row['error']}".rstrip())
    ray.shutdown()
    return 1 if any(r["gate"] in ("block", "error") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
