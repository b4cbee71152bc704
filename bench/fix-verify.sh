#!/usr/bin/env bash
# contend fix --verify on the false-sharing testcases (issue 38): the
# patched program timed against the original, unsampled, and the measured
# ratio set beside the predicted gain.  Each testcase is copied into a
# scratch project and built with its own flags; `contend fix --verify`
# patches a copy of that, rebuilds it and times both (--verify-runs 5).
# REPS repetitions (default 3) of the whole; medians of them:
#   measured   the ratio --verify printed (medians of its runs)
#   predicted  the report's predicted gain for the line
#   ratio      measured / predicted: within 0.7..1.3 is the bar
#   bench/fix-verify.sh [REPS]      (from the build tree)
set -uo pipefail
reps=${1:-3}
top=${top_builddir:-$(pwd)}
src=${top_srcdir:-$top}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CFLAGS="-std=gnu11 -O2 -g -pthread"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| testcase | measured | predicted | measured / predicted |"
echo "|---|---|---|---|"
for t in "false_sharing_counters|-t 2 --iters 100000000" \
	 "heap_per_thread_stats|-t 2 --iters 200000000"; do
	name=${t%%|*} args=${t#*|}
	proj="$tmp/$name"
	mkdir -p "$proj"
	cp "$src/testcases/$name.c" "$proj/"
	cc $CFLAGS -o "$proj/$name" "$proj/$name.c" || exit 1
	: >"$tmp/m" ; : >"$tmp/p"
	for ((i = 0; i < reps; i++)); do
		# shellcheck disable=SC2086
		"$top/contend" fix -q --root "$proj" --verify "cc $CFLAGS -o $name $name.c" \
			-o /dev/null -- "$proj/$name" $args >/dev/null 2>"$tmp/err"
		grep -o 'measured [0-9.]*x' "$tmp/err" | grep -o '[0-9.]*' >>"$tmp/m"
		grep -o 'predicted [0-9.]*x' "$tmp/err" | grep -o '[0-9.]*' >>"$tmp/p"
	done
	m=$(median <"$tmp/m") p=$(median <"$tmp/p")
	if [ -n "$m" ] && [ -n "$p" ]; then
		echo "| $name $args | ${m}x | ${p}x | $(awk -v m="$m" -v p="$p" 'BEGIN { printf "%.2f", m / p }') |"
	else
		echo "| $name $args | - | - | --verify printed no ratio |"
	fi
done
