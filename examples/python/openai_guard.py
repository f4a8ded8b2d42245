"""Guard an OpenAI-SDK response before it reaches the user: check the assistant's message
against the passages it was generated from, and hold back a reply that states something the
passages contradict.

The response is built offline from the SDK's own types (``ChatCompletion.model_validate``), as
it would arrive from ``client.chat.completions.create(...)``; nothing is sent anywhere.

    python3 -m pip install ./python openai
    python3 examples/python/openai_guard.py
"""

from __future__ import annotations

import sys

from openai.types.chat import ChatCompletion

import warrant

PASSAGES = [
    ("pricing", "The Team plan costs $15 per user per month, billed annually, and includes 100 GB of storage."),
    ("security", "Session tokens expire after 60 minutes of inactivity."),
]


def completion(content: str) -> ChatCompletion:
    """A chat completion as the SDK returns it."""
    return ChatCompletion.model_validate({
        "id": "chatcmpl-offline", "object": "chat.completion", "created": 1767225600, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": None}}],
    })


def guard(response: ChatCompletion, question: str) -> tuple[str, warrant.Report]:
    """The text to show the user, and the report behind the decision."""
    report = warrant.check(response, sources=PASSAGES, question=question)
    if report.gate == "block":
        wrong = [c for c in report.claims if c.status == "contradicted"]
        reasons = "; ".join(f"{c.text!r}: {c.reason}" for c in wrong)
        return f"I can't confirm that answer against our documentation ({reasons}).", report
    return response.choices[0].message.content or "", report


def main() -> int:
    question = "How much is the Team plan?"
    for content in ("The Team plan costs $15 per user per month, billed annually.",
                    "The Team plan costs $12 per user per month."):
        shown, report = guard(completion(content), question)
        print(f"{report.gate:>6}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
