#!/usr/bin/env python3
"""Helpers for bench/store/backends.sh (standard library only).

  backends.py inputs CORPUS OUTDIR        answer.txt (~1 KB), check.json, questions.txt; prints text bytes
  backends.py oneshot N OUT LABEL -- CMD...   runs CMD N times (fresh process each): median wall ms
  backends.py asks ROUNDS OUT LABEL QFILE -- CMD...   CMD + one question per run, ROUNDS x questions: median
  backends.py latency ADDR TOKEN BODY N OUT LABEL     sequential POST /v1/check, one keep-alive connection: p50
  backends.py load ADDRS TOKEN BODY TOTAL PER OUT LABEL SERVE_PIDS PG_POSTMASTER_PID
        TOTAL requests from PER client processes per address (ADDRS and SERVE_PIDS comma-separated;
        PG_POSTMASTER_PID "" or 0 when not ours), keep-alive: req/s, p50, p99, CPU per request
  backends.py ingest OUT LABEL BYTES SECS SUMMARY_JSON   records an ingest run
  backends.py table RESULTS               the Markdown table from the JSON lines in RESULTS

Every result is one JSON line appended to OUT; `table` reads them back.
"""
import concurrent.futures as cf
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def emit(out, rec):
    with open(out, "a") as f:
        f.write(json.dumps(rec) + "\n")


# ---------------------------------------------------------------- inputs

QUESTION_FORMS = [
    (r"The (\w+ \w+ \d+) tokens expire after", "How long before the {0} tokens expire?"),
    (r"The (\w+ \w+ \d+) keys are valid for", "How long are the {0} keys valid?"),
    (r"The (\w+ \w+ \d+) service requires (\w+) approval", "Does the {0} service require {1} approval?"),
    (r"The (\w+ \w+ \d+) module is part of the (\w+) platform", "Is the {0} module part of the {1} platform?"),
    (r"The (\w+ \w+ \d+) limit is", "What is the {0} limit?"),
    (r"The (\w+ \w+ \d+) bundle contains (\w+) logs", "What does the {0} bundle contain?"),
]


def inputs(corpus, outdir):
    """A ~1 KB answer made of the corpus's own fact sentences (the third with its number
    changed, so one claim is contradicted), and one question per fact form."""
    text_bytes, facts = 0, []
    with open(corpus) as f:
        for line in f:
            text = json.loads(line)["text"]
            text_bytes += len(text.encode())
            if len(facts) < 400:
                facts += re.findall(r"The \w+ \w+ \d+ [^.]*\.", text)
    answer, i = [], 0
    while sum(len(s) + 1 for s in answer) < 1000 and i < len(facts):
        s = facts[i]
        if i == 2:
            s = re.sub(r"(after|for|is) (\d+)", lambda m: f"{m.group(1)} {int(m.group(2)) + 7}", s, count=1)
        answer.append(s)
        i += 1
    answer = " ".join(answer)
    questions = []
    for pat, form in QUESTION_FORMS:
        for s in facts:
            m = re.match(pat, s)
            if m:
                questions.append(form.format(*m.groups()))
                break
    if len(answer.encode()) < 800 or len(questions) < 4:
        sys.exit(f"backends.py: corpus {corpus} too small for the check answer / questions")
    open(os.path.join(outdir, "answer.txt"), "w").write(answer + "\n")
    json.dump({"answer": answer}, open(os.path.join(outdir, "check.json"), "w"))
    open(os.path.join(outdir, "questions.txt"), "w").write("\n".join(questions) + "\n")
    print(text_bytes, len(answer.encode()), len(questions))


# ---------------------------------------------------------------- fresh processes

def run_once(cmd, ok=(0,)):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    ms = (time.perf_counter() - t0) * 1000
    if p.returncode not in ok:
        sys.exit(f"backends.py: {' '.join(cmd[:4])}… exited {p.returncode}: {p.stderr.decode()[-600:]}")
    return ms, p.stdout


def oneshot(n, out, label, cmd):
    times, gate = [], None
    for _ in range(n):
        ms, stdout = run_once(cmd, ok=(0, 1))  # check exits 1 when the gate blocks
        times.append(ms)
        if gate is None:
            try:
                gate = json.loads(stdout).get("gate")
            except ValueError:
                gate = "?"
    emit(out, {"kind": "oneshot", "label": label, "n": n, "median_ms": statistics.median(times),
               "min_ms": min(times), "gate": gate})


