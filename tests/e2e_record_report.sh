#!/bin/sh
# contend record + contend report:
# - the report of a recording is the live session's report, byte for byte,
#   call chains (-g) included (CONTEND_TEST_LIVE_REPORT makes record keep a
#   JSON copy of it);
# - report takes run's options (--line-size, --top, --min-score, --format);
# - the file works from another checkout: binaries are found by build-id
#   under --symfs DIR or in the current directory, and a missing or rebuilt
#   binary is named;
# - record runs run's watch windows and keeps their exact counts: the
#   report of a recording confirms the Klass line of klass_secondary_supers
#   (whose stores the timer alone may never sample) as run does;
# - bad files and bad commands give one clear line and exit 2, and leave
#   no partial file behind.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fsc="$top_builddir/testcases/false_sharing_counters"
tmp=$(mktemp -d)
# perf's build-id cache (~/.debug) is searched too: not the user's here
export HOME="$tmp"
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

# --- record, then report: the same report --------------------------------
# The binary is a copy under a/, so that it can move away afterwards.
mkdir "$tmp/a" && cp "$fsc" "$tmp/a/fsc" || exit 99
for attempt in 1 2 3; do
	CONTEND_TEST_LIVE_REPORT="$tmp/live.json" "$contend" record -g -o "$tmp/c.data" \
		-- "$tmp/a/fsc" >/dev/null 2>"$tmp/err"
	st=$?
	# a busy machine may keep the two threads from running at once
	grep -q '"kind": "false"' "$tmp/live.json" 2>/dev/null && break
	echo "note: attempt $attempt saw no false sharing (busy machine?); again"
done
if [ $st -ne 0 ] || ! grep -qE "wrote [0-9]+ access samples to $tmp/c.data" "$tmp/err"; then
	fail "record: exit $st"; cat "$tmp/err"
elif ls -A "$tmp" | grep -q '^\.c\.data\.'; then
	fail "record left its temporary file: $(ls -A "$tmp")"
else
	ok "record"
fi
head -c 8 "$tmp/c.data" | od -c | grep -q 'C   O   N   T   E   N   D  \\0' ||
	fail "no CONTEND magic"

"$contend" report -i "$tmp/c.data" --format json -o "$tmp/report.json" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	fail "report json: exit $st"; cat "$tmp/err"
elif ! cmp -s "$tmp/live.json" "$tmp/report.json"; then
	fail "report differs from the live session's:"
	diff "$tmp/live.json" "$tmp/report.json" | head -20
elif ! grep -q '"frames"' "$tmp/report.json"; then
	fail "report: no call chains"
else
	ok "report = live report (JSON, byte for byte, with call chains)"
fi

"$contend" report -i "$tmp/c.data" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! grep -q "FALSE SHARING  counters" "$tmp/out" ||
   ! grep -q "increment  false_sharing_counters.c:" "$tmp/out" ||
   ! grep -qE "threads: [0-9]+\(fsc\) [0-9]+\(fsc\)" "$tmp/out"; then
	fail "report text: exit $st"; cat "$tmp/out" "$tmp/err"
else
	ok "report text names counters, increment() and the threads"
fi

# --- the watch windows: recorded, and confirmed by report -i ---------------
# Before version 4 record armed no watchpoint, and this recording reported
# "no contended cache lines found": only the windows see the cache's writers.
kss="$top_builddir/testcases/klass_secondary_supers"
"$contend" record -q -o "$tmp/k.data" -- "$kss" --seconds 1 >/dev/null 2>"$tmp/err"
st=$?
"$contend" report -i "$tmp/k.data" >"$tmp/k.out" 2>"$tmp/err2"
rst=$?
if [ $st -ne 0 ] || [ $rst -ne 0 ]; then
	fail "record/report of klass_secondary_supers: exit $st/$rst"; cat "$tmp/err" "$tmp/err2"
elif ! grep -qE "^# (watchpoints: [1-9][0-9]* windows, [0-9.]+ s armed in all; exact counts|confirmation: uprobes on the lines' code, [1-9][0-9]* windows)" \
	"$tmp/k.out" ||
   ! grep -qE "^== #1  [A-Z ]+SHARING  .*\(sub: Klass\)" "$tmp/k.out" ||
   ! grep -qE "^   confirmed: [a-z ]+ by exact counts( of uprobes on its code)? \([0-9]+ words? (watched|counted)" "$tmp/k.out" ||
   ! sed -n '/^   confirmed: /,/advice:/p' "$tmp/k.out" |
	grep -qE "^   [0-9]+ +secondary_super_cache +[0-9]+ +[0-9]+ +[1-9][0-9]*$"; then
	fail "report -i of klass_secondary_supers: no confirmed Klass line with" \
		"secondary_super_cache written"; cat "$tmp/k.out"
