#!/bin/sh
# contend attach names heap blocks without the shim, by reading the
# target's glibc heap at report time (detector/glibc_heap.h): on
# heap_struct_array, started on its own, the contended line lies in a
# 6144-byte block (6152 usable) read from the heap, with no site; its type
# struct worker_arg, found by size, gives the members arg[0].blue[...] and
# arg[1].red[...] and advice on the struct, never a struct int.  The text
# says the site was not recorded, stderr what the walk cost.  record -p
# writes the blocks into its data file, and report names the same block
# from it after the target is gone; top -p's rows name the members.  With
# --no-alloc-sites: no block.
# The target is left running and unharmed.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
tmp=$(mktemp -d)
target=
trap 'stop_target; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/e2e_lib.sh"

start_target() {
	"$tc/heap_struct_array" --iters 1000000000 >"$tmp/target.out" 2>&1 &
	target=$!
	sleep 0.3
}

# attach and write the report; a second try if nothing was contended
# (both threads must run at once: a busy machine may not let them)
attach() {   # out-file, contend args...
	out=$1
	shift
	for try in 1 2 3; do
		"$contend" attach -p "$target" -d 2 -o "$out" "$@" 2>"$tmp/err" ||
			{ fail "attach $*: exit $?: $(cat "$tmp/err")"; return 1; }
		grep -q '"kind": "false"\|FALSE SHARING' "$out" && return 0
		echo "try $try: no contended line reported"
	done
	return 0
}

check_json() {   # report.json: the expectations of e2e.py, and the block's own fields
	python3 - "$1" <<'EOF'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
import e2e

with open(sys.argv[1]) as f:
    report = json.load(f)
run = {"expect": [{
    "kind": "false",
    "object": "arg",
    "type": "struct worker_arg[2]",
    "member_prefixes": ["arg[0].blue[", "arg[1].red["],
    "member_ranges": ["arg[0].blue[", "arg[1].red["],
    "min_writer_threads": 2,
    "function": "count",
    "allocation": {"block_source": "heap-walk", "size": 6144, "usable_size": 6152,
                   "call": None, "site": None, "type": "struct worker_arg",
                   "type_size": 3072, "variable": "arg"},
    "advice_excludes": ["struct int", "struct {"]}],
    "forbid_other_lines": True}
failures = e2e.check_report(report, run)
for f in failures:
    print("  " + f)
for line in report["lines"] if failures else []:
    print("    " + e2e.summarize_line(line))
sys.exit(1 if failures else 0)
EOF
}

# the text wraps long lines: compare with its words joined by single spaces
has() {   # name, file, fixed string
	if tr -s ' \n' '  ' <"$2" | grep -qF -- "$3"; then ok "$1"; else
		fail "$1: no '$3' in:"; head -30 "$2"; fi
}

lacks() {   # name, file, fixed string
	if grep -qF -- "$3" "$2"; then fail "$1: '$3' in:"; grep -F -- "$3" "$2"; else ok "$1"; fi
}

start_target
attach "$tmp/a.json" --format json
if check_json "$tmp/a.json"; then ok "json: the block read from the heap, typed by size"; else
	fail "json: see above"; fi
has "stderr: what the walk cost" "$tmp/err" "addresses found in the target's glibc heap"
kill -0 "$target" 2>/dev/null && ok "the target runs on" || fail "the target died"

attach "$tmp/a.txt"
has "text: the block" "$tmp/a.txt" "heap block: 6144 bytes at 0x"
has "text: its type by size" "$tmp/a.txt" "(2 x struct worker_arg by its size, as pointers named arg go)"
has "text: no site, and why" "$tmp/a.txt" "allocation site not recorded under attach"
has "text: element 1's member" "$tmp/a.txt" "arg[1].red["
has "text: advice on the allocation" "$tmp/a.txt" "allocate with aligned_alloc(64, 2 * sizeof(struct worker_arg))"
lacks "text: no struct int" "$tmp/a.txt" "struct int"

# record -p writes the blocks it found; report names them from the file,
# with the target gone
for try in 1 2 3; do
	"$contend" record -p "$target" -d 2 -o "$tmp/a.data" 2>"$tmp/rec.err" ||
		fail "record -p: exit $?: $(cat "$tmp/rec.err")"
	"$contend" report -i "$tmp/a.data" --format json -o "$tmp/r.json" 2>"$tmp/err" ||
		fail "report: exit $?: $(cat "$tmp/err")"
	grep -q '"kind": "false"' "$tmp/r.json" && break
	echo "try $try: no contended line recorded"
done
has "record -p: what the walk cost" "$tmp/rec.err" "addresses found in the target's glibc heap"
"$contend" report -i "$tmp/a.data" --no-alloc-sites -o "$tmp/r-off.txt" 2>/dev/null
lacks "report --no-alloc-sites: no heap block" "$tmp/r-off.txt" "heap block:"

# top -p reads the heap at each refresh: its rows name the members too
for try in 1 2 3; do
	"$contend" top -p "$target" --batch -n 2 -i 1 >"$tmp/top.txt" 2>"$tmp/err" ||
		fail "top -p: exit $?: $(cat "$tmp/err")"
	grep -q '^1	false' "$tmp/top.txt" && break
	echo "try $try: top showed no contended line"
done
has "top: element 0's member" "$tmp/top.txt" "arg[0].blue["
has "top: element 1's member" "$tmp/top.txt" "arg[1].red["

attach "$tmp/off.txt" --no-alloc-sites
lacks "--no-alloc-sites: no heap block" "$tmp/off.txt" "heap block:"
lacks "--no-alloc-sites: no walk" "$tmp/err" "glibc heap"
lacks "--no-alloc-sites: no struct int" "$tmp/off.txt" "struct int"
stop_target
if check_json "$tmp/r.json"; then ok "record -p, report: the block from the file, typed by size"
else fail "record -p, report: see above"; fi

[ "$fails" -eq 0 ] || exit 1
