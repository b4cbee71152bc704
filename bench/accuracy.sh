#!/usr/bin/env bash
# Accuracy over repeated runs: every run of every testcase's expected.json,
# REPEAT times (default 20).  A run "with an answer" (it expects lines,
# latent pairs or minor lines) counts toward recall when the whole
# expectation held (line, kind, members, threads); a run "without an
# answer" counts a false report when anything it forbids was reported
# (contended lines, and latent pairs or minor lines where its expected.json
# forbids them: a latent pair on no_sharing is a false report, one on
# latent_slots --shift 0 is the answer).  Prints a markdown table and the
# totals.
#   bench/accuracy.sh [REPEAT]     (from the build tree)
set -uo pipefail
repeat=${1:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
export top_builddir=${top_builddir:-$(pwd)} top_srcdir=${top_srcdir:-$here}
export CONTEND_E2E_REPEAT=$repeat

hits=0; expected=0; false_reports=0; silent_runs=0
echo "| testcase | run | expects a finding | passed |"
echo "|---|---|---|---|"
for exp in "$top_srcdir"/testcases/*.expected.json; do
	name=$(basename "$exp" .expected.json)
	python3 "$top_srcdir/tests/e2e.py" "$exp" >/tmp/acc.$$ 2>&1
	while read -r verdict run counts; do
		k=${counts#(}; k=${k%%/*}; n=${counts##*/}; n=${n%)}
		has=$(python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["runs"] if x["name"]==sys.argv[2]][0]; print("yes" if r.get("expect") or r.get("expect_latent") or r.get("expect_minor") else "no")' "$exp" "$run")
		if [ "$has" = yes ]; then
			hits=$((hits + k)); expected=$((expected + n))
		else
			false_reports=$((false_reports + n - k)); silent_runs=$((silent_runs + n))
		fi
		echo "| $name | $run | $has | $k/$n |"
	done < <(grep -E '^(ok|FAIL) [^,]+ \([0-9]+/[0-9]+\)$' /tmp/acc.$$)
done
rm -f /tmp/acc.$$
echo
echo "recall: $hits/$expected runs reported the expected line (or latent pair, or minor line), kind, members and threads"
echo "false reports: $false_reports/$silent_runs runs that must report nothing reported something"
