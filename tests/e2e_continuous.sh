#!/bin/sh
# contend attach --interval: one profile per interval, rotating.
# Attached to false_sharing_counters for 3.5 s at --interval 1 --keep 2:
# exit 0, three profiles written (said on stderr), the newest two kept,
# named contend-PID-TIME.pb.gz, gzip'd pprof; a file of someone else's in
# the directory is never rotated away; the target runs on; go tool pprof
# (when installed) reads them and finds `increment` and kind=false in one
# of them at least.  The option errors are one line, exit 2.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
	echo "skip: kernel.perf_event_paranoid > 2 forbids sampling as uid $(id -u)"
	exit 77
fi
tmp=$(mktemp -d)
target=
trap '[ -n "$target" ] && kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"
expect_max_lines=1

"$top_builddir/testcases/false_sharing_counters" --iters 100000000000 >/dev/null &
target=$!
sleep 0.3
mkdir "$tmp/profiles"
echo mine >"$tmp/profiles/contend-1-20000101T000000Z.pb.gz"
"$contend" attach -p $target --interval 1 -F 1000 -d 3.5 --keep 2 -o "$tmp/profiles" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && ok "attach --interval exits 0" || { fail "exit $st:"; cat "$tmp/err"; }
grep -q "3 profiles written to $tmp/profiles" "$tmp/err" && ok "three profiles written" ||
	{ fail "stderr does not say 3 profiles were written:"; cat "$tmp/err"; }
n=$(ls "$tmp/profiles" | grep -c "^contend-$target-[0-9]\{8\}T[0-9]\{6\}Z\(-[0-9]*\)\?\.pb\.gz\$")
[ "$n" -eq 2 ] && ok "--keep 2: the newest two kept" || { fail "$n profiles kept, want 2:"; ls "$tmp/profiles"; }
[ -f "$tmp/profiles/contend-1-20000101T000000Z.pb.gz" ] && ok "a file not ours is left alone" ||
	fail "rotation removed a file contend did not write"
for f in "$tmp/profiles"/contend-$target-*; do
	[ "$(od -An -tx1 -N2 "$f" | tr -d ' ')" = 1f8b ] || fail "$f is not gzip"
done
kill -0 $target 2>/dev/null && ok "the target runs on" || fail "the target is gone"
if command -v go >/dev/null; then
	found=0
	for f in "$tmp/profiles"/contend-$target-*; do
		go tool pprof -top -tagfocus kind=false "$f" 2>/dev/null | grep -q increment && found=1
	done
	[ $found -eq 1 ] && ok "go tool pprof: increment, kind=false" ||
		fail "no kept profile has increment with kind=false"
fi
kill $target; wait $target 2>/dev/null; target=

: >"$tmp/file"
expect "--interval without -o" 2 "give -o DIR" "$contend" attach -p $$ --interval 1
expect "--interval -o FILE" 2 "not a directory" "$contend" attach -p $$ --interval 1 -o "$tmp/file"
expect "--keep without --interval" 2 "give --interval" "$contend" attach -p $$ --keep 3 -o "$tmp"
expect "--interval under 1 s" 2 "interval" "$contend" attach -p $$ --interval 0.5 -o "$tmp"

[ $fails -eq 0 ] && echo "PASS" || echo "$fails check(s) failed"
exit $((fails != 0))
