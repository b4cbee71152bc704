#!/usr/bin/env bash
# Memory shared between processes: every run of testcases/shared_mmap and
# testcases/shared_shm (their expected.json: false sharing across two
# processes, both writing, the struct's members named; the padded variants
# silent), REPEAT times each (default 20).  Prints a markdown table.
#   bench/shared.sh [REPEAT]     (from the build tree)
set -uo pipefail
repeat=${1:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
export top_builddir=${top_builddir:-$(pwd)} top_srcdir=${top_srcdir:-$here}
export CONTEND_E2E_REPEAT=$repeat
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "| testcase | run | expects a line | passed |"
echo "|---|---|---|---|"
for name in shared_mmap shared_shm; do
	exp="$top_srcdir/testcases/$name.expected.json"
	python3 "$top_srcdir/tests/e2e.py" "$exp" >"$log" 2>&1
	grep -E '^(ok|FAIL) [^,]+ \([0-9]+/[0-9]+\)$' "$log" | while read -r verdict run counts; do
		has=$(python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["runs"] if x["name"]==sys.argv[2]][0]; print("yes" if r.get("expect") else "no")' "$exp" "$run")
		echo "| $name | $run | $has | ${counts#(} " | sed 's/)  *$/ |/'
	done
done
