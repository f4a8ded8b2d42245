#!/usr/bin/env python3
"""Trains the verifier's combiner and measures its calibration, on the `dev` halves only.

The combiner is a logistic regression over the signals `warrant check --explain` reports for
each claim (coverage of the claim by the best passage and by two passages together, missing
names/numbers/dates, window size, negation, …). It decides whether a claim the rules did not
find contradicted is supported. The script:

1. runs `check --batch --explain` over the dev half of every labelled set;
2. labels each claim (see `labels()`: a claim inherits its item's label where that is sound —
   every claim of a clean item is supported; an item with a problem labels its claim only when
   it has one checkable claim, or, for SummEdits, the claim the edit touched);
3. fits the regression (each set weighs the same, each class within a set the same; L2);
4. picks the threshold that maximises the mean balanced accuracy over the sets;
5. writes `crates/verify/data/combiner.tsv` (weights, threshold).

Then `calibrate` (run.py's reports on the dev half, after a rebuild) writes
`crates/verify/data/calibration.tsv`: per status and kind of evidence, the share of claims whose
status the labels confirm — the `confidence` a claim gets.

    bench/quality/train.py fit        [--bin target/quality/warrant]
    bench/quality/train.py tune       [--bin target/quality/warrant]   (the floor only)
    bench/quality/train.py calibrate  [--bin target/quality/warrant]

Pure Python (no third-party packages): the data are a few thousand claims.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

ROOT = run.ROOT
COMBINER = os.path.join(ROOT, "crates", "verify", "data", "combiner.tsv")
CALIBRATION = os.path.join(ROOT, "crates", "verify", "data", "calibration.tsv")
SETS = ["factcheck-gpt", "wice", "summedits", "begin", "dialfact", "halueval"]
# Least (balanced-class) precision of `supported` the threshold may give.
PRECISION = 0.85
# How much of `supported`'s precision `tune` may give up for accuracy.
TUNE_SLACK = 0.01


def reports_for(binary, name, split="dev", explain=True):
    items = [it for it in run.SETS[name]() if it[0] == split]
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "b.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for _, l, _ in items:
                f.write(json.dumps(l, ensure_ascii=False) + "\n")
        cmd = [binary, "check", "--batch", path] + (["--explain"] if explain else [])
        out = subprocess.run(cmd, capture_output=True).stdout.decode("utf-8", "replace")
    reports = {}
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        reports[str(r.get("output_id"))] = r
    return [(l, g, reports.get(l["id"])) for _, l, g in items]


def checkable(claims):
    return [c for c in claims if c["status"] not in ("not_applicable", "unverified")]


def judge_not_applicable(name, gold, claims):
    """For an item whose claims are all not_applicable: 1 when its labels say there is nothing
    to check (an opinion, a personal statement, a generic reply), 0 when they say otherwise,
    None when they cannot say."""
    if name in ("factcheck-gpt", "dialfact"):
        return int(gold["status"] == "not_applicable")
    if name == "begin":
        return int(gold["label"] == "generic") if gold["label"] != "not_attributable" else None
    return None


def labels(name, line, gold, report):
    """(claim, label) pairs: 1 = the sources support it, 0 = they do not."""
    if report is None or "claims" not in report:
        return []
    claims = checkable(report["claims"])
    if name in ("factcheck-gpt", "dialfact"):
        st = gold["status"]
        # Partial support says neither: the claim is not wholly stated, nor is it unfounded.
        if st in ("not_applicable", "partially_supported"):
            return []
        good = st == "supported"
    elif name == "wice":
        if gold["status"] == "partially_supported":
            return []
        good = gold["status"] == "supported"
    elif name == "begin":
        if gold["label"] == "generic":
            return []
        good = gold["label"] == "attributable"
    elif name == "halueval":
        good = gold["label"] == "clean"
    elif name == "summedits":
        if gold["label"] == "consistent":
            return [(c, 1) for c in claims]
        # The edit sits in the claims whose text the seed summary does not have.
        original = gold.get("original", "")
        edited = [c for c in claims if c["text"] not in original]
        return [(c, 0) for c in edited] if len(edited) == 1 else []
    else:
        return []
    if good:
        return [(c, 1) for c in claims]
    return [(claims[0], 0)] if len(claims) == 1 else []


def vector(features, names):
    x = []
    for n in names:
        v = float(features.get(n, 0.0))
        if n in ("keys", "specifics", "missing", "union_missing"):
            v = math.log1p(v)
        x.append(v)
    return x


def fit(rows, names, l2=1.0, iterations=25):
    """Weighted logistic regression with an L2 penalty, by Newton's method (IRLS)."""
    d = len(names) + 1
    w = [0.0] * d
    for _ in range(iterations):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        for x, y, wt in rows:
            xv = [1.0] + x
            z = sum(a * b for a, b in zip(w, xv))
            p = 1.0 / (1.0 + math.exp(-max(min(z, 30), -30)))
            e = (p - y) * wt
            s = p * (1 - p) * wt
            for i in range(d):
                grad[i] += e * xv[i]
                si = s * xv[i]
                row = hess[i]
                for j in range(i, d):
                    row[j] += si * xv[j]
        for i in range(d):
            for j in range(i):
                hess[i][j] = hess[j][i]
            if i:
                grad[i] += l2 * w[i]
                hess[i][i] += l2
        step = solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(v) for v in step) < 1e-7:
            break
    return w


