#!/usr/bin/env bash
# What tracking allocations with uprobes would cost (the way attach could
# see a running process's allocations; bench/uprobe-cost.c): bench/alloc-heavy
# (2 threads) natively and with counting uprobes on libc's malloc, calloc,
# realloc and free (entry only, then entry and return, as a tracker needs
# the returned address), interleaved; medians of the program's CPU time
# (user + system, the probes' traps land in system), the ratio, and the
# cost per probe hit.  Counting is the cheapest a probe can be: a tracker
# would add a record per hit.
#   bench/uprobe-overhead.sh [RUNS] [REQUESTS]   (default 5, 300000; from the build tree)
set -euo pipefail
runs=${1:-5}
requests=${2:-300000}
b=${top_builddir:-$(pwd)}
prog="$b/bench/alloc-heavy"
tool="$b/bench/uprobe-cost"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

[ -x "$prog" ] && [ -x "$tool" ] || { echo "build bench/alloc-heavy and bench/uprobe-cost first" >&2; exit 2; }
libc=$(ldd "$prog" | awk '/libc\.so/ { print $3 }')
syms=malloc,calloc,realloc,free

one() {   # label, uprobe-cost args before "--"...
	local f=$tmp/$1
	shift
	"$tool" "$@" -- "$prog" "${args[@]}" | awk '$1 == "hits" { print $2, $4 + $6 }' >>"$f"
}

measure() {   # label, alloc-heavy args...
	local label=$1 n e r he hr
	shift
	args=("$@")
	: >"$tmp/native"; : >"$tmp/entry"; : >"$tmp/ret"
	for ((i = 0; i < runs; i++)); do
		one native "$libc" -
		one entry "$libc" "$syms"
		one ret --ret "$libc" "$syms"
	done
	n=$(awk '{ print $2 }' "$tmp/native" | median)
	e=$(awk '{ print $2 }' "$tmp/entry" | median)
	r=$(awk '{ print $2 }' "$tmp/ret" | median)
	he=$(awk '{ print $1 }' "$tmp/entry" | median)
	hr=$(awk '{ print $1 }' "$tmp/ret" | median)
	awk -v l="$label" -v n="$n" -v e="$e" -v r="$r" -v he="$he" -v hr="$hr" \
		'BEGIN { printf "| %s | %.1f M | %.2f | %.2f | %.2fx | %.2f us | %.2f | %.2fx | %.2f us |\n",
			 l, he / 1e6, n, e, e / n, (e - n) / he * 1e6, r, r / n, (r - n) / hr * 1e6 }'
	for f in native entry ret; do
		echo "all runs, $label, $f (hits cpu_s): $(tr '\n' ' ' <"$tmp/$f")" >&2
	done
}

echo "alloc-heavy, 2 threads, $runs runs interleaved, medians of the program's CPU seconds (user + system)"
echo "| program | calls probed | native s | entry probes s | ratio | per hit | entry + return s | ratio | per hit (entry or return) |"
echo "|---|---|---|---|---|---|---|---|---|"
measure "malloc-heavy (--work 8)" --requests "$requests"
measure "allocation only (--work 0)" --requests "$((requests * 2))" --work 0
