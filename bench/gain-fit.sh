#!/usr/bin/env bash
# The gain model's range, derived: records each fit case once (the
# project's testcases with a fix and bench/gain-set/SPLIT.md's "fit"
# programs), reports it with this build's model, and sets each case's
# prediction P against the speedup measured on a quiet machine of the
# same kind, by the CPU's vendor: an Intel Icelake VM (bench/RESULTS.md,
# "Predicted vs measured gain", the pass of 2026-12-03 16:17 UTC,
# work_index's of 19:19 UTC, bitmap_or's and neighbour_flag's of
# 2026-12-03 23:30 UTC) or an AMD EPYC Zen 5 VM (the AMD column below).
# Prints per case ln(measured / P), this kind's smallest and largest of
# them, and the 2x-wide window (ln 2) that holds the most of them;
# GAIN_LIKELY_LOG_LOW / _HIGH (reports/gain.h) are that window over both
# kinds' tables in bench/gain-set/FIT.md.  A case whose prediction states no upper bound (the Klass
# cache: "at least"; a gain no 2x range holds, stated as its floor) counts for the low end only.  Held-out programs are
# never recorded here.
#   bench/gain-fit.sh [DIR]   (from the build tree; DIR keeps the data
#                              files: given again, they are reported, not
#                              recorded anew)
# Predictions come from samples: a loaded machine skews them less than it
# skews wall-time ratios (the measured column is never taken here), but
# not nothing -- two threads that seldom run at once contend less.
set -uo pipefail
b=${top_builddir:-$(pwd)}
here=$(cd "$(dirname "$0")" && pwd)
contend="$b/contend"
tc="$b/testcases"
dir=${1:-$(mktemp -d)}
mkdir -p "$dir/bin"

for n in $(sed -n 's/^| \([a-z0-9_]*\) | fit[^|]*|.*/\1/p' "$here/gain-set/SPLIT.md"); do
	[ -x "$dir/bin/$n" ] ||
		${CC:-cc} -std=gnu11 -O2 -g -pthread -Wall -o "$dir/bin/$n" "$here/gain-set/$n.c" ||
		{ echo "gain-fit.sh: cannot build $n" >&2; exit 2; }
done
gs=$dir/bin
kind=intel
grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo && kind=amd

# name | original command | JSON field | measured on the Intel Icelake VM
# (quiet, 16:17) | measured on an AMD EPYC Zen 5 VM (2026-12-04: median of
# three passes, bench/RESULTS.md: the testcases' of 17:58, 20:02 and 20:14
# UTC; the gain-set programs', at the lengths of SPLIT.md since 23:45, of
# 23:38, 23:41 and 23:44 UTC) | open high
cases=(
"false_sharing_counters|$tc/false_sharing_counters --iters 300000000|predicted_gain|5.87|3.98|"
"heap_per_thread_stats|$tc/heap_per_thread_stats --iters 150000000|predicted_gain|2.67|4.34|"
"heap_struct_array|$tc/heap_struct_array --iters 150000|predicted_gain|1.94|2.89|"
"true_sharing_counter|$tc/true_sharing_counter -t 2 --iters 10000000|predicted_gain|8.13|2.73|"
"klass_pad|$tc/klass_secondary_supers --seconds 1|predicted_gain|1.25|1.11|"
"klass_no_cache_write|$tc/klass_secondary_supers --seconds 1|predicted_gain_all|25.31|4.81|open"
"modest_sharing|$tc/modest_sharing --seconds 1|predicted_gain|0.99|0.99|"
"latent_slots|$tc/latent_slots --shift 32 --seconds 1|predicted_gain|2.87|2.08|"
"accum_array|$gs/accum_array|predicted_gain|0.99|1.14|"
"hist_scatter|$gs/hist_scatter|predicted_gain|2.61|2.44|"
"compute_counter|$gs/compute_counter|predicted_gain|1.19|2.11|"
"true_counter|$gs/true_counter|predicted_gain|8.16|2.88|"
"hot_cold|$gs/hot_cold|predicted_gain|1.90|9.04|"
"read_mostly|$gs/read_mostly|predicted_gain|1.18|1.24|"
"counters_4t|$gs/counters_4t|predicted_gain|5.22|4.69|"
"sparse_slot|$gs/sparse_slot|predicted_gain|1.65|1.04|"
"pair_fields|$gs/pair_fields|predicted_gain|1.10|1.08|"
"stream_accum|$gs/stream_accum|predicted_gain|1.02|1.01|"
"work_index|$gs/work_index|predicted_gain_all|11.18|5.38|"
"bitmap_or|$gs/bitmap_or|predicted_gain|3.75|1.44|"
"neighbour_flag|$gs/neighbour_flag|predicted_gain|1.44|1.31|"
)

