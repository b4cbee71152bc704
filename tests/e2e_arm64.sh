#!/bin/sh
# AArch64 soft backend, end to end without Arm hardware:
# testcases/false_sharing_counters.c cross-compiled for AArch64 (-O2 -g),
# synthetic timer samples just after increment()'s load and store of each
# thread's counter (tests/arm64_samples.c: the registers the code says it
# holds), decoded by the AArch64 decoder into a data file; `contend report`
# on this x86 machine must name counters, its members, the function and
# FALSE SHARING, reading the binary with its own architecture's decoder.
# Skips without Debian's gcc-aarch64-linux-gnu.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
cc=${CROSS_CC:-aarch64-linux-gnu-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

if ! command -v "$cc" >/dev/null; then
	echo "SKIP: no $cc (Debian: gcc-aarch64-linux-gnu)"
	exit 77
fi
if ! "$cc" -O2 -g -pthread "$top_srcdir/testcases/false_sharing_counters.c" \
	-o "$tmp/fsc" 2>"$tmp/err"; then
	echo "SKIP: $cc cannot build the testcase:"; cat "$tmp/err"
	exit 77
fi

# a correct program (qemu-user runs it; it cannot sample it)
if command -v qemu-aarch64 >/dev/null && [ -d /usr/aarch64-linux-gnu ]; then
	if qemu-aarch64 -L /usr/aarch64-linux-gnu "$tmp/fsc" --iters 100000 >"$tmp/qemu" 2>&1 &&
	   grep -q "counters: 200000 increments" "$tmp/qemu"; then
		ok "the AArch64 testcase runs under qemu-aarch64"
	else
		fail "the AArch64 testcase under qemu-aarch64:"; cat "$tmp/qemu"
	fi
fi

if ! "$top_builddir/tests/arm64_samples" "$tmp/fsc" "$tmp/a.data" >"$tmp/rec" 2>&1 ||
   ! grep -q "^800 samples, 800 decoded" "$tmp/rec"; then
	fail "synthetic AArch64 samples: not all decoded"; cat "$tmp/rec"
else
	ok "800 synthetic AArch64 samples, 800 decoded"
fi

"$contend" report -i "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	fail "report: exit $st"; cat "$tmp/err"
else
	grep -q "FALSE SHARING  counters (volatile long\[64\])" "$tmp/out" &&
		ok "FALSE SHARING on counters" || { fail "no FALSE SHARING on counters"; cat "$tmp/out"; }
	for i in 0 1; do
		grep -qE "^   [0-9]+ +8 +counters\[$i\] +false \(writer\)" "$tmp/out" &&
			ok "member counters[$i], a writer" ||
			fail "member counters[$i] not a false-sharing writer"
	done
	grep -qE "increment  false_sharing_counters.c:[0-9]+" "$tmp/out" &&
		ok "the code: increment() in false_sharing_counters.c" ||
		fail "no increment false_sharing_counters.c:LINE"
	grep -q "_Alignas(64) volatile long v;" "$tmp/out" &&
		ok "padding advice" || fail "no padding advice"
fi

"$contend" report -i "$tmp/a.data" --format json -o "$tmp/r.json" 2>"$tmp/err" ||
	fail "report json"
if python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l = r["lines"][0]
members = sorted(m["member"] for m in l["ranges"])
assert l["kind"] == "false", l["kind"]
assert l["object"].startswith("counters"), l["object"]
assert members == ["counters[0]", "counters[1]"], members
PY
then ok "JSON: kind false, counters[0] and counters[1]"
else fail "JSON report"; fi

[ $fails -eq 0 ]
