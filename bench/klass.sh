#!/bin/sh
# klass.sh - checks/s of the Klass secondary-super-cache testcase, per layout.
#
# Runs testcases/klass_secondary_supers in each variant, RUNS times each,
# interleaved so that changing load on the machine hits every variant alike,
# and prints the median checks/s and its ratio to the baseline as a markdown
# table.  Builds nothing: run make first.
#
# A run in which some thread did not have a CPU all the time (the program
# warns) is noisy: meanwhile the other threads checked uncontended, many
# times faster, which flatters the contended variants.  The median is over
# the clean runs, or over all runs, marked *, when none was clean.
#
# usage: bench/klass.sh [ARGS...]     ARGS go to every run (-t N, --seconds S)
# env:   RUNS (default 5); top_builddir (default: the tree of this script)

set -eu

top=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
prog=$top/testcases/klass_secondary_supers
runs=${RUNS:-5}

if [ ! -x "$prog" ]; then
	echo "klass.sh: $prog not found: build it first (make)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

variants="baseline pad no-cache-write klass-offset-24"

args_of() {
	case $1 in
	baseline) ;;
	pad) echo --pad ;;
	no-cache-write) echo --no-cache-write ;;
	klass-offset-24) echo --klass-offset 24 ;;
	esac
}

# Lines of "checks/s noisy" in; "median clean_runs" out.
median() {
	sort -n "$1" | awk '
		function mid(v, k) { return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
		{ all[++n] = $1; if ($2 == 0) clean[++c] = $1 }
		END {
			if (c)
				printf "%.0f %d\n", mid(clean, c), c
			else
				printf "%.0f* 0\n", mid(all, n)
		}'
}

i=0
while [ "$i" -lt "$runs" ]; do
	for v in $variants; do
		# shellcheck disable=SC2046 # args_of's words are meant to split
		if ! "$prog" $(args_of "$v") "$@" >"$tmp/out" 2>"$tmp/err"; then
			cat "$tmp/out" "$tmp/err" >&2
			exit 1
		fi
		echo "$(sed -n 's/^checks\/s: //p' "$tmp/out")" \
			"$(grep -c '^warning' "$tmp/err")" >>"$tmp/$v"
	done
	i=$((i + 1))
done

base=$(median "$tmp/baseline")
base=${base%% *}
echo "klass_secondary_supers, $runs runs per variant, $(nproc) CPUs, args: ${*:-(none)}"
echo
echo "| variant | median checks/s | vs baseline | clean runs |"
echo "|---|---:|---:|---:|"
for v in $variants; do
	label=$(args_of "$v")
	result=$(median "$tmp/$v")
	m=${result% *}
	printf '| %s | %s | %.2fx | %s/%d |\n' "${label:-baseline (JDK 17 layout)}" \
		"$m" "$(echo "${m%\*} ${base%\*}" | awk '{ print $1 / $2 }')" \
		"${result#* }" "$runs"
done
echo
echo "Clean runs: every thread had a CPU the whole time; the median is theirs."
echo "* no clean run: the median of all runs, inflated by uncontended stretches."
