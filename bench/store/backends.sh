#!/usr/bin/env bash
# The two store backends side by side — an SQLite folder and a PostgreSQL database — on the
# same generated corpus with the same release binary, in one run, printed as one Markdown table:
#   - ingest throughput (MB/s of text, one `warrant ingest` into a fresh store);
#   - `warrant check --store` of a ~1 KB answer: one-shot (fresh process, median wall time)
#     and warm (`warrant serve`, p50 of sequential `POST /v1/check`);
#   - `warrant ask`, fresh process per question (median);
#   - `serve` `POST /v1/check` requests/s with 1 replica and with 2 replicas over the same store
#     (two `warrant serve` processes: the same SQLite folder, or the same PostgreSQL URL), from a
#     bounded loopback load generator (bench/store/backends.py: a fixed request count from 2
#     keep-alive client processes per replica), with the CPU per request of the servers and of
#     PostgreSQL.
#
#   bench/store/backends.sh [MB] [REQUESTS]      (defaults 4 and 800; MB of corpus text)
#
# PostgreSQL: $WARRANT_TEST_POSTGRES (a URL to an existing cluster's `postgres` database) when
# set, else a throwaway cluster from scripts/pg_cluster.sh (fsync=off, loopback) for this run.
# A fresh database bench_store_<pid> is created, migrated, and dropped on exit; the SQLite
# store, the corpus and the servers live in a temporary folder removed on exit.
# The binary is $WARRANT_BIN, else target/release/warrant (this script never builds: exit 2
# when it is missing or predates `warrant store migrate`). Whole run bounded by
# $BENCH_LIMIT_SECS (default 290).
set -euo pipefail
MB="${1:-4}"
REQS="${2:-800}"
CHECK_N="${CHECK_N:-7}"      # one-shot checks per backend
ASK_ROUNDS="${ASK_ROUNDS:-2}" # rounds over the questions per backend
WARM_N="${WARM_N:-200}"      # sequential warm checks per backend
LIMIT="${BENCH_LIMIT_SECS:-290}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BIN="${WARRANT_BIN:-$REPO/target/release/warrant}"
PY="$HERE/backends.py"
TOKEN="bench-token"
export WARRANT_LOG=warn     # no per-request log lines from the servers

