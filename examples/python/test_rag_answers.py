"""A pytest file over a small RAG test set: every answer must be grounded in the passages it
was generated from — the DeepEval-style workflow, with no model in the loop.

    python3 -m pytest examples/python/test_rag_answers.py
"""

from __future__ import annotations

import pytest

from warrant.testing import assert_grounded

PASSAGES = [
    ("handbook/security", "Session tokens expire after 60 minutes of inactivity. All data is encrypted at rest "
                          "with AES-256."),
    ("handbook/pricing", "The Team plan costs $15 per user per month, billed annually, and includes 100 GB of "
                         "storage per workspace."),
]

CASES = [
    ("When do sessions expire?", "Session tokens expire after one hour of inactivity."),
    ("How much storage does the Team plan include?", "The Team plan includes 100 GB of storage per workspace."),
    ("How is data protected?", "All data is encrypted at rest with AES-256."),
]


@pytest.mark.parametrize(("question", "answer"), CASES)
def test_the_answer_is_grounded(question: str, answer: str) -> None:
    report = assert_grounded(answer, PASSAGES, question=question, allow="allow")
    assert all(edge.source_id.startswith("handbook/") for c in report.claims for edge in c.edges)


def test_a_wrong_price_is_caught() -> None:
    with pytest.raises(AssertionError, match="contradicted"):
        assert_grounded("The Team plan costs $12 per user per month.", PASSAGES)
