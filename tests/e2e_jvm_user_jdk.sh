#!/bin/sh
# "Looks like a JVM" is a claim until HotSpot's tables prove it, and they
# prove nothing to root when the JVM's user could have written them.  A
# JVM run as nobody from a JDK whose libjvm.so nobody owns (a copy: the
# launcher and libjvm.so copied, the rest linked) is not signalled by a
# root contend: the header says why and how to get the names, and no
# .attach_pid file appears.  The same JVM run from the system's JDK (root's
# files) is attached as ever: its JIT code is named from the perf map.
# Skips (77) when not root, without setpriv, java or javac.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
. "$top_srcdir/tests/e2e_lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: the check is a root contend's"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
jvm_test_begin
chmod 755 "$tmp"
home=$(readlink -f "$(command -v java)")
home=${home%/bin/java}
if [ ! -f "$home/lib/server/libjvm.so" ]; then
	echo "SKIP: no lib/server/libjvm.so under $home"
	exit 77
fi
javac -d "$tmp/classes" "$top_srcdir/testcases/jvm_true_sharing/TrueSharing.java" ||
	{ echo "FAIL: javac"; exit 1; }
chmod -R a+rX "$tmp/classes"
cp -rs "$home" "$tmp/jdk" && rm "$tmp/jdk/bin/java" "$tmp/jdk/lib/server/libjvm.so" &&
	cp "$home/bin/java" "$tmp/jdk/bin/java" &&
	cp "$home/lib/server/libjvm.so" "$tmp/jdk/lib/server/libjvm.so" &&
	chown 65534 "$tmp/jdk/lib/server/libjvm.so" || { echo "FAIL: cannot copy the JDK"; exit 1; }

# $1: java to run as nobody, $2: output; the attach's stderr into $2
attach_nobody_jvm() {
	(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$1" -cp "$tmp/classes" TrueSharing 8 same >/dev/null 2>&1) &
	sleep 3
	jvm=$(pgrep -f -n "TrueSharing 8 same")
	"$contend" attach -p "$jvm" -d 2 -o "$2" 2>"$2.err"
	kill "$jvm" 2>/dev/null
	wait
	rm -f "/tmp/perf-$jvm.map"
}

attach_nobody_jvm "$tmp/jdk/bin/java" "$tmp/user.txt"
if grep -q "can write, so its tables prove nothing to root; not signalled" "$tmp/user.txt.err"; then
	ok "a JVM whose user owns its libjvm.so is not signalled, and the header says why"
else
	fail "a nobody-owned libjvm.so was trusted:"; grep "JIT code" "$tmp/user.txt"; cat "$tmp/user.txt.err"
fi
left=$(find "$tmp" /tmp -maxdepth 1 -name '.attach_pid*' -newer "$tmp/classes" 2>/dev/null)
[ -z "$left" ] && ok "no .attach_pid file created" || fail ".attach_pid left: $left"

attach_nobody_jvm java "$tmp/system.txt"
if grep -q "JIT code: named from /tmp/perf-" "$tmp/system.txt"; then
	ok "the same JVM from the system's JDK is attached: JIT code named"
else
	fail "the system JDK's JVM as nobody was not attached:"; grep "JIT code" "$tmp/system.txt"
fi
[ "$fails" -eq 0 ]
