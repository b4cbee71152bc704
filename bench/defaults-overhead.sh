#!/usr/bin/env bash
# The whole command's overhead, as a user pays it: testcases/no_sharing
# bare, under `contend run` with every default on (1000 Hz, confirmation,
# the price probe, allocation sites), sampling only (--no-confirm
# --no-price-probe --no-alloc-sites), under `perf record` of the same
# event and registers (where perf is installed), and the floor under them
# all: bench/sampling-floor, the same event with nothing reading it (the
# kernel's price of the samples).  RUNS rounds (default 7); per variant
# the median of its per-round ratio to the bare run of that round, wall
# time.  The bare run is paired with each variant's: the two run one
# after the other, in an order that alternates round by round, and the
# ratio is taken within the pair.  On this kind of VM a run's place moved
# its time by 2-6 points (the run after `perf record` writes its file was
# slower); in a round of all the variants in a rotated order, the same
# variant always followed `bare` and `bare` always followed `perf record`.
#
# Each run also starts in a stated state of the kernel.  The first
# task-bound event opened while none is accounted turns the kernel's perf
# scheduling hooks on (static_branch_enable, then synchronize_rcu: 8-15 ms
# on a 2-vCPU VM), and the hooks go off 1 s after the first close that
# left one event accounted -- for contend, its self-test's, early in the
# run -- so a run that follows a bare run of half a second or more pays
# it, and one that follows contend or perf record does not.  A rotated
# order put every such wait on the variant after `bare`: every default.
# So each run is preceded by one of:
#   warm   the event opened and closed on `true` (bench/sampling-floor),
#          as in a loop of runs: the hooks are on;
#   cold   1.1 s of sleep, as at a prompt: every variant but bare (perf
#          record and the floor too) waits for the kernel once.
#   bench/defaults-overhead.sh [RUNS]      (from the build tree)
#   OVERHEAD_START=warm|cold|both   the state before each run (default
#                         both: a pass of RUNS rounds each)
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
prelude() {   # mode: bring the kernel's perf hooks to that state
	case $1 in
	warm) "$floor" 1000 true >/dev/null 2>&1 ;;
	cold) sleep 1.1 ;;
	esac
}

pass() {   # mode: RUNS rounds of pairs, then the table
	local i j v a b
	for v in "${variants[@]}"; do : >"$tmp/$v"; done
	for ((i = 0; i < runs; i++)); do
		for ((j = 1; j < k; j++)); do
			v=${variants[$(((i + j - 1) % (k - 1) + 1))]}
			if (((i + j) % 2)); then
				prelude "$1"; b=$(run_variant bare)
				prelude "$1"; a=$(run_variant "$v")
			else
				prelude "$1"; a=$(run_variant "$v")
				prelude "$1"; b=$(run_variant bare)
			fi
			awk -v a="$a" -v b="$b" 'BEGIN { print a / b }' >>"$tmp/$v"
		done
	done
	echo "| variant, each run $1 | wall / bare (median of $runs pairs) |"
	echo "|---|---|"
	echo "| contend run, every default | $(median <"$tmp/defaults")x |"
	echo "| contend run, sampling only | $(median <"$tmp/sampling")x |"
	[ -n "${OVERHEAD_BASE:-}" ] && echo "| $OVERHEAD_BASE run, every default | $(median <"$tmp/base")x |"
	[ -n "$floor" ] && echo "| the event alone, nothing read (bench/sampling-floor) | $(median <"$tmp/floor")x |" ||
		echo "| the event alone | (make bench/sampling-floor first) |"
	[ -n "$perf_ok" ] && echo "| perf record, the same event and registers | $(median <"$tmp/perf")x |" ||
		echo "| perf record | (perf not usable here) |"
}

start=${OVERHEAD_START:-both}
if [ -z "$floor" ] && [ "$start" != cold ]; then
	echo "(no bench/sampling-floor to warm the kernel's hooks with: cold runs only)"
	start=cold
fi
case $start in
warm | cold) pass "$start" ;;
both) pass warm; echo; pass cold ;;
*) echo "OVERHEAD_START: warm, cold or both" >&2; exit 2 ;;
esac
