#!/usr/bin/env python3
"""Writes a templated, highly repetitive source (issue 17, item 3): COUNT sentences from a few
templates with the numbers varying ("The service answers requests within 120 ms."), all in one
paragraph, about 45 bytes a sentence (40,000 sentences ≈ 1.8 MB). "ms." also abbreviates
"Ms." (a title), so the segmenter ends no sentence here: the text is one sentence 1.8 MB
long — the worst case for reading a sentence, and for quoting one.

    python3 bench/repetitive/gen.py 40000 > /tmp/rep40k.txt
    echo "The service answers requests within 120 ms." > /tmp/answer.txt
    target/quality/warrant check --sources /tmp/rep40k.txt /tmp/answer.txt

The criterion benchmark `repetitive/sources_check/*` (crates/check/benches/check.rs) builds
the same text in Rust (`repetitive_source`); keep the two in step.
"""
import sys

TEMPLATES = [
    "The service answers requests within {n} ms.",
    "The gateway forwards requests within {n} ms.",
    "The service answers health checks within {n} ms.",
    "The cache answers lookups within {n} ms.",
]


def source(count: int) -> str:
    return " ".join(TEMPLATES[i % len(TEMPLATES)].format(n=10 + (i * 37) % 990) for i in range(count)) + "\n"


if __name__ == "__main__":
    sys.stdout.write(source(int(sys.argv[1]) if len(sys.argv) > 1 else 40000))
