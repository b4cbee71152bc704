#!/usr/bin/env bash
# The part of `contend run` the target waits for: from contend's exec to
# the target's exec (loading contend, choosing the backend, the triage's
# counters, opening the events), and from the target's exit to contend's
# (draining, the report).  Nothing else of contend's work is serial with
# the target, so these two are what a short run pays in full.  Read from
# the kernel's sched_process_exec/exit tracepoints over the whole machine
# (perf record -a: root or perf_event_paranoid -1), RUNS runs (default 9)
# of each variant, medians in ms.  Runs are GAP seconds apart (default 1.5):
# the kernel turns its perf scheduling hooks off 1 s after the last task
# event closes, and the first event opened after that waits out an RCU
# grace period, as every run of a CI loop or a user at a prompt does.
#   bench/startup.sh [RUNS]       (from the build tree)
#   STARTUP_BASE=PATH   another build's contend, in the same rounds
#   STARTUP_GAP=S       seconds between runs
set -uo pipefail
runs=${1:-9}
gap=${STARTUP_GAP:-1.5}
b=${top_builddir:-$(pwd)}
target="$b/testcases/no_sharing"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 0; }
perf record -q -a -e sched:sched_process_exec -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
	{ echo "SKIP: perf record -a of sched tracepoints is not permitted here"; exit 0; }

names=(defaults sampling)
cmds=("$b/contend run -o $tmp/r.txt --"
      "$b/contend run -o $tmp/r.txt --no-confirm --no-price-probe --no-alloc-sites --")
if [ -n "${STARTUP_BASE:-}" ]; then
	names+=(base)
	cmds+=("$STARTUP_BASE run -o $tmp/r.txt --")
fi

# one run of CMD under the tracepoints: "exec_to_exec exit_to_exit" in ms
one() {
	perf record -q -a -e sched:sched_process_exec -e sched:sched_process_exit \
		-o "$tmp/t.data" -- $1 "$target" --iters 1000 >/dev/null 2>&1
	perf script -i "$tmp/t.data" -F comm,tid,time,event 2>/dev/null | awk '
		{ t = $3; sub(":", "", t) }
		/sched_process_exec/ && $1 == "contend" && !ce { ce = t }
		/sched_process_exec/ && $1 == "no_sharing" && !te { te = t }
		/sched_process_exit/ && $1 == "no_sharing" { tx = t }
		/sched_process_exit/ && $1 == "contend" { cx = t }
		END { if (ce && te && tx && cx)
			printf "%.2f %.2f\n", (te - ce) * 1e3, (cx - tx) * 1e3 }'
}

for ((r = 0; r < runs; r++)); do
	for i in "${!names[@]}"; do
		sleep "$gap"
		one "${cmds[$i]}" >>"$tmp/${names[$i]}"
	done
done

printf "%-10s %22s %22s   (%d runs, %s s apart, medians)\n" variant \
	"contend exec->target" "target exit->contend" "$runs" "$gap"
for n in "${names[@]}"; do
	printf "%-10s %19s ms %19s ms\n" "$n" \
		"$(cut -d' ' -f1 "$tmp/$n" | median)" "$(cut -d' ' -f2 "$tmp/$n" | median)"
done
