#!/usr/bin/env bash
# The whole command's overhead, as a user pays it: testcases/no_sharing
# bare, under `contend run` with every default on (1000 Hz, confirmation,
# the price probe, allocation sites), sampling only (--no-confirm
# --no-price-probe --no-alloc-sites), under `perf record` of the same
# event and registers (where perf is installed), and the floor under them
# all: bench/sampling-floor, the same event with nothing reading it (the
# kernel's price of the samples).  RUNS rounds (default 7); per variant
# the median of its per-round ratio to the bare run of that round, wall
# time.  Each round runs the variants in an order rotated by one: on this
# kind of VM a run's place in the round moved its time by 2-6 points (the
# run after `perf record` writes its file was slower), which a fixed order
# put into one variant's row.
#   bench/defaults-overhead.sh [RUNS]      (from the build tree)
#   OVERHEAD_ITERS=N      the target's iterations (default 600M, ~1.2 s):
#                         a longer run shows what is fixed and what is not
#   OVERHEAD_BASE=PATH    another build's contend, every default, in the
#                         same rounds: a change's effect, paired (keep both
#                         builds under the same kind of path: one run from
#                         the source tree and one from /tmp differed by 1%)
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

# name, then the command (the target appended)
variants=(bare defaults sampling)
[ -n "${OVERHEAD_BASE:-}" ] && variants+=(base)
[ -n "$floor" ] && variants+=(floor)
[ -n "$perf_ok" ] && variants+=(perf)
run_variant() {   # name: its wall time
	# shellcheck disable=SC2086
	case $1 in
	bare) wall $target ;;
	defaults) wall "$contend" run -q -o "$tmp/r.txt" -- $target ;;
	sampling) wall "$contend" run -q --no-confirm --no-price-probe --no-alloc-sites \
		-o "$tmp/r.txt" -- $target ;;
	base) wall "$OVERHEAD_BASE" run -q -o "$tmp/r.txt" -- $target ;;
	floor) wall "$floor" 1000 $target ;;
	perf) wall perf record -q -e cpu-clock -c 1000000 \
		--user-regs=ip,sp,ax,bx,cx,dx,si,di,bp,r8,r9,r10,r11,r12,r13,r14,r15 \
		-o "$tmp/p.data" -- $target ;;
	esac
}

k=${#variants[@]}
for v in "${variants[@]}"; do : >"$tmp/$v"; done
for ((i = 0; i < runs; i++)); do
	declare -A t=()
	for ((j = 0; j < k; j++)); do
		v=${variants[$(((i + j) % k))]}
		t[$v]=$(run_variant "$v")
	done
	for v in "${variants[@]}"; do
		[ "$v" = bare ] && continue
		awk -v a="${t[$v]}" -v b="${t[bare]}" 'BEGIN { print a / b }' >>"$tmp/$v"
	done
	unset t
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
