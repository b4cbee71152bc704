#!/bin/sh
# -g on a false-sharing program: the contended line's site in increment()
# has a call chain through its caller worker(), and the line lists
# increment against increment (the two threads) as a false-sharing pair.
# Contention shows only while both threads run at once: on a busy machine
# a run may see none, so it is tried three times.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
# run and check again after a spurious debug trap (tests/contend_retry.sh)
contend="$(cd "$(dirname "$0")" && pwd)/contend_retry.sh"
export CONTEND_REAL="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {
	python3 - "$tmp/r.json" <<'EOF'
import json, sys

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

report = json.load(open(sys.argv[1]))
lines = report["lines"]
if not lines:
    fail("no contended line")
line = lines[0]
sites = [s for r in line["ranges"] for s in r["sites"]
         if (s["function"] or "").startswith("increment")]
if not sites:
    fail("no site in increment")
chains = [c for s in sites for c in s["chains"]]
if not chains:
    fail("the increment sites have no call chain")
if not any(f.startswith("worker ") or f.startswith("worker.")
           for c in chains for f in c["frames"]):
    fail("no chain of increment goes through worker: %s" % chains)
pairs = [p for p in line["pairs"]
         if (p["a"]["function"] or "").startswith("increment")
         and (p["b"]["function"] or "").startswith("increment")]
if not pairs:
    fail("no increment/increment pair: %s" % line["pairs"])
if pairs[0]["kind"] != "false":
    fail("increment/increment is %s sharing" % pairs[0]["kind"])
if set(pairs[0]["a"]["tids"]) & set(pairs[0]["b"]["tids"]):
    fail("the two sides share threads: %s" % pairs[0])
print("ok: %s <- %s; pair %s weight %d" % (
    sites[0]["function"], " <- ".join(chains[0]["frames"][:2]),
    pairs[0]["kind"], pairs[0]["weight"]))
EOF
}

for try in 1 2 3; do
	"$contend" run -q -g --format json -o "$tmp/r.json" -- \
		"$top_builddir/testcases/false_sharing_counters" --iters 200000000 \
		>/dev/null 2>"$tmp/err" || {
		echo "FAIL: contend exited with $?: $(cat "$tmp/err")"
		exit 1
	}
	check && exit 0
	echo "try $try failed"
done
exit 1