echo "| case | predicted | range | measured | ln(measured/predicted) |"
echo "|---|---|---|---|---|"
for c in "${cases[@]}"; do
	IFS='|' read -r name cmd field m_intel m_amd open <<<"$c"
	m=$m_intel
	[ "$kind" = amd ] && m=$m_amd
	data=$dir/$name.data
	case $name in klass_*) data=$dir/klass_secondary_supers.data ;; esac
	# a recording without a line (on a busy machine the threads may
	# seldom run at once) has nothing to price: again, up to 3 times
	for ((try = 0; try < 3; try++)); do
		if [ ! -s "$data" ]; then
			# shellcheck disable=SC2086
			"$contend" record -q -o "$data" -- $cmd >/dev/null 2>&1
		fi
		"$contend" report -i "$data" --format json >"$dir/$name.json" 2>/dev/null
		grep -q '"lines": \[\]' "$dir/$name.json" || break
		rm -f "$data"
	done
	python3 - "$field" "$dir/$name.json" "$m" "$open" "$name" <<'PY'
import json, math, sys
field, path, m, is_open, name = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
try:
    lines = json.load(open(path))["lines"]
except (OSError, ValueError, KeyError):
    lines = None
if lines is None:
    print("| %s | no report | | %.2fx | |" % (name, m)); sys.exit()
l = lines[0] if lines else {}
p = l.get(field) or 1
suffix = "_all" if field.endswith("_all") else ""
lo = l.get("predicted_gain" + suffix + "_low", p)
hi = l.get("predicted_gain" + suffix + "_high", p)
e = math.log(m / p)
# no 2x range holds: the report states the floor, an "at least" like the
# Klass cache's, which counts for the low end only
is_open = is_open or l.get("predicted_gain" + suffix + "_range_unknown")
print("| %s | %.2fx | %.2f-%s | %.2fx | %+.3f%s |" % (name, p, lo if lo is not None else p,
      "" if hi is None else "%.2f" % hi, m, e, " (open: low end only)" if is_open else ""))
PY
done | tee "$dir/table"
awk -F'|' '$6 ~ /[0-9]/ {
		e = $6 + 0; open = $6 ~ /open/
		if (n == 0 || e < lo) lo = e
		if (!open && (nh == 0 || e > hi)) hi = e
		n++; if (!open) nh++
	}
	END { printf "\nfit cases: %d (%d for the high end) on this kind (%s); lowest %.3f, highest %.3f\n", n, nh, kind, lo, hi }' kind="$kind" "$dir/table"
python3 - "$dir/table" <<'PY'
import math, re, sys
vals = [float(m.group(1)) for m in (re.search(r"\| ([+-][0-9.]+)( \(open[^|]*)?\s*\|$", l)
                                    for l in open(sys.argv[1])) if m and not m.group(2)]
best = max(((sum(lo <= v <= lo + math.log(2) + 1e-9 for v in vals), lo) for lo in vals),
           default=(0, 0))
print("2x window holding the most: ln %+.3f to %+.3f, %d of %d" %
      (best[1], best[1] + math.log(2), best[0], len(vals)))
PY