else
	ok "record + report -i confirm the Klass line (secondary_super_cache, exact counts)"
fi
"$contend" report -i "$tmp/k.data" --no-confirm >"$tmp/out" 2>&1
grep -q "confirmed: \|^# watchpoints: \|^# confirmation: uprobes" "$tmp/out" &&
	fail "report -i --no-confirm still shows the recorded counts" ||
	ok "report -i --no-confirm leaves the recorded counts out"
# a watch record cut short, or made up: one line, exit 2
wend=$(python3 - "$tmp/k.data" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pos = struct.unpack_from("<I", d, 12)[0]
while pos < len(d):
	t, n = struct.unpack_from("<II", d, pos)
	if t == 8:
		print(pos, pos + 8 + 20); break
	pos += 8 + n
PY
)
set -- $wend
if [ $# -ne 2 ]; then
	fail "no watch word record (type 8) in the recording"
else
	head -c "$2" "$tmp/k.data" >"$tmp/kt.data"
	expect_max_lines=1 expect "truncated watch record" 2 \
		"kt.data: truncated at byte $1: the file ends inside a watch word record" \
		"$contend" report -i "$tmp/kt.data"
	cp "$tmp/k.data" "$tmp/kc.data"
	printf '\377\377' | dd of="$tmp/kc.data" bs=1 seek=$(($1 + 8 + 54)) conv=notrunc 2>/dev/null
	expect_max_lines=1 expect "corrupt watch record" 2 \
		"kc.data: corrupt watch word record at byte $1: [0-9]+ threads and 65535 code sites \(at most 1024 and 64\)" \
		"$contend" report -i "$tmp/kc.data"
fi

# --- run's options ------------------------------------------------------------
"$contend" report -i "$tmp/c.data" --line-size 128 >"$tmp/out" 2>&1 &&
	grep -q "line size: 128" "$tmp/out" && grep -q "FALSE SHARING  counters" "$tmp/out" &&
	ok "--line-size 128" || { fail "--line-size 128"; cat "$tmp/out"; }
"$contend" report -i "$tmp/c.data" --min-score 1 >"$tmp/out" 2>&1 &&
	grep -q "no contended cache lines found" "$tmp/out" &&
	ok "--min-score" || { fail "--min-score"; cat "$tmp/out"; }
"$contend" report -i - --format json --top 1 <"$tmp/c.data" >"$tmp/out" 2>"$tmp/err" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["lines"]) == 1' \
		"$tmp/out" && ok "stdin, --format json, --top 1" ||
	{ fail "stdin/json/top"; cat "$tmp/err"; }
(cd "$tmp" && "$contend" report >/dev/null 2>"$tmp/err"; echo $? >"$tmp/st")
[ "$(cat "$tmp/st")" = 2 ] && grep -q "no contend.data here: record one with" "$tmp/err" &&
	ok "no contend.data" || { fail "no contend.data"; cat "$tmp/err"; }

# --- another checkout ---------------------------------------------------------
mv "$tmp/a" "$tmp/b"
expect "binary gone" 0 "cannot find $tmp/a/fsc \(build-id [0-9a-f]{40}\): .*--symfs DIR" \
	"$contend" report -i "$tmp/c.data"
expect "--symfs" 0 "$tmp/a/fsc: using $tmp/b/fsc \(same build-id\)" \
	"$contend" report -i "$tmp/c.data" --symfs "$tmp/b"
grep -q "FALSE SHARING  counters" "$tmp/out" || { fail "--symfs: not named"; cat "$tmp/out"; }
expect "--symfs without it" 0 "cannot find $tmp/a/fsc \(build-id [0-9a-f]+\) at its path, under $tmp/nowhere or in the current directory" \
	"$contend" report -i "$tmp/c.data" --symfs "$tmp/nowhere"
(cd "$tmp/b" && "$contend" report -i ../c.data >"$tmp/out" 2>"$tmp/err")
grep -q "using $tmp/b/fsc" "$tmp/err" && grep -q "FALSE SHARING  counters" "$tmp/out" &&
	ok "found in the current directory" || { fail "current directory"; cat "$tmp/out" "$tmp/err"; }
mkdir "$tmp/a" && cp "$top_builddir/testcases/no_sharing" "$tmp/a/fsc"
expect "rebuilt binary" 0 "$tmp/a/fsc is not the recorded binary \(build-id [0-9a-f]+, recorded [0-9a-f]+\)" \
	"$contend" report -i "$tmp/c.data"
