#!/usr/bin/env bash
# Time to detection: attach to a running testcase for D seconds (D = 0.25,
# 1), 3 tries each, and print the shortest D at which every try
# reported the expected top line with the right kind and member.
#   bench/detect-latency.sh        (from the build tree)
set -uo pipefail
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | testcase args | kind(s) accepted | member that must be on the line
cases=(
	"false_sharing_counters|--seconds 6|false|counters"
	"klass_secondary_supers|--seconds 6|mixed true|secondary_super_cache"
	"heap_per_thread_stats|--iters 2000000000|false|lookups"
)

check() {   # json kinds member -> 0 if the top line matches
	python3 - "$1" "$2" "$3" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); kinds = sys.argv[2].split(); member = sys.argv[3]
ls = r.get("lines", [])
ok = ls and ls[0]["kind"] in kinds and any(member in (g.get("member") or "") or
        member in (ls[0].get("variable") or "") for g in ls[0]["ranges"])
sys.exit(0 if ok else 1)
EOP
}

echo "| testcase | 0.25 s | 1 s | detected within |"
echo "|---|---|---|---|"
for c in "${cases[@]}"; do
	IFS='|' read -r name args kinds member <<<"$c"
	row="| $name"; first=""
	for d in 0.25 1; do
		good=0
		for try in 1 2 3; do
			"$b/testcases/$name" $args >/dev/null 2>&1 &
			pid=$!
			sleep 0.5
			"$contend" attach -q --confirm -p $pid -d $d --format json -o "$tmp/r.json" >/dev/null 2>&1
			check "$tmp/r.json" "$kinds" "$member" && good=$((good + 1))
			kill $pid 2>/dev/null; wait $pid 2>/dev/null
		done
		row="$row | $good/3"
		[ -z "$first" ] && [ $good -eq 3 ] && first="$d s"
	done
	echo "$row | ${first:-not within 1 s} |"
done