def solve(a, b):
    """Gaussian elimination with partial pivoting: a x = b."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) < 1e-12:
            continue
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def coverage(features):
    """The share of the claim the best passage, or passages together, state in some form."""
    return max(float(features.get("related_support", 0.0)), float(features.get("union_support", 0.0)))


def gated(features):
    """The verifier lets the combiner judge only claims that are not bare answers and whose every
    name, amount and date the passages state."""
    return not features.get("bare") and (not features.get("missing") or not features.get("union_missing"))


# Coverage above which the verifier lets the combiner judge a claim whose passages lack a
# detail (`CLEAR_COVERAGE`); below it only a claim without one (the `detail` signal).
CLEAR_COVERAGE = 0.8


def prob(w, x):
    z = w[0] + sum(a * b for a, b in zip(w[1:], x))
    return 1.0 / (1.0 + math.exp(-max(min(z, 30), -30)))


def claim_data(binary):
    """Per set, (features, label) of the dev claims the combiner judges."""
    data = {}
    for name in SETS:
        rows = []
        for line, gold, report in reports_for(binary, name):
            for c, y in labels(name, line, gold, report):
                if c.get("status") == "contradicted" or not c.get("features"):
                    continue
                rows.append((c["features"], y))
        data[name] = rows
        pos = sum(y for _, y in rows)
        print(f"{name}: {len(rows)} claims ({pos} supported)", file=sys.stderr)
    return data


def cmd_fit(args):
    data = claim_data(args.bin)
    # `detail` is worked out after the combiner has spoken (it gates its verdict), so it is no
    # input of it.
    names = sorted({k for rows in data.values() for f, _ in rows for k in f} - {"detail"})
    train = []
    for name, rows in data.items():
        pos = sum(y for _, y in rows) or 1
        neg = (len(rows) - pos) or 1
        for f, y in rows:
            # Each set weighs the same; within a set, each class the same.
            wt = 1000.0 / (2 * (pos if y else neg))
            train.append((vector(f, names), y, wt))
    w = fit(train, names)
    best = choose(data, names, w)
    write_combiner(best, names, w)
    print(f"wrote {COMBINER}", file=sys.stderr)


def cmd_tune(args):
    """Keeps the shipped weights and threshold and chooses the floor again (after a change to
    the verifier that moves its claims, or to the gates), so that a refit's noise does not
    ride along with a change that needs none."""
    names, w, threshold, floor = [], [0.0], None, 0.8
    with open(COMBINER, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            key, value = line.rstrip("\n").split("\t")
            if key == "intercept":
                w[0] = float(value)
            elif key == "threshold":
                threshold = float(value)
            elif key == "floor":
                floor = float(value)
            elif key not in ("threshold", "floor"):
                names.append(key)
                w.append(float(value))
    data = claim_data(args.bin)
    # A floor may cost `supported` at most TUNE_SLACK of the precision it has at the present
    # floor (or keep PRECISION, if that is lower).
    at_present = measure(data, names, w, threshold, floor)
    best = choose(data, names, w, threshold, min(PRECISION, at_present[1] - TUNE_SLACK))
    print(f"at floor {floor:.2f}: accuracy {at_present[0]:.3f}, precision {at_present[1]:.3f}", file=sys.stderr)
    write_combiner(best, names, w)
    print(f"wrote {COMBINER}", file=sys.stderr)


def write_combiner(best, names, w):
    with open(COMBINER, "w") as f:
        f.write("# The verifier's combiner: logistic regression over the signals `check --explain`\n")
        f.write("# reports. Written by bench/quality/train.py fit (weights, threshold) and tune (floor) on the dev\n")
        f.write("# halves of the labelled sets;\n")
        f.write("# do not edit by hand. Counts (keys, specifics, missing, union_missing) enter as ln(1+x).\n")
        f.write(f"threshold\t{best[1]:.2f}\n")
        f.write(f"floor\t{best[2]:.2f}\n")
        f.write(f"intercept\t{w[0]:.6f}\n")
        for n, v in zip(names, w[1:]):
            f.write(f"{n}\t{v:.6f}\n")


def scores(scored, t, floor):
    """Mean balanced accuracy and mean balanced precision of `supported` over the sets."""
    accs, precisions = [], []
    for rows in scored.values():
        said = [(p >= t and (c >= CLEAR_COVERAGE or (c >= floor and not d)) and ok, y) for p, c, d, ok, y in rows]
        tp = sum(1 for s, y in said if y and s)
        fp = sum(1 for s, y in said if not y and s)
        pos = sum(y for _, y in said) or 1
        neg = (len(said) - sum(y for _, y in said)) or 1
        tn = neg - fp
        accs.append((tp / pos + tn / neg) / 2)
        # Precision at balanced classes, so a set's base rate does not carry it.
        tpr, fpr = tp / pos, fp / neg
        precisions.append(tpr / (tpr + fpr) if tpr + fpr else 1.0)
    return sum(accs) / len(accs), sum(precisions) / len(precisions)


def scored_claims(data, names, w):
    return {
        name: [(prob(w, vector(f, names)), coverage(f), bool(f.get("detail")), gated(f), y) for f, y in rows]
        for name, rows in data.items()
    }


def measure(data, names, w, t, floor):
    return scores(scored_claims(data, names, w), t, floor)


def choose(data, names, w, threshold=None, precision=PRECISION):
    """(mean balanced accuracy, threshold, floor) for weights `w` on the claims of `data`; with
    `threshold`, only the floor is chosen. `supported` keeps `precision` or more."""
    # Threshold and coverage floor: the best mean balanced accuracy over the sets among those
    # whose `supported` keeps its precision (pooled, each set weighing the same) at PRECISION
    # or more: a claim called supported must be one. The floor is the least share of the
    # claim's words (in some form, by the best passage or passages together) the combiner may
    # call supported (`COMBINED_FLOOR` in the verifier, read from the table).
    scored = scored_claims(data, names, w)
    best = (0.0, 0.95, 0.8)
    for floor in [i / 20 for i in range(10, 17)]:
        for t in [threshold] if threshold is not None else [i / 100 for i in range(5, 96)]:
            m, p = scores(scored, t, floor)
            if p >= precision - 1e-9 and m > best[0] + 1e-9:
                best = (m, t, floor)
    print(f"threshold {best[1]:.2f}, floor {best[2]:.2f}: mean claim-level balanced accuracy {best[0]:.3f} (dev)", file=sys.stderr)
    return best


def evidence_kind(claim):
    """The kind of evidence a status rests on, for calibration: its reason's first words."""
    status = claim["status"]
    reason = claim.get("reason", "")
    if status == "contradicted":
        for kind in ("states", "names", "says", "opposite", "different date", "limits"):
            if kind in reason:
                return kind.replace(" ", "_")
        return "other"
    if status == "supported":
        return "passages" if "passages of" in reason else "one_passage"
    if status == "unsupported":
        return "lacks_specific" if "lacks" in reason else "not_found"
    return "any"


