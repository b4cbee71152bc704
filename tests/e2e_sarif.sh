#!/bin/sh
# contend check --format sarif: the SARIF 2.1.0 log validates against the
# official schema (tests/sarif-schema-2.1.0.json) and has one result at
# false_sharing_counters.c's writing line, rule false-sharing, relative to
# the sources' root (%SRCROOT%), also when contend runs elsewhere, with
# partialFingerprints the same on two runs; run --format sarif reports
# every line as a warning; the padded run gives a valid log with no result; --format sarif
# without -o is refused.  Skips (77) without python3-jsonschema.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
# run and check again after a spurious debug trap (tests/contend_retry.sh)
contend="$(cd "$(dirname "$0")" && pwd)/contend_retry.sh"
export CONTEND_REAL="$top_builddir/contend"
fsc="$top_builddir/testcases/false_sharing_counters"
schema="$top_srcdir/tests/sarif-schema-2.1.0.json"
validate() { python3 "$top_srcdir/tests/sarif_validate.py" "$schema" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

python3 -c 'import jsonschema' 2>/dev/null || { echo "SKIP: no python3-jsonschema"; exit 77; }
# the line that writes the counter, wherever the source moves it
line=$(grep -n '(\*counter)++;' "$top_srcdir/testcases/false_sharing_counters.c" | cut -d: -f1)

# from the source root, as a CI job runs in its checkout: a relative URI
for attempt in 1 2 3; do
	(cd "$top_srcdir" && "$contend" check -q --format sarif -o "$tmp/c.sarif" -- "$fsc") \
		>"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -ne 0 ] && break
	echo "note: attempt $attempt found no contention (busy machine?); again"
done
# the checkout is the work tree of its sources; a tree inside another
# one (make distcheck's) has that one's root: then the URI is longer
set -- --uri testcases/false_sharing_counters.c
[ -e "$top_srcdir/.git" ] || set --
if [ $st -ne 1 ]; then
	fail "check --format sarif: exit $st, want 1"; cat "$tmp/out" "$tmp/err"
elif validate "$tmp/c.sarif" --results 1 --rule false-sharing --level error \
	"$@" --base-id SRCROOT --line "$line" \
	--text "false sharing on counters[" --text "score 0." --text ": pad each element"; then
	ok "check --format sarif: valid SARIF 2.1.0, false-sharing at false_sharing_counters.c:$line"
else
	fail "check --format sarif"; cat "$tmp/c.sarif"
fi
grep -q "false_sharing_counters.c:$line: false sharing on counters" "$tmp/err" &&
	ok "the violation line is still printed (stderr)" || { fail "no violation line"; cat "$tmp/err"; }

# from elsewhere (cwd outside the sources): still a URI relative to SRCROOT,
# the sources' work tree (or their common directory), and the same
# partialFingerprints on a second run
for n in 1 2; do
	for attempt in 1 2 3; do
		(cd "$tmp" && "$contend" run -q --format sarif -o "$tmp/r$n.sarif" -- "$fsc") \
			>/dev/null 2>&1
		python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["runs"][0]["results"])' \
			"$tmp/r$n.sarif" 2>/dev/null && break
	done
done
src=$(cd "$top_srcdir" && pwd)
# percent-encoded as the URI must be: a checkout path may hold spaces, UTF-8
uri=$(python3 -c 'import sys, urllib.parse; print("file://" + urllib.parse.quote(sys.argv[1], safe="/-._~"))' \
	"$src/testcases/false_sharing_counters.c")
validate "$tmp/r1.sarif" --rule false-sharing --level warning --base-id SRCROOT --line "$line" &&
	ok "run --format sarif from elsewhere: valid, a warning relative to SRCROOT" ||
	{ fail "run --format sarif from elsewhere"; cat "$tmp/r1.sarif"; }
python3 - "$tmp/r1.sarif" "$tmp/r2.sarif" "$uri" <<'PY' || fails=$((fails + 1))
import json, sys
runs = [json.load(open(p))["runs"][0] for p in sys.argv[1:3]]
root = runs[0]["originalUriBaseIds"]["SRCROOT"]["uri"]
loc = runs[0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
if loc["uri"].startswith("file:") or root + loc["uri"] != sys.argv[3]:
    print("FAIL SRCROOT %s + %s is not %s" % (root, loc["uri"], sys.argv[3])); sys.exit(1)
print("ok SRCROOT %s + %s names the source file" % (root, loc["uri"]))
prints = [[r.get("partialFingerprints") for r in run["results"]] for run in runs]
if not prints[0][0] or prints[0] != prints[1]:
    print("FAIL partialFingerprints differ between two runs: %s / %s" % tuple(prints)); sys.exit(1)
print("ok partialFingerprints the same on two runs: %s" % prints[0][0])
PY

"$contend" check -q --format sarif -o "$tmp/p.sarif" -- "$fsc" --padded >/dev/null 2>&1
st=$?
[ $st -eq 0 ] && validate "$tmp/p.sarif" --results 0 &&
	ok "padded: exit 0, valid SARIF with no result" || fail "padded: exit $st"

"$contend" check --format sarif -- "$fsc" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q -- "--format sarif needs -o FILE" "$tmp/err" &&
	ok "--format sarif without -o: refused" || { fail "no -o: exit $st"; cat "$tmp/err"; }

[ $fails -eq 0 ] || exit 1
