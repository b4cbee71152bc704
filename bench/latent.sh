#!/usr/bin/env bash
# Latent false sharing and minor lines, RUNS runs each (default 20):
# latent_slots with the lucky placement (--shift 0: a latent pair, 2 of 4
# placements at malloc's 16 bytes, no contended line), with the unlucky one
# (--shift 32: the false-sharing line), and modest_sharing for 5 s at 4 kHz
# (a minor line, no contended one).  Each run is checked against the
# testcase's expected.json (tests/e2e.py), as make check does; the failed
# runs' first complaints follow, counted.
#   bench/latent.sh [RUNS]      (from the build tree)
set -uo pipefail
runs=${1:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
export top_builddir=${top_builddir:-$(pwd)} top_srcdir=${top_srcdir:-$here}
export CONTEND_E2E_REPEAT=$runs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed() {   # testcase, run name: "k/n"; complaints in $tmp/why
	CONTEND_E2E_FILTER=$2 python3 "$top_srcdir/tests/e2e.py" \
		"$top_srcdir/testcases/$1.expected.json" >"$tmp/out" 2>&1
	awk -v run="$2" '/^FAIL .*repetition/ { getline; sub(/^ +/, ""); print run ": " $0 }' \
		"$tmp/out" | sed 's/#[0-9]*/#N/g; s/0x[0-9a-f]*/0x.../g' >>"$tmp/why"
	sed -n "s/^\(ok\|FAIL\) $2 (\([0-9]*\/[0-9]*\))$/\2/p" "$tmp/out"
}

: >"$tmp/why"
latent=$(passed latent_slots lucky)
unlucky=$(passed latent_slots unlucky)
minor=$(passed modest_sharing default)
echo "latent ${latent:-0/$runs}, false sharing ${unlucky:-0/$runs}, minor ${minor:-0/$runs}"
if [ -s "$tmp/why" ]; then
	echo
	echo "failed runs, by first complaint:"
	sort "$tmp/why" | uniq -c | sort -rn | sed 's/^/    /'
fi
