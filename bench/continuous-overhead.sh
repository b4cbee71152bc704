#!/usr/bin/env bash
# Cost of contend's continuous mode on its target: wall time of each
# testcase native, with `contend attach --interval 1` at its default rate
# (99 Hz) for the target's whole life, with `contend run` at the default
# 1000 Hz, and, where perf is installed, with `perf record` of the same
# events (cpu-clock at the same rate with the user registers) in the same
# runs.  Runs interleaved; medians and ratios to native, as markdown.
#   bench/continuous-overhead.sh [RUNS]     (default 5; from the build tree)
set -euo pipefail
runs=${1:-5}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tc="$b/testcases"
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cases=(
	"false_sharing_counters --padded --iters 2500000000"
	"no_sharing --iters 600000000"
	"heap_per_thread_stats --padded --iters 1000000000"
)

# The target's wall time with continuous contend attached from its start
# to its end (attach ends when the process exits).
continuous() {
	local t0 t1 pid
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 &
	pid=$!
	mkdir -p "$tmp/p"
	"$contend" attach -q -p $pid --interval 1 -o "$tmp/p" >/dev/null 2>&1 || true
	wait $pid || true
	t1=$(date +%s.%N)
	rm -f "$tmp/p"/*
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

have_perf=false
if command -v perf >/dev/null && perf record -q -e cpu-clock -F 99 -o "$tmp/probe" -- true \
	>/dev/null 2>&1; then
	have_perf=true
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

echo "| testcase | native s | continuous 99 Hz | ratio | run 1000 Hz | ratio | perf record 99 Hz | ratio | perf record 1000 Hz | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
	set -- $c
	bin="$tc/$1"; shift
	: >"$tmp/n"; : >"$tmp/c"; : >"$tmp/r"; : >"$tmp/p99"; : >"$tmp/p1k"
	for ((i = 0; i < runs; i++)); do
		wall "$bin" "$@" >>"$tmp/n"
		continuous "$bin" "$@" >>"$tmp/c"
		wall "$contend" run -q --no-confirm -o /dev/null -- "$bin" "$@" >>"$tmp/r"
		if $have_perf; then
			wall perf record -q -e cpu-clock -F 99 --user-regs=ip,sp,ax,bx,cx,dx,si,di,bp,r8,r9,r10,r11,r12,r13,r14,r15 \
				-o "$tmp/perf.data" -- "$bin" "$@" >>"$tmp/p99"
			wall perf record -q -e cpu-clock -F 1000 --user-regs=ip,sp,ax,bx,cx,dx,si,di,bp,r8,r9,r10,r11,r12,r13,r14,r15 \
				-o "$tmp/perf.data" -- "$bin" "$@" >>"$tmp/p1k"
		fi
	done
	n=$(median <"$tmp/n"); co=$(median <"$tmp/c"); r=$(median <"$tmp/r")
	if $have_perf; then
		p1=$(median <"$tmp/p99"); p2=$(median <"$tmp/p1k")
		pr="$(printf '%.3f | %s | %.3f | %s' "$p1" "$(ratio "$p1" "$n")" "$p2" "$(ratio "$p2" "$n")")"
	else
		pr="- | - | - | -"
	fi
	printf "| %s | %.3f | %.3f | %s | %.3f | %s | %s |\n" "$c" "$n" "$co" "$(ratio "$co" "$n")" \
		"$r" "$(ratio "$r" "$n")" "$pr"
done

# The wall times above include contend's start (tens of ms of CPU beside a
# target that uses both CPUs) in a run of 1.5-2 s.  Continuous mode is for
# processes that run for hours, so this is its cost in the steady state:
# the rate of one running process (false_sharing_counters --padded
# --report-rate) while contend is attached, against the same process's
# rate in the 1.5 s before and after, paired in time.  Continuous mode at
# its 99 Hz, and plain attach at run's 1000 Hz, each attached for 3 s.
steady() {
	local label=$1 i before during after r
	shift
	: >"$tmp/slow"
	for ((i = 1; i <= runs; i++)); do
		"$tc/false_sharing_counters" --padded --seconds 8 --report-rate >"$tmp/rates" &
		local pid=$!
		sleep 2.5
		"$@" -p "$pid" >/dev/null 2>&1 || true
		wait "$pid"
		rm -f "$tmp/p"/*
		# attached from about 2.5 s to 5.5 s: leave its first and last half second
		before=$(median_rate "$tmp/rates" 1 2.5); during=$(median_rate "$tmp/rates" 3 5)
		after=$(median_rate "$tmp/rates" 6 7.5)
		r=$(awk -v d="$during" -v b="$before" -v a="$after" 'BEGIN { printf "%.3f", d / ((b + a) / 2) }')
		echo "$r" >>"$tmp/slow"
		printf "| %s | %d | %.4g | %.4g | %.4g | %s |\n" "$label" "$i" "$before" "$during" "$after" "$r"
	done
	median <"$tmp/slow" >"$tmp/steady.${label// /_}"
}
mkdir -p "$tmp/p"
echo
echo "| steady state | run | before /s | attached /s | after /s | attached / mean(before, after) |"
echo "|---|---|---|---|---|---|"
steady "continuous 99 Hz" "$contend" attach -q --interval 1 -o "$tmp/p" -d 3
steady "attach 1000 Hz" "$contend" attach -q --no-confirm -F 1000 -d 3
echo
for l in "continuous 99 Hz" "attach 1000 Hz"; do
	r=$(cat "$tmp/steady.${l// /_}")
	echo "median steady-state cost, $l: $(awk -v r="$r" 'BEGIN { printf "%.3f", 1 / r }')x"
done
