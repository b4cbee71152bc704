#!/usr/bin/env bash
# Overhead of contend top on its target: wall time of fixed work natively,
# under `contend top --batch` at its default rate and refresh (a window
# report every second), and under `contend run` for comparison; runs
# interleaved, medians and ratios to native as a markdown table, then the
# median ratio of top over all cases.  Target: top within 1.05x.
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
