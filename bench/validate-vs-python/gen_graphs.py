#!/usr/bin/env python3
"""Writes N varied PredicateGraphs (derived from bench/fixtures/typical.graph.json) into
OUT/examples/gen/, a CAPE-style layout that `warrant validate --all OUT` walks.
Every tenth graph is made invalid in a different way, so both validators do real work on
both paths."""
import copy, json, os, random, sys

n = int(sys.argv[1]); out = sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
base = json.load(open(os.path.join(here, "..", "fixtures", "typical.graph.json")))
dest = os.path.join(out, "examples", "gen")
os.makedirs(dest, exist_ok=True)
rng = random.Random(42)
breakers = [
    lambda g: g["claims"][0].__setitem__("modality", "hedged"),
    lambda g: g.pop("citations"),
    lambda g: g["tool_calls"][0].__setitem__("arguments", []),
    lambda g: g["entities"][0].__setitem__("id", "E1"),
    lambda g: g["discourse_acts"][0].__setitem__("type", "QUESTION"),
]
for i in range(n):
    g = copy.deepcopy(base)
    g["output_id"] = f"gen-{i:05d}"
    # Vary sizes: drop or repeat some nodes so graphs are not identical.
    k = rng.randint(1, len(base["claims"]))
    g["claims"] = g["claims"][:k]
    g["discourse_acts"] = [dict(a, claim_refs=[r for r in a.get("claim_refs", []) if int(r[1:]) <= k]) for a in g["discourse_acts"]]
    g["citations"] = [c for c in g["citations"] if int(c["claim_id"][1:]) <= k]
    extra = rng.randint(0, 6)
    for j in range(extra):
        e = copy.deepcopy(base["entities"][j % len(base["entities"])])
        e["id"] = f"e{10 + j}"
        g["entities"].append(e)
    if i % 10 == 9:
        breakers[(i // 10) % len(breakers)](g)
    with open(os.path.join(dest, f"g{i:05d}.json"), "w") as f:
        json.dump(g, f)
print(f"wrote {n} graphs to {dest}")
