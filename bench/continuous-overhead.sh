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
