#!/usr/bin/env bash
# The whole command's overhead, as a user pays it: testcases/no_sharing
# bare, under `contend run` with every default on (1000 Hz, confirmation,
# the price probe, allocation sites), sampling only (--no-confirm
# --no-price-probe --no-alloc-sites), and under `perf record` of the same
# event and registers (where perf is installed).  RUNS interleaved rounds
# (default 7); per variant the median of its per-round ratio to the bare
# run of that round, wall time.
#   bench/defaults-overhead.sh [RUNS]      (from the build tree)
#   OVERHEAD_ITERS=N      the target's iterations (default 600M, ~1.2 s):
#                         a longer run shows what is fixed and what is not
set -uo pipefail
runs=${1:-7}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
target="$b/testcases/no_sharing --iters ${OVERHEAD_ITERS:-600000000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

perf_ok=
command -v perf >/dev/null &&
	perf record -q -e cpu-clock -c 1000000 -o "$tmp/p.data" -- true >/dev/null 2>&1 && perf_ok=1
: >"$tmp/defaults"; : >"$tmp/sampling"; : >"$tmp/perf"
for ((i = 0; i < runs; i++)); do
	# shellcheck disable=SC2086
	bare=$(wall $target)
	# shellcheck disable=SC2086
	d=$(wall "$contend" run -q -o "$tmp/r.txt" -- $target)
	# shellcheck disable=SC2086
	s=$(wall "$contend" run -q --no-confirm --no-price-probe --no-alloc-sites \
		-o "$tmp/r.txt" -- $target)
	awk -v a="$d" -v b="$bare" 'BEGIN { print a / b }' >>"$tmp/defaults"
	awk -v a="$s" -v b="$bare" 'BEGIN { print a / b }' >>"$tmp/sampling"
	if [ -n "$perf_ok" ]; then
		# shellcheck disable=SC2086
		p=$(wall perf record -q -e cpu-clock -c 1000000 --user-regs=ip,sp,ax,bx,cx,dx,si,di,bp,r8,r9,r10,r11,r12,r13,r14,r15 \
			-o "$tmp/p.data" -- $target)
		awk -v a="$p" -v b="$bare" 'BEGIN { print a / b }' >>"$tmp/perf"
	fi
done
echo "| variant | wall / bare (median of $runs rounds) |"
echo "|---|---|"
echo "| contend run, every default | $(median <"$tmp/defaults")x |"
echo "| contend run, sampling only | $(median <"$tmp/sampling")x |"
[ -n "$perf_ok" ] && echo "| perf record, the same event and registers | $(median <"$tmp/perf")x |" ||
	echo "| perf record | (perf not usable here) |"
