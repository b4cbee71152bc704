#!/usr/bin/env bash
# Does attaching leave the target as fast as it was?  false_sharing_counters
# runs with --report-rate (its increment rate every 0.5 s); contend attaches
# at 2 s for 2 s.  Per run: the median rate of the 1.5 s before the attach,
# while attached, and of the 1.5 s after the detach, and after/before,
# which should be 1 within the noise.  Markdown table, then the median ratio
# per variant.  The contended rate jumps by up to 2x for a half second
# whenever one thread is descheduled (no partner, no false sharing), so on
# a busy VM compare with the control, which runs the same windows without
# attaching, and with --padded, whose rate has no such jumps.
#   bench/attach-speed.sh [RUNS]     (default 3; run from the build tree)
set -euo pipefail
runs=${1:-3}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
target="$b/testcases/false_sharing_counters"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# median rate of the 0.5 s intervals lying within [from, to) seconds of the
# target's run; its lines read "  1.5 s: 123 increments/s"
median_rate() {
	awk -v from="$1" -v to="$2" '$2 == "s:" && $1 - 0.5 >= from - 0.05 && $1 <= to + 0.05 { print $3 }' \
		"$tmp/rates" | median
}

. "$(dirname "$0")/lib.sh"

# variant: label, testcase flags, and whether to attach (the control runs
# the same windows without attaching, to show the noise)
variants=("contended||yes" "contended, no attach (control)||no" "padded|--padded|yes")

echo "| variant | run | before /s | attached /s | after /s | after/before |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
	IFS='|' read -r label flags do_attach <<<"$v"
	: >"$tmp/ratios"
	for ((i = 1; i <= runs; i++)); do
		t0=$(now)
		"$target" $flags --seconds 8 --report-rate >"$tmp/rates" &
		pid=$!
		sleep 2
		ta=$(now)
		if [ "$do_attach" = yes ]; then
			"$contend" attach -q -p "$pid" -d 2 >/dev/null
		else
			sleep 2.1
		fi
		td=$(now)
		wait "$pid"
		attach=$(awk -v a="$ta" -v b="$t0" 'BEGIN { print a - b }')
		detach=$(awk -v a="$td" -v b="$t0" 'BEGIN { print a - b }')
		before=$(median_rate "$(awk -v a="$attach" 'BEGIN { print a - 1.5 }')" "$attach")
		during=$(median_rate "$attach" "$detach")
		after=$(median_rate "$detach" "$(awk -v d="$detach" 'BEGIN { print d + 1.5 }')")
		ratio=$(awk -v a="$after" -v b="$before" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')
		echo "$ratio" >>"$tmp/ratios"
		printf "| %s | %d | %.3g | %.3g | %.3g | %s |\n" "$label" "$i" \
			"$before" "$during" "$after" "$ratio"
	done
	median <"$tmp/ratios" >"$tmp/median.$label"
done
for v in "${variants[@]}"; do
	label=${v%%|*}
	printf "median after/before, %s: %s\n" "$label" "$(cat "$tmp/median.$label")"
done
