#!/bin/sh
# contend run -- java, on the same-field case of
# testcases/jvm_true_sharing (its expected.json): true sharing on
# TrueSharing$Progress.last, written by both writers, advice in Java
# (LongAdder, no @Contended); "own" gives no line of TrueSharing.  Under
# run the JVM exits before the report is built: its data must be named
# while contend holds its exit (engine/exit_hold.h).  Skipped without java
# and javac.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 "$top_srcdir/tests/e2e.py" "$top_srcdir/testcases/jvm_true_sharing.expected.json"
