"""Check the bundled demo answer against its three source documents, in process.

    python3 -m pip install ./python
    python3 examples/python/quickstart.py
"""

from __future__ import annotations

import pathlib
import sys

import warrant

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main() -> int:
    answer = (ROOT / "examples/check/answer.md").read_text(encoding="utf-8")
    report = warrant.check(answer, sources=[ROOT / "examples/check/sources"])
    print(report)
    for claim in report.claims:
        print(f"  {claim.id} {claim.status:<20} {claim.text}")
        for edge in claim.edges:
            print(f"      {edge.relationship} {edge.source_id} [{edge.start}–{edge.end}]: \"{edge.quote}\"")
    print(f"gate: {report.gate}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
