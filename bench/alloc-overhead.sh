#!/usr/bin/env bash
# Cost of allocation tracking on a malloc-heavy program (bench/alloc-heavy,
# two threads: about 10 allocation calls per request, some 3 million calls
# a second per thread; and with --work 0, nothing but allocation, 10
# million and more: the worst case): the program's own time natively,
# with only the shim (preloaded, its pipe read by cat, its time published
# by bench/alloc-tick as contend publishes it), under
# `contend run --no-alloc-sites` and under `contend run`, in wall seconds
# and in CPU seconds (user + system, with contend's own under run); runs
# interleaved, medians, and the two ratios that are the tracking's cost:
# shim / native, and run / run --no-alloc-sites, each in wall and CPU time.
#   bench/alloc-overhead.sh [RUNS] [REQUESTS]   (default 5, 300000; from the build tree)
set -euo pipefail
runs=${1:-5}
requests=${2:-300000}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
prog="$b/bench/alloc-heavy"
tick="$b/bench/alloc-tick"
shim="$b/libcontend-alloc.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

[ -x "$prog" ] && [ -x "$tick" ] && [ -r "$shim" ] ||
	{ echo "build bench/alloc-heavy, bench/alloc-tick and libcontend-alloc.so first" >&2; exit 2; }

# Wall time to FILE.wall, CPU time (user + system) to FILE: on a machine
# shared with other work, wall time measures the neighbours as much as
# the program, CPU time less so.
cpu() {   # file, command...
	local f=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >/dev/null
	awk '{ print $2 + $3 }' "$tmp/t" >>"$f"
	awk '{ print $1 }' "$tmp/t" >>"$f.wall"
}
# only the shim: preloaded, its pipe read by cat, its tick published
cpu_shim() {   # file, command...
	local f=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$tick" env CONTEND_ALLOC_FD=3 LD_PRELOAD="$shim" "$@" \
		>/dev/null 3> >(cat >/dev/null)
	awk '{ print $2 + $3 }' "$tmp/t" >>"$f"
	awk '{ print $1 }' "$tmp/t" >>"$f.wall"
}

measure() {   # label, alloc-heavy args...
	local label=$1 n s off on calls nw sw offw onw
	shift
	for f in native shim off on; do : >"$tmp/$f"; : >"$tmp/$f.wall"; done
	for ((i = 0; i < runs; i++)); do
		cpu "$tmp/native" "$prog" "$@"
		cpu_shim "$tmp/shim" "$prog" "$@"
		cpu "$tmp/off" "$contend" run -q -o "$tmp/r.txt" --no-alloc-sites -- "$prog" "$@"
		cpu "$tmp/on" "$contend" run -q -o "$tmp/r.txt" -- "$prog" "$@"
	done
	calls=$("$prog" "$@" | sed -n 's/.*: \([0-9]*\) allocation calls.*/\1/p')
	n=$(median <"$tmp/native"); s=$(median <"$tmp/shim")
	off=$(median <"$tmp/off"); on=$(median <"$tmp/on")
	nw=$(median <"$tmp/native.wall"); sw=$(median <"$tmp/shim.wall")
	offw=$(median <"$tmp/off.wall"); onw=$(median <"$tmp/on.wall")
	awk -v l="$label" -v c="$calls" -v n="$n" -v s="$s" -v off="$off" -v on="$on" \
	    -v nw="$nw" -v sw="$sw" -v offw="$offw" -v onw="$onw" \
		'BEGIN { printf "| %s | %.1f M | wall | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx |\n",
			 l, c / 1e6, nw, sw, sw / nw, offw, onw, onw / offw
			 printf "| | | CPU | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx |\n",
			 n, s, s / n, off, on, on / off }'
	awk -v n="$n" -v s="$s" -v off="$off" -v on="$on" \
		'BEGIN { printf "shim only %.2fx, run %.2fx", s / n, on / off }' >"$tmp/bar.$label"
	for f in native shim off on; do
		echo "all runs, $label, $f: wall $(tr '\n' ' ' <"$tmp/$f.wall")| CPU $(tr '\n' ' ' <"$tmp/$f")" >&2
	done
}

echo "alloc-heavy, 2 threads, $runs runs interleaved, medians of wall and CPU seconds (user + system; under run: contend's and the target's)"
echo "| program | allocation calls | time | native s | shim only s | ratio | run --no-alloc-sites s | run s | ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
measure "malloc-heavy (--work 8)" --requests "$requests"
measure "allocation only (--work 0)" --requests "$((requests * 2))" --work 0
# the bar (issue 15): under 1.10x in CPU time on the malloc-heavy program
echo
echo "The bar, CPU time with tracking against without on the malloc-heavy program (under 1.10x): $(cat "$tmp/bar.malloc-heavy (--work 8)")"
