#!/bin/sh
# Mappings versioned by time (issue 14, item 9).  tests/fixture_remap runs
# two threads false-sharing one line in remap_work_a of
# libfixture_remap_a.so, dlclose()s it, dlopen()s libfixture_remap_b.so at
# the same address and does the same in remap_work_b for as long.  Each
# sample must be named by the library mapped when it was taken, as perf
# does with MMAP records: both functions (and their libraries) get a fair
# share of the line's samples, in run, record + report, and attach.  The
# old code named every sample by the second library.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fixture="$top_builddir/tests/fixture_remap"
liba="$top_builddir/tests/libfixture_remap_a.so"
libb="$top_builddir/tests/libfixture_remap_b.so"
tmp=$(mktemp -d)
target=
trap '[ -n "$target" ] && kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

# the premise: b is loaded where a was
"$fixture" "$liba" "$libb" --seconds 0.01 >"$tmp/where" || { echo "FAIL fixture"; exit 1; }
if [ "$(sed -n 's/^a //p' "$tmp/where")" != "$(sed -n 's/^b //p' "$tmp/where")" ]; then
	echo "SKIP: the second library was not loaded at the first one's address:"
	cat "$tmp/where"
	exit 77
fi

# both_named REPORT.json: remap_pair's sites in remap_work_a (liba) and
# remap_work_b (libb), each with at least 20% of the samples, and none
# in a function of the other library
both_named() {
	python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
count = {}
for l in r["lines"]:
    if l.get("variable") != "remap_pair":
        continue
    for g in l.get("ranges", []):
        for s in g.get("sites", []):
            key = (s.get("function"), s.get("module"))
            count[key] = count.get(key, 0) + s.get("reads", 0) + s.get("writes", 0)
total = sum(count.values())
a = count.get(("remap_work_a", "libfixture_remap_a.so"), 0)
b = count.get(("remap_work_b", "libfixture_remap_b.so"), 0)
if not total or a + b != total or a < 0.2 * total or b < 0.2 * total:
    print("samples by (function, module): %s" % count)
    sys.exit(1)
print("a %d, b %d of %d" % (a, b, total))
EOF
}

# check NAME COMMAND...: the report in $tmp/r.json, up to 3 tries (the
# two threads must overlap in both phases)
check() {
	name=$1
	shift
	for try in 1 2 3; do
		rm -f "$tmp/r.json"
		"$@" && both_named "$tmp/r.json" >"$tmp/why" 2>&1 && { ok "$name: $(cat "$tmp/why")"; return; }
	done
	fail "$name: $(cat "$tmp/why" 2>/dev/null)"
}

run_remap() {
	timeout 60 "$contend" run -q --format json -o "$tmp/r.json" -- \
		"$fixture" "$liba" "$libb" --seconds 1 >/dev/null 2>"$tmp/err"
}
check "run" run_remap

record_remap() {
	timeout 60 "$contend" record -q -o "$tmp/r.data" -- \
		"$fixture" "$liba" "$libb" --seconds 1 >/dev/null 2>"$tmp/err" &&
	"$contend" report -q -i "$tmp/r.data" --format json -o "$tmp/r.json" 2>>"$tmp/err"
}
check "record + report" record_remap

attach_remap() {
	"$fixture" "$liba" "$libb" --seconds 1 --wait >"$tmp/ready" &
	target=$!
	for _ in $(seq 1 100); do
		grep -q "^ready" "$tmp/ready" && break
		sleep 0.05
	done
	timeout 60 "$contend" attach -q -p $target -d 10 --format json -o "$tmp/r.json" \
		2>"$tmp/err" &
	att=$!
	sleep 0.5
	kill -USR1 $target
	wait $target
	target=
	wait $att
}
check "attach" attach_remap

[ $fails -eq 0 ]
