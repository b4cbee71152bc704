#!/bin/sh
# Where the report goes (issue 14, item 15).  run and check share stdout
# with the program they launch, so, as perf stat and time do, their report
# (check: its violations and verdict) goes to stderr unless -o FILE or
# --log-fd N says otherwise; `contend run --format json -- prog | jq .`
# used to fail whenever prog wrote to stdout.  report and attach keep
# stdout.  --log-fd is checked before the target starts and is not
# inherited by it.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${sleeper:-}" ] && kill "$sleeper" 2>/dev/null' EXIT
. "$top_srcdir/tests/e2e_lib.sh"
expect_max_lines=1

is_json() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
# the file holds exactly the one line given
only() { [ "$(cat "$1")" = "$2" ]; }

# --- run: the program's stdout stays its own --------------------------------
"$contend" run -q --no-confirm --format json -- sh -c 'echo "{prog"' >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! only "$tmp/out" "{prog" || ! is_json "$tmp/err"; then
	fail "run --format json: stdout is the program's alone, the JSON report on stderr (exit $st)"
	head -5 "$tmp/out" "$tmp/err"
else
	ok "run --format json: stdout is the program's alone, the JSON report on stderr"
fi

# the jq pipeline of the README: the report alone through a pipe
"$contend" run -q --no-confirm --format json --log-fd 3 -- sh -c 'echo "{prog"; echo oops >&2' \
	3>&1 >"$tmp/out" 2>"$tmp/err" | cat >"$tmp/r.json"
if ! is_json "$tmp/r.json" || ! only "$tmp/out" "{prog" || ! only "$tmp/err" "oops"; then
	fail "run --log-fd 3: the report on fd 3 alone"; head -5 "$tmp/r.json" "$tmp/out" "$tmp/err"
else
	ok "run --log-fd 3 3>&1 >/dev/null | jq: the report alone, the program's streams its own"
fi

"$contend" run --no-confirm -- sh -c 'echo prog' >"$tmp/out" 2>"$tmp/err"
if ! only "$tmp/out" "prog" || ! grep -q "^# contend report" "$tmp/err"; then
	fail "run (text): report on stderr"; head -5 "$tmp/out" "$tmp/err"
else
	ok "run (text): the report on stderr"
fi

"$contend" run -q --no-confirm -o - -- true >"$tmp/out" 2>"$tmp/err"
grep -q "^# contend report" "$tmp/out" && [ ! -s "$tmp/err" ] &&
	ok "run -o -: the report on stdout, as asked" || { fail "run -o -"; cat "$tmp/err"; }

"$contend" run -q --no-confirm -o "$tmp/r.txt" -- sh -c 'echo prog' >"$tmp/out" 2>"$tmp/err"
grep -q "^# contend report" "$tmp/r.txt" && only "$tmp/out" prog && [ ! -s "$tmp/err" ] &&
	ok "run -o FILE: the report in FILE only" || { fail "run -o FILE"; cat "$tmp/out" "$tmp/err"; }

# the target never gets the report's descriptor
"$contend" run -q --no-confirm --log-fd 3 -- sh -c '[ -e /proc/$$/fd/3 ] && echo inherited' \
	3>"$tmp/r.txt" >"$tmp/out" 2>/dev/null
[ ! -s "$tmp/out" ] && grep -q "^# contend report" "$tmp/r.txt" &&
	ok "--log-fd: not inherited by the target" || fail "--log-fd: the target inherited fd 3"

# --- check: the verdict on stderr or --log-fd -------------------------------
"$contend" check --no-confirm -- sh -c 'echo prog' >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! only "$tmp/out" prog || ! grep -q "^contend: check passed" "$tmp/err"; then
	fail "check: verdict on stderr (exit $st)"; cat "$tmp/out" "$tmp/err"
else
	ok "check: the verdict on stderr, stdout the program's"
fi
"$contend" check --no-confirm --log-fd 3 -- sh -c 'echo prog' 3>"$tmp/log" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! only "$tmp/out" prog || [ -s "$tmp/err" ] ||
   ! grep -q "^contend: check passed" "$tmp/log"; then
	fail "check --log-fd 3 (exit $st)"; cat "$tmp/out" "$tmp/err" "$tmp/log"
else
	ok "check --log-fd 3: the verdict on fd 3"
fi

# --- report and attach keep stdout ------------------------------------------
"$contend" record -q -o "$tmp/t.data" -- true >/dev/null 2>&1
"$contend" report -i "$tmp/t.data" >"$tmp/out" 2>"$tmp/err"
grep -q "^# contend report" "$tmp/out" && ! grep -q "^# contend report" "$tmp/err" &&
	ok "report: on stdout" || { fail "report: not on stdout"; cat "$tmp/out" "$tmp/err"; }
sleep 30 &
sleeper=$!
"$contend" attach -q -p $sleeper -d 0.3 >"$tmp/out" 2>"$tmp/err"
grep -q "^# contend report" "$tmp/out" && ! grep -q "^# contend report" "$tmp/err" &&
	ok "attach: on stdout" || { fail "attach: not on stdout"; cat "$tmp/out" "$tmp/err"; }

# --- errors: before the target starts ----------------------------------------
expect "--log-fd of a closed descriptor" 2 "--log-fd: file descriptor 9 is not open for writing" \
	"$contend" run --log-fd 9 -- touch "$tmp/started"
[ -e "$tmp/started" ] && fail "--log-fd 9: the target ran first"
expect "--log-fd of a read-only descriptor" 2 "file descriptor 4 is not open for writing" \
	sh -c 'exec "$0" check --log-fd 4 -- true 4</dev/null' "$contend"
expect "run -o and --log-fd" 2 "give -o FILE or --log-fd N, not both" \
	"$contend" run -o "$tmp/x" --log-fd 2 -- true
expect "attach --log-fd" 2 "'--log-fd' is not an option of 'contend attach' \\(it is of: run, check, stat\\)" \
	"$contend" attach --log-fd 2 -p $sleeper -d 0.1

[ $fails -eq 0 ]
