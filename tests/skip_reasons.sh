#!/bin/sh
# skip_reasons.sh TEST...: after make check's tally, each test that was
# skipped and why, in its own words (the last line of its log that says
# "skip"), so that a pass on a machine without an instrument or a tool
# says what it did not test.
n=0
for t in "$@"; do
	base=${t%.sh}            # TEST_EXTENSIONS: tests/x.sh logs to tests/x.log
	[ -f "$base.trs" ] && grep -q '^:test-result: SKIP' "$base.trs" || continue
	why=$(grep -i 'skip' "$base.log" 2>/dev/null | grep -v '^SKIP tests/' | tail -1)
	[ $n -eq 0 ] && echo "Skipped, and why:"
	echo "  $t: ${why:-(no reason in $base.log)}"
	n=$((n + 1))
done
exit 0