def asks(rounds, out, label, qfile, cmd):
    questions = [q for q in open(qfile).read().splitlines() if q]
    times, verdicts = [], []
    for r in range(rounds):
        for q in questions:
            ms, stdout = run_once(cmd + [q])
            times.append(ms)
            if r == 0:
                try:
                    verdicts.append(json.loads(stdout).get("verdict", "?"))
                except ValueError:
                    verdicts.append("?")
    emit(out, {"kind": "ask", "label": label, "n": len(times), "median_ms": statistics.median(times),
               "min_ms": min(times), "verdicts": verdicts})


# ---------------------------------------------------------------- HTTP

def post_loop(addr, token, body, count, start_at=None):
    host, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    lat, errors, gate = [], 0, None
    for _ in range(3):  # warm-up on this connection, not counted
        conn.request("POST", "/v1/check", body, headers)
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"{addr}: HTTP {r.status}: {data[:300]!r}")
        gate = json.loads(data).get("gate")
    if start_at is not None:
        time.sleep(max(0.0, start_at - time.time()))
    t_start = time.time()
    for _ in range(count):
        t0 = time.perf_counter()
        conn.request("POST", "/v1/check", body, headers)
        r = conn.getresponse()
        r.read()
        lat.append(time.perf_counter() - t0)
        if r.status != 200:
            errors += 1
    t_end = time.time()
    conn.close()
    return lat, errors, t_start, t_end, gate


def pct(sorted_vals, p):
    return sorted_vals[min(len(sorted_vals) - 1, int(len(sorted_vals) * p))]


def latency(addr, token, body_file, n, out, label):
    body = open(body_file, "rb").read()
    lat, errors, _, _, gate = post_loop(addr, token, body, n)
    lat.sort()
    emit(out, {"kind": "warm", "label": label, "n": n, "p50_ms": pct(lat, 0.5) * 1000,
               "p90_ms": pct(lat, 0.9) * 1000, "errors": errors, "gate": gate})


def cpu_ticks(pids):
    got = {}
    for pid in pids:
        try:
            f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            got[pid] = int(f[11]) + int(f[12])  # utime + stime
        except (OSError, IndexError):
            pass
    return got


