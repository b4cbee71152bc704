#!/bin/sh
# contend attach on a JVM whose two threads store into one volatile long
# of one object (testcases/jvm_true_sharing/TrueSharing.java): a volatile
# store is the store then a fence on the stack, and the samples land after
# the fence.  "same": the top line must be true sharing on
# TrueSharing$Progress, member last written by writer-0 and writer-1,
# advice that says padding cannot help and names LongAdder or per-thread
# copies, and no @Contended.  "own" (each writer its own object): no line
# of TrueSharing$Progress.  Skipped (77) without java or javac.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
. "$top_srcdir/tests/e2e_lib.sh"
jvm_test_begin

if ! javac -d "$tmp" "$top_srcdir/testcases/jvm_true_sharing/TrueSharing.java"; then
	echo "FAIL: javac TrueSharing.java"
	exit 1
fi
# $1: mode; the JSON report in $tmp/$1.json; 2 tries where no line shows
# (a busy machine: the writers seldom ran at once)
for mode in same own; do
	for try in 1 2; do
		jvm_attach_json "$tmp/$mode.json" -cp "$tmp" TrueSharing 8 $mode
		st=$?
		if [ $st -ne 0 ]; then
			echo "FAIL: contend attach ($mode) exited with $st:"
			cat "$tmp/err"
			exit 1
		fi
		[ $mode = own ] && break
		python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["lines"] else 1)' \
			"$tmp/$mode.json" && break
		echo "try $try: no contended line (busy machine?)"
	done
done

python3 - "$tmp/same.json" "$tmp/own.json" <<'PY'
import json, sys

same = json.load(open(sys.argv[1]))
own = json.load(open(sys.argv[2]))
problems = []
if not same["lines"]:
    problems.append("same: no contended line in 2 JVMs")
else:
    top = same["lines"][0]
    advice = (top.get("advice") or {}).get("summary") or ""
    writers = {}
    for r in top.get("ranges") or []:
        writers[r.get("member")] = sorted(t.get("comm") or "?" for t in r.get("threads") or []
                                          if t.get("writes", 0))
    print("same: %s sharing on %s, members %s" % (top["kind"], top.get("object"), writers))
    print("advice: " + advice)
    if top["kind"] != "true":
        problems.append("same: the top line is %s sharing, not true" % top["kind"])
    if top.get("object") != "TrueSharing$Progress":
        problems.append("same: the object is %r, not TrueSharing$Progress" % top.get("object"))
    if writers.get("last") != ["writer-0", "writer-1"]:
        problems.append("same: last is not written by writer-0 and writer-1: %s" % writers)
    if "TrueSharing$Progress.last is written by several threads" not in advice:
        problems.append("same: the advice does not name TrueSharing$Progress.last")
    if "no padding helps" not in advice or "LongAdder" not in advice:
        problems.append("same: the advice does not say padding cannot help, or name LongAdder")
    if "@jdk.internal.vm.annotation.Contended" in advice:
        problems.append("same: true sharing advised @Contended")
bad = [l for l in own["lines"] if (l.get("object") or "").startswith("TrueSharing")]
if bad:
    problems.append("own: a line of %s (%s sharing)" % (bad[0].get("object"), bad[0]["kind"]))
for p in problems:
    print("FAIL: " + p)
if not problems:
    print("ok JVM true sharing: TrueSharing$Progress.last; own objects: no line")
sys.exit(1 if problems else 0)
PY
