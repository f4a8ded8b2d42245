#!/bin/bash
# A/B timing of two builds of the `stage_timing` example on a busy machine: runs them
# alternately (`stage_timing quick`: wall clock, min of 15 per run) and prints, per stage,
# the minimum over all rounds for each binary.
#
#   cargo build --release -p warrant-extract --example stage_timing
#   cp target/release/examples/stage_timing /tmp/st-new   # and likewise /tmp/st-old from the other tree
#   bench/extract_ab.sh /tmp/st-old /tmp/st-new 3
set -euo pipefail
a=$1 b=$2 rounds=${3:-2}
for _ in $(seq 1 "$rounds"); do
  for bin in "$a" "$b"; do
    "$bin" quick | awk -v b="$(basename "$bin")" '{
      ms = 0; for (i = 1; i <= NF; i++) if ($i == "ms") ms = $(i - 1)
      name = $0; sub(/ +[0-9.]+ ms.*/, "", name); gsub(/^ +/, "", name); gsub(/ /, "_", name)
      print b, name, ms }'
  done
done | awk '{ k = $2 " " $1; if (!(k in m) || $3 < m[k]) m[k] = $3 } END { for (k in m) print k, m[k] }' | sort | awk '{ printf "%-22s %-14s %8.2f ms\n", $1, $2, $3 }'
