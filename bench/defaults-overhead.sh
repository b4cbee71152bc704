#!/usr/bin/env bash
# The whole command's overhead, as a user pays it: testcases/no_sharing
# bare, under `contend run` with every default on (1000 Hz, confirmation,
# the price probe, allocation sites), sampling only (--no-confirm
# --no-price-probe --no-alloc-sites), and under `perf record` of the same
# event and registers (where perf is installed), and the floor under them
# all: bench/sampling-floor, the same event with nothing reading it (the
# kernel's price of the samples).  RUNS interleaved rounds
# (default 7); per variant the median of its per-round ratio to the bare
# run of that round, wall time.
#   bench/defaults-overhead.sh [RUNS]      (from the build tree)
#   OVERHEAD_ITERS=N      the target's iterations (default 600M, ~1.2 s):
#                         a longer run shows what is fixed and what is not
#   OVERHEAD_BASE=PATH    another build's contend, every default, in the
#                         same rounds: a change's effect, paired
set -uo pipefail
runs=${1:-7}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
target="$b/testcases/no_sharing --iters ${OVERHEAD_ITERS:-600000000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

floor="$b/bench/sampling-floor"
[ -x "$floor" ] || floor=
perf_ok=
command -v perf >/dev/null &&
	perf record -q -e cpu-clock -c 1000000 -o "$tmp/p.data" -- true >/dev/null 2>&1 && perf_ok=1
: >"$tmp/defaults"; : >"$tmp/sampling"; : >"$tmp/perf"; : >"$tmp/floor"; : >"$tmp/base"
for ((i = 0; i < runs; i++)); do
	# shellcheck disable=SC2086
	bare=$(wall $target)
	# shellcheck disable=SC2086
	d=$(wall "$contend" run -q -o "$tmp/r.txt" -- $target)
	# shellcheck disable=SC2086
	s=$(wall "$contend" run -q --no-confirm --no-price-probe --no-alloc-sites \
		-o "$tmp/r.txt" -- $target)
	if [ -n "$floor" ]; then
		# shellcheck disable=SC2086
		f=$(wall "$floor" 1000 $target)
		awk -v a="$f" -v b="$bare" 'BEGIN { print a / b }' >>"$tmp/floor"
	fi
	if [ -n "${OVERHEAD_BASE:-}" ]; then
		# shellcheck disable=SC2086
		o=$(wall "$OVERHEAD_BASE" run -q -o "$tmp/r.txt" -- $target)
		awk -v a="$o" -v b="$bare" 'BEGIN { print a / b }' >>"$tmp/base"
	fi
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
[ -n "${OVERHEAD_BASE:-}" ] && echo "| $OVERHEAD_BASE run, every default | $(median <"$tmp/base")x |"
[ -n "$floor" ] && echo "| the event alone, nothing read (bench/sampling-floor) | $(median <"$tmp/floor")x |" ||
	echo "| the event alone | (make bench/sampling-floor first) |"
[ -n "$perf_ok" ] && echo "| perf record, the same event and registers | $(median <"$tmp/perf")x |" ||
	echo "| perf record | (perf not usable here) |"
