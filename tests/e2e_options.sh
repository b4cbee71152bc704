#!/bin/sh
# Options that behave as the tools performance engineers know (issue 37):
#   -D/--delay takes milliseconds, as perf record's -D: -D 500 drops the
#   first 0.5 s of a 1.5 s run, not 500 s; 500ms and 1s say the unit; a
#   delay that outlasts the run is warned about; a bad one is one line,
#   exit 2;
#   a misspelt option or command is one line with the nearest name and
#   where the help is, exit 2, as git says it.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

duration() {   # the report's sampled seconds
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["duration_s"])' "$1"
}
for d in 500 500ms 0.5s; do
	"$contend" run -q --no-confirm --no-price-probe -D "$d" --format json -o "$tmp/r.json" \
		-- sleep 1.5 2>"$tmp/err"
	got=$(duration "$tmp/r.json" 2>/dev/null)
	if python3 -c 'import sys; sys.exit(0 if 0.8 <= float(sys.argv[1]) <= 1.3 else 1)' \
		"${got:-0}" && ! grep -q outlasted "$tmp/err"; then
		ok "-D $d: the first 0.5 s dropped (${got} s sampled)"
	else
		fail "-D $d: ${got:-no} s sampled of 1.5 s:"; cat "$tmp/err"
	fi
done
"$contend" run --no-confirm --no-price-probe -D 2s -o /dev/null -- sleep 0.2 2>"$tmp/err"
grep -q "warning: --delay 2.000 s outlasted the run" "$tmp/err" &&
	ok "-D 2s on a 0.2 s run: warned" || { fail "-D 2s: no warning"; cat "$tmp/err"; }
expect_max_lines=1
expect "-D 5x" 2 "--delay: '5x' is not a delay" "$contend" run -D 5x -- true

expect "--freqq" 2 "^contend: error: unknown option '--freqq' \(did you mean '--freq'\?\); see 'contend run --help'\$" \
	"$contend" run --freqq 100 -- true
expect "attach --confrim" 2 "did you mean '--confirm'\?\); see 'contend attach --help'" \
	"$contend" attach --confrim -p 1
expect "-p without a value" 2 "^contend: error: option '-p' needs a value; see 'contend attach --help'" \
	"$contend" attach -p
# each command its own options: another's is refused, naming whose it is
expect "run --symfs" 2 "^contend: error: '--symfs' is not an option of 'contend run' \(it is of: report, check, fix\); see 'contend run --help'\$" \
	"$contend" run --symfs /x -- true
expect "run -p" 2 "^contend: error: '-p' is not an option of 'contend run' \(it is of: attach, record, stat, top\)" \
	"$contend" run -p 1 -- true
expect "report -F" 2 "'--freq' is not an option of 'contend report'|'-F' is not an option of 'contend report'" \
	"$contend" report -F 99
expect "-Z" 2 "^contend: error: unknown option '-Z'; see 'contend run --help'" \
	"$contend" run -Z -- true
expect "watch --duraton" 2 "did you mean '--duration'\?\); see 'contend watch --help'" \
	"$contend" watch --duraton 3
expect "command rnu" 2 "'rnu' is not a contend command \(did you mean 'run'\?\)" "$contend" rnu
expect "no near name" 2 "^contend: error: unknown option '--xyzzyplugh'; see 'contend run --help'" \
	"$contend" run --xyzzyplugh

expect "--allow ''" 2 "^contend: --allow: an empty name" "$contend" check --allow '' -- true

# a full disk is said as such, with the file
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/full" && mount -t tmpfs -o size=16k tmpfs "$tmp/full" 2>/dev/null; then
	dd if=/dev/zero of="$tmp/full/fill" bs=4k count=8 2>/dev/null
	"$contend" run -q --no-confirm --no-price-probe -o "$tmp/full/r.txt" -- \
		"$top_builddir/testcases/false_sharing_counters" --iters 1000000 >/dev/null 2>"$tmp/err"
	st=$?
	umount "$tmp/full"
	[ $st -eq 2 ] && grep -q "full/r.txt: write failed: No space left on device" "$tmp/err" &&
		ok "a full disk: 'No space left on device', and the file" ||
		{ fail "a full disk: exit $st"; cat "$tmp/err"; }
else
	echo "note: not root, or no tmpfs: the full-disk case is not tried"
fi

# the text report says its verdict first, in one line
for attempt in 1 2 3; do
	"$contend" run -q --no-price-probe -o "$tmp/fsc.txt" -- "$top_builddir/testcases/false_sharing_counters" \
		>/dev/null 2>&1
	head -1 "$tmp/fsc.txt" | grep -qE '^contend: 1 contended line: FALSE SHARING on counters \(volatile long\[64\]\)' &&
		break
done
head -1 "$tmp/fsc.txt" | grep -qE '^contend: 1 contended line: FALSE SHARING on counters \(volatile long\[64\]\)' &&
	ok "verdict first: $(head -1 "$tmp/fsc.txt")" || { fail "verdict line:"; head -3 "$tmp/fsc.txt"; }
"$contend" run -q --no-price-probe -o "$tmp/ns.txt" -- "$top_builddir/testcases/no_sharing" >/dev/null 2>&1
head -1 "$tmp/ns.txt" | grep -qE '^contend: (no contended cache lines \([0-9]+ lines? touched|inconclusive: )' &&
	ok "verdict first: $(head -1 "$tmp/ns.txt")" || { fail "verdict line (no_sharing):"; head -3 "$tmp/ns.txt"; }

[ $fails -eq 0 ]