def cmd_calibrate(args):
    """Per (status, evidence kind): how often the labels agree with the status, on dev."""
    agree = defaultdict(lambda: [0, 0])
    for name in SETS:
        for line, gold, report in reports_for(args.bin, name, explain=False):
            if report is None or "claims" not in report:
                continue
            every = report["claims"]
            if every and all(c["status"] == "not_applicable" for c in every):
                verdict = judge_not_applicable(name, gold, every)
                if verdict is not None:
                    agree[("not_applicable", "any")][0] += verdict
                    agree[("not_applicable", "any")][1] += 1
            claims = checkable(every)
            for c in claims:
                st = c["status"]
                key = (st, evidence_kind(c))
                verdict = judge(name, gold, line, c, claims)
                if verdict is None:
                    continue
                agree[key][0] += verdict
                agree[key][1] += 1
    with open(CALIBRATION, "w") as f:
        f.write("# Measured precision of each status per kind of evidence: the share of claims given\n")
        f.write("# that status whose labels agree, on the dev halves of the labelled sets. Written by\n")
        f.write("# bench/quality/train.py calibrate; do not edit by hand. status, kind, precision, claims.\n")
        for (st, kind), (ok, n) in sorted(agree.items()):
            f.write(f"{st}\t{kind}\t{ok / n:.3f}\t{n}\n")
            print(f"{st:20} {kind:15} {ok / n:.3f} ({n})", file=sys.stderr)
    print(f"wrote {CALIBRATION}", file=sys.stderr)


