#!/bin/sh
# The HTML report of a false-sharing program: one self-contained page
# with the picture of the line (an <svg id="line-1">), the member and the
# kind, nothing loaded from the network.  With Chromium installed, a
# headless screenshot of the page must come out non-trivial; it is kept
# as $top_builddir/report-screenshot.png for a person to look at.
# Skips (77) without Chromium, after the checks that do not need it
# (CHROMIUM=PATH picks the browser).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
# run and check again after a spurious debug trap (tests/contend_retry.sh)
contend="$(cd "$(dirname "$0")" && pwd)/contend_retry.sh"
export CONTEND_REAL="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	# what the page reported, without the markup
	[ -f "$tmp/r.html" ] &&
		grep -E '^<(tr><td><a|p class="(note|advice)"|div class="file")' "$tmp/r.html" |
		sed 's/<[^>]*>/ /g; s/  */ /g' | head -12
	exit 1
}

# Contention shows only while both threads run at once: on a busy machine
# a run may see none, so try again before failing.
for try in 1 2 3; do
	"$contend" run -q --format html -o "$tmp/r.html" -- \
		"$top_builddir/testcases/false_sharing_counters" -t 2 >/dev/null 2>"$tmp/err" ||
		fail "contend exited with $?: $(cat "$tmp/err")"
	grep -q '<svg class="pic" id="line-1"' "$tmp/r.html" && break
	echo "try $try: no contended line reported"
done

for want in '<!DOCTYPE html>' '<svg class="pic" id="line-1"' 'FALSE SHARING' \
	    'counters\[[0-9]\]' '<td class="code">' 'increment' '</html>'; do
	grep -q "$want" "$tmp/r.html" || fail "the page lacks /$want/"
done
if grep -Eq '<(script|link|img)[ >]|src="http|url\(http' "$tmp/r.html"; then
	fail "the page loads something: $(grep -Eo '<(script|link|img)[^>]*>|src="http[^"]*"|url\(http[^)]*\)' "$tmp/r.html" | head -3)"
fi
echo "ok page: $(wc -c <"$tmp/r.html") bytes"

chromium=
for c in ${CHROMIUM:-/usr/bin/chromium chromium chromium-browser}; do
	if command -v "$c" >/dev/null 2>&1; then
		chromium=$c
		break
	fi
done
if [ -z "$chromium" ]; then
	echo "SKIP: no chromium to take a screenshot (apt-get install chromium)"
	exit 77
fi

timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
	--no-first-run --disable-background-networking --disable-component-update \
	--disable-sync --hide-scrollbars --user-data-dir="$tmp/ud" \
	--screenshot="$tmp/shot.png" --window-size=1200,1600 \
	"file://$tmp/r.html" >"$tmp/chromium.log" 2>&1
[ -f "$tmp/shot.png" ] || fail "no screenshot: $(tail -5 "$tmp/chromium.log")"
size=$(wc -c <"$tmp/shot.png")
[ "$size" -gt 10240 ] || fail "screenshot is only $size bytes"
cp "$tmp/shot.png" "$top_builddir/report-screenshot.png" ||
	fail "cannot copy the screenshot to $top_builddir"
echo "ok screenshot: $top_builddir/report-screenshot.png ($size bytes)"
