#!/usr/bin/env bash
# What watchpoints cost the watched program, and that the cost ends with
# the window.  One false_sharing_counters process prints its increment rate
# every 0.5 s while, in turn:
#   native      nothing is armed
#   armed       contend watch arms counters[0] and counters[1] for 2 s,
#               without the hit cap (every increment: a load and a store,
#               each one trap)
#   after       disarmed again: the rate must be back to native
#   defaults    contend watch -d 3 with the default cost control (50 ms
#               windows, armed at most half the time, 20000 hits/s cap)
#   after       native again
# Rates of the 0.5 s intervals that lie wholly inside a phase are
# averaged; a markdown table is printed.  Then the wall time of a fixed
# amount of work under `contend run` with and without --confirm.
#   bench/watch-overhead.sh          (run from the build tree)
set -euo pipefail
b=${top_builddir:-$(pwd)}
contend="$b/contend"
fsc="$b/testcases/false_sharing_counters"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

"$fsc" --seconds 11 --report-rate >"$tmp/rate" &
target=$!
t0=$(now)
phases=()
mark() { phases+=("$1 $2 $(since "$t0")"); }   # name start end

sleep 1.5
s=$(since "$t0")
"$contend" watch -q -p $target -w 2000 --max-rate 0 --format json -o "$tmp/armed.json" \
	counters counters+8
mark armed "$s"
s=$(since "$t0")
sleep 2
mark after "$s"
s=$(since "$t0")
"$contend" watch -q -p $target -d 3 -o "$tmp/defaults.txt" counters counters+8
mark defaults "$s"
s=$(since "$t0")
sleep 1.5
mark after-defaults "$s"
wait $target
phases=("native 0 1.5" "${phases[@]}")

echo "| phase | seconds | increments/s | vs native |"
echo "|---|---|---|---|"
native=""
for p in "${phases[@]}"; do
	set -- $p
	rate=$(awk -v a="$2" -v b="$3" '
		/increments\/s/ { t = $1 + 0; if (t - 0.5 >= a && t <= b) { sum += $3; n++ } }
		END { if (n) printf "%.0f", sum / n; else print "" }' "$tmp/rate")
	[ -z "$rate" ] && continue
	[ -z "$native" ] && native=$rate
	printf "| %s | %.1f-%.1f | %s | %.4f |\n" "$1" "$2" "$3" "$rate" \
		"$(awk -v r="$rate" -v n="$native" 'BEGIN { print r / n }')"
done
armed_s=$(sed -n 's/^# watchpoints: \([0-9]*\) windows, \([0-9.]*\) s armed.*/\1 windows, \2 s armed/p' "$tmp/defaults.txt")
echo
echo "defaults: $armed_s in 3 s"
# Each access is one trap; a worker that does nothing else spends the
# window trapping, so window / its accesses is the time of one trap.
python3 - "$tmp/armed.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for line in r["lines"]:
    for w in line["confirmation"]["words"]:
        for t in w["threads"]:
            n = t["reads"] + t["writes"]
            if n > 1000:
                print("armed: thread %d: %d reads, %d writes of %s in %.3f s: %.1f us per trap"
                      % (t["tid"], t["reads"], t["writes"], w["member"], w["window_s"],
                         1e6 * w["window_s"] / n))
EOF

# Fixed work: the cost of --confirm on a whole run
iters=300000000
wall() {
	local a
	a=$(now)
	"$@" >/dev/null 2>&1
	since "$a"
}
echo
echo "| false_sharing_counters --iters $iters | wall s |"
echo "|---|---|"
echo "| native | $(wall "$fsc" --iters $iters) |"
echo "| contend run | $(wall "$contend" run -q -- "$fsc" --iters $iters) |"
echo "| contend run --confirm | $(wall "$contend" run -q --confirm -- "$fsc" --iters $iters) |"
