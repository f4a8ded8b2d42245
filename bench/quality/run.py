#!/usr/bin/env python3
"""Quality of `warrant check` on the human-labelled development sets.

Runs `warrant check --batch` over every set in ../shared/data (or $WARRANT_CONFORMANCE_DATA)
and prints, per set, the metrics its PROVENANCE.md suggests, plus gate-level figures that
match how users meet the tool (block precision, share of clean items allowed, F1 of
flagged = gate != allow).

Splits. Every set is cut in two by a hash of a grouping key (the response, document, dialogue
or knowledge snippet an item belongs to, so related items stay together):
  - `dev`  — the half we develop against and train the combiner on (bench/quality/train.py);
  - `held` — the half kept aside as our own check against over-fitting. Look at its figures,
             never at its items.
`--split all` reports both halves and the whole set.

    bench/quality/run.py [--bin target/release/warrant] [--split dev|held|all] [--sets a,b]
                         [--dump DIR]   (per-item gold, prediction and claims, for error analysis)
                         [--json FILE]  (the metrics, machine-readable)

Status of an item (the "problem" rule of issue 16): contradicted if any claim is contradicted;
else unsupported if any claim is unsupported; else supported (partially supported claims are
not a problem here; for WiCE, whose labels separate them, supported needs every checkable
claim supported); an item whose claims are all not_applicable is not_applicable.
"""

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("WARRANT_CONFORMANCE_DATA") or os.path.join(ROOT, "..", "shared", "data")


def half(set_name, key):
    """`dev` or `held`, fixed by a hash of the item's group key."""
    h = hashlib.sha256(f"{set_name}\0{key}".encode()).digest()
    return "dev" if h[0] < 128 else "held"


def line(item_id, answer, sources, question=None):
    """sources: (id, text) or (id, text, title) tuples."""
    out = {"id": item_id, "answer": answer,
           "sources": [{"id": src[0], "text": src[1], **({"title": src[2]} if len(src) > 2 and src[2] else {})} for src in sources]}
    if question:
        out["question"] = question
    return out


# ---------------------------------------------------------------------------------------------
# Sets: each yields (split, batch line, gold) with gold a dict of labels.


def factcheck_gpt():
    path = os.path.join(DATA, "factcheck-gpt", "factcheck-GPT-benchmark.jsonl")
    with open(path, encoding="utf-8") as f:
        for r_no, raw in enumerate(f):
            if not raw.strip():
                continue
            rec = json.loads(raw)
            split = half("factcheck-gpt", rec["prompt"])
            for s_key, sent in rec["sentences"].items():
                for c_no, claim in enumerate(sent["claims"]):
                    worth = sent["claim_checkworthiness"][c_no]
                    passages = sent["auto_evidence"][c_no] if c_no < len(sent["auto_evidence"]) else []
                    stances = sent["stance_claim_autoEvid"][c_no] if c_no < len(sent["stance_claim_autoEvid"]) else []
                    if worth != "factual":
                        gold = "not_applicable"
                    elif "completely-support" in stances:
                        gold = "supported"
                    elif "refute" in stances:
                        gold = "contradicted"
                    elif "partially-support" in stances:
                        gold = "partially_supported"
                    else:
                        gold = "unsupported"
                    sources = [(f"p{i + 1}", p) for i, p in enumerate(passages) if isinstance(p, str) and p.strip()]
                    if not sources:
                        continue
                    item_id = f"fc-{r_no}-{s_key}-{c_no}"
                    yield split, line(item_id, claim, sources, rec["prompt"]), {"status": gold}


def wice():
    for part in ("dev", "test"):
        path = os.path.join(DATA, "wice", "data", "entailment_retrieval", "claim", f"{part}.jsonl")
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f):
                if not raw.strip():
                    continue
                rec = json.loads(raw)
                gold = {"supported": "supported", "partially_supported": "partially_supported",
                        "not_supported": "unsupported"}[rec["label"]]
                split = half("wice", rec["meta"]["id"])
                text = "\n".join(rec["evidence"])
                yield split, line(f"wice-{part}-{n}", rec["claim"], [("article", text)]), {"status": gold}


