#!/usr/bin/env bash
# Overhead of contend on its targets: wall time of each testcase native and
# under `contend run` (default rate, and 4x), runs interleaved, medians and
# ratios printed as a markdown table.
#   bench/overhead.sh [RUNS]        (default 5; run from the build tree)
set -euo pipefail
runs=${1:-5}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tc="$b/testcases"
freq=$("$contend" run --help | sed -n 's/.*default \([0-9]*\)).*/\1/p' | head -1)

# Every testcase and variant, each sized to run one to two seconds
# natively: confirmation watches for about 35 ms early in a run, which
# would be 4-5% of a shorter one; longer ones would not fit make bench in
# its ten minutes.
cases=(
	"false_sharing_counters --padded --iters 2500000000"
	"false_sharing_counters --iters 300000000"
	"heap_per_thread_stats --padded --iters 1000000000"
	"heap_per_thread_stats --iters 320000000"
	"no_sharing --iters 600000000"
	"phased --phases 6"
	"thread_churn --seconds 1.5"
	"true_sharing_counter --iters 30000000"
	"klass_secondary_supers --seconds 1"
)

. "$(dirname "$0")/lib.sh"

echo "| testcase | native s | contend -F $freq s | ratio | -F $((freq * 4)) s | ratio |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
	set -- $c
	bin="$tc/$1"; shift
	: >/tmp/ovh.n; : >/tmp/ovh.c; : >/tmp/ovh.c4
	for ((i = 0; i < runs; i++)); do
		wall "$bin" "$@" >>/tmp/ovh.n
		wall "$contend" run -q -- "$bin" "$@" >>/tmp/ovh.c
		wall "$contend" run -q -F $((freq * 4)) -- "$bin" "$@" >>/tmp/ovh.c4
	done
	n=$(median </tmp/ovh.n); c1=$(median </tmp/ovh.c); c4=$(median </tmp/ovh.c4)
	printf "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n" "$c" "$n" "$c1" \
		"$(awk -v a="$c1" -v b="$n" 'BEGIN { print a / b }')" "$c4" "$(awk -v a="$c4" -v b="$n" 'BEGIN { print a / b }')"
done
rm -f /tmp/ovh.n /tmp/ovh.c /tmp/ovh.c4
