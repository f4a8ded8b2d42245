#!/usr/bin/env bash
# Validate the same N PredicateGraphs with upstream's method (Python jsonschema, per-file
# validate()) and with `warrant validate --all`, and print both throughputs and the ratio.
#
#   bench/validate-vs-python/run.sh [N]      (default N=10000)
#
# Needs python3 (a venv with jsonschema from PyPI is created under bench/out/) and the
# upstream schema at ../shared/data/cape/schemas/ (read in place, never copied).
set -euo pipefail
N="${1:-10000}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/bench/out/validate-vs-python"
SCHEMA="${WARRANT_CONFORMANCE_DATA:-$REPO/../shared/data}/cape/schemas/predicate-graph-v1.0.0.json"
[ -f "$SCHEMA" ] || { echo "missing upstream schema: $SCHEMA" >&2; exit 2; }

mkdir -p "$OUT"
if [ ! -x "$OUT/venv/bin/python" ]; then
  python3 -m venv "$OUT/venv"
  "$OUT/venv/bin/pip" install -q "jsonschema==4.26.0"
fi
rm -rf "$OUT/root"
python3 "$HERE/gen_graphs.py" "$N" "$OUT/root" >/dev/null
(cd "$REPO" && cargo build --release -q -p warrant-cli)
BIN="$REPO/target/release/warrant"

py_json="$("$OUT/venv/bin/python" "$HERE/upstream_method.py" "$OUT/root" "$SCHEMA")"
start=$(date +%s.%N)
set +e
"$BIN" validate --all "$OUT/root" > "$OUT/warrant.txt"
rc=$?
set -e
end=$(date +%s.%N)
summary="$(grep '^Summary' "$OUT/warrant.txt")"

python3 - "$py_json" "$start" "$end" "$summary" "$rc" <<'PY'
import json, sys
py = json.loads(sys.argv[1]); start, end = float(sys.argv[2]), float(sys.argv[3])
summary, rc = sys.argv[4], int(sys.argv[5])
w = end - start
n = py["files"]
passed = int(summary.split()[1]); failed = int(summary.split()[3].rstrip(","))
assert passed == py["valid"] and failed == py["invalid"], f"verdicts differ: python {py}, warrant {summary}"
print(f"graphs:            {n} ({py['valid']} valid, {py['invalid']} invalid; both validators agree)")
print(f"python jsonschema: {py['seconds']:.3f} s  -> {n / py['seconds']:,.0f} graphs/s")
print(f"warrant validate:  {w:.3f} s  -> {n / w:,.0f} graphs/s (one process, includes start-up and lints; exit {rc})")
print(f"ratio:             {py['seconds'] / w:.1f}x")
PY
