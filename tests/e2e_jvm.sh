#!/bin/sh
# contend attach on a real JVM: JDK-8180450, the secondary super cache.
# testcases/jvm_type_check/TypeCheck.java runs two threads that check
# objects against two interfaces alternately; C2 compiles the checks into
# TypeCheck code that loads and stores Klass::_secondary_super_cache.  After
# warm-up, contend attaches twice for 3 s (text, then JSON) with NO jcmd
# call and no perf map beforehand: contend must have the JVM write
# /tmp/perf-PID.map itself (the attach protocol) and name the JIT method.
# The top line must be true (or mixed) sharing on a Klass named by class
# (Klass TypeCheck$Cn, type Klass), with one 8-byte range written by both
# checker threads, member _secondary_super_cache, its code sites named from
# the perf map, the threads named (checker-0, checker-1), the advice naming
# JDK-8180450 and never "build with -g" (text, JSON, HTML), and no two
# contending pairs alike.
# Skipped (77) without java or javac.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
. "$top_srcdir/tests/e2e_lib.sh"
jvm_test_begin

if ! javac -d "$tmp" "$top_srcdir/testcases/jvm_type_check/TypeCheck.java"; then
	echo "FAIL: javac TypeCheck.java"
	exit 1
fi
java -cp "$tmp" TypeCheck 2 20 >"$tmp/jvm.out" 2>&1 &
jvm=$!
sleep 3    # warm-up: C2 compiles the checking loop
rm -f /tmp/perf-$jvm.map
"$contend" attach --confirm -p $jvm -d 3 -o "$tmp/r.txt" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	echo "FAIL: contend attach (text) exited with $st:"
	cat "$tmp/err"
	exit 1
fi
"$contend" attach --confirm -p $jvm -d 3 --format json -o "$tmp/r.json" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	echo "FAIL: contend attach exited with $st:"
	cat "$tmp/err"
	exit 1
fi
"$contend" attach --confirm -p $jvm -d 2 --format html -o "$tmp/r.html" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! grep -q 'JDK-8180450' "$tmp/r.html" || grep -q 'build with -g' "$tmp/r.html"; then
	echo "FAIL: the HTML report (exit $st) lacks JDK-8180450 or advises building with -g:"
	grep -o '[^>]*build with -g[^<]*' "$tmp/r.html" | head -3
	cat "$tmp/err"
	exit 1
fi
wait $jvm
st=$?
rm -f /tmp/perf-$jvm.map
jvm=
if [ $st -ne 0 ]; then
	echo "FAIL: the JVM exited with $st after the detach:"
	cat "$tmp/jvm.out"
	exit 1
fi

# the text report: the names a reader needs, and no C advice
sed -n '/^== #1 /,/^$/p' "$tmp/r.txt"
problems=0
for want in 'JIT code: named from' '== #1  [A-Z]* SHARING  Klass TypeCheck\$C[0-3] ' \
	    '_secondary_super_cache' 'JDK-8180450' 'TypeCheck\$Checker\.run' \
	    'class InstanceKlass {' 'at least ~\|gain unknown: the price probe'; do
	if ! grep -q "$want" "$tmp/r.txt"; then
		echo "FAIL: the text report has no line matching '$want'"
		problems=1
	fi
done
if grep -q 'build with -g' "$tmp/r.txt"; then
	echo "FAIL: the text report of a JVM advises building with -g"
	problems=1
fi
# nothing in a Klass can be padded: no "(padding)" gain on its lines
if grep -q '(padding)' "$tmp/r.txt"; then
	echo "FAIL: a JVM Klass line prices a padding fix:"
	grep '(padding)' "$tmp/r.txt"
	problems=1
fi
if [ $problems -ne 0 ]; then
	cat "$tmp/r.txt"
	exit 1
fi

python3 - "$tmp/r.json" <<'EOF'
import json, sys

with open(sys.argv[1]) as f:
    report = json.load(f)
lines = report["lines"]
print("%d samples, %d decoded, dropped %s; %d lines" % (
    report["samples"], report["decoded"], report.get("dropped"), len(lines)))
if not lines:
    print("FAIL: no contended line")
    sys.exit(1)
