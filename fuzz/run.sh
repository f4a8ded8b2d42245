#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60) with cargo-fuzz.
#   cargo install cargo-fuzz   (once)
#   fuzz/run.sh [SECONDS] [TARGET...]
# The toolchain is stable, so nightly-only flags are unlocked with RUSTC_BOOTSTRAP=1.
# Seeds come from the repository's own examples, packs and fixtures, plus ../shared/data
# when present (copied into the git-ignored fuzz/corpus, never committed).
set -euo pipefail
SECS="${1:-60}"; shift || true
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(graph_loader policy_parser policy_eval tools_loader extract_input evidence_validator vocab_parser record_reader ckf_source ckf_compile ckf_package ask_plan ask_rules ask_question llm_reply llm_stage_replies research_payloads server_request text_segment verify_corpus check_batch_line)
export RUSTC_BOOTSTRAP=1

seed() {
  local dir="$HERE/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done
}
shopt -s nullglob
DATA="${WARRANT_CONFORMANCE_DATA:-$REPO/../shared/data}"
seed graph_loader "$REPO"/examples/*/*.json "$REPO"/bench/fixtures/*.json "$DATA"/cape/examples/*/*.json
seed policy_eval "$REPO"/examples/*/*.json "$REPO"/bench/fixtures/*.json "$DATA"/cape/examples/*/*.json
seed policy_parser "$REPO"/packs/*.json "$DATA"/cape/packs/*.json "$DATA"/cape/tiered-dialect/*/*/policy.cpl "$DATA"/cape/rubrics/*.json
seed tools_loader "$REPO"/examples/*/*.tools.json "$DATA"/cape/tools/*.json
seed evidence_validator "$REPO"/crates/evidence/tests/fixtures/*.json "$DATA"/agent-evidence/examples/*.json
seed extract_input "$REPO"/README.md "$REPO"/examples/*/*.json "$REPO"/crates/extract/tests/fixtures/* "$DATA"/cape/examples/*/*.json
seed vocab_parser "$REPO"/crates/facts/vocabulary/*.toml "$DATA"/vsabrains-exp3/exp3-rag/predicate_vocabulary.json "$DATA"/vsabrains-exp3/spec-examples/ds005_predicate_vocabulary.json
seed research_payloads "$REPO"/crates/research/tests/fixtures/*.json
seed server_request "$REPO"/bench/fixtures/*.json "$REPO"/examples/*/*.json
seed llm_reply "$DATA"/cape/examples/reasoning/*.expectations.json "$REPO"/crates/llm/prompts/*.txt
seed llm_stage_replies "$REPO"/crates/research/tests/fixtures/*.json "$REPO"/crates/answer/tests/fixtures/*.json
CKF="$REPO"/crates/ckf/tests
# ckf_source and ckf_compile read the first byte as the file-name pick (see the targets).
seed_ckf() {
  local dir="$HERE/corpus/$1"; mkdir -p "$dir"
  { printf '\001'; cat "$CKF"/fixtures/runbook.md; } > "$dir/runbook"
  { printf '\002'; cat "$CKF"/fixtures/faq.md; } > "$dir/faq"
  { printf '\003'; cat "$CKF"/fixtures/statute.txt; } > "$dir/statute"
  { printf '\005'; cat "$CKF"/fixtures/policies.jsonl; } > "$dir/policies"
  { printf '\007'; printf 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nAlice: Refunds must be approved within 5 days.\n'; } > "$dir/vtt"
  { printf '\010'; printf '1\n00:00:01,000 --> 00:00:04,000\nDo not share passwords, because they leak.\n'; } > "$dir/srt"
}
seed_ckf ckf_source
seed_ckf ckf_compile
seed ckf_package "$CKF"/golden/* "$CKF"/fixtures/*.ckf.json "$DATA"/ckf/benchmarks/*/ckf/cases/*.ckf.json
seed ask_plan "$DATA"/vsabrains-exp3/spec-examples/ds005_worked_example_session_validity.json
seed ask_rules "$REPO"/crates/answer/data/rules.json
seed ask_question "$REPO"/crates/answer/tests/suite/questions.jsonl
seed record_reader "$DATA"/vsabrains-exp3/exp3-rag/*.json "$DATA"/vsabrains-exp3/exp3-rag/*.jsonl "$DATA"/vsabrains-exp3/spec-examples/*.json

# Text that slices by computed offsets: curly quotes, accents, emoji, CJK, combining marks,
# sentence ends of every kind. verify_corpus reads `answer \0 ?question \0 source \0 title \1 source…`.
UNI='“Refunds” are approved within 5 days — café naïve résumé. The 東京 office opens at 9:00 😀! e\u0301té… ‘quoted’? Ünïcödé\n\n- item one.\n- item two 👩‍👩‍👧 done.'
seed_text() {
  local dir="$HERE/corpus/$1"; mkdir -p "$dir"
  printf "$UNI" > "$dir/unicode"
  printf 'Mr. Smith paid $4.50 on 3 Jan. 2024. He left at 5 p.m.\tThen: “Why?” he asked.\r\nDone' > "$dir/abbrev"
  printf '日本の首都は東京です。人口は約1400万人です！本当？' > "$dir/cjk"
}
seed_text text_segment
seed text_segment "$REPO"/README.md "$CKF"/fixtures/runbook.md
vdir="$HERE/corpus/verify_corpus"; mkdir -p "$vdir"
printf 'Refunds are approved within 5 days. The café opens at 9:00 😀.\0?How fast are refunds?\0“Refunds” are approved within 7 days — e\u0301té.\n\nThe café opens at 9:00.\0東京は日本の首都です。' > "$vdir/unicode"
printf 'Paris is the capital of France and has 2.1 million people.\0Paris, the capital of France, has 2,100,000 inhabitants. Berlin has 3.6 million.' > "$vdir/numbers"
printf 'The tech giant is the largest retailer.\0Amazon (Zürich) 😀\001The tech giant is the largest “Internet” retailer.\0\001\0Amazon\001' > "$vdir/titled"
printf 'The service answers requests within 40 ms.\0?\0%s' "$(for i in 1 2 3 4 5 6 7 8; do printf 'The service answers requests within %d ms. ' "$i"; done)" > "$vdir/templated"
bdir="$HERE/corpus/check_batch_line"; mkdir -p "$bdir"
printf '{"id":"a","answer":"Refunds are approved within 5 days — café 😀.","question":"How fast?"}' > "$bdir/plain"
printf '{"id":7,"answer":"東京は日本の首都です。e\\u0301té costs €4.50.","sources":[{"id":"s","text":"“Tokyo” is the capital of Japan. Crème brûlée costs €4.50."}]}' > "$bdir/sources"
printf '{"id":"t","answer":"Amazon is the largest retailer.","sources":[{"id":"e1","title":"Amazon (company) — “Pokémon” 😀","text":"The tech giant is the largest retailer."},{"id":"e2","title":null,"text":"x"}]}' > "$bdir/titled"
printf '{"id":"m","answer":{"role":"assistant","content":"The café opens at 9:00.","tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\\"q\\":\\"x\\"}"}}]}}' > "$bdir/message"

cd "$HERE"
for t in "${TARGETS[@]}"; do
  echo "==> $t for ${SECS}s"
  cargo fuzz run "$t" "corpus/$t" -- -max_total_time="$SECS" -max_len=65536 2>&1 | grep -E "^(#[0-9]+.*DONE|==[0-9]+==|INFO: .*(corpus|exec))|ERROR|panicked" | tail -5
done
