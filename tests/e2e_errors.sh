#!/bin/sh
# Bad input gives a one-line error and the documented exit status, never a crash:
# command not found, target killed by a signal, target exiting non-zero,
# unknown command/option, missing binary debug info (report still names
# the function), and perf_event_paranoid too high for an unprivileged user.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

expect() {   # name, want-status, stderr-pattern, command...
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"; cat "$tmp/err"; fails=$((fails + 1)); return
	fi
	if ! grep -qE "$pat" "$tmp/err"; then
		echo "FAIL $name: stderr lacks /$pat/:"; cat "$tmp/err"; fails=$((fails + 1)); return
	fi
	if [ "$(wc -l <"$tmp/err")" -gt 3 ]; then
		echo "FAIL $name: error is not short:"; cat "$tmp/err"; fails=$((fails + 1)); return
	fi
	echo "ok $name"
}

expect "command not found" 2 "cannot run 'no-such-cmd-xyz': command not found" \
	"$contend" run -- no-such-cmd-xyz
expect "not executable" 2 "cannot run '/etc/passwd': Permission denied" \
	"$contend" run -- /etc/passwd
expect "no command" 2 "usage: contend run" "$contend" run
expect "unknown command" 2 "'frobnicate' is not a contend command" "$contend" frobnicate
expect "bad option value" 2 "line-size" "$contend" run --line-size 96 -- true
expect "killed by signal" 1 "target was killed by signal 9" \
	"$contend" run -- sh -c 'kill -9 $$'
grep -q "no contended cache lines found" "$tmp/out" ||
	{ echo "FAIL killed by signal: no report printed"; fails=$((fails + 1)); }
expect "non-zero exit" 1 "target exited with status 3" "$contend" run -- sh -c 'exit 3'

# No debug info: the report still names the function and the global symbol.
if cc -O2 -pthread -o "$tmp/fsc_nodebug" "$top_srcdir/testcases/false_sharing_counters.c" 2>/dev/null; then
	"$contend" run -- "$tmp/fsc_nodebug" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] || ! grep -q "FALSE SHARING" "$tmp/out" || ! grep -q "counters" "$tmp/out" ||
	   ! grep -q "increment" "$tmp/out"; then
		echo "FAIL no debug info: exit $st, report:"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
	else
		echo "ok no debug info"
	fi
	strip "$tmp/fsc_nodebug"
	"$contend" run -- "$tmp/fsc_nodebug" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] || ! grep -q "FALSE SHARING" "$tmp/out"; then
		echo "FAIL stripped: exit $st, report:"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
	else
		echo "ok stripped binary"
	fi
fi

# perf_event_paranoid: as an unprivileged user with the sysctl at its most
# restrictive, the error must name the sysctl.  Needs root to set it up.
par=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" = 0 ] && [ -w $par ] && command -v setpriv >/dev/null; then
	old=$(cat $par)
	echo 4 >$par 2>/dev/null || echo 3 >$par 2>/dev/null
	setpriv --reuid=65534 --regid=65534 --clear-groups "$contend" run -- /bin/true \
		>"$tmp/out" 2>"$tmp/err"
	st=$?
	echo "$old" >$par
	if [ $st -eq 0 ]; then
		echo "skip paranoid: this kernel lets unprivileged users sample their own processes at every setting"
	elif [ $st -eq 2 ] && grep -q "kernel.perf_event_paranoid" "$tmp/err"; then
		echo "ok paranoid"
	else
		echo "FAIL paranoid: exit $st"; cat "$tmp/err"; fails=$((fails + 1))
	fi
else
	echo "skip paranoid: needs root and setpriv"
fi

[ $fails -eq 0 ]
