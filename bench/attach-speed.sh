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
		before=$(median_rate "$tmp/rates" "$(awk -v a="$attach" 'BEGIN { print a - 1.5 }')" "$attach")
		during=$(median_rate "$tmp/rates" "$attach" "$detach")
		after=$(median_rate "$tmp/rates" "$detach" "$(awk -v d="$detach" 'BEGIN { print d + 1.5 }')")
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

# The JVM (testcases/jvm_type_check): attach there also asks the JVM for its
# perf map through the attach protocol at the start and at the end of
# sampling, and reads its HotSpot tables; none of it may stop or slow it.
# TypeCheck prints its rate every second; it runs 14 s, contend attaches at
# 6 s (JIT warm-up done) for 3 s.  Skipped without java and javac.
src=${top_srcdir:-$(dirname "$0")/..}
if command -v java >/dev/null && command -v javac >/dev/null &&
	javac -d "$tmp/jvm" "$src/testcases/jvm_type_check/TypeCheck.java" >/dev/null 2>&1; then
	echo
	echo "| JVM run | before /s | attached /s | after /s | attached/before | after/before |"
	echo "|---|---|---|---|---|---|"
	: >"$tmp/jvm_during"; : >"$tmp/jvm_after"
	for ((i = 1; i <= runs; i++)); do
		t0=$(now)
		java -cp "$tmp/jvm" TypeCheck 2 14 >"$tmp/rates" 2>&1 &
		pid=$!
		sleep 6
		ta=$(now)
		"$contend" attach -q -p "$pid" -d 3 >/dev/null 2>&1 || true
		td=$(now)
		wait "$pid" || true
		attach=$(awk -v a="$ta" -v b="$t0" 'BEGIN { print a - b }')
		detach=$(awk -v a="$td" -v b="$t0" 'BEGIN { print a - b }')
		before=$(median_rate "$tmp/rates" 3 "$attach" 1)
		during=$(median_rate "$tmp/rates" "$attach" "$detach" 1)
		after=$(median_rate "$tmp/rates" "$detach" "$(awk -v d="$detach" 'BEGIN { print d + 4 }')" 1)
		rd=$(awk -v a="$during" -v b="$before" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')
		ra=$(awk -v a="$after" -v b="$before" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')
		echo "$rd" >>"$tmp/jvm_during"; echo "$ra" >>"$tmp/jvm_after"
		printf "| %d | %.4g | %.4g | %.4g | %s | %s |\n" "$i" "$before" "$during" "$after" "$rd" "$ra"
	done
	printf "median JVM attached/before: %s, after/before: %s (attach %.1f s incl. perf map and tables)\n" \
		"$(median <"$tmp/jvm_during")" "$(median <"$tmp/jvm_after")" \
		"$(awk -v a="$ta" -v b="$td" 'BEGIN { print b - a }')"
fi