die() { echo "backends.sh: $*" >&2; exit 2; }
[[ "$MB" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "MB must be a number (got '$MB')"
[[ "$REQS" =~ ^[0-9]+$ ]] && [ "$REQS" -ge 40 ] || die "REQUESTS must be an integer ≥ 40 (got '$REQS')"
[ -x "$BIN" ] || die "no warrant binary at $BIN (build it: cargo build --release -p warrant-cli)"
"$BIN" store migrate --help >/dev/null 2>&1 \
  || die "$BIN has no 'store migrate' (it predates the PostgreSQL store): rebuild it"
for t in python3 psql curl timeout; do command -v "$t" >/dev/null || die "$t not found"; done

T0=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warrant-backends.XXXXXX")
RES="$WORK/results.jsonl"
: > "$RES"
SERVE_PIDS=()
OUR_CLUSTER=""
DB=""
ADMIN_URL=""
WATCHDOG=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for p in "${SERVE_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${SERVE_PIDS[@]}"; do timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null || kill -KILL "$p" 2>/dev/null || true; done
  if [ -n "$DB" ] && [ -n "$ADMIN_URL" ]; then
    timeout 20 psql -q -X "$ADMIN_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 \
      || echo "backends.sh: could not drop database $DB" >&2
  fi
  if [ -n "$OUR_CLUSTER" ]; then "$REPO/scripts/pg_cluster.sh" stop "$OUR_CLUSTER" >/dev/null 2>&1 || true; fi
  [ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null || true
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "backends.sh: interrupted" >&2; exit 130' INT
trap 'echo "backends.sh: stopped (time limit ${LIMIT}s or SIGTERM)" >&2; exit 124' TERM
( trap 'kill "$sp" 2>/dev/null; exit 0' TERM; sleep "$LIMIT" & sp=$!; wait "$sp" && kill -TERM $$ 2>/dev/null ) &
WATCHDOG=$!

# ---- what is measured, on what
mtime=$(stat -c %Y "$BIN")
head_ct=$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 0)
built_from=$(git -C "$REPO" log -1 --format='%h %cd' --date=format:'%Y-%m-%d %H:%M' --before="@$mtime" 2>/dev/null || echo "?")
echo "# Store backends side by side — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- binary: $BIN, built $(date -u -d "@$mtime" '+%Y-%m-%d %H:%M:%S UTC'); newest commit at build time: $built_from"
if [ "$mtime" -lt "$head_ct" ]; then
  echo "- WARNING: the binary is older than HEAD ($(git -C "$REPO" log -1 --format='%h %cd' --date=format:'%Y-%m-%d %H:%M'))"
fi
echo "- machine: $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- PostgreSQL: a fresh database
if [ -z "${WARRANT_TEST_POSTGRES:-}" ]; then
  env_lines=$(timeout 90 "$REPO/scripts/pg_cluster.sh" start) || die "could not start a PostgreSQL cluster (scripts/pg_cluster.sh start)"
  eval "$env_lines"
  OUR_CLUSTER="$PG_CLUSTER_DIR"
fi
ADMIN_URL="$WARRANT_TEST_POSTGRES"
DB="bench_store_$$"
PG_URL="${ADMIN_URL%/*}/$DB"
psql -q -X -v ON_ERROR_STOP=1 "$ADMIN_URL" -c "CREATE DATABASE $DB" >/dev/null || die "could not create database $DB at $ADMIN_URL"
timeout 60 "$BIN" store migrate --store "$PG_URL" >/dev/null || die "warrant store migrate failed on $PG_URL"
PG_PM=""
if [ -n "$OUR_CLUSTER" ] && [ -r "$OUR_CLUSTER/data/postmaster.pid" ]; then PG_PM=$(head -1 "$OUR_CLUSTER/data/postmaster.pid"); fi
pg_ver=$(psql -X -At "$ADMIN_URL" -c 'SHOW server_version' 2>/dev/null || echo "?")
pg_fsync=$(psql -X -At "$ADMIN_URL" -c 'SHOW fsync' 2>/dev/null || echo "?")
echo "- PostgreSQL $pg_ver on loopback ($( [ -n "$OUR_CLUSTER" ] && echo "throwaway cluster" || echo "\$WARRANT_TEST_POSTGRES"), fsync=$pg_fsync), database $DB; SQLite: a fresh folder"

SQL_DIR="$WORK/sqlite-store"
declare -A STORE=([sqlite]="$SQL_DIR" [postgres]="$PG_URL")
BACKENDS=(sqlite postgres)

# ---- deterministic inputs
python3 "$HERE/gen_corpus.py" "$MB" prose > "$WORK/corpus.jsonl"
read -r TEXT_BYTES ANSWER_BYTES NQ < <(python3 "$PY" inputs "$WORK/corpus.jsonl" "$WORK" || true)
[ -n "${NQ:-}" ] || die "could not derive the answer and questions from the corpus (MB too small?)"
echo "- corpus: bench/store/gen_corpus.py $MB prose ($(wc -l < "$WORK/corpus.jsonl") documents, $TEXT_BYTES bytes of text); answer $ANSWER_BYTES bytes; $NQ questions"

# ---- ingest (one run each, into the fresh store)
for b in "${BACKENDS[@]}"; do
  start=$(date +%s.%N)
  summary=$(timeout 150 "$BIN" ingest --format json --store "${STORE[$b]}" "$WORK/corpus.jsonl") \
    || die "ingest into $b failed"
  end=$(date +%s.%N)
  python3 "$PY" ingest "$RES" "$b" "$TEXT_BYTES" "$(python3 -c "print($end - $start)")" "$summary"
done

# ---- one-shot check and ask (fresh process each)
for b in "${BACKENDS[@]}"; do
  python3 "$PY" oneshot "$CHECK_N" "$RES" "$b" -- "$BIN" check --format json --store "${STORE[$b]}" "$WORK/answer.txt" \
    || die "one-shot check on $b failed"
done
for b in "${BACKENDS[@]}"; do
  python3 "$PY" asks "$ASK_ROUNDS" "$RES" "$b" "$WORK/questions.txt" -- "$BIN" ask --format json --store "${STORE[$b]}" \
    || die "ask on $b failed"
done

# ---- serve
declare -A ADDR PID
start_serve() { # NAME STORE
  local name=$1 store=$2 out="$WORK/serve-$1.out" addr=""
  "$BIN" serve --addr 127.0.0.1:0 --store "$store" --token "$TOKEN" > "$out" 2> "$WORK/serve-$name.log" &
  PID[$name]=$!
  SERVE_PIDS+=("${PID[$name]}")
  for _ in $(seq 300); do
    addr=$(sed -n 's|.*listening on http://||p' "$out" 2>/dev/null)
    [ -n "$addr" ] && curl -sf "http://$addr/readyz" >/dev/null 2>&1 && break
    kill -0 "${PID[$name]}" 2>/dev/null || break
    addr=""; sleep 0.1
  done
  [ -n "$addr" ] || die "serve $name did not start: $(tail -5 "$WORK/serve-$name.log")"
  ADDR[$name]=$addr
}
for b in "${BACKENDS[@]}"; do start_serve "$b-1" "${STORE[$b]}"; done
for b in "${BACKENDS[@]}"; do
  timeout 120 python3 "$PY" latency "${ADDR[$b-1]}" "$TOKEN" "$WORK/check.json" "$WARM_N" "$RES" "$b" \
    || die "warm check on $b failed"
done
for b in "${BACKENDS[@]}"; do
  pg=""; [ "$b" = postgres ] && pg="$PG_PM"
  timeout 120 python3 "$PY" load "${ADDR[$b-1]}" "$TOKEN" "$WORK/check.json" "$REQS" 2 "$RES" "$b" "${PID[$b-1]}" "$pg" \
    || die "1-replica load on $b failed"
done
for b in "${BACKENDS[@]}"; do start_serve "$b-2" "${STORE[$b]}"; done
for b in "${BACKENDS[@]}"; do
  pg=""; [ "$b" = postgres ] && pg="$PG_PM"
  timeout 120 python3 "$PY" load "${ADDR[$b-1]},${ADDR[$b-2]}" "$TOKEN" "$WORK/check.json" "$REQS" 2 "$RES" "$b" \
    "${PID[$b-1]},${PID[$b-2]}" "$pg" || die "2-replica load on $b failed"
done

echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg); wall time $(( $(date +%s) - T0 )) s"
echo "- $(nproc) cores shared by the servers, PostgreSQL and the Python load generator: with 2 cores, a second"
echo "  replica cannot add CPU, so the 2-replica row shows the cost of sharing one store, not scale-out"
echo
python3 "$PY" table "$RES"