top = lines[0]
names = {t["tid"]: t.get("comm") for t in top.get("threads") or []}
print("top line: %s sharing at %s (%s), threads %s" % (
    top["kind"], top["address"], top.get("variable") or top.get("object"),
    ", ".join("%s(%s)" % kv for kv in names.items())))
problems = []
if "build with -g" in json.dumps(report):
    problems.append("the JSON report of a JVM advises building with -g")
if "named from" not in (report.get("jit_note") or ""):
    problems.append("jit_note does not say the JVM wrote its map: %r" % report.get("jit_note"))
if not (top.get("object") or "").startswith("Klass TypeCheck$C") or top.get("type") != "Klass":
    problems.append("the top line is not a Klass by class name: object %r, type %r" % (
        top.get("object"), top.get("type")))
if "JDK-8180450" not in ((top.get("advice") or {}).get("summary") or ""):
    problems.append("the advice does not name JDK-8180450: %r" % top.get("advice"))
rows = [(p["kind"], tuple(p[s]["tids"]), p[s].get("function"), p[s].get("line"))
        for p in top.get("pairs") or [] for s in ("a", "b")]
pairs = [tuple(rows[i:i + 2]) for i in range(0, len(rows), 2)]
if len(set(pairs)) != len(pairs):
    problems.append("contending pairs repeat a row: %s" % pairs)
# the JVM's tables named the line: its accesses count as typed, not as
# "no debug info" in the header
ta = report.get("type_attribution") or {}
top_n = sum(r["reads"] + r["writes"] for r in top.get("ranges") or [])
if ta.get("typed", 0) < top_n:
    problems.append("the JVM-named top line's %d accesses are not counted as typed: %r" % (
        top_n, ta))
if top["kind"] not in ("true", "mixed"):
    problems.append("the top line is %s sharing, not true or mixed" % top["kind"])

# the cache field: one 8-byte range that two threads both write
shared = None
for r in top.get("ranges") or []:
    writers = [t for t in r.get("threads") or [] if t.get("writes", 0) > 0]
    sites = r.get("sites") or []
    print("  range +%d size %d: reads %d writes %d, %s; writers %s; sites %s" % (
        r["offset"], r["size"], r["reads"], r["writes"],
        "true-shared" if r.get("true_shared") else "-",
        ", ".join("%s(%s) %dw" % (t["tid"], t.get("comm"), t["writes"]) for t in writers),
        ", ".join("%s+%s %dr/%dw" % (s.get("function"), s.get("module_offset"),
                                      s.get("reads", 0), s.get("writes", 0))
                  for s in sites[:4])))
    if (r["size"] == 8 and r.get("true_shared") and len(writers) >= 2 and not shared
            and r.get("member") == "_secondary_super_cache"):
        shared = r
if not shared:
    readers = max(top.get("ranges") or [{}], key=lambda r: r.get("reads", 0))
    problems.append(
        "no 8-byte _secondary_super_cache range written by two threads: the most read range, +%s, has "
        "%s reads and %s concurrent write samples from %s" % (
            readers.get("offset"), readers.get("reads"), readers.get("writes"),
            [(t["tid"], t.get("writes", 0)) for t in readers.get("threads") or []]))
else:
    sites = shared.get("sites") or []
    unnamed = [s for s in sites if not s.get("function")]
    java = [s for s in sites if "TypeCheck" in (s.get("function") or "")]
    if unnamed:
        problems.append("%d code sites have no name (perf map not used?): %s" % (
            len(unnamed), ", ".join("%s+%s" % (s.get("module"), s.get("module_offset"))
                                    for s in unnamed)))
    if not java:
        problems.append("no code site in a TypeCheck method: %s" % (
            ", ".join(str(s.get("function")) for s in sites)))
    comms = sorted(t.get("comm") or "?" for t in shared["threads"]
                   if t.get("writes", 0) > 0)
    if comms[:2] != ["checker-0", "checker-1"]:
        problems.append("the writers are not named checker-0 and checker-1: %s" % comms)
for p in problems:
    print("FAIL: " + p)
if not problems:
    print("ok JVM: %s sharing on %s._secondary_super_cache at %s+%d, written by %s" % (
        top["kind"], top["object"], top["address"], shared["offset"],
        " and ".join(comms)))
sys.exit(1 if problems else 0)
EOF