strip -o "$tmp/b/fsc.stripped" "$tmp/b/fsc" && mkdir "$tmp/s" && mv "$tmp/b/fsc.stripped" "$tmp/s/fsc"
expect "no debug info" 0 "no debug info for $tmp/s/fsc \(build-id" \
	"$contend" report -i "$tmp/c.data" --symfs "$tmp/s"

# --- bad files ----------------------------------------------------------------
: >"$tmp/empty"
expect "empty file" 2 "$tmp/empty: empty file: not a contend data file" \
	"$contend" report -i "$tmp/empty"
expect "not a data file" 2 "/etc/passwd: not a contend data file" \
	"$contend" report -i /etc/passwd
head -c 1000 "$tmp/c.data" >"$tmp/trunc"
expect "truncated" 2 "$tmp/trunc: truncated at byte [0-9]+" \
	"$contend" report -i "$tmp/trunc"
cp "$tmp/c.data" "$tmp/corrupt"
# the first record follows the 104-byte header (24, and the target's credentials)
printf '\377\377\377\377' | dd of="$tmp/corrupt" bs=1 seek=104 conv=notrunc 2>/dev/null
expect "corrupt" 2 "$tmp/corrupt: corrupt at byte 104: unknown record type 4294967295" \
	"$contend" report -i "$tmp/corrupt"
expect "missing file" 2 "cannot open $tmp/nope: No such file" \
	"$contend" report -i "$tmp/nope"

# --- record errors --------------------------------------------------------------
expect "record: no command" 2 "usage: contend record" "$contend" record
expect "record: unwritable" 2 "/nonexistent/x.data: cannot open its directory" \
	"$contend" record -o /nonexistent/x.data -- true
expect "record: command not found" 2 "command not found" \
	"$contend" record -o "$tmp/nf.data" -- no-such-cmd-xyz
[ -e "$tmp/nf.data" ] || ls -A "$tmp" | grep -q '^\.nf\.data\.' &&
	fail "record: a failed record left a file"
expect "record: target fails" 1 "target exited with status 3" \
	"$contend" record -o "$tmp/fail.data" -- sh -c 'exit 3'
"$contend" report -i "$tmp/fail.data" >"$tmp/out" 2>&1 && grep -q "(exit 3," "$tmp/out" &&
	ok "report of a failed target" || { fail "report of a failed target"; cat "$tmp/out"; }

# --- stop signals: SIGTERM, SIGHUP, SIGINT alike --------------------------
# record stops the target (SIGTERM, as perf record does; after a SIGINT, a
# grace of 2 s for the terminal's SIGINT to end it first) and writes a
# complete data file: no F.partial, report -i F works.  It used to die at
# once and leave only F.partial.  (A long command is clipped in the header,
# so the checks do not look for its name there.)
for sig in TERM HUP INT; do
	rm -f "$tmp/sig.data" "$tmp/sig.data.partial"
	t0=$(date +%s)
	"$contend" record -o "$tmp/sig.data" -- "$fsc" --seconds 10 >"$tmp/sig.out" 2>"$tmp/sig.err" &
	rec=$!
	sleep 1
	kill -$sig $rec
	wait $rec
	st=$?
	took=$(($(date +%s) - t0))
	"$contend" report -i "$tmp/sig.data" >"$tmp/sig.rep" 2>"$tmp/sig.rerr"
	rst=$?
	if [ -e "$tmp/sig.data.partial" ] || [ ! -s "$tmp/sig.data" ] || [ $took -gt 6 ] ||
	   ! grep -q "^contend: SIG$sig: stopping the target" "$tmp/sig.err"; then
		fail "record, SIG$sig after 1 s: exit $st after ${took} s"; ls -la "$tmp"; cat "$tmp/sig.err"
	elif [ $rst -gt 1 ] || ! grep -q "^# command: " "$tmp/sig.rep"; then
		fail "record, SIG$sig after 1 s: report -i exit $rst"; cat "$tmp/sig.rerr"
	else
		ok "record, SIG$sig after 1 s: complete data file in ${took} s"
	fi
done
# run prints its report (on stderr) after SIGTERM
"$contend" run -- "$fsc" --seconds 10 >"$tmp/sig.stdout" 2>"$tmp/sig.out" &
rec=$!
sleep 1
kill -TERM $rec
wait $rec
if grep -q "^# command: .*(signal 15" "$tmp/sig.out"; then
	ok "run, SIGTERM after 1 s: report printed"
else
	fail "run, SIGTERM after 1 s: no report"; cat "$tmp/sig.out"
fi

[ $fails -eq 0 ]
