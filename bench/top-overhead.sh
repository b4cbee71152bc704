#!/usr/bin/env bash
# Overhead of contend top on its target: wall time of fixed work natively,
# under `contend top --batch` at its default rate and refresh (a window
# report every second), and under `contend run` for comparison; runs
# interleaved, medians and ratios to native as a markdown table, then the
# median ratio of top over all cases.  Target: top within 1.05x.
# Then the rate of one running process (false_sharing_counters --padded
# --report-rate) while top is attached, against the same process's rate
# in the 1.5 s before and after: paired in time, so a busy machine's
# drift weighs less than in the wall times.
#   bench/top-overhead.sh [RUNS]    (default 5; run from the build tree)
set -euo pipefail
runs=${1:-5}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tc="$b/testcases"

# Each two to three seconds natively, so that two or three refreshes fall
# in a run: the cost of top beyond run's is the window's report.
cases=(
	"false_sharing_counters --padded --iters 5000000000"
	"false_sharing_counters --iters 600000000"
	"no_sharing --iters 1200000000"
)

. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| testcase | native s | contend top s | ratio | contend run s | ratio |"
echo "|---|---|---|---|---|---|"
: >"$tmp/ratios"
for c in "${cases[@]}"; do
	set -- $c
	bin="$tc/$1"; shift
	: >"$tmp/n"; : >"$tmp/t"; : >"$tmp/r"
	for ((i = 0; i < runs; i++)); do
		wall "$bin" "$@" >>"$tmp/n"
		wall "$contend" top --batch -- "$bin" "$@" >>"$tmp/t"
		wall "$contend" run -q --no-confirm -- "$bin" "$@" >>"$tmp/r"
	done
	n=$(median <"$tmp/n"); t=$(median <"$tmp/t"); r=$(median <"$tmp/r")
	rt=$(awk -v a="$t" -v b="$n" 'BEGIN { printf "%.3f", a / b }')
	echo "$rt" >>"$tmp/ratios"
	printf "| %s | %.3f | %.3f | %s | %.3f | %.3f |\n" "$c" "$n" "$t" "$rt" "$r" \
		"$(awk -v a="$r" -v b="$n" 'BEGIN { print a / b }')"
done
echo
echo "median ratio of contend top to native: $(median <"$tmp/ratios")x (target <= 1.05x)"
echo
echo "| run | before /s | top attached /s | after /s | attached / mean(before, after) |"
echo "|---|---|---|---|---|"
: >"$tmp/slow"
for ((i = 1; i <= runs; i++)); do
	"$tc/false_sharing_counters" --padded --seconds 8 --report-rate >"$tmp/rates" &
	pid=$!
	sleep 2.5
	"$contend" top --batch -d 3 -p "$pid" >/dev/null
	wait "$pid"
	# top ran from about 2.5 s to 5.5 s: leave its first and last half second
	before=$(median_rate "$tmp/rates" 1 2.5); during=$(median_rate "$tmp/rates" 3 5); after=$(median_rate "$tmp/rates" 6 7.5)
	r=$(awk -v d="$during" -v b="$before" -v a="$after" 'BEGIN { printf "%.3f", d / ((b + a) / 2) }')
	echo "$r" >>"$tmp/slow"
	printf "| %d | %.4g | %.4g | %.4g | %s |\n" "$i" "$before" "$during" "$after" "$r"
done
echo
echo "median rate while top is attached: $(median <"$tmp/slow")x of before/after (target >= 0.95)"
