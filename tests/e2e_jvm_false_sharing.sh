#!/bin/sh
# contend attach on a JVM whose two threads write two adjacent volatile
# longs of one object (testcases/jvm_false_sharing/FalseSharing.java): the
# top line must be false sharing on that object, named by its class
# (FalseSharing$Counters) with both fields (a, b) as the members written by
# the two writer threads, advice naming @Contended and no "build with -g".
# The object lands where the heap puts it: when it straddles a line, there
# is nothing to find, and the test tries a new JVM (3 at most).
# Skipped (77) without java or javac.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
. "$top_srcdir/tests/e2e_lib.sh"
jvm_test_begin

if ! javac -d "$tmp" "$top_srcdir/testcases/jvm_false_sharing/FalseSharing.java"; then
	echo "FAIL: javac FalseSharing.java"
	exit 1
fi
# Each try moves the object (FalseSharing's SKEW: by 0, 24 and 40 bytes):
# where it lands is the same in every run from one directory, and at most
# one of three such placements puts a and b on two lines.
try=0
for skew in 0 1 3; do
	try=$((try + 1))
	jvm_attach_json "$tmp/r.json" -cp "$tmp" FalseSharing 8 adjacent $skew
	st=$?
	if [ $st -ne 0 ]; then
		echo "FAIL: contend attach exited with $st:"
		cat "$tmp/err"
		exit 1
	fi
	python3 - "$tmp/r.json" <<'PY' && break
import json, sys
lines = json.load(open(sys.argv[1]))["lines"]
sys.exit(0 if lines else 1)
PY
	echo "try $try (skew $skew): no contended line (the object straddled two lines?)"
done

python3 - "$tmp/r.json" <<'EOF'
import json, sys

report = json.load(open(sys.argv[1]))
lines = report["lines"]
if not lines:
    print("FAIL: no contended line in 3 JVMs")
    sys.exit(1)
top = lines[0]
members = {}
for r in top.get("ranges") or []:
    writers = sorted(t.get("comm") or "?" for t in r.get("threads") or [] if t.get("writes", 0))
    members[r.get("member")] = writers
advice = (top.get("advice") or {}).get("summary") or ""
print("top line: %s sharing on %s (type %s), members %s" % (
    top["kind"], top.get("object"), top.get("type"), members))
print("advice: " + advice)
problems = []
if top["kind"] != "false":
    problems.append("the top line is %s sharing, not false" % top["kind"])
if top.get("object") != "FalseSharing$Counters":
    problems.append("the object is %r, not FalseSharing$Counters" % top.get("object"))
if sorted(m for m in members if m) != ["a", "b"]:
    problems.append("the members are %s, not a and b" % sorted(map(str, members)))
elif members["a"] == members["b"] or not members["a"] or not members["b"]:
    problems.append("a and b are not written by different threads: %s" % members)
if "@jdk.internal.vm.annotation.Contended" not in advice:
    problems.append("the advice does not name @Contended")
if "build with -g" in json.dumps(report):
    problems.append("the report of a JVM advises building with -g")
for p in problems:
    print("FAIL: " + p)
if not problems:
    print("ok JVM false sharing: FalseSharing$Counters.a (%s) and .b (%s)" % (
        ",".join(members["a"]), ",".join(members["b"])))
sys.exit(1 if problems else 0)
EOF
