#!/usr/bin/env bash
# Renders the demo check as HTML and exercises it in headless Chromium (Debian: `apt-get
# install chromium`): a screenshot of the page with claim c3's evidence open (via the `#c3`
# deep link, which clicks the claim), and the live DOM after the script ran, which must show
# the counter-evidence quote in an opened panel and load nothing from the network.
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
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --virtual-time-budget=2000)
"$browser" "${flags[@]}" --window-size=1100,900 --screenshot="$out/demo.png" "$page" 2>/dev/null
"$browser" "${flags[@]}" --dump-dom "$page" 2>/dev/null >"$out/dom.html"

fail() { echo "check-html: $*" >&2; exit 1; }
[ -s "$out/demo.png" ] || fail "no screenshot"
[ "$(head -c 8 "$out/demo.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "screenshot is not a PNG"
grep -q 'id="ev-c3" class="evidence shown"\|class="evidence shown" id="ev-c3"' "$out/dom.html" || fail "c3's evidence panel did not open"
grep -q 'claim contradicted active' "$out/dom.html" || fail "the clicked claim is not marked active"
grep -q '\$15 per user' "$out/dom.html" || fail "the counter-evidence quote is missing"
if grep -Eq '(src|href)="https?:' "$out/demo.html"; then fail "the page loads from the network"; fi
echo "ok: $out/demo.png ($(wc -c <"$out/demo.png") bytes), evidence panel opened, no network"
