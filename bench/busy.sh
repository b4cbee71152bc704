#!/usr/bin/env bash
# Detection on a busy machine (issue 33): HOGS processes spinning on the
# CPUs (default 2: `sh -c 'while :; do :; done'`, as the issue's bar has
# it), then RUNS runs (default 20) each of
#   false_sharing_counters:  FALSE SHARING on counters, every run;
#   klass_secondary_supers:  the Klass line, MIXED or TRUE, its cache
#                            written by both threads (secondary_supers the
#                            victim when MIXED), or an explicit
#                            "inconclusive" naming that line -- never a
#                            plain "no contended cache lines found".
# Prints the tallies and, per run, the overlap and CPU pressure the
# report measured (run_facts.h).
#   bench/busy.sh [RUNS] [HOGS]     (from the build tree)
set -uo pipefail
runs=${1:-20}
hogs=${2:-2}
contend=${top_builddir:-$(pwd)}/contend
tc=${top_builddir:-$(pwd)}/testcases
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

for _ in $(seq "$hogs"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
sleep 1

judge() {   # testcase report.json: one word, and the facts
	python3 - "$1" "$2" <<'EOP'
import json, sys
case, path = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
except Exception as e:
    print("error (%s)" % e); sys.exit()
m = d.get("machine") or {}
facts = "overlap %s pressure %s" % (m.get("overlap"), m.get("cpu_pressure"))
def members(l, key):
    return {r.get("member") for r in l.get("ranges", []) if r.get(key)}
if case == "false_sharing_counters":
    ok = any(l["kind"] == "false" and (l.get("variable") or "") == "counters" for l in d["lines"])
    print(("found" if ok else "missed") + " " + facts)
    sys.exit()
for l in d["lines"]:
    if l["kind"] not in ("mixed", "true") or "Klass" not in (l.get("type") or ""):
        continue
    shared = {m.split(".")[-1] for m in members(l, "true_shared") if m}
    victims = {m.split(".")[-1] for m in members(l, "false_victim") if m}
    if "secondary_super_cache" not in shared:
        continue
    if l["kind"] == "mixed" and "secondary_supers" not in victims:
        continue
    print("%s %s" % (l["kind"], facts)); sys.exit()
if d.get("verdict") == "inconclusive" and any("Klass" in (l.get("type") or "")
                                              for l in d.get("undecided_lines", [])):
    print("inconclusive " + facts); sys.exit()
print("missed " + facts)
EOP
}

for case in false_sharing_counters klass_secondary_supers; do
	: >"$tmp/$case"
	for i in $(seq "$runs"); do
		"$contend" run -q --format json -o "$tmp/r.json" -- "$tc/$case" >/dev/null 2>&1
		judge "$case" "$tmp/r.json" | tee -a "$tmp/$case" | sed "s/^/  $case $i: /"
	done
done
fs=$(grep -c '^found' "$tmp/false_sharing_counters")
mixed=$(grep -c '^mixed' "$tmp/klass_secondary_supers")
true_=$(grep -c '^true' "$tmp/klass_secondary_supers")
inc=$(grep -c '^inconclusive' "$tmp/klass_secondary_supers")
echo "with $hogs CPU hogs: false_sharing_counters FALSE SHARING $fs/$runs;" \
	"klass_secondary_supers found $((mixed + true_))/$runs (mixed $mixed, true $true_)," \
	"inconclusive $inc, missed $((runs - mixed - true_ - inc))"
