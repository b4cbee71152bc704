#!/bin/sh
# Watchpoint safety in attach (issue 14, item 12).  On a virtual machine a
# watchpoint's trap can reach the watched process as a spurious SIGTRAP
# and kill it (bench/watch-safety.sh: 2 of 400 runs here).  attach may be
# pointed at a production service, so there confirmation by watchpoints
# is off by default and the header says why (text and JSON); --confirm
# turns it on.  run, whose target is the user's own program, still
# confirms by default; --no-confirm, an explicit choice, adds no note.
# A run over before the first watch window says so.
# On a machine without the hypervisor flag, attach confirms by default.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fsc="$top_builddir/testcases/false_sharing_counters"
tmp=$(mktemp -d)
target=
trap '[ -n "$target" ] && kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

vm=no
grep -qw hypervisor /proc/cpuinfo && vm=yes
note='off: attaching on a virtual machine'

"$fsc" --seconds 60 >/dev/null &
target=$!
sleep 0.3

# fields REPORT.json: "WATCH_WINDOWS NOTE"
fields() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print((r.get("watch") or {}).get("windows", 0), r.get("watch_note") or "-")' "$1"
}

"$contend" attach -q -p $target -d 1.5 --format json -o "$tmp/a.json" 2>"$tmp/err" ||
	fail "attach: exit $?: $(cat "$tmp/err")"
"$contend" attach -q -p $target -d 1.5 -o "$tmp/a.txt" 2>"$tmp/err" ||
	fail "attach (text): exit $?: $(cat "$tmp/err")"
set -- $(fields "$tmp/a.json")
windows=$1
if [ $vm = yes ]; then
	if [ "$windows" -ne 0 ] || ! grep -q "\"watch_note\": \"$note" "$tmp/a.json"; then
		fail "attach on a VM: $windows watch windows, note: $(grep watch_note "$tmp/a.json")"
	else
		ok "attach on a VM: no watchpoints by default, watch_note says why"
	fi
	grep -q "^# confirmation: $note" "$tmp/a.txt" && grep -q -- "--confirm to watch anyway" "$tmp/a.txt" &&
		ok "attach on a VM: the text header says why and how" ||
		{ fail "attach on a VM: no header line"; head -12 "$tmp/a.txt"; }
else
	[ "$windows" -gt 0 ] && ! grep -q watch_note "$tmp/a.json" &&
		ok "attach, not a VM: confirms by default" ||
		fail "attach, not a VM: $windows windows"
fi

# --confirm: watches, no note; tried twice (the two threads must overlap
# for the line to be a candidate)
for try in 1 2; do
	"$contend" attach -q --confirm -p $target -d 1.5 --format json -o "$tmp/c.json" 2>"$tmp/err"
	set -- $(fields "$tmp/c.json")
	[ "$1" -gt 0 ] && break
done
[ "$1" -gt 0 ] && [ "$2" = "-" ] && ok "attach --confirm: $1 watch windows, no note" ||
	fail "attach --confirm: $1 windows, note $2"

"$contend" attach -q --no-confirm -p $target -d 0.5 --format json -o "$tmp/n.json" 2>"$tmp/err"
set -- $(fields "$tmp/n.json")
[ "$1" -eq 0 ] && [ "$2" = "-" ] && ok "attach --no-confirm: no windows, no note" ||
	fail "attach --no-confirm: $1 windows, note $2"
kill $target
target=

# run: its own program, confirmed as before
for try in 1 2; do
	"$contend" run -q --format json -o "$tmp/r.json" -- "$fsc" --seconds 1.5 >/dev/null 2>"$tmp/err"
	set -- $(fields "$tmp/r.json")
	[ "$1" -gt 0 ] && break
done
[ "$1" -gt 0 ] && [ "$2" = "-" ] && ok "run: confirms by default ($1 windows)" ||
	fail "run: $1 windows, note $2"

# run of a target over before the first window (0.2 s in): none armed,
# and the header says the kinds are the samples' alone
"$contend" run -q --format json -o "$tmp/s.json" -- "$fsc" --seconds 0.05 >/dev/null 2>"$tmp/err" ||
	fail "short run: exit $?: $(cat "$tmp/err")"
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
n = r.get("watch_note") or ""
sys.exit(0 if not (r.get("watch") or {}).get("windows") and n.startswith("none armed: sampling lasted 0.") and "the samples\x27 alone" in n else 1)' "$tmp/s.json" &&
	ok "short run: no window, and the note says why" ||
	fail "short run: $(fields "$tmp/s.json")"
"$contend" run -q -o "$tmp/s.txt" -- "$fsc" --seconds 0.05 >/dev/null 2>&1
grep -q "^# confirmation: none armed: sampling lasted" "$tmp/s.txt" &&
	ok "short run: the text header too" || { fail "short run: no header line"; head -12 "$tmp/s.txt"; }

[ $fails -eq 0 ]
