#!/usr/bin/env bash
# HaluEval QA as one `warrant check --batch` run: the 1,000 judgments (each item's right and
# hallucinated answer, the question as context, the knowledge as the line's source), timed
# end to end (process start, parsing, checking on every core, JSONL out). Prints the median
# wall time of RUNS runs and the response-level accuracy the reports give.
#
#   bench/check/halueval_batch.sh [RUNS]          (default 5; needs ../shared/data)
#   WARRANT_BIN=target/quality/warrant bench/check/halueval_batch.sh   (a binary already built)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
data="${WARRANT_CONFORMANCE_DATA:-../shared/data}/halueval/qa_one-turn_data.json"
[ -f "$data" ] || { echo "missing $data" >&2; exit 2; }
bin="${WARRANT_BIN:-target/release/warrant}"
[ -n "${WARRANT_BIN:-}" ] || cargo build -q --release
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$data" "$work/batch.jsonl" <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
with open(src) as f, open(dst, "w") as out:
    for i, line in enumerate(l for l in f if l.strip()):
        item = json.loads(line)
        for field in ("right_answer", "hallucinated_answer"):
            out.write(json.dumps({"id": f"{i}-{field}", "answer": item[field], "question": item["question"],
                                  "sources": [{"id": "knowledge", "text": item["knowledge"]}]}) + "\n")
PY
python3 - "$runs" "$work" "$bin" <<'PY'
import json, statistics, subprocess, sys, time
runs, work, binary = int(sys.argv[1]), sys.argv[2], sys.argv[3]
times = []
for _ in range(runs):
    t = time.perf_counter()
    with open(f"{work}/batch.jsonl") as inp, open(f"{work}/out.jsonl", "w") as out:
        rc = subprocess.run([binary, "check", "--batch", f"{work}/batch.jsonl"], stdout=out).returncode
    times.append(time.perf_counter() - t)
    assert rc in (0, 1), f"exit {rc}"
tp = fp = tn = fn = 0
for line in open(f"{work}/out.jsonl"):
    r = json.loads(line)
    flagged = any(c["status"] in ("unsupported", "contradicted") for c in r["claims"])
    halluc = r["output_id"].endswith("hallucinated_answer")
    tp += halluc and flagged; fp += (not halluc) and flagged; tn += (not halluc) and not flagged; fn += halluc and not flagged
n = tp + fp + tn + fn
print(f"{n} judgments: median {statistics.median(times):.3f} s wall over {runs} runs (min {min(times):.3f}, max {max(times):.3f})")
print(f"accuracy {(tp+tn)/n:.4f}  precision {tp/max(tp+fp,1):.4f}  recall {tp/max(tp+fn,1):.4f}  (tp {tp} fp {fp} tn {tn} fn {fn})")
PY
