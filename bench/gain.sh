#!/usr/bin/env bash
# Predicted gain against measured, for every testcase with a fix and for
# the programs of bench/gain-set/ (SPLIT.md says which fit the model and
# which are held out).  Per case and pass: contend run on the original
# (its top line's predicted gain and range), then the original and the
# fixed variant back to back; measured = median over passes of the ratio
# original/fixed of wall times, or of the program's own rate where it runs
# for a fixed time (a sed expression printing it, or awk: summing the
# rates its processes print).  (Not CPU time: this project's VM under-counts it by
# up to 3x, and identically for both variants.)  Error = (predicted -
# measured) / measured; "ok" when the error is within 30% or the measured
# value lies inside the range (an "at least" gain: from its floor up;
# "unknown" where the report states no gain, and why, or no range;
# reports/gain.h: the 2x window where 3 in 4 fit cases fell,
# bench/gain-set/FIT.md; bench/gain-fit.sh re-derives it, and must run
# before this, never after looking at the held-out rows).  The last line
# sums up the held-out programs.  On a loaded machine two threads seldom
# run at once: the samples still show the contended loop, the wall times
# hardly differ, and the table says more about the load than the model.
#   bench/gain.sh [RUNS]      (default 3; from the build tree)
#   GAIN_ONLY='name ...'      only these cases (the first word of a row)
#   GAIN_KEEP=DIR             keep contend's JSON reports there
set -uo pipefail
runs=${1:-3}
b=${top_builddir:-$(pwd)}
here=$(cd "$(dirname "$0")" && pwd)
contend="$b/contend"
tc="$b/testcases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/lib.sh"

for f in "$here"/gain-set/*.c; do
	n=$(basename "$f" .c)
	${CC:-cc} -std=gnu11 -O2 -g -pthread -Wall -o "$tmp/$n" "$f" ||
		{ echo "gain.sh: cannot build $f" >&2; exit 2; }
done
gs=$tmp

# name | part | fix | original command | fixed command | how measured
# (wall, or a sed expression printing the rate) | JSON field predicted
cases=(
"false_sharing_counters|testcase|--padded|$tc/false_sharing_counters --iters 300000000|$tc/false_sharing_counters --iters 300000000 --padded|wall|predicted_gain"
"heap_per_thread_stats|testcase|--padded|$tc/heap_per_thread_stats --iters 150000000|$tc/heap_per_thread_stats --iters 150000000 --padded|wall|predicted_gain"
"heap_struct_array|testcase|--padded|$tc/heap_struct_array --iters 150000|$tc/heap_struct_array --iters 150000 --padded|wall|predicted_gain"
"true_sharing_counter|testcase|per-thread (-t 1 speed)|$tc/true_sharing_counter -t 2 --iters 10000000|$tc/true_sharing_counter -t 1 --iters 10000000|wall|predicted_gain"
"klass_secondary_supers|testcase|--pad|$tc/klass_secondary_supers --seconds 1|$tc/klass_secondary_supers --seconds 1 --pad|s/^checks\/s: //p|predicted_gain"
"klass_secondary_supers|testcase|--no-cache-write|$tc/klass_secondary_supers --seconds 1|$tc/klass_secondary_supers --seconds 1 --no-cache-write|s/^checks\/s: //p|predicted_gain_all"
"modest_sharing|testcase|--padded|$tc/modest_sharing --seconds 1|$tc/modest_sharing --seconds 1 --padded|s/^\([0-9.e+]*\) publications\/s$/\1/p|predicted_gain"
"latent_slots|testcase|--shift 0 (apart)|$tc/latent_slots --shift 32 --seconds 1|$tc/latent_slots --shift 0 --seconds 1|s/^\([0-9.e+]*\) steps\/s$/\1/p|predicted_gain"
"mutex_counter|testcase|--sharded|$tc/mutex_counter --iters 40000000|$tc/mutex_counter --iters 40000000 --sharded|wall|predicted_gain"
"shared_mmap|testcase|--padded|$tc/shared_mmap --seconds 1|$tc/shared_mmap --seconds 1 --padded|awk:{ for (i = 1; i < NF; i++) if (\$i == \"added\") s += \$(i + 1) } END { print s }|predicted_gain"
"read_mostly_config|testcase|--padded|$tc/read_mostly_config|$tc/read_mostly_config --padded|wall|predicted_gain"
"shared_shm|testcase|--padded|$tc/shared_shm --seconds 1|$tc/shared_shm --seconds 1 --padded|awk:{ for (i = 1; i < NF; i++) if (\$i == \"counted\") s += \$(i + 1) } END { print s }|predicted_gain"
)
# The language twins of issue 36, where their toolchains are here: Go (a
# slice of per-goroutine stats), Rust (an Arc of two counters), and Java
# (two fields of one object; one field both threads store to), each
# against its padded or unshared twin.
srcs=$(cd "$here/.." && pwd)/testcases
if command -v go >/dev/null &&
   GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GO111MODULE=off \
	go build -o "$tmp/go_stats_slice" "$srcs/go_stats_slice/main.go" 2>/dev/null; then
	cases+=("go_stats_slice|testcase|--padded|$tmp/go_stats_slice|$tmp/go_stats_slice --padded|wall|predicted_gain")
fi
if command -v rustc >/dev/null &&
   rustc -O -o "$tmp/rust_arc_stats" "$srcs/rust_arc_stats/main.rs" 2>/dev/null; then
	cases+=("rust_arc_stats|testcase|--padded|$tmp/rust_arc_stats|$tmp/rust_arc_stats --padded|wall|predicted_gain")
fi
if command -v javac >/dev/null &&
   javac -d "$tmp/java" "$srcs/jvm_false_sharing/FalseSharing.java" \
	"$srcs/jvm_true_sharing/TrueSharing.java" 2>/dev/null; then
	cases+=("jvm_false_sharing|testcase|padded|java -cp $tmp/java FalseSharing 3 flanked|java -cp $tmp/java FalseSharing 3 padded|s/^total //p|predicted_gain"
		"jvm_true_sharing|testcase|own (unshared)|java -cp $tmp/java TrueSharing 3 same|java -cp $tmp/java TrueSharing 3 own|s/^stores //p|predicted_gain")
fi
# A --fixed that takes the true sharing away too (per-thread copies of an
# atomic) is priced by predicted_gain_all, as klass --no-cache-write is:
# predicted_gain prices the padding the advice proposes for a mixed line.
removes_true_sharing=" true_counter work_index refcount_get_put last_owner spin_stats lookup_cache "
while IFS='|' read -r name part; do
	field=predicted_gain
	[[ $removes_true_sharing == *" $name "* ]] && field=predicted_gain_all
	cases+=("$name|$part|--fixed|$gs/$name|$gs/$name --fixed|wall|$field")
done < <(sed -n 's/^| \([a-z0-9_]*\) | \(fit\|held-out\)[^|]*|.*/\1|\2/p' "$here/gain-set/SPLIT.md")

