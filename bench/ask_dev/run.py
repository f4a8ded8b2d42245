#!/usr/bin/env python3
"""Warrant `ask` / `research` development suite (issue 21).

Ingests bench/ask_dev/corpus/ into a temporary store, runs every question of
questions.jsonl through `warrant ask` (JSON) and every topic of topics.jsonl
through `warrant research` (no model), and prints the DS003 metrics as a
Markdown table. A measurement, not a test: exit 0 whatever the figures;
exit 2 when the binary or a suite file is missing or malformed.

    python3 bench/ask_dev/run.py --bin target/quality/warrant [-v] [--json FILE]

Python 3.11 standard library only; deterministic (fixed --now for research,
files ingested in manifest order, everything sorted).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
KINDS = ["supported", "multi_hop", "conflicting", "unsupported", "adversarial"]
TOPIC_KINDS = ["must_cite", "multi_hop", "unanswerable"]
VERDICTS = {"supported", "conflicting", "unsupported"}
RESEARCH_NOW = "2026-01-01T00:00:00Z"
TIMEOUT = 60


def die(msg: str) -> None:
    print(f"ask_dev: {msg}", file=sys.stderr)
    sys.exit(2)


def load_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        die(f"missing file {path}")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            die(f"{path}:{n}: bad JSON: {e}")
    return out


def norm(s) -> str:
    s = "" if s is None else str(s)
    s = re.sub(r"\s+", " ", s.strip().lower())
    return s.rstrip(".").strip()


def run(cmd: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", f"timeout after {TIMEOUT}s"
    except OSError as e:
        return -1, "", str(e)


# ---------------------------------------------------------------- contract
def contract_errors(a: dict) -> list[str]:
    """The answer contract of verifiable-answers.md §12.1 / §13."""
    errs = []
    for k in ("text", "verdict", "chunksUsed", "factChain", "supportScores", "conflicts"):
        if k not in a:
            errs.append(f"missing {k}")
    if errs:
        return errs
    v, text, chain = a["verdict"], a["text"], a["factChain"]
    if v not in VERDICTS:
        errs.append(f"verdict {v!r}")
    if text is not None and not isinstance(text, str):
        errs.append("text not string/null")
    if not isinstance(chain, list) or not isinstance(a["chunksUsed"], list):
        return errs + ["factChain/chunksUsed not arrays"]
    if not isinstance(a["supportScores"], dict) or not isinstance(a["conflicts"], list):
        return errs + ["supportScores/conflicts wrong type"]
    if v == "supported":
        if not chain:
            errs.append("supported with empty factChain")
        if text is None:
            errs.append("supported with null text")
        concl = [e for e in chain if isinstance(e, dict) and e.get("role") == "conclusion"]
        if len(concl) != 1 or chain[-1] is not concl[0]:
            errs.append("chain does not end with exactly one conclusion")
        elif str((concl[0].get("fact") or {}).get("object")) != str(text):
            errs.append("conclusion object != text")
    if v == "unsupported" and text is not None:
        errs.append("unsupported with text")
    if v == "conflicting" and not a["conflicts"]:
        errs.append("conflicting with no conflicts")
    for e in chain:
        if not isinstance(e, dict) or e.get("role") not in ("premise", "derived", "conclusion"):
            errs.append("bad chain entry")
            continue
        s = a["supportScores"].get(e.get("factId"))
        if not isinstance(s, (int, float)) or not 0 <= s <= 1:
            errs.append(f"no supportScore in [0,1] for {e.get('factId')}")
    if not all(isinstance(c, str) for c in a["chunksUsed"]):
        errs.append("chunksUsed entry not a string")
    return errs


def doc_of_chunk(chunk_id: str) -> str:
    return chunk_id.split("#", 1)[0]


def cited_docs(a: dict) -> set[str]:
    docs = {doc_of_chunk(c) for c in a.get("chunksUsed") or [] if isinstance(c, str)}
    for e in a.get("factChain") or []:
        src = ((e or {}).get("fact") or {}).get("source") or {}
        if src.get("docId"):
            docs.add(src["docId"])
    for c in a.get("conflicts") or []:
        for k in ("fact1", "fact2"):
            src = ((c or {}).get(k) or {}).get("source") or {}
            if src.get("docId"):
                docs.add(src["docId"])
    return docs


def sources_ok(expected: list[str], got: set[str]) -> bool:
    # an entry "a.md|b.md" is satisfied by either document
    return all(any(alt in got for alt in e.split("|")) for e in expected)


# ---------------------------------------------------------------- scoring
def score_question(q: dict, out: dict | None, err: str | None, corpus: set[str]) -> dict:
    exp = q["expect"]
    e, ev = exp["status"], exp.get("value")
    r = {"id": q["id"], "kind": q["kind"], "question": q["question"], "expected": e,
         "expected_value": ev, "verdict": None, "text": None, "error": err,
         "contract_ok": False, "contract_errors": [], "value_ok": False, "sources_ok": False,
         "cited": [], "invented": []}
    if out is None:
        r["reason"] = f"error: {err}"
        return r
    r["verdict"], r["text"] = out.get("verdict"), out.get("text")
    r["contract_errors"] = contract_errors(out)
    r["contract_ok"] = not r["contract_errors"]
    got = cited_docs(out)
    r["cited"] = sorted(got)
    r["invented"] = sorted(d for d in got if d not in corpus)
    accept = {norm(ev)} | {norm(x) for x in exp.get("accept", [])} if ev is not None else set()
    r["value_ok"] = ev is None or norm(r["text"]) in accept
    r["sources_ok"] = sources_ok(exp.get("sources", []), got)
    v = r["verdict"]
    if v != e:
        r["reason"] = f"verdict {v} (expected {e})"
    elif e == "supported" and not r["value_ok"]:
        r["reason"] = f"wrong value {r['text']!r} (expected {ev!r})"
    elif e != "unsupported" and not r["sources_ok"]:
        r["reason"] = f"sources {r['cited']} miss {exp.get('sources')}"
    elif not r["contract_ok"]:
        r["reason"] = "contract: " + "; ".join(r["contract_errors"])
    else:
        r["reason"] = None
    return r


def research_docs(res: dict) -> tuple[set[str], list[str]]:
    """Documents cited by a SearchResult, and references that name nothing real."""
    docs, bad = set(), []
    ev = res.get("evidence") or []
    ids = set()
    for item in ev:
        eid = item.get("entity_id", "")
        ids.add(eid)
        ref = item.get("objectstore_ref")
        if ref:
            ids.add(ref)
            docs.add(doc_of_chunk(ref))
        m = re.match(r"^warrant\.local\.knowledge\.chunk\.(.+)\.(\d+)$", eid)
        if m:
            docs.add(unquote(m.group(1).replace("%2E", ".")))
    # every bracketed reference in the synthesis must be an evidence id (quote-back)
    for ref in re.findall(r"\[([^\]\s]+)\]", res.get("synthesis") or ""):
        if ref not in ids and not ref.startswith("Note:"):
            bad.append(ref)
    return docs, bad


def score_topic(t: dict, res: dict | None, err: str | None, corpus: set[str]) -> dict:
    exp = t["expect"]
    r = {"id": t["id"], "kind": t["kind"], "topic": t["topic"], "error": err,
         "answerable": exp["answerable"], "must_cite": exp.get("must_cite", []),
         "cited": [], "invented": [], "refused": None, "cites_all": False}
    if res is None:
        r["reason"] = f"error: {err}"
        return r
    docs, bad = research_docs(res)
    r["cited"] = sorted(docs)
    r["invented"] = sorted(set(bad) | {d for d in docs if d not in corpus})
    r["refused"] = (not res.get("evidence")) or res.get("sufficient") is False
    r["cites_all"] = all(d in docs for d in r["must_cite"])
    r["synthesis_ok"] = bool((res.get("synthesis") or "").strip())
    if exp["answerable"]:
        # the must-cite gate is citation only; sufficiency is reported as its own row
        if not r["cites_all"]:
            r["reason"] = f"cited {r['cited']} miss {sorted(set(r['must_cite']) - docs)}"
        else:
            r["reason"] = None
    else:
        r["reason"] = None if r["refused"] else f"not refused; cited {r['cited']}"
    if r["invented"] and not r["reason"]:
        r["reason"] = f"invented references {r['invented']}"
    return r


# ---------------------------------------------------------------- metrics
def ratio(n: int, d: int):
    return None if d == 0 else n / d


def fmt(x, n=None, d=None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.2f}" + (f" ({n}/{d})" if d is not None else "")


def metrics(qr: list[dict], tr: list[dict]) -> list[tuple[str, object, int, int, str]]:
    def exp_supported(r):
        return r["expected"] == "supported"

    correct_sup = [r for r in qr if r["verdict"] == "supported" and exp_supported(r) and r["value_ok"]]
    out_sup = [r for r in qr if r["verdict"] == "supported"]
    exp_sup = [r for r in qr if exp_supported(r)]
    out_con = [r for r in qr if r["verdict"] == "conflicting"]
    exp_con = [r for r in qr if r["expected"] == "conflicting"]
    tp_con = [r for r in out_con if r["expected"] == "conflicting"]
    unans = [r for r in qr if r["kind"] == "unsupported"]
    adv = [r for r in qr if r["kind"] == "adversarial"]
    refused = lambda r: r["verdict"] == "unsupported" or (r["verdict"] is not None and r["text"] is None)
    hall = [r for r in out_sup if (exp_supported(r) and not r["value_ok"]) or r["expected"] != "supported"]
    hall_unans = [r for r in out_sup if r["expected"] == "unsupported"]
    answered = [r for r in qr if r["error"] is None]
    contract = [r for r in answered if r["contract_ok"]]
    right = [r for r in qr if r["verdict"] == r["expected"] and r["value_ok"] and r["expected"] != "unsupported"]
    right_src = [r for r in right if r["sources_ok"]]
    mh = [r for r in qr if r["kind"] == "multi_hop"]
    mh_ok = [r for r in mh if r["verdict"] == "supported" and r["value_ok"]]
    invented_q = [r for r in qr if r["invented"]]
    mc = [r for r in tr if r["answerable"]]
    mc_ok = [r for r in mc if r["cites_all"]]
    mc_suff = [r for r in mc if r["refused"] is False]
    un = [r for r in tr if not r["answerable"]]
    un_ok = [r for r in un if r["refused"]]
    inv = [r for r in tr if r["invented"]]
    errs = [r for r in qr + tr if r["error"]]
    rows = [
        ("Supported precision", len(correct_sup), len(out_sup), "> 0.95"),
        ("Supported recall (supported + multi_hop)", len(correct_sup), len(exp_sup), "> 0.85"),
        ("Multi-hop answered correctly", len(mh_ok), len(mh), ""),
        ("Conflict precision", len(tp_con), len(out_con), "> 0.85"),
        ("Conflict recall", len(tp_con), len(exp_con), "> 0.80"),
        ("Refusal rate, unanswerable", sum(map(refused, unans)), len(unans), "> 0.90"),
        ("Refusal rate, adversarial", sum(map(refused, adv)), len(adv), "> 0.80"),
        ("Hallucinated answers (wrong value or answer where none exists) / all", len(hall), len(qr), "< 0.05"),
        ("  of which `supported` on unanswerable/adversarial", len(hall_unans), len(qr), ""),
        ("Answers meeting the contract (§13)", len(contract), len(answered), "= 1.00"),
        ("Right answers citing the expected documents", len(right_src), len(right), ""),
        ("Answers citing a document not in the corpus", len(invented_q), len(qr), "= 0"),
        ("Research: answerable topics citing all must-cite docs", len(mc_ok), len(mc), ""),
        ("Research: answerable topics judged sufficient", len(mc_suff), len(mc), ""),
        ("Research: unanswerable topics refused (no evidence or insufficient)", len(un_ok), len(un), ""),
        ("Research: topics with invented references", len(inv), len(tr), "= 0"),
        ("Command errors (questions + topics)", len(errs), len(qr) + len(tr), "= 0"),
    ]
    return [(name, ratio(n, d), n, d, gate) for name, n, d, gate in rows]


# ---------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/quality/warrant", help="warrant binary")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    ap.add_argument("--json", metavar="FILE", help="also write per-item results as JSON")
    ap.add_argument("--keep-store", metavar="DIR", help="ingest into DIR (kept) instead of a temp dir")
    ap.add_argument("--check", action="store_true", help="exit 1 when a bound of issue 21's Must hold is not met")
    args = ap.parse_args()

    binary = Path(args.bin)
    if not binary.is_file() or not os.access(binary, os.X_OK):
        die(f"binary not found or not executable: {binary} (build it, or pass --bin PATH)")
    binary = binary.resolve()
    manifest_path = HERE / "corpus" / "manifest.json"
    if not manifest_path.is_file():
        die(f"missing file {manifest_path}")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))["documents"]
    except (json.JSONDecodeError, KeyError) as e:
        die(f"bad manifest {manifest_path}: {e}")
    for d in manifest:
        if not (HERE / "corpus" / d["file"]).is_file():
            die(f"missing corpus file {HERE / 'corpus' / d['file']}")
    questions = load_jsonl(HERE / "questions.jsonl")
    topics = load_jsonl(HERE / "topics.jsonl")
    corpus = {d["file"] for d in manifest}
    for q in questions:
        for s in q["expect"].get("sources", []):
            for alt in s.split("|"):
                if alt not in corpus:
                    die(f"question {q['id']} names unknown source {alt}")

    tmp = Path(tempfile.mkdtemp(prefix="warrant-ask-dev-"))
    try:
        work = tmp / "corpus"
        work.mkdir()
        store = Path(args.keep_store).resolve() if args.keep_store else tmp / "store"
        # doc ids are the paths as given to ingest: ingest from the corpus copy, by bare file name
        ingest_report = []
        for d in manifest:
            shutil.copyfile(HERE / "corpus" / d["file"], work / d["file"])
            cmd = [str(binary), "ingest", "--store", str(store), "--format", "json"]
            if d.get("version"):
                cmd += ["--version", d["version"]]
            rc, out, err = run(cmd + [d["file"]], cwd=work)
            if rc != 0:
                die(f"ingest of {d['file']} failed (exit {rc}): {err.strip()[:400]}")
            try:
                ingest_report.append((d["file"], json.loads(out)))
            except json.JSONDecodeError:
                ingest_report.append((d["file"], {}))
        rc, out, _ = run([str(binary), "facts", "--store", str(store)])
        n_facts = len([l for l in out.splitlines() if l.strip()]) if rc == 0 else None

        qr = []
        for q in questions:
            rc, out, err = run([str(binary), "ask", "--store", str(store), "--format", "json", q["question"]])
            res, msg = None, None
            if rc != 0:
                msg = f"exit {rc}: {err.strip()[:200]}"
            else:
                try:
                    res = json.loads(out)
                    if not isinstance(res, dict):
                        res, msg = None, "output is not a JSON object"
                except json.JSONDecodeError as e:
                    msg = f"output is not JSON: {e}"
            qr.append(score_question(q, res, msg, corpus))

        tr = []
        for t in topics:
            cmd = [str(binary), "research", "--store", str(store), "--format", "json", "--now", RESEARCH_NOW]
            for k, v in sorted((t.get("hints") or {}).items()):
                cmd += ["--hint", f"{k}={v}"]
            rc, out, err = run(cmd + [t["topic"]])
            res, msg = None, None
            if rc != 0:
                msg = f"exit {rc}: {err.strip()[:200]}"
            else:
                try:
                    res = json.loads(out)
                except json.JSONDecodeError as e:
                    msg = f"output is not JSON: {e}"
            tr.append(score_topic(t, res, msg, corpus))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # ---- report
    chunks = sum(r.get("chunks", 0) for _, r in ingest_report)
    print(f"# Warrant ask/research development suite\n")
    print(f"binary: `{args.bin}`; corpus: {len(manifest)} documents, {chunks} chunks, "
          f"{n_facts if n_facts is not None else '?'} facts (pattern extractor); "
          f"{len(questions)} questions; {len(topics)} research topics\n")
    print("| Metric | Value | Gate (DS003) |\n|---|---|---|")
    for name, x, n, d, gate in metrics(qr, tr):
        print(f"| {name} | {fmt(x, n, d)} | {gate} |")

    print("\n## Per kind\n")
    print("| Kind | n | correct | supported | conflicting | unsupported | error |\n|---|---|---|---|---|---|---|")
    for k in KINDS:
        rs = [r for r in qr if r["kind"] == k]
        cnt = {v: sum(r["verdict"] == v for r in rs) for v in VERDICTS}
        ok = sum(r["reason"] is None for r in rs)
        errn = sum(r["error"] is not None for r in rs)
        print(f"| {k} | {len(rs)} | {ok} | {cnt['supported']} | {cnt['conflicting']} | {cnt['unsupported']} | {errn} |")
    print("\n| Topic kind | n | correct | refused | error |\n|---|---|---|---|---|")
    for k in TOPIC_KINDS:
        rs = [r for r in tr if r["kind"] == k]
        print(f"| {k} | {len(rs)} | {sum(r['reason'] is None for r in rs)} | "
              f"{sum(bool(r['refused']) for r in rs)} | {sum(r['error'] is not None for r in rs)} |")

    if args.verbose:
        print("\n## Misses\n")
        for r in qr:
            if r["reason"]:
                got = f"{r['verdict']} {r['text']!r}" if r["error"] is None else "error"
                print(f"- {r['id']} [{r['kind']}] {r['question']!r}: expected {r['expected']}"
                      f"{' ' + repr(r['expected_value']) if r['expected_value'] is not None else ''}, "
                      f"got {got}; {r['reason']}")
        for r in tr:
            if r["reason"]:
                print(f"- {r['id']} [{r['kind']}] {r['topic']!r}: "
                      f"{'must cite ' + str(r['must_cite']) if r['answerable'] else 'unanswerable'}; {r['reason']}")
            elif r["answerable"] and r["refused"]:
                print(f"- {r['id']} [{r['kind']}] {r['topic']!r}: cites all must-cite docs but reports insufficient")
    if args.json:
        Path(args.json).write_text(json.dumps({"questions": qr, "topics": tr}, indent=1, sort_keys=True))
    if args.check:
        failed = failed_bounds(metrics(qr, tr))
        for f in failed:
            print(f"bound not met: {f}", file=sys.stderr)
        return 1 if failed else 0
    return 0


# Issue 21's "Must hold", checked by `--check` (a test runs it).
BOUNDS = {
    "Supported precision": (">=", 0.95),
    "Supported recall (supported + multi_hop)": (">=", 0.85),
    "Conflict precision": (">=", 0.85),
    "Conflict recall": (">=", 0.80),
    "Refusal rate, unanswerable": (">=", 0.90),
    "Refusal rate, adversarial": (">=", 0.80),
    "Hallucinated answers (wrong value or answer where none exists) / all": ("<", 0.05),
    "Answers meeting the contract (§13)": (">=", 1.0),
    "Answers citing a document not in the corpus": ("<=", 0.0),
    "Research: answerable topics citing all must-cite docs": (">=", 1.0),
    "Research: unanswerable topics refused (no evidence or insufficient)": (">=", 1.0),
    "Research: topics with invented references": ("<=", 0.0),
    "Command errors (questions + topics)": ("<=", 0.0),
}


def failed_bounds(rows) -> list[str]:
    out = []
    for name, x, n, d, _ in rows:
        if name not in BOUNDS:
            continue
        op, bound = BOUNDS[name]
        value = n / d if d else 0.0
        ok = {">=": value >= bound - 1e-12, "<": value < bound, "<=": value <= bound + 1e-12}[op]
        if not ok or d == 0:
            out.append(f"{name}: {n}/{d} (must be {op} {bound})")
    return out


if __name__ == "__main__":
    sys.exit(main())
