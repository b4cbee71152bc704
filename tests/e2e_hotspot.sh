#!/bin/sh
# hotspot.c reads every offset from the JVM's own tables, so test_hotspot
# must pass unchanged on a JDK whose layouts differ from JDK 17's: run it
# on each other JDK installed under /usr/lib/jvm (JAVA_HOME selects it).
# test_hotspot itself covers the JDK on $PATH.  Skipped (77) when no other
# JDK is installed.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
test_hotspot="$top_builddir/tests/test_hotspot"
default=$(readlink -f "$(command -v java 2>/dev/null)" 2>/dev/null)
ran=0
failed=0
for home in /usr/lib/jvm/*/; do
	home=${home%/}
	[ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
	[ -L "$home" ] && continue
	[ "$(readlink -f "$home/bin/java")" = "$default" ] && continue
	echo "== $home"
	if JAVA_HOME=$home "$test_hotspot"; then
		ran=$((ran + 1))
	else
		st=$?
		[ $st = 77 ] && continue
		echo "FAIL: test_hotspot with JAVA_HOME=$home exited with $st"
		failed=1
	fi
done
if [ $ran = 0 ] && [ $failed = 0 ]; then
	echo "skip: no JDK besides the default one under /usr/lib/jvm"
	exit 77
fi
exit $failed
