#!/bin/sh
# contend check on latent false sharing and minor lines: latent pairs do
# not fail by default (a note on stderr), fail under --fail-on latent with
# a compiler-style line naming the members and the placement count, and
# pass again where the baseline has them or --allow names them; SARIF
# carries them as errors of rule latent-false-sharing.  A minor line (here
# a contended line below a --min-score set above its score) passes without
# a baseline and fails as new against one that lacks it.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
slots="$top_builddir/testcases/latent_slots"
fsc="$top_builddir/testcases/false_sharing_counters"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
latent='^/[^:]*testcases/latent_slots\.c:(59|60): latent false sharing: \[0\]\.sum \(thread [0-9]+ writes\) and \[1\]\.count \(thread [0-9]+ writes\) of struct slot\[\] at .*, 24 bytes apart; they share a line in 0 of 1 placements at 64-byte alignment \(aligned_alloc.s\), 2 of 4 at 16-byte alignment \(malloc.s\)'

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

# name, want-status, stdout-pattern ("" = no latent line), stderr-pattern, command...
expect() {
	name=$1 want=$2 pat=$3 errpat=$4
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want"; cat "$tmp/out" "$tmp/err"; return 1
	fi
	# check's violations and verdict are on stderr (stdout is the program's)
	if [ -z "$pat" ] && grep -q 'latent false sharing' "$tmp/err"; then
		fail "$name: unexpected output:"; cat "$tmp/err"; return 1
	fi
	if [ -n "$pat" ] && [ "$(grep -cE -- "$pat" "$tmp/err")" -ne 1 ]; then
		fail "$name: stderr lacks one /$pat/:"; cat "$tmp/out" "$tmp/err"; return 1
	fi
	if ! grep -qE -- "$errpat" "$tmp/err"; then
		fail "$name: stderr lacks /$errpat/:"; cat "$tmp/err"; return 1
	fi
	ok "$name"
}

# json key of a report, how many entries: has FILE KEY
has() {
	python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))[sys.argv[2]] else 1)' "$1" "$2"
}

# record until the report has what we test (a busy machine can keep two
# threads from overlapping): name, key, data file, command...
record_with() {
	name=$1 key=$2 data=$3
	shift 3
	for attempt in 1 2 3; do
		"$contend" record -q -o "$data" "$@" >/dev/null 2>&1 &&
			"$contend" report -i "$data" --format json -o "$data.json" &&
			has "$data.json" "$key" && return 0
		echo "note: $name: attempt $attempt has no $key (busy machine?); again"
	done
	fail "$name: no $key in 3 recordings"
	return 1
}

# --- latent ------------------------------------------------------------------
if record_with "latent_slots --shift 0" latent "$tmp/l.data" -- "$slots" --shift 0; then
	expect "latent: passes by default" 0 "" "1 latent false-sharing pair .*--fail-on latent" \
		"$contend" check -i "$tmp/l.data"
	expect "--fail-on latent" 1 "$latent" "check failed: 1 line breaks the rules" \
		"$contend" check -i "$tmp/l.data" --fail-on latent
	expect "--fail-on false-sharing,latent" 1 "$latent" "check failed" \
		"$contend" check -i "$tmp/l.data" --fail-on false-sharing,latent
	expect "--fail-on latent, in the baseline" 0 "" "0 allowed, 1 as in the baseline" \
		"$contend" check -i "$tmp/l.data" --fail-on latent --baseline "$tmp/l.data.json"
	expect "--fail-on latent --allow struct slot" 0 "" "1 allowed" \
		"$contend" check -i "$tmp/l.data" --fail-on latent --allow 'struct slot'
	expect "--fail-on latent, SARIF" 1 "$latent" "check failed" \
		"$contend" check -i "$tmp/l.data" --fail-on latent --format sarif -o "$tmp/l.sarif"
	python3 - "$tmp/l.sarif" <<'PY' && ok "SARIF: one latent error" || fail "SARIF: $(cat "$tmp/l.sarif")"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
assert [(r["ruleId"], r["level"]) for r in res] == [("latent-false-sharing", "error")], res
assert res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] in (59, 60)
PY
fi

# --- minor -------------------------------------------------------------------
# A contended line turns minor under a --min-score above its score: the
# judging of minor lines, without waiting for a run as modest as that.
if record_with "false_sharing_counters" lines "$tmp/f.data" -- "$fsc"; then
	"$contend" report -i "$tmp/f.data" --min-score 0.99 --format json -o "$tmp/minor.json"
	python3 - "$tmp/minor.json" "$tmp/none.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["lines"] and r["minor_lines"], "no minor line at --min-score 0.99"
r["minor_lines"] = []
json.dump(r, open(sys.argv[2], "w"))
PY
	[ $? -eq 0 ] && ok "minor: a line below --min-score is listed minor" ||
		fail "minor: $(cat "$tmp/minor.json")"
	# the minor line keeps its watchpoints' verdict, in JSON and HTML alike
	"$contend" report -i "$tmp/f.data" --min-score 0.99 --format html -o "$tmp/minor.html"
	verdict=$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["minor_lines"][0].get("confirmation")
print("not watched" if not c else "confirmed" if c["confirmed"] else "not confirmed")' "$tmp/minor.json")
	grep -A3 "minor #1" "$tmp/minor.html" | grep -q "<td>$verdict</td>" &&
		ok "minor: HTML says $verdict, as JSON does" ||
		fail "minor: HTML lacks the watch verdict '$verdict'"
	expect "minor: passes without a baseline" 0 "" "check passed: 0 contended lines" \
		"$contend" check -i "$tmp/f.data" --min-score 0.99
	expect "minor: in the baseline" 0 "" "1 as in the baseline" \
		"$contend" check -i "$tmp/f.data" --min-score 0.99 --baseline "$tmp/minor.json"
	expect "minor: new since the baseline" 1 \
		'false_sharing_counters\.c:[0-9]+: false sharing on counters.*new since the baseline, minor\)' \
		"check failed: 1 line breaks the rules" \
		"$contend" check -i "$tmp/f.data" --min-score 0.99 --baseline "$tmp/none.json"
fi

[ $fails -eq 0 ]