def judge(name, gold, line, claim, claims):
    """1 when the labels agree with the claim's status, 0 when not, None when they cannot say."""
    st = claim["status"]
    single = len(claims) == 1
    if name in ("factcheck-gpt", "dialfact"):
        g = gold["status"]
        if g == "not_applicable":
            return None
        if st == "contradicted":
            return int(g == "contradicted")
        if st == "supported":
            return int(g in ("supported", "partially_supported"))
        if st == "partially_supported":
            return int(g in ("supported", "partially_supported"))
        return int(g in ("unsupported", "contradicted")) if single or g in ("unsupported", "contradicted") else None
    good = {"wice": gold.get("status") == "supported", "begin": gold.get("label") == "attributable",
            "halueval": gold.get("label") == "clean", "summedits": gold.get("label") == "consistent"}[name]
    if name == "begin" and gold.get("label") == "generic":
        return None
    if st in ("supported", "partially_supported"):
        if good:
            return 1
        if name == "summedits":
            return int(claim["text"] in (gold.get("original", "")))
        return 0 if single else None
    # unsupported or contradicted: right when the item has a problem and this is its claim.
    if good:
        return 0
    if name == "summedits":
        return int(claim["text"] not in (gold.get("original", "")))
    return 1 if single else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["fit", "tune", "calibrate"])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "quality", "warrant"))
    args = ap.parse_args()
    {"fit": cmd_fit, "tune": cmd_tune, "calibrate": cmd_calibrate}[args.command](args)


if __name__ == "__main__":
    main()
