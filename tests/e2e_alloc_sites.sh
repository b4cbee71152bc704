#!/bin/sh
# Allocation sites in the text and HTML reports (the JSON's are checked by
# the testcases' expected.json): heap_struct_array's line names its block,
# calloc(2, 3072), allocated in main, as 2 x struct worker_arg kept in arg;
# heap_per_thread_stats's its aligned_alloc(64, 64) in main; the bins each
# thread writes as element ranges (arg[1].red[0..7]); a block allocated
# through helpers -O2 inlines names the calls that inlined them.  Then
# --no-alloc-sites: no heap block, and never a made-up struct.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/e2e_lib.sh"

# Contention shows only while both threads run at once: on a busy machine
# a run may see none, so try again before failing.
report() {   # out-file, contend args... -- command...
	out=$1
	shift
	for try in 1 2 3; do
		"$contend" run -q -o "$out" "$@" >/dev/null 2>"$tmp/err" ||
			{ fail "contend $*: exit $?: $(cat "$tmp/err")"; return; }
		grep -q 'FALSE SHARING' "$out" && return
		echo "try $try: no contended line reported"
	done
}

has() {   # name, file, fixed string
	if grep -qF -- "$3" "$2"; then ok "$1"; else fail "$1: no '$3' in:"; head -30 "$2"; fi
}

has_re() {   # name, file, extended regular expression
	if grep -qE -- "$3" "$2"; then ok "$1"; else fail "$1: no /$3/ in:"; head -30 "$2"; fi
}

lacks() {   # name, file, fixed string
	if grep -qF -- "$3" "$2"; then fail "$1: '$3' in:"; grep -F -- "$3" "$2"; else ok "$1"; fi
}

report "$tmp/hsa.txt" -- "$tc/heap_struct_array"
has "text: the block's call" "$tmp/hsa.txt" "heap block: calloc(2, 3072) = 6144 bytes at 0x"
has "text: its type" "$tmp/hsa.txt" "(2 x struct worker_arg, kept in arg)"
has "text: its site" "$tmp/hsa.txt" "allocated in main heap_struct_array.c:"
has "text: the object" "$tmp/hsa.txt" "(arg: struct worker_arg[2])"
has "text: element 0's member" "$tmp/hsa.txt" "arg[0].blue[2"
has "text: element 1's member" "$tmp/hsa.txt" "arg[1].red["
# consecutive elements a thread writes are one range, not one row each
has_re "text: element 0's last bins as one range" "$tmp/hsa.txt" 'arg\[0\]\.blue\[[0-9]+\.\.255\]'
has_re "text: element 1's first bins as one range" "$tmp/hsa.txt" 'arg\[1\]\.red\[0\.\.[0-9]+\]'
has "text: advice on the array" "$tmp/hsa.txt" "advice: align arg to the 64-byte line"
has "text: advice on the allocation" "$tmp/hsa.txt" "allocate with aligned_alloc(64, 2 * sizeof(struct worker_arg))"
lacks "text: no struct int" "$tmp/hsa.txt" "struct int"

report "$tmp/hsa.html" --format html -- "$tc/heap_struct_array"
has "html: the block" "$tmp/hsa.html" '<p class="alloc">heap block: <span class="mono">calloc(2, 3072) = 6144 bytes'
has "html: its site" "$tmp/hsa.html" "allocated in main heap_struct_array.c:"
has_re "html: element 1's first bins as one range" "$tmp/hsa.html" 'arg\[1\]\.red\[0\.\.[0-9]+\]'

report "$tmp/hpts.txt" -- "$tc/heap_per_thread_stats" -t 2 --iters 100000000
has "stats text: the block" "$tmp/hpts.txt" "heap block: aligned_alloc(64, 64) = 64 bytes at 0x"
has "stats text: its site" "$tmp/hpts.txt" "allocated in main heap_per_thread_stats.c:"
has "stats text: members by element" "$tmp/hpts.txt" "stats[1].lookups"

report "$tmp/hpts.html" --format html -- "$tc/heap_per_thread_stats" -t 2 --iters 100000000
has "stats html: the block" "$tmp/hpts.html" '<p class="alloc">heap block: <span class="mono">aligned_alloc(64, 64)'
has "stats html: its site" "$tmp/hpts.html" "allocated in main heap_per_thread_stats.c:"

# A block allocated through static helpers that -O2 inlines into main:
# the site is the helper's call, and the calls that inlined it follow
# (DWARF's, not a stack walk's: the fixture has no frame pointers); the
# helper tests the pointer before main's variable holds it, and the type
# is still main's.
fx="$top_builddir/tests/fixture_alloc_wrapper"
src="$(dirname "$0")/fixture_alloc_wrapper.c"
line_of() { grep -n "$1" "$src" | cut -d: -f1; }
report "$tmp/wrap.txt" -- "$fx" 0.5
tr -s ' \n' ' ' < "$tmp/wrap.txt" > "$tmp/wrap.flat"
has "wrapper: site and inlined callers" "$tmp/wrap.flat" \
	"allocated in zalloc fixture_alloc_wrapper.c:$(line_of ZALLOC_LINE) <- counters_new fixture_alloc_wrapper.c:$(line_of COUNTERS_NEW_LINE) <- main fixture_alloc_wrapper.c:$(line_of MAIN_LINE) by thread"
has "wrapper: the type main keeps it as" "$tmp/wrap.flat" "(struct counters, kept in c)"
has "wrapper: members by type, one struct as the code names it" "$tmp/wrap.flat" "c->count[1]"
"$contend" run -q --format json -o "$tmp/wrap.json" -- "$fx" 0.5 >/dev/null 2>"$tmp/err" ||
	fail "wrapper json: exit $?: $(cat "$tmp/err")"
if python3 - "$tmp/wrap.json" "$(line_of COUNTERS_NEW_LINE)" "$(line_of MAIN_LINE)" <<'EOF'
import json, sys
lines = json.load(open(sys.argv[1]))["lines"]
want = ["counters_new fixture_alloc_wrapper.c:" + sys.argv[2],
        "main fixture_alloc_wrapper.c:" + sys.argv[3]]
got = [l["allocation"]["callers"] for l in lines if l.get("allocation")]
if not got or any(c != want for c in got):
    sys.exit("callers: %r, want %r" % (got, want))
EOF
then ok "wrapper json: callers outward"; else fail "wrapper json: callers outward"; fi

report "$tmp/off.txt" --no-alloc-sites -- "$tc/heap_struct_array"
lacks "off: no heap block" "$tmp/off.txt" "heap block:"
lacks "off: no struct int" "$tmp/off.txt" "struct int"
lacks "off: no struct made up for a scalar" "$tmp/off.txt" "struct {"
has "off: says no struct is known" "$tmp/off.txt" "no struct type is known"

[ "$fails" -eq 0 ] || exit 1