def summedits():
    for dom in ("sales_call", "sales_email"):
        path = os.path.join(DATA, "summedits", "data", "summedits", f"summedits_{dom}.json")
        with open(path, encoding="utf-8") as f:
            recs = json.load(f)
        for rec in recs:
            split = half("summedits", hashlib.sha256(rec["doc"].encode()).hexdigest())
            gold = "consistent" if rec["label"] == 1 else "inconsistent"
            yield split, line(f"se-{rec['id']}", rec["summary"], [("doc", rec["doc"])]), {"label": gold, "edits": rec.get("edit_types") or [], "original": rec.get("original_summary") or ""}


def begin():
    files = [("wow", "begin_dev_wow.tsv"), ("wow", "begin_test_wow.tsv"), ("cmu-dog", "begin_dev_cmu.tsv"),
             ("topicalchat", "begin_dev_tc.tsv")]
    for folder, name in files:
        path = os.path.join(DATA, "begin", folder, name)
        with open(path, encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        for n, row in enumerate(rows[1:]):
            if len(row) != 6:
                continue
            model, _src, knowledge, message, response, label = row
            split = half("begin", knowledge)
            gold = {"Fully attributable": "attributable", "Not fully attributable": "not_attributable",
                    "Generic": "generic"}[label]
            yield split, line(f"begin-{name}-{n}", response, [("knowledge", knowledge)], message), {"label": gold}


def dialfact():
    path = os.path.join(DATA, "dialfact", "scripts", "testsmall.jsonl")
    with open(path, encoding="utf-8") as f:
        for raw in f:
            if not raw.strip():
                continue
            rec = json.loads(raw)
            split = half("dialfact", rec["context_id"])
            label = rec["response_label"]
            if label == "SUPPORTS":
                gold = "supported"
            elif label == "REFUTES":
                gold = "contradicted"
            elif rec.get("type_label") == "personal":
                gold = "not_applicable"
            else:
                gold = "unsupported"
            # Each snippet under its Wikipedia page's title, as a retrieval system gives them.
            sources = [(f"e{i + 1}", e[2], e[0]) for i, e in enumerate(rec["evidence_list"]) if len(e) > 2 and e[2].strip()]
            question = rec["context"][-1] if rec["context"] else None
            yield split, line(f"df-{rec['id']}", rec["response"], sources, question), {"status": gold}


def halueval():
    path = os.path.join(DATA, "halueval", "qa_one-turn_data.json")
    with open(path, encoding="utf-8") as f:
        for i, raw in enumerate(l for l in f if l.strip()):
            item = json.loads(raw)
            split = half("halueval", item["question"])
            for field in ("right_answer", "hallucinated_answer"):
                gold = "clean" if field == "right_answer" else "hallucinated"
                yield split, line(f"he-{i}-{field}", item[field], [("knowledge", item["knowledge"])], item["question"]), {"label": gold}


SETS = {
    "factcheck-gpt": factcheck_gpt,
    "wice": wice,
    "summedits": summedits,
    "begin": begin,
    "dialfact": dialfact,
    "halueval": halueval,
}


# ---------------------------------------------------------------------------------------------
# Reading the reports.


def item_status(report, strict_supported=False):
    """One status for an item from its claims (see the module doc)."""
    statuses = [c["status"] for c in report.get("claims", [])]
    checkable = [s for s in statuses if s not in ("not_applicable",)]
    if not checkable:
        return "not_applicable" if statuses else "unverified"
    if "contradicted" in checkable:
        return "contradicted"
    if "unsupported" in checkable:
        return "unsupported"
    if strict_supported and any(s != "supported" for s in checkable):
        return "partially_supported"
    if all(s == "unverified" for s in checkable):
        return "unverified"
    return "supported"


def problem(status):
    return status in ("contradicted", "unsupported")


def begin_flagged(report):
    """BEGIN's reading (its PROVENANCE): a response is fully attributable when all it says is
    in the knowledge ("all claims supported"). Flagged: any claim unsupported, contradicted or
    partially supported, or any claim that is the speaker's own ("I love hiking", "I met him in
    1977"): it carries information the knowledge does not, so the response is not fully
    attributable in BEGIN's terms, even though Warrant rightly reports that claim as not
    checkable. (Until the ninth stop this counted only responses whose every claim was
    personal; a personal claim beside a supported one now counts too, as the PROVENANCE's
    mapping says.) A response with no claim at all, or only opinions and pleasantries, is
    generic (BEGIN's third class, on the clean side)."""
    claims = report.get("claims", [])
    statuses = [c["status"] for c in claims]
    if any(s in ("contradicted", "unsupported", "partially_supported") for s in statuses):
        return True
    return any(c["status"] == "not_applicable" and "personal" in c.get("reason", "") for c in claims)


class Tally:
    """Binary and multi-class counts."""

    def __init__(self):
        self.confusion = Counter()  # (gold, predicted) -> n

    def add(self, gold, pred):
        self.confusion[(gold, pred)] += 1

    def n(self):
        return sum(self.confusion.values())

    def accuracy(self, classes=None):
        pairs = [(g, p, k) for (g, p), k in self.confusion.items() if classes is None or g in classes]
        total = sum(k for _, _, k in pairs)
        return sum(k for g, p, k in pairs if g == p) / total if total else float("nan")

    def balanced(self, classes):
        recalls = []
        for c in classes:
            total = sum(k for (g, _), k in self.confusion.items() if g == c)
            if total:
                recalls.append(self.confusion[(c, c)] / total)
        return sum(recalls) / len(recalls) if recalls else float("nan")

    def precision(self, cls):
        total = sum(k for (_, p), k in self.confusion.items() if p == cls)
        return (self.confusion[(cls, cls)] / total if total else float("nan")), total


def binary(tp, fp, tn, fn):
    prec = tp / (tp + fp) if tp + fp else float("nan")
    rec = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    tpr = rec
    tnr = tn / (tn + fp) if tn + fp else float("nan")
    return {"precision": prec, "recall": rec, "f1": f1, "balanced_accuracy": (tpr + tnr) / 2}


def evaluate(set_name, rows):
    """rows: (gold, report or None). Returns a dict of metrics."""
    m = {"items": len(rows), "errors": sum(1 for _, r in rows if r is None or "error" in r)}
    ok = [(g, r) for g, r in rows if r is not None and "error" not in r]
    gate = Counter()
    # Gate-level figures: "bad" = the item really has a problem.
    bad_of = {
        "factcheck-gpt": lambda g: g["status"] in ("contradicted", "unsupported"),
        "wice": lambda g: g["status"] != "supported",
        "summedits": lambda g: g["label"] == "inconsistent",
        "begin": lambda g: g["label"] == "not_attributable",
        "dialfact": lambda g: g["status"] in ("contradicted", "unsupported"),
        "halueval": lambda g: g["label"] == "hallucinated",
    }[set_name]
    clean_of = {
        "factcheck-gpt": lambda g: g["status"] in ("supported", "partially_supported", "not_applicable"),
        "begin": lambda g: g["label"] in ("attributable", "generic"),
        "dialfact": lambda g: g["status"] in ("supported", "not_applicable"),
    }.get(set_name, lambda g: not bad_of(g))
    tp = fp = tn = fn = 0
    blocks = right_blocks = 0
    clean = clean_allowed = 0
    for g, r in ok:
        bad = bad_of(g)
        flagged = r["gate"] != "allow"
        gate[r["gate"]] += 1
        if r["gate"] == "block":
            blocks += 1
            right_blocks += bad
        if clean_of(g):
            clean += 1
            clean_allowed += r["gate"] == "allow"
        tp += bad and flagged
        fp += (not bad) and flagged
        tn += (not bad) and not flagged
        fn += bad and not flagged
    gm = binary(tp, fp, tn, fn)
    m["gate"] = dict(gate)
    m["block_precision"] = right_blocks / blocks if blocks else float("nan")
    m["blocks"] = blocks
    m["clean_allowed"] = clean_allowed / clean if clean else float("nan")
    m["gate_f1"] = gm["f1"]

    t = Tally()
    if set_name in ("factcheck-gpt", "dialfact"):
        three = {"supported": "supported", "partially_supported": "supported", "contradicted": "contradicted",
                 "unsupported": "unsupported", "not_applicable": "not_applicable", "unverified": "unsupported"}
        for g, r in ok:
            t.add(three[g["status"]], three[item_status(r)])
        classes = ["supported", "contradicted", "unsupported"]
        m["headline"] = ("3-class accuracy", t.accuracy(classes))
        m["balanced_accuracy"] = t.balanced(classes)
        p, k = t.precision("contradicted")
        m["contradicted_precision"] = (p, k)
        na_total = sum(k for (g, _), k in t.confusion.items() if g == "not_applicable")
        m["not_applicable_recall"] = (t.confusion[("not_applicable", "not_applicable")] / na_total) if na_total else float("nan")
    elif set_name == "wice":
        for g, r in ok:
            t.add("supported" if g["status"] == "supported" else "not", "supported" if item_status(r, True) == "supported" else "not")
        m["headline"] = ("balanced accuracy, supported vs not", t.balanced(["supported", "not"]))
        # WiCE has no contradiction class; a contradiction is right when the claim is not supported.
        blocks_c = sum(1 for _, r in ok if item_status(r) == "contradicted")
        right_c = sum(1 for g, r in ok if item_status(r) == "contradicted" and g["status"] != "supported")
        m["contradicted_precision"] = (right_c / blocks_c if blocks_c else float("nan"), blocks_c)
    elif set_name in ("summedits", "begin", "halueval"):
        gold_bad = {"summedits": "inconsistent", "begin": "not_attributable", "halueval": "hallucinated"}[set_name]
        flag = begin_flagged if set_name == "begin" else (lambda r: problem(item_status(r)))
        for g, r in ok:
            gl = "bad" if g["label"] == gold_bad else "good"
            t.add(gl, "bad" if flag(r) else "good")
        name = {"summedits": "balanced accuracy, consistent vs not", "begin": "balanced accuracy, attributable vs not",
                "halueval": "accuracy"}[set_name]
        m["headline"] = (name, t.accuracy() if set_name == "halueval" else t.balanced(["bad", "good"]))
        blocks_c = sum(1 for _, r in ok if item_status(r) == "contradicted")
        right_c = sum(1 for g, r in ok if item_status(r) == "contradicted" and g["label"] == gold_bad)
        m["contradicted_precision"] = (right_c / blocks_c if blocks_c else float("nan"), blocks_c)
        if set_name == "begin":
            gen = [(g, r) for g, r in ok if g["label"] == "generic"]
            m["generic_not_applicable"] = (sum(1 for _, r in gen if item_status(r) == "not_applicable") / len(gen)) if gen else float("nan")
    m["confusion"] = {f"{g}->{p}": k for (g, p), k in sorted(t.confusion.items())}
    return m


def run_batch(binary_path, lines, workdir, name):
    """Reports by id. A batch that dies (a panic takes the process down) is re-run in smaller
    pieces, so the items that kill it are counted as errors and the rest still report."""
    reports = {}
    rc = _run_lines(binary_path, lines, workdir, name, reports)
    return reports, rc


def _run_lines(binary_path, lines, workdir, name, reports):
    batch = os.path.join(workdir, f"{name}.jsonl")
    with open(batch, "w", encoding="utf-8") as f:
        for l in lines:
            f.write(json.dumps(l, ensure_ascii=False) + "\n")
    proc = subprocess.run([binary_path, "check", "--batch", batch], capture_output=True)
    for o in proc.stdout.decode("utf-8", "replace").splitlines():
        try:
            r = json.loads(o)
        except json.JSONDecodeError:
            continue
        reports[str(r.get("output_id", r.get("id")))] = r
    if proc.returncode in (0, 1, 2):
        return proc.returncode
    missing = [l for l in lines if l["id"] not in reports]
    if len(lines) == 1:
        reports[lines[0]["id"]] = {"error": f"process died (exit {proc.returncode})"}
        return proc.returncode
    mid = len(missing) // 2
    for part in (missing[:mid], missing[mid:]):
        if part:
            _run_lines(binary_path, part, workdir, name, reports)
    return proc.returncode


def fmt(x):
    if isinstance(x, tuple):
        return f"{fmt(x[0])} ({x[1]})"
    if isinstance(x, float):
        return "—" if x != x else f"{x:.3f}"
    return str(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "warrant"))
    ap.add_argument("--split", default="dev", choices=["dev", "held", "all"])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--dump")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not os.path.isdir(DATA):
        sys.exit(f"missing {DATA}")
    names = [s for s in args.sets.split(",") if s]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            items = list(SETS[name]())
            if args.split != "all":
                items = [it for it in items if it[0] == args.split]
            lines = [l for _, l, _ in items]
            reports, rc = run_batch(args.bin, lines, work, name)
            rows = [(g, reports.get(l["id"])) for (_, l, g) in items]
            for sp in (["dev", "held", "all"] if args.split == "all" else [args.split]):
                sel = [(g, reports.get(l["id"])) for (s, l, g) in items if sp == "all" or s == sp]
                results[f"{name}/{sp}"] = evaluate(name, sel)
            if rc not in (0, 1, 2):
                print(f"{name}: the batch died (exit {rc}); re-run in pieces", file=sys.stderr)
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                with open(os.path.join(args.dump, f"{name}.jsonl"), "w", encoding="utf-8") as f:
                    for (s, l, g) in items:
                        r = reports.get(l["id"])
                        row = {"id": l["id"], "split": s, "gold": g, "answer": l["answer"], "question": l.get("question")}
                        if r is None or "error" in r:
                            row["error"] = (r or {}).get("error", "missing")
                        else:
                            row["gate"] = r["gate"]
                            row["item_status"] = item_status(r)
                            row["claims"] = [{"text": c["text"], "status": c["status"], "confidence": c["confidence"],
                                              "reason": c["reason"],
                                              "quote": (c["support_edges"][0]["selector"]["exact"][:400] if c["support_edges"] else None)}
                                             for c in r["claims"]]
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    cols = ["items", "errors", "headline", "contradicted_precision", "block_precision", "clean_allowed", "gate_f1"]
    print("| set | " + " | ".join(cols) + " |")
    print("|" + "---|" * (len(cols) + 1))
    for k, m in results.items():
        h = m.get("headline", ("", float("nan")))
        cells = [fmt(m["items"]), fmt(m["errors"]), f"{h[0]}: {fmt(h[1])}", fmt(m.get("contradicted_precision", float("nan"))),
                 f"{fmt(m['block_precision'])} ({m['blocks']})", fmt(m["clean_allowed"]), fmt(m["gate_f1"])]
        print(f"| {k} | " + " | ".join(cells) + " |")
    for k, m in results.items():
        extra = {x: m[x] for x in ("balanced_accuracy", "not_applicable_recall", "generic_not_applicable") if x in m}
        print(f"{k}: gate {m['gate']} {', '.join(f'{a} {fmt(b)}' for a, b in extra.items())}")
        print(f"    confusion {m['confusion']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
