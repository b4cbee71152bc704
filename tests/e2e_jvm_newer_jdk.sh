#!/bin/sh
# The JVM tests on a second, newer JDK than the default java, when one is
# installed (/usr/lib/jvm/*, or $CONTEND_TEST_JDK: a JAVA_HOME): the newest
# whose major version is above the default's.  There the tables describe
# another field-info format (_fieldinfo_stream) and the JVM has the hashed
# secondary-supers table (its flag UseSecondarySupersTable), which contend
# must learn from the JVM, not from a version number.
#  - tests/e2e_jvm_false_sharing.sh with that JDK first on PATH: the class
#    and both fields named, @Contended advised; again with compact object
#    headers (-XX:+UseCompactObjectHeaders) where the JDK has them;
#  - testcases/jvm_type_check attached: with the hashed secondary-supers
#    table on (the default) no contended _secondary_super_cache; run with
#    -XX:-UseSecondarySupersTable, the top line is the Klass again, and the
#    advice says this JVM has JDK-8180450's fix, switched off, never that
#    its user should upgrade; no "build with -g" in either report.
# Skipped (77) when no newer JDK is installed (CI has Debian's JDK 17 only).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"

major_of() {   # a JAVA_HOME -> its major version from its release file
	sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}
default_major=0
if command -v java >/dev/null; then
	default_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
	default_major=$(major_of "$default_home")
	[ -n "$default_major" ] || default_major=0
fi
jdk= jdk_major=$default_major
for home in ${CONTEND_TEST_JDK:-} /usr/lib/jvm/*; do
	[ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
	m=$(major_of "$home")
	if [ -n "$m" ] && [ "$m" -gt "$jdk_major" ]; then
		jdk=$home jdk_major=$m
	fi
done
if [ -z "$jdk" ]; then
	echo "skip: no JDK newer than the default java (major $default_major) installed"
	exit 77
fi
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
	echo "skip: kernel.perf_event_paranoid > 2 forbids sampling as uid $(id -u)"
	exit 77
fi
echo "JDK $jdk_major at $jdk (the default java is $default_major)"
PATH="$jdk/bin:$PATH" JAVA_HOME="$jdk"
export PATH JAVA_HOME
tmp=$(mktemp -d)
jvm=
trap '[ -n "$jvm" ] && kill $jvm 2>/dev/null; [ -n "$jvm" ] && rm -f /tmp/perf-$jvm.map; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

echo "--- e2e_jvm_false_sharing.sh on JDK $jdk_major"
if sh "$top_srcdir/tests/e2e_jvm_false_sharing.sh"; then
	ok "JDK $jdk_major: FalseSharing\$Counters.a and .b named, @Contended advised"
else
	fail "JDK $jdk_major: e2e_jvm_false_sharing.sh"
fi

# compact object headers: the class pointer lives in the mark word
if java -XX:+UseCompactObjectHeaders -version >/dev/null 2>&1; then
	echo "--- e2e_jvm_false_sharing.sh on JDK $jdk_major -XX:+UseCompactObjectHeaders"
	if JDK_JAVA_OPTIONS=-XX:+UseCompactObjectHeaders \
	   sh "$top_srcdir/tests/e2e_jvm_false_sharing.sh"; then
		ok "JDK $jdk_major, compact object headers: the class and both fields named"
	else
		fail "JDK $jdk_major -XX:+UseCompactObjectHeaders: e2e_jvm_false_sharing.sh"
	fi
else
	echo "JDK $jdk_major has no -XX:+UseCompactObjectHeaders: not tried"
fi

echo "--- testcases/jvm_type_check on JDK $jdk_major"
if ! javac -d "$tmp" "$top_srcdir/testcases/jvm_type_check/TypeCheck.java"; then
	fail "javac TypeCheck.java"
	exit 1
fi
# attach to TypeCheck run with JVM options $1, the JSON report into $2
type_check() {
	# shellcheck disable=SC2086  # the options split on blanks
	jvm_attach_json "$2" $1 -cp "$tmp" TypeCheck 2 10
	st=$?
	if [ $st -ne 0 ]; then
		fail "contend attach exited with $st:"
		cat "$tmp/err"
		exit 1
	fi
	tail -1 "$tmp/jvm.out"
}

# $1: the report; $2: "on" (the hashed table on: no contended cache) or
# "off" (-XX:-UseSecondarySupersTable: the cache contended on the top
# line, the advice says the fix is there but switched off)
check_advice() {
	python3 - "$1" "$2" <<'EOF'
import json, sys

report = json.load(open(sys.argv[1]))
table = sys.argv[2]
lines = report["lines"]
problems = []
if "build with -g" in json.dumps(report):
    problems.append("a JVM report advises building with -g")
cache = []
for l in lines[:5]:
    members = [r.get("member") for r in l.get("ranges") or []]
    print("%s sharing on %s, members %s" % (l["kind"], l.get("object"), members))
    advice = (l.get("advice") or {}).get("summary") or ""
    if "JDK-8180450" not in advice:
        continue
    cache.append(l)
    print("  advice: " + advice)
    if "has that bug's fix" not in advice:
        problems.append("the advice does not say this JVM has the fix")
    for wrong in ("Fixed in JDK 23", "backported", "on JDK 17"):
        if wrong in advice:
            problems.append("the advice tells a user of this JDK %r" % wrong)
    if table == "off" and "switched off" not in advice:
        problems.append("the advice does not say the table is switched off")
print("%d lines, %d with the JDK-8180450 advice" % (len(lines), len(cache)))
if table == "on" and cache:
    problems.append("the cache is contended with the hashed table on")
if table == "off":
    top = lines[0] if lines else {}
    if not cache or cache[0] is not top or not (top.get("object") or "").startswith("Klass TypeCheck$C"):
        problems.append("the top line is not a TypeCheck Klass with the JDK-8180450 advice")
for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
EOF
}

type_check "" "$tmp/on.json"
check_advice "$tmp/on.json" on &&
	ok "JDK $jdk_major, hashed secondary-supers table on: no contended cache, no -g advice" ||
	fail "JDK $jdk_major with the table on"
type_check "-XX:+UnlockDiagnosticVMOptions -XX:-UseSecondarySupersTable" "$tmp/off.json"
check_advice "$tmp/off.json" off &&
	ok "JDK $jdk_major, table switched off: the Klass named, the advice says the fix is switched off" ||
	fail "JDK $jdk_major with -XX:-UseSecondarySupersTable"
[ $fails -eq 0 ] && echo "PASS" || echo "$fails check(s) failed"
exit $((fails != 0))
