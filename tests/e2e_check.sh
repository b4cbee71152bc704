#!/bin/sh
# contend check, the CI gate: exact exit statuses (0 pass, 1 violations,
# 2 usage/environment) and the compiler-style violation line, for a run
# (-- CMD) and for a recording (-i FILE), with --fail-on, --min-score,
# --allow, --baseline (new, kind changed, score worsened) and -o.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fsc="$top_builddir/testcases/false_sharing_counters"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
iters=700000000   # the default: about 2 s, long enough to overlap on a busy machine
# file:line: of the hottest writing site, then what shares the line
violation='^/[^:]*testcases/false_sharing_counters\.c:[0-9]+: false sharing on counters\[[01]\] with counters\[[01]\] \(score [0-9.]+, 2 threads, written in increment'

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

# name, want-status, stderr-pattern ("" = no violation line), command...
# (the violations and the verdict go to stderr: stdout is the target's)
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want"; cat "$tmp/out" "$tmp/err"; return 1
	fi
	if [ -z "$pat" ] && grep -qE ': (false|true|mixed) sharing on ' "$tmp/err"; then
		fail "$name: unexpected output:"; cat "$tmp/err"; return 1
	fi
	if [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
		fail "$name: stderr lacks /$pat/:"; cat "$tmp/out" "$tmp/err"; return 1
	fi
	ok "$name"
}

# A run shows false sharing only if its two threads ran at once: on a
# busy machine, try again before concluding.
contended_run() {   # command... ; stdout in $tmp/out, stderr in $tmp/err
	for attempt in 1 2 3; do
		"$@" >"$tmp/out" 2>"$tmp/err"
		st=$?
		[ $st -ne 0 ] && return $st
		echo "note: attempt $attempt found no contention (busy machine?); again"
	done
	return 0
}

# --- running the program ------------------------------------------------------
contended_run "$contend" check --fail-on any -o "$tmp/run.json" -- "$fsc" --iters $iters
st=$?
if [ $st -ne 1 ]; then
	fail "check -- fsc: exit $st, want 1"; cat "$tmp/out" "$tmp/err"
elif [ "$(grep -cE "$violation" "$tmp/err")" -ne 1 ] ||
     [ "$(grep -cE ': (false|true|mixed) sharing on ' "$tmp/err")" -ne 1 ]; then
	fail "check -- fsc: want one violation line:"; cat "$tmp/err"
elif ! grep -q "check failed: 1 line breaks the rules" "$tmp/err"; then
	fail "check -- fsc: no summary"; cat "$tmp/err"
elif grep -q "sharing on\|check failed" "$tmp/out"; then
	fail "check -- fsc: the verdict on stdout, among the program's output"; cat "$tmp/out"
else
	ok "check -- fsc: exit 1, $(grep -E "$violation" "$tmp/err" | cut -c1-90)..."
fi
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [l["variable"] for l in r["lines"]] == ["counters"]' \
	"$tmp/run.json" 2>/dev/null && ok "-o writes the JSON report" || fail "-o: no JSON report naming counters"

expect "check -- fsc --padded" 0 "" \
	"$contend" check --fail-on any -o "$tmp/padded.json" -- "$fsc" --padded --iters $iters

# --- a recording -----------------------------------------------------------------
for attempt in 1 2 3; do
	"$contend" record -q -o "$tmp/u.data" -- "$fsc" --iters $iters >/dev/null 2>&1
	"$contend" check -i "$tmp/u.data" >/dev/null 2>&1
	[ $? -eq 1 ] && break
	echo "note: recording $attempt shows no contention (busy machine?); again"
done
expect "check -i" 1 "$violation" "$contend" check -i "$tmp/u.data" -o "$tmp/base.json"
expect "--fail-on false-sharing" 1 "$violation" \
	"$contend" check -i "$tmp/u.data" --fail-on false-sharing
expect "--fail-on true-sharing" 0 "" "$contend" check -i "$tmp/u.data" --fail-on true-sharing
expect "--min-score above the line's" 0 "" "$contend" check -i "$tmp/u.data" --min-score 0.99
expect "--allow counters" 0 "" "$contend" check -i "$tmp/u.data" --allow counters
expect "--allow counters[0]" 0 "" "$contend" check -i "$tmp/u.data" --allow 'counters[0]'
expect "--allow another symbol" 1 "$violation" "$contend" check -i "$tmp/u.data" --allow other

# --- baselines -----------------------------------------------------------------------
expect "baseline without the line: new" 1 "$violation.*; new since the baseline\)" \
	"$contend" check -i "$tmp/u.data" --baseline "$tmp/padded.json"
expect "baseline of the same program" 0 "" \
	"$contend" check -i "$tmp/u.data" --baseline "$tmp/base.json"
grep -q "1 as in the baseline" "$tmp/err" || fail "baseline: summary: $(cat "$tmp/err")"
python3 - "$tmp/base.json" "$tmp" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
low = json.loads(json.dumps(r))
low["lines"][0]["score"] /= 10
json.dump(low, open(sys.argv[2] + "/low.json", "w"))
kind = json.loads(json.dumps(r))
kind["lines"][0]["kind"] = "true"
json.dump(kind, open(sys.argv[2] + "/kind.json", "w"))
EOF
expect "baseline: score worsened" 1 "$violation.*; score was [0-9.]+ in the baseline\)" \
	"$contend" check -i "$tmp/u.data" --baseline "$tmp/low.json"
expect "baseline: kind changed" 1 "$violation.*; was true sharing in the baseline\)" \
	"$contend" check -i "$tmp/u.data" --baseline "$tmp/kind.json"

# --- errors: 2 ----------------------------------------------------------------------
expect "no command" 2 "" "$contend" check
grep -q "usage: contend check" "$tmp/err" || fail "no command: no usage"
expect "command and -i" 2 "" "$contend" check -i "$tmp/u.data" -- true
expect "missing file" 2 "" "$contend" check -i "$tmp/nope.data"
echo '{"a": [1, 2' >"$tmp/bad.json"
expect "baseline not JSON" 2 "" "$contend" check -i "$tmp/u.data" --baseline "$tmp/bad.json"
grep -q "baseline $tmp/bad.json is not JSON: line 2, column 1: " "$tmp/err" ||
	fail "bad baseline: $(cat "$tmp/err")"
echo '{}' >"$tmp/other.json"
expect "baseline not a report" 2 "" "$contend" check -i "$tmp/u.data" --baseline "$tmp/other.json"
grep -q "is not a contend JSON report" "$tmp/err" || fail "not a report: $(cat "$tmp/err")"
expect "bad --fail-on" 2 "" "$contend" check --fail-on sometimes -i "$tmp/u.data"
expect "target fails" 2 "" "$contend" check -- sh -c 'exit 3'
grep -q "target exited with status 3" "$tmp/err" || fail "target fails: $(cat "$tmp/err")"
"$contend" record -q -o "$tmp/f.data" -- sh -c 'kill -9 $$' >/dev/null 2>&1
expect "recorded target failed" 2 "" "$contend" check -i "$tmp/f.data"
grep -q "the recorded program failed (signal 9)" "$tmp/err" || fail "recorded failure: $(cat "$tmp/err")"

[ $fails -eq 0 ]
