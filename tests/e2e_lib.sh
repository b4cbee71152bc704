# e2e_lib.sh - what the shell e2e tests share; source it after setting
# $tmp (a scratch directory).  fail/ok count and print one line per check;
# expect runs a command that must fail with a given status and say why on
# stderr in at most $expect_max_lines lines (unset: any number).
fails=0

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

expect() {   # name, want-status, stderr-pattern, command...
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want"; cat "$tmp/err"; return
	fi
	if ! grep -qE -- "$pat" "$tmp/err"; then
		fail "$name: stderr lacks /$pat/:"; cat "$tmp/err"; return
	fi
	if [ -n "${expect_max_lines:-}" ] && [ "$(wc -l <"$tmp/err")" -gt "$expect_max_lines" ]; then
		fail "$name: more than $expect_max_lines line(s) on stderr:"; cat "$tmp/err"; return
	fi
	ok "$name"
}

# jvm_attach_json OUT JAVA-ARG...: start `java JAVA-ARG...` (its output in
# $tmp/jvm.out), give C2 3 s to compile the hot loop, attach --confirm for
# 3 s with the JSON report into OUT, then stop the JVM and remove its perf
# map.  Returns attach's exit status, its stderr left in $tmp/err.  $jvm
# holds the JVM's pid while it runs, for the caller's EXIT trap.
jvm_attach_json() {
	_out=$1
	shift
	java "$@" >"$tmp/jvm.out" 2>&1 &
	jvm=$!
	sleep 3
	"$contend" attach --confirm -p $jvm -d 3 --format json -o "$_out" 2>"$tmp/err"
	_st=$?
	kill $jvm 2>/dev/null
	wait $jvm 2>/dev/null
	rm -f /tmp/perf-$jvm.map
	jvm=
	return $_st
}

# stop_target: kill and reap the test's target process, $target, if any
# (set it to the pid when starting one; the EXIT trap calls this too).
stop_target() {
	[ -n "$target" ] && kill "$target" 2>/dev/null
	[ -n "$target" ] && wait "$target" 2>/dev/null
	target=
}

# instrument_state NAME: the self-test's state of an instrument here
# ("works", "dead", "short", "refused"; detector/instruments.h), from
# `contend backends --format json`.  Needs $contend.
instrument_state() {
	"$contend" backends --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next((i["state"] for i in d["instruments"] if i["name"] == sys.argv[1]), "unknown"))
' "$1"
}

# need_instrument NAME: skip the test (77), saying why in the words of the
# self-test, unless the instrument works on this machine.
need_instrument() {
	_state=$(instrument_state "$1")
	[ "$_state" = works ] && return 0
	echo "SKIP: $1 do not work on this machine ($_state): $("$contend" backends 2>/dev/null |
		sed -n "s/^  $1 *//p")"
	exit 77
}

# require_jvm_sampling: exit 77 (skip), saying why, without java and javac
# or where this uid may not sample (kernel.perf_event_paranoid > 2).
# Needs nothing else of this file: a JVM test calls it before mktemp.
require_jvm_sampling() {
	for _prog in java javac; do
		if ! command -v $_prog >/dev/null; then
			echo "skip: $_prog not found"
			exit 77
		fi
	done
	if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
		echo "skip: kernel.perf_event_paranoid > 2 forbids sampling as uid $(id -u)"
		exit 77
	fi
}

# jvm_test_begin: require_jvm_sampling, then $tmp made and, on exit, the
# JVM in $jvm (if any) killed, its perf map and $tmp removed.
jvm_test_begin() {
	require_jvm_sampling
	tmp=$(mktemp -d)
	jvm=
	trap '[ -n "$jvm" ] && kill $jvm 2>/dev/null; [ -n "$jvm" ] && rm -f /tmp/perf-$jvm.map; rm -rf "$tmp"' EXIT
}
