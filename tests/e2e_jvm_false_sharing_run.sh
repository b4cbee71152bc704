#!/bin/sh
# contend run -- java, on testcases/jvm_false_sharing's "flanked" case
# (its expected.json): b between a and c, written by the other thread,
# shares a line with one of them wherever the heap puts the object: false
# sharing on FalseSharing$Flanked, member b, advice in Java (@Contended
# with -XX:-RestrictContended), never C.  "padded": no line of
# FalseSharing.  Skipped without java and javac.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 "$top_srcdir/tests/e2e.py" "$top_srcdir/testcases/jvm_false_sharing.expected.json"