# predicted FIELD JSON: "point low high" of the top line (1 1 1 if none;
# high "inf" where the model states no upper bound)
predicted() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    lines = json.load(open(sys.argv[2]))["lines"]
except (OSError, ValueError, KeyError):
    print("nan nan nan"); sys.exit()
if not lines:
    print("1 1 1"); sys.exit()
l, f = lines[0], sys.argv[1]
suffix = "_all" if f.endswith("_all") else ""
if not l.get(f) and l.get("predicted_gain_unknown"):
    print(0, 0, 0); sys.exit()    # "gain unknown", and why
point = l.get(f) or 1
low = l.get("predicted_gain" + suffix + "_low", point)
high = l.get("predicted_gain" + suffix + "_high", point)
# where no 2x range holds (the queued stores decide) the gain is a floor:
# the point is the low end, with no high end
print(point, low if low is not None else point, "inf" if high is None else high)
EOF
}

measure() {   # how command...: wall seconds, or the program's rate
	local how=$1; shift
	if [ "$how" = wall ]; then
		wall "$@"
	elif [[ $how == awk:* ]]; then    # a rate summed over processes
		"$@" 2>/dev/null | awk "${how#awk:}"
	else
		"$@" 2>/dev/null | sed -n "$how"
	fi
}

echo "| case | part | fix | predicted | range | measured | error | ok |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
	IFS='|' read -r name part fix orig fixed how field <<<"$c"
	if [ -n "${GAIN_ONLY:-}" ] && ! grep -qw -- "$name" <<<"$GAIN_ONLY"; then
		continue
	fi
	: >"$tmp/p"; : >"$tmp/m"
	for ((i = 0; i < runs; i++)); do
		# shellcheck disable=SC2086
		"$contend" run -q --format json -o "$tmp/r.json" -- $orig >/dev/null 2>&1
		[ -n "${GAIN_KEEP:-}" ] && mkdir -p "$GAIN_KEEP" &&
			cp "$tmp/r.json" "$GAIN_KEEP/$name${fix// /}.$i.json"
		predicted "$field" "$tmp/r.json" >>"$tmp/p"
		# shellcheck disable=SC2086
		a=$(measure "$how" $orig); f=$(measure "$how" $fixed)
		if [ "$how" = wall ]; then
			awk -v a="$a" -v f="$f" 'BEGIN { if (f > 0) print a / f }'
		else
			awk -v a="$a" -v f="$f" 'BEGIN { if (a > 0) print f / a }'
		fi >>"$tmp/m"
	done
	p=$(cut -d' ' -f1 <"$tmp/p" | median)
	lo=$(cut -d' ' -f2 <"$tmp/p" | median)
	hi=$(cut -d' ' -f3 <"$tmp/p" | median)
	m=$(median <"$tmp/m")
	awk -v n="$name" -v part="$part" -v fix="$fix" -v p="$p" -v lo="$lo" -v hi="$hi" -v m="$m" 'BEGIN {
		if (p == 0) {         # the report says "gain unknown", and why
			printf "| %s | %s | %s | unknown | unknown | %.2fx | - | unknown |\n",
				n, part, fix, m
			exit
		}
		err = 100 * (p - m) / m
		known = lo > 0
		inside = known && m >= lo - 0.005 && (hi == "inf" || m <= hi + 0.005)
		ok = (err <= 30 && err >= -30) || inside
		range = !known ? "unknown" : hi == "inf" ? sprintf("%.2f-", lo) : sprintf("%.2f-%.2f", lo, hi)
		printf "| %s | %s | %s | %.2fx | %s | %.2fx | %+.0f%% | %s |\n",
			n, part, fix, p, range, m, err, ok ? "yes" : "**no**"
	}' | tee -a "$tmp/table"
done
awk -F'|' '$3 ~ /held-out/ && $9 ~ /unknown/ { unknown++ }
	$3 ~ /held-out/ && $9 !~ /unknown/ {
		e = $8; gsub(/[ %+]/, "", e); e += 0; if (e < 0) e = -e
		n++; sum += e; if (e > max) max = e; if ($9 ~ /yes/) ok++
	}
	END { if (n) printf "\nheld-out: %d programs, mean |error| %.0f%%, max %.0f%%, %d of %d within 30%% or inside the range%s\n", n, sum / n, max, ok, n, unknown ? sprintf("; %d more with the gain unknown", unknown) : "" }' "$tmp/table"
