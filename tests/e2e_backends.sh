#!/bin/sh
# Backend choice on a machine without a hardware PMU (VMs, CI runners):
# `contend backends` and `contend run` say that no PMU is available, why,
# and use the soft backend; asking for a hardware backend by name fails
# with the reason.  Skipped where the kernel exposes a memory-sampling PMU.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
devices=/sys/bus/event_source/devices
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL $1"; shift
	[ $# -gt 0 ] && cat "$@"
	fails=$((fails + 1))
}

for pmu in cpu cpu_core ibs_op arm_spe_0; do
	if [ -e "$devices/$pmu" ]; then
		echo "SKIP: this machine exposes $devices/$pmu"
		exit 77
	fi
done

# contend backends: every hardware backend refused with a reason, auto = soft
"$contend" backends >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	fail "backends: exit $st" "$tmp/err"
elif ! grep -q '^auto: soft$' "$tmp/out"; then
	fail "backends: auto is not soft" "$tmp/out"
elif [ "$(grep -cE '^  (pebs|ibs|spe) +no +[a-z]' "$tmp/out")" -ne 3 ]; then
	fail "backends: not every hardware backend says no, with a reason" "$tmp/out"
elif ! grep -qE '(no PMU|no IBS|no SPE) exposed to this virtual machine|the kernel exposes no' "$tmp/out"; then
	fail "backends: the missing PMU is not named" "$tmp/out"
else
	echo "ok backends"
fi

# contend run: the JSON report names the soft backend and why
"$contend" run --format json -o "$tmp/r.json" -- true 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	fail "run: exit $st" "$tmp/err"
elif ! python3 - "$tmp/r.json" <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
note = r.get("backend_note") or ""
ok = (r.get("backend") == "soft" and r.get("memory_info") is False
      and note.startswith("auto chose soft")
      and all(b + ": " in note for b in ("pebs", "ibs", "spe"))
      and re.search(r"(no PMU|no IBS|no SPE) exposed to this virtual machine"
                    r"|the kernel exposes no", note))
if not ok:
    print("backend %r, memory_info %r, note %r" % (r.get("backend"), r.get("memory_info"), note))
sys.exit(0 if ok else 1)
EOF
then
	fail "run: report does not say soft and why"
else
	echo "ok run reports soft and why"
fi

# a hardware backend by name: exit 2 and the reason, no report
for b in pebs ibs spe; do
	"$contend" run --backend $b -- true >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 2 ] || ! grep -q "the $b backend cannot run here: " "$tmp/err" || [ -s "$tmp/out" ]; then
		fail "run --backend $b: exit $st" "$tmp/err" "$tmp/out"
	else
		echo "ok run --backend $b refused"
	fi
done

"$contend" run --backend bogus -- true >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 2 ] || ! grep -q "not one of: auto, pebs, ibs, spe, soft" "$tmp/err"; then
	fail "run --backend bogus: exit $st" "$tmp/err"
else
	echo "ok unknown backend"
fi

[ $fails -eq 0 ]
