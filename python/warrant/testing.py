"""Test helpers: ``assert_grounded`` fails a test when an answer is not grounded in its
sources, with the claim-by-claim report as the message (no model involved)."""

from __future__ import annotations

from typing import Any, Sequence

from . import Report, SourceLike, check

__all__ = ["assert_grounded"]

_ORDER = ("allow", "review", "block")


def assert_grounded(answer: Any, sources: Sequence[SourceLike], *, allow: str = "review",
                    question: str | None = None, **options: Any) -> Report:
    """Checks ``answer`` against ``sources`` and raises ``AssertionError`` when the gate is past
    ``allow`` (``"allow"``: every claim must be supported; ``"review"``, the default: nothing
    may be contradicted or fail a policy). Returns the report for further assertions."""
    if allow not in _ORDER:
        raise ValueError(f"allow: expected one of {', '.join(_ORDER)}, not {allow!r}")
    report = check(answer, sources=sources, question=question, **options)
    if _ORDER.index(report.gate) > _ORDER.index(allow):
        raise AssertionError(f"the answer is not grounded (gate {report.gate}, allowed up to {allow}):\n{report.text()}")
    return report
