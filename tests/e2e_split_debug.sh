#!/bin/sh
# A distribution's binary is built with -g and its DWARF ships in a
# package of its own (Debian's -dbgsym): the binary keeps a .gnu_debuglink
# naming the separate file.  When that file is not installed, contend must
# say to install it, never "build with -g", which the user cannot apply.
# The testcase is split as distributions do (objcopy --only-keep-debug,
# strip --strip-debug, --add-gnu-debuglink) and the debug file removed.
# Skipped (77) without objcopy.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
command -v objcopy >/dev/null || { echo "skip: no objcopy"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bin="$tmp/fsc_split"
cp "$tc/false_sharing_counters" "$bin" &&
	objcopy --only-keep-debug "$bin" "$bin.debug" &&
	strip --strip-debug "$bin" &&
	objcopy --add-gnu-debuglink="$bin.debug" "$bin" &&
	rm "$bin.debug" || { echo "FAIL: could not split the debug info"; exit 1; }

fails=0
for try in 1 2 3; do
	"$contend" run -o "$tmp/out" -- "$bin" --seconds 1 >/dev/null 2>"$tmp/err"
	grep -q "FALSE SHARING .*counters" "$tmp/out" && break
done
if ! grep -q "FALSE SHARING .*counters" "$tmp/out"; then
	echo "FAIL: no false sharing on counters in 3 runs"; cat "$tmp/out" "$tmp/err"; exit 1
fi
if grep -q "build with -g" "$tmp/out"; then
	echo "FAIL: advises 'build with -g' for a binary whose debug info is split off"
	fails=$((fails + 1))
else
	echo "ok: no 'build with -g'"
fi
if tr '\n' ' ' <"$tmp/out" | tr -s ' ' | grep -q "debug info is not installed; it names a separate debug file (.gnu_debuglink): install it"; then
	echo "ok: says to install the separate debug file"
else
	echo "FAIL: does not say to install the debug info"; fails=$((fails + 1))
fi
if grep -q "untyped: debug info not installed" "$tmp/out"; then
	echo "ok: the header counts the reason"
else
	echo "FAIL: the header's untyped reason"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || { cat "$tmp/out"; exit 1; }
