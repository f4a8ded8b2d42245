#!/usr/bin/env bash
# Renders the demo check as HTML and exercises it in headless Chromium (Debian: `apt-get
# install chromium`): a screenshot of the page with claim c3's evidence open (via the `#c3`
# deep link, which clicks the claim), and the live DOM after the script ran, which must show
# the counter-evidence quote in an opened panel, the claims' summary under the gate, the
# grounding policy whose warning rule fired as "passed with warnings" (not a green "passed"),
# and load nothing from the network.
#
#   scripts/check-html.sh [OUT_DIR]      (default: target/check-html)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/check-html}"
mkdir -p "$out"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$browser" ] || { echo "chromium not found (apt-get install chromium)" >&2; exit 2; }

cargo run -q --release -- check --sources examples/check/sources --format html examples/check/answer.md >"$out/demo.html" || [ $? -eq 1 ]
page="file://$(pwd)/$out/demo.html#c3"
# No sandbox: runs as root in containers; no GPU or background traffic; the virtual time
# budget lets the page's script run before the screenshot and the DOM dump.
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --virtual-time-budget=2000)
"$browser" "${flags[@]}" --window-size=1100,1300 --screenshot="$out/demo.png" "$page" 2>/dev/null
"$browser" "${flags[@]}" --dump-dom "$page" 2>/dev/null >"$out/dom.html"

fail() { echo "check-html: $*" >&2; exit 1; }
[ -s "$out/demo.png" ] || fail "no screenshot"
[ "$(head -c 8 "$out/demo.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "screenshot is not a PNG"
grep -q 'id="ev-c3" class="evidence shown"\|class="evidence shown" id="ev-c3"' "$out/dom.html" || fail "c3's evidence panel did not open"
grep -q 'claim contradicted active' "$out/dom.html" || fail "the clicked claim is not marked active"
grep -q '\$15 per user' "$out/dom.html" || fail "the counter-evidence quote is missing"
if grep -Eq '(src|href)="https?:' "$out/demo.html"; then fail "the page loads from the network"; fi

# The summary sits between the gate and the answer, with the support score and the counts
# the JSON report gives.
json="$(cargo run -q --release -- check --sources examples/check/sources --format json examples/check/answer.md || [ $? -eq 1 ])"
score="$(printf '%s' "$json" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["support_score"])')"
counts="$(printf '%s' "$json" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(" ".join(f"{k}={v}" for k,v in s.items() if k not in ("claims","support_score") and v))')"
python3 - "$out/dom.html" "$score" "$counts" <<'PY' || fail "summary"
import re, sys
dom, score, counts = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3].split()
gate, summary, answer = dom.find('id="gate"'), dom.find('id="summary"'), dom.find('id="answer"')
assert 0 <= gate < summary < answer, "the summary is not between the gate and the answer"
assert f'data-support-score="{score}"' in dom and f'support score {score}<' in dom, f"support score {score} not shown"
for kv in counts:
    st, n = kv.split("=")
    assert f'data-status="{st}" data-count="{n}"' in dom, f"count {kv} not shown"
PY

# The grounding pack's warning-only policy (an unsupported claim) is amber "passed with
# warnings"; the contradiction policy failed.
row='data-policy="warrant.grounding.v1/factual-claims-supported"><td>warrant.grounding.v1/factual-claims-supported</td><td class="result warn" data-result="passed_with_warnings">passed with warnings</td>'
grep -qF "$row" "$out/dom.html" || fail "the warning-only policy is not shown as passed with warnings"
grep -qF 'data-policy="warrant.grounding.v1/no-contradicted-claims"><td>warrant.grounding.v1/no-contradicted-claims</td><td class="result fail" data-result="failed">failed</td>' "$out/dom.html" || fail "the failed policy is not shown as failed"
grep -q '<span class="sev">warning</span>' "$out/dom.html" || fail "the warning is not listed"
echo "ok: $out/demo.png ($(wc -c <"$out/demo.png") bytes), evidence panel opened, summary (score $score), warning policy amber, no network"
