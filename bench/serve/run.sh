#!/usr/bin/env bash
# Load test of `warrant serve` (loopback only, fixed duration): throughput and p50/p99
# latency of POST /v1/policy/eval (the typical graph, the four core packs) and POST /v1/check
# (a short answer against a 1,000-chunk store), with 64 concurrent keep-alive connections,
# and the server's resident memory sampled every second during each run.
#   bench/serve/run.sh [SECS] [CONNECTIONS]      (defaults 20 and 64; SECS at most 60)
set -euo pipefail
SECS="${1:-20}"
CONNS="${2:-64}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/bench/out/serve"
mkdir -p "$OUT"
cargo build --release --locked -q -p warrant-cli --manifest-path "$REPO/Cargo.toml"
cargo build --release --locked -q -p warrant-server --example loadgen --manifest-path "$REPO/Cargo.toml"
BIN="$REPO/target/release/warrant"
LOAD="$REPO/target/release/examples/loadgen"
TOKEN="bench-token"
rm -rf "$OUT/store"
python3 "$HERE/gen_corpus.py" 1000 > "$OUT/records.json"

"$BIN" serve --addr 127.0.0.1:0 --store "$OUT/store" --token "$TOKEN" > "$OUT/serve.out" 2> "$OUT/serve.log" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$OUT/serve.out" 2>/dev/null && break; sleep 0.1; done
ADDR=$(sed -n 's|.*http://||p' "$OUT/serve.out")
[ -n "$ADDR" ] || { echo "server did not start: $(cat "$OUT/serve.log")" >&2; exit 1; }
auth=(-H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json")

python3 -c "import json,sys; print(json.dumps({'documents': json.load(open(sys.argv[1]))}))" "$OUT/records.json" > "$OUT/ingest.json"
curl -sf "${auth[@]}" --data-binary @"$OUT/ingest.json" "http://$ADDR/v1/ingest" > "$OUT/ingest.out"
chunks=$(curl -sf "${auth[@]}" "http://$ADDR/metrics" | sed -n 's/^warrant_store_chunks //p')
echo "store: $chunks chunks ($(cat "$OUT/ingest.out"))"
[ "$chunks" = 1000 ] || { echo "expected 1000 chunks" >&2; exit 1; }

python3 - "$REPO/bench/fixtures/typical.graph.json" > "$OUT/policy.json" <<'PY'
import json, sys
graph = json.load(open(sys.argv[1]))
packs = ["core.citation-grounding.v1", "core.safe-code.v1", "core.tool-use.v1", "example.customer-support.v1"]
print(json.dumps({"packs": packs, "input": graph}))
PY
echo '{"answer": "Product 417 ships within 3 business days of the order, and its warranty lasts 2 years."}' > "$OUT/check.json"
# Both bodies answer 200 before the clock starts (one request each, counted below).
for b in policy:/v1/policy/eval check:/v1/check; do
  curl -sf "${auth[@]}" --data-binary @"$OUT/${b%%:*}.json" "http://$ADDR${b#*:}" > "$OUT/${b%%:*}.response.json"
  echo 1 > "$OUT/${b%%:*}.served"
done

rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$PID/status"; }
# The server's CPU time so far (user + system), in clock ticks: CPU per request does not
# depend on what else the machine is running, unlike throughput.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
TICKS=$(getconf CLK_TCK)
echo "load: $(cat /proc/loadavg) (1/5/15-min load averages before the runs)"
for b in policy:/v1/policy/eval check:/v1/check; do
  name=${b%%:*}; path=${b#*:}
  : > "$OUT/$name.rss"
  ( while kill -0 $PID 2>/dev/null; do rss_kib >> "$OUT/$name.rss"; sleep 1; done ) &
  SAMPLER=$!
  cpu0=$(cpu_ticks)
  result=$("$LOAD" --addr "$ADDR" --path "$path" --body "$OUT/$name.json" --token "$TOKEN" -c "$CONNS" -d "$SECS" --warmup 3)
  cpu1=$(cpu_ticks)
  kill $SAMPLER 2>/dev/null || true; wait $SAMPLER 2>/dev/null || true
  # Warm-up requests are served too; count them by the metrics' request total instead of
  # the generator's. CPU per request = CPU ticks over the run / requests the server handled.
  served=$(curl -sf "${auth[@]}" "http://$ADDR/metrics" | sed -n "s|^warrant_http_request_duration_seconds_count{route=\"$path\"} ||p")
  prev=$(cat "$OUT/$name.served" 2>/dev/null || echo 1)
  cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v t="$TICKS" -v n="$served" -v p="$prev" 'BEGIN{ms=(b-a)*1000/t/(n-p); printf "{\"server_cpu_ms_per_request\":%.3f,\"ceiling_rps_2_cores\":%.0f}", ms, 2000/ms}')
  echo "$served" > "$OUT/$name.served"
  rss=$(awk 'NR==1{f=$1} {if(min==""||$1<min)min=$1; if($1>max)max=$1; l=$1} END{printf "{\"rss_first_mib\":%.1f,\"rss_max_mib\":%.1f,\"rss_last_mib\":%.1f}", f/1024, max/1024, l/1024}' "$OUT/$name.rss")
  echo "$result $rss $cpu" | tee "$OUT/$name.result"
done
echo "load: $(cat /proc/loadavg) (after)"
kill -TERM $PID; wait $PID || true
trap - EXIT