def pg_pids(postmaster):
    """The postmaster and its children (backends, background workers)."""
    pids = [postmaster]
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]) == postmaster:
                    pids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def load(addrs, token, body_file, total, per, out, label, pids, pg):
    body = open(body_file, "rb").read()
    addrs = addrs.split(",")
    workers = [a for a in addrs for _ in range(per)]
    counts = [total // len(workers) + (1 if i < total % len(workers) else 0) for i in range(len(workers))]
    before = cpu_ticks(pids + (pg_pids(pg) if pg else []))
    start_at = time.time() + 1.0  # every worker connected and warmed before the clock starts
    with cf.ProcessPoolExecutor(max_workers=len(workers)) as ex:
        futs = [ex.submit(post_loop, a, token, body, c, start_at) for a, c in zip(workers, counts)]
        res = [f.result() for f in futs]
    after = cpu_ticks(pids + (pg_pids(pg) if pg else []))
    srv = sum(after[p] - before.get(p, 0) for p in after if p in pids)
    pgt = sum(after[p] - before.get(p, 0) for p in after if p not in pids)
    lat = sorted(x for r in res for x in r[0])
    errors = sum(r[1] for r in res)
    wall = max(r[3] for r in res) - min(r[2] for r in res)
    n = len(lat)
    rec = {"kind": "load", "label": label, "replicas": len(addrs), "clients": len(workers), "n": n,
           "rps": n / wall, "wall_s": wall, "p50_ms": pct(lat, 0.5) * 1000, "p99_ms": pct(lat, 0.99) * 1000,
           "errors": errors, "serve_cpu_ms_per_req": srv * 1000 / TICKS / n,
           "pg_cpu_ms_per_req": (pgt * 1000 / TICKS / n) if pg else None}
    emit(out, rec)


# ---------------------------------------------------------------- table

def table(results):
    recs = [json.loads(l) for l in open(results) if l.strip()]
    by = {}
    for r in recs:
        by.setdefault((r["kind"], r.get("replicas")), {})[r["label"]] = r
    labels = ["sqlite", "postgres"]

    def row(name, key, fmt, n_of=None):
        cells = []
        for lb in labels:
            r = by.get(key, {}).get(lb)
            cells.append(fmt(r) if r else "—")
        note = n_of(by.get(key, {})) if n_of else ""
        print(f"| {name} | {cells[0]} | {cells[1]} | {note} |")

    def ratio(key, field, what):
        d = by.get(key, {})
        if "sqlite" in d and "postgres" in d and d["sqlite"][field] and d["postgres"][field]:
            return f"PG/SQLite {what} {d['postgres'][field] / d['sqlite'][field]:.2f}×"
        return ""

    print("| Measure | SQLite | PostgreSQL | N / notes |")
    print("|---|---|---|---|")
    ing = by.get(("ingest", None), {})
    row("ingest, MB/s (fresh store, 1 run)", ("ingest", None),
        lambda r: f"**{r['mb_s']:.2f}** ({r['secs']:.2f} s)",
        lambda d: (f"{next(iter(d.values()))['mb']:.2f} MB text, "
                   f"{next(iter(d.values()))['documents']} docs, {next(iter(d.values()))['chunks']} chunks, "
                   f"{next(iter(d.values()))['facts']} facts; " + ratio(("ingest", None), "mb_s", "throughput")) if d else "")
    row("`check --store`, ~1 KB answer, one-shot (median wall)", ("oneshot", None),
        lambda r: f"**{r['median_ms']:.0f} ms** (min {r['min_ms']:.0f}; gate {r['gate']})",
        lambda d: f"N={next(iter(d.values()))['n']} fresh processes; " + ratio(("oneshot", None), "median_ms", "time") if d else "")
    row("`check` warm, `POST /v1/check` p50 (1 client, sequential)", ("warm", None),
        lambda r: f"**{r['p50_ms']:.2f} ms** (p90 {r['p90_ms']:.2f}; gate {r['gate']})",
        lambda d: f"N={next(iter(d.values()))['n']} requests; " + ratio(("warm", None), "p50_ms", "time") if d else "")
    row("`ask` p50 (fresh process per question)", ("ask", None),
        lambda r: f"**{r['median_ms']:.0f} ms** (min {r['min_ms']:.0f})",
        lambda d: (f"N={next(iter(d.values()))['n']} ({len(next(iter(d.values()))['verdicts'])} questions × "
                   f"{next(iter(d.values()))['n'] // max(1, len(next(iter(d.values()))['verdicts']))}); "
                   + ratio(("ask", None), "median_ms", "time")) if d else "")
    for reps in (1, 2):
        key = ("load", reps)

        def fmt(r):
            pgc = f" + PG {r['pg_cpu_ms_per_req']:.2f}" if r.get("pg_cpu_ms_per_req") is not None else ""
            return (f"**{r['rps']:.0f} req/s** (p50 {r['p50_ms']:.1f} / p99 {r['p99_ms']:.1f} ms; "
                    f"CPU/req serve {r['serve_cpu_ms_per_req']:.2f}{pgc} ms; {r['errors']} errors)")
        row(f"`serve` `/v1/check` throughput, {reps} replica{'s' if reps > 1 else ''}", key, fmt,
            lambda d: (f"N={next(iter(d.values()))['n']} requests, {next(iter(d.values()))['clients']} client "
                       f"processes; " + ratio(key, "rps", "throughput")) if d else "")
    g = [by.get((k, None), {}).get(lb, {}).get("gate") for k in ("oneshot", "warm") for lb in labels]
    if all(g):
        print(f"\ncheck gates (one-shot SQLite, PG; warm SQLite, PG): {', '.join(g)}"
              f" ({'same' if len(set(g)) == 1 else 'DIFFERENT'})")
    v = {lb: by.get(("ask", None), {}).get(lb, {}).get("verdicts") for lb in labels}
    if all(v.values()):
        print(f"ask verdicts: SQLite {v['sqlite']}; PostgreSQL {v['postgres']}"
              f" ({'same' if v['sqlite'] == v['postgres'] else 'DIFFERENT'})")


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmd, rest = a[0], a[1:]
    if "--" in rest:
        i = rest.index("--")
        rest, tail = rest[:i], rest[i + 1:]
    else:
        tail = []
    if cmd == "inputs":
        inputs(*rest)
    elif cmd == "oneshot":
        oneshot(int(rest[0]), rest[1], rest[2], tail)
    elif cmd == "asks":
        asks(int(rest[0]), rest[1], rest[2], rest[3], tail)
    elif cmd == "latency":
        latency(rest[0], rest[1], rest[2], int(rest[3]), rest[4], rest[5])
    elif cmd == "load":
        addrs, token, body, total, per, out, label, pids, pg = rest
        load(addrs, token, body, int(total), int(per), out, label,
             [int(p) for p in pids.split(",") if p], int(pg or 0))
    elif cmd == "ingest":
        out, label, nbytes, secs, summary = rest
        s = json.loads(summary)
        secs = float(secs)
        emit(out, {"kind": "ingest", "label": label, "mb": int(nbytes) / 1e6, "secs": secs,
                   "mb_s": int(nbytes) / 1e6 / secs, "documents": s.get("documents"),
                   "chunks": s.get("chunks"), "facts": s.get("facts")})
    elif cmd == "table":
        table(rest[0])
    else:
        sys.exit(f"backends.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
