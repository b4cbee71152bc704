#!/usr/bin/env bash
# Cost of sampling on its target, at continuous mode's default rate (99 Hz)
# and at run's (1000 Hz), beside `perf record` of the same events
# (cpu-clock at the same rate with the same user registers) in the same
# passes.  The cost is the target's own slowdown: each testcase times its
# work phase and prints its rate last ("... N units/s").  Each round runs
# the target natively and under each tool, some 4 s apiece, back to back;
# a round's slowdown is its native rate over the sampled rate, and the
# table shows the median round, which the machine's drift over minutes
# moves less than a ratio of medians.  A tool's own
# start-up and report are not the target's cost (perf record spends most
# of a second after the target exits); they are shown apart, as run's
# wall time against native.
#   bench/continuous-overhead.sh [RUNS]     (default 5; from the build tree)
set -euo pipefail
runs=${1:-5}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tc="$b/testcases"
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p"

cases=(
	"false_sharing_counters --padded --iters 7500000000"
	"no_sharing --iters 2000000000"
	"heap_per_thread_stats --padded --iters 2000000000"
)
regs=ip,sp,ax,bx,cx,dx,si,di,bp,r8,r9,r10,r11,r12,r13,r14,r15

# The rate the target printed last ("... 123 units/s").
rate_of() { tail -n 1 "$1" | awk '{ print $(NF - 1) }'; }

# Run one configuration of the target, leave its rate in $tmp/rate.
#   one native|continuous|run|perf99|perf1000 CMD...
one() {
	local how=$1 pid
	shift
	case $how in
	native) "$@" >"$tmp/out" 2>/dev/null ;;
	continuous)
		# attached from the target's start to its end, as a
		# continuous profiler would be (attach ends at its exit)
		"$@" >"$tmp/out" 2>/dev/null &
		pid=$!
		"$contend" attach -q -p $pid --interval 1 -o "$tmp/p" >/dev/null 2>&1 || true
		wait $pid || true
		rm -f "$tmp/p"/*
		;;
	run) "$contend" run -q --no-confirm -o /dev/null -- "$@" >"$tmp/out" 2>/dev/null ;;
	perf*)
		perf record -q -e cpu-clock -F "${how#perf}" --user-regs=$regs \
			-o "$tmp/perf.data" -- "$@" >"$tmp/out" 2>/dev/null
		;;
	esac
	rate_of "$tmp/out" >"$tmp/rate"
}

have_perf=false
if command -v perf >/dev/null && perf record -q -e cpu-clock -F 99 -o "$tmp/probe" -- true \
	>/dev/null 2>&1; then
	have_perf=true
fi
slowdown() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.3f", n / s }'; }

echo "Slowdown of each target (native rate / rate while sampled), median of $runs rounds:"
echo
echo "| testcase | native units/s | continuous 99 Hz | perf record 99 Hz | run 1000 Hz | perf record 1000 Hz | run 1000 Hz, wall |"
echo "|---|---|---|---|---|---|---|"
hows="native continuous run"
$have_perf && hows="$hows perf99 perf1000"
for c in "${cases[@]}"; do
	set -- $c
	bin="$tc/$1"; shift
	for h in $hows wall; do : >"$tmp/$h"; done
	for ((i = 0; i < runs; i++)); do
		one native "$bin" "$@"
		n=$(cat "$tmp/rate")
		echo "$n" >>"$tmp/native"
		for h in ${hows#native }; do
			one $h "$bin" "$@"
			slowdown "$n" "$(cat "$tmp/rate")" >>"$tmp/$h"
			echo >>"$tmp/$h"
		done
		w=$(wall "$bin" "$@")
		slowdown "$(wall "$contend" run -q --no-confirm -o /dev/null -- "$bin" "$@")" "$w" >>"$tmp/wall"
		echo >>"$tmp/wall"
	done
	row="| $c | $(printf '%.4g' "$(median <"$tmp/native")")"
	for h in continuous perf99 run perf1000 wall; do
		if [ -s "$tmp/$h" ]; then row="$row | $(printf '%.3f' "$(median <"$tmp/$h")")"
		else row="$row | -"; fi
	done
	echo "$row |"
	for h in continuous run; do cat "$tmp/$h" >>"$tmp/all_$h"; done
done
echo
echo "every round of every testcase: continuous 99 Hz $(median <"$tmp/all_continuous")x," \
	"run 1000 Hz $(median <"$tmp/all_run")x (median of $(wc -l <"$tmp/all_run") rounds)"

# What one sample costs the target: the slowdown at rates high enough to
# resolve it, per kHz.  The kernel's timer interrupt in the target is the
# cost; contend's share of a sample is reading 200 bytes from a ring.
echo
echo "Cost per 1000 samples/s per thread, from no_sharing at 1, 4 and 10 kHz (medians of $runs):"
echo
echo "| rate | contend run | perf record |"
echo "|---|---|---|"
: >"$tmp/slope_c"
for r in 1000 4000 10000; do
	: >"$tmp/n"; : >"$tmp/c"; : >"$tmp/q"
	for ((i = 0; i < runs; i++)); do
		"$tc/no_sharing" --iters 1500000000 >"$tmp/out"; rate_of "$tmp/out" >>"$tmp/n"
		"$contend" run -q --no-confirm -F $r -o /dev/null -- "$tc/no_sharing" --iters 1500000000 \
			>"$tmp/out" 2>/dev/null; rate_of "$tmp/out" >>"$tmp/c"
		if $have_perf; then
			perf record -q -e cpu-clock -F $r --user-regs=$regs -o "$tmp/perf.data" -- \
				"$tc/no_sharing" --iters 1500000000 >"$tmp/out" 2>/dev/null
			rate_of "$tmp/out" >>"$tmp/q"
		fi
	done
	n=$(median <"$tmp/n")
	sc=$(slowdown "$n" "$(median <"$tmp/c")")
	sp=-
	[ -s "$tmp/q" ] && sp=$(slowdown "$n" "$(median <"$tmp/q")")
	echo "| $r Hz | $sc | $sp |"
	awk -v s="$sc" -v r=$r 'BEGIN { print (s - 1) / (r / 1000) }' >>"$tmp/slope_c"
done
k=$(median <"$tmp/slope_c")
awk -v k="$k" 'BEGIN { printf "\nmedian cost per kHz: %.2f%%: at 99 Hz %.4fx, at 1000 Hz %.3fx\n", k * 100, 1 + k * 0.099, 1 + k }'

# Continuous mode is for processes that run for hours: its cost in the
# steady state is the rate of one running process (false_sharing_counters
# --padded --report-rate) while contend is attached, against the same
# process's rate in the 1.5 s before and after, paired in time.  Continuous
# mode at its 99 Hz, and plain attach at run's 1000 Hz, each for 3 s.
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
