#!/bin/sh
# Empty inputs are not undefined behaviour: qsort/bsearch/memcpy of an
# empty array that is NULL abort the UBSan build (--enable-sanitizers,
# CI's ASan run).  Each case runs contend where some table comes out empty
# and asserts a normal report and no sanitizer message:
#  1. a stripped copy of a testcase (no .symtab, no DWARF);
#  2. an empty /tmp/perf-PID.map (a JIT that has written nothing yet);
#  3. debug info whose only CU has no code (no CU ranges);
#  4. contend watch of a word no thread touches (classify.c: a line with
#     no threads).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0

# check NAME STATUS PATTERN: the run exited STATUS, the report ($tmp/out) matches
# PATTERN, stderr holds no sanitizer report
check() {
	name=$1 st=$2 pat=$3
	if [ "$st" -ne 0 ] || grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$tmp/err" ||
	   ! grep -qE "$pat" "$tmp/out"; then
		echo "FAIL $name: exit $st"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
	else
		echo "ok $name"
	fi
}

# 1. stripped: symbols come from nowhere, sites are binary+offset
cp "$tc/false_sharing_counters" "$tmp/fsc_stripped" && strip "$tmp/fsc_stripped"
"$contend" run -o "$tmp/out" -- "$tmp/fsc_stripped" --seconds 1 >/dev/null 2>"$tmp/err"
check "stripped binary" $? "FALSE SHARING  fsc_stripped\+0x"

# 2. an empty perf map for the target's pid (exec keeps the pid)
"$contend" run -o "$tmp/out" -- sh -c 'echo $$ >"$2"; : >/tmp/perf-$$.map; exec "$1" --seconds 1' sh \
	"$tc/false_sharing_counters" "$tmp/map_pid" >/dev/null 2>"$tmp/err"
check "empty perf map" $? "FALSE SHARING .*counters"
[ -s "$tmp/map_pid" ] && rm -f "/tmp/perf-$(cat "$tmp/map_pid").map"

# 3. DWARF without CU ranges: the code has no debug info, one data-only
# file has
if printf 'int debug_only_data = 1;\n' >"$tmp/data.c" &&
   cc -g -c -o "$tmp/data.o" "$tmp/data.c" &&
   cc -O2 -pthread -o "$tmp/fsc_noranges" \
	"$top_srcdir/testcases/false_sharing_counters.c" "$tmp/data.o" 2>/dev/null; then
	"$contend" run -o "$tmp/out" -- "$tmp/fsc_noranges" --seconds 1 >/dev/null 2>"$tmp/err"
	check "debug info without CU ranges" $? "FALSE SHARING .*counters"
else
	echo "skip debug info without CU ranges: no cc"
fi

# 4. watch a word of counters[] past the two threads' elements: untouched
"$tc/false_sharing_counters" --seconds 30 >/dev/null &
t=$!
pids="$pids $t"
sleep 0.5
"$contend" watch -p $t -w 100 counters+48 >"$tmp/out" 2>"$tmp/err"
st=$?
if grep -q "no free debug register\|hardware breakpoints\|hardware watchpoints" "$tmp/err"; then
	echo "skip watch of an untouched word: no working watchpoints: $(cat "$tmp/err")"
else
	check "watch of an untouched word" $st "counters\+48"
fi

[ $fails -eq 0 ]
