#!/usr/bin/env python3
"""Deterministic JSON Lines corpus for `warrant ingest` benchmarks.

  gen_corpus.py MB DENSITY [SEED [PREFIX]] > corpus.jsonl

DENSITY is `dense` (every sentence states a fact the default vocabulary extracts) or `prose`
(one sentence in five does; the rest is filler). Documents have four paragraphs of about 600
characters; ids are PREFIX-<n> (default `doc`). Same arguments, same bytes.
"""
import json
import random
import sys

SYL = "ka lo mi ra tu ne so vi de po zu fa gi ha jo ku le mo ni pa ri se ta we".split()


def words(n):
    out = []
    for i in range(n):
        w, k = "", i
        for _ in range(3):
            w += SYL[k % len(SYL)]
            k //= len(SYL)
        out.append(w + (str(k) if k else ""))
    return out


def main():
    mb, density = float(sys.argv[1]), sys.argv[2]
    every = {"dense": 1, "prose": 5}[density]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    prefix = sys.argv[4] if len(sys.argv) > 4 else "doc"
    vocab = words(20000)
    zipf = lambda: vocab[min(int(len(vocab) ** rng.random()) - 1, len(vocab) - 1)]
    templates = [
        "The {s} tokens expire after {n} minutes of inactivity.",
        "The {s} keys are valid for {n} days.",
        "The {s} record was created on 2024-0{m}-1{d}.",
        "The {s} service requires {w} approval.",
        "The {s} bundle contains {w} logs.",
        "The {s} module is part of the {w} platform.",
        "The {s} limit is {n} ms.",
        "The {s} endpoint is deprecated.",
        "The {s} cache is a {w}.",
    ]
    out, total, doc, k = sys.stdout, 0, 0, 0
    while total < mb * 1e6:
        paras = []
        for _ in range(4):
            sentences = []
            while sum(len(x) + 1 for x in sentences) < 600:
                k += 1
                if k % every == 0:
                    s = rng.randrange(200000)
                    n = 1 + rng.randrange(500)
                    subject = f"{vocab[s % 97]} {vocab[100 + s % 89]} {s}"
                    sentences.append(templates[k % 9].format(s=subject, n=n, m=1 + n % 9, d=n % 10, w=zipf()))
                else:
                    sentences.append(" ".join(zipf() for _ in range(10)).capitalize() + ".")
            paras.append(" ".join(sentences))
        text = "\n\n".join(paras)
        total += len(text.encode())
        out.write(json.dumps({"id": f"{prefix}-{doc}", "text": text, "version": "1.0"}) + "\n")
        doc += 1


main()
