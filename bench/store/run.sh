#!/usr/bin/env bash
# End-to-end `warrant ingest` throughput through the release binary (reading, parsing,
# chunking, extraction, validation, SQLite): a generated JSON Lines corpus of MB megabytes of
# text into a fresh store (3 runs), then a further MB/5 of new documents into that store
# (an incremental ingest: indexes are updated in place rather than rebuilt).
#   bench/store/run.sh [MB]     (default 50)
set -euo pipefail
MB="${1:-50}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/bench/out/store"
mkdir -p "$OUT"
cargo build --release --locked -q -p warrant-cli --manifest-path "$REPO/Cargo.toml"
BIN="$REPO/target/release/warrant"
for density in dense prose; do
  corpus="$OUT/corpus-$density-$MB.jsonl"
  [ -f "$corpus" ] || python3 "$HERE/gen_corpus.py" "$MB" "$density" > "$corpus"
  bytes=$(python3 -c "import json,sys; print(sum(len(json.loads(l)['text'].encode()) for l in open(sys.argv[1])))" "$corpus")
  more="$OUT/more-$density-$MB.jsonl"
  [ -f "$more" ] || python3 "$HERE/gen_corpus.py" "$(python3 -c "print($MB/5)")" "$density" 11 more > "$more"
  for run in 1 2 3 incremental; do
    if [ "$run" = incremental ]; then
      input="$more"
      bytes=$(python3 -c "import json,sys; print(sum(len(json.loads(l)['text'].encode()) for l in open(sys.argv[1])))" "$more")
    else
      input="$corpus"
      rm -rf "$OUT/store-$density"
    fi
    start=$(date +%s.%N)
    summary=$("$BIN" ingest --format json --store "$OUT/store-$density" "$input")
    end=$(date +%s.%N)
    python3 - "$density" "$run" "$bytes" "$start" "$end" "$summary" "$OUT/store-$density/store.sqlite" <<'PY'
import json, os, sys
density, run, text, t0, t1, summary, db = sys.argv[1:8]
s, secs = json.loads(summary), float(sys.argv[5]) - float(sys.argv[4])
print(f"{density} run {run}: {int(text)/1e6:.1f} MB of text, {s['documents']} documents, {s['chunks']} chunks, "
      f"{s['facts']} facts, {s['rejected_facts']} rejected in {secs:.2f} s = {int(text)/1e6/secs:.1f} MB/s; "
      f"store {os.path.getsize(db)/1e6:.0f} MB")
PY
  done
done
