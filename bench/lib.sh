# Helpers shared by the bench scripts: source it, do not run it.

# Median of the numbers on stdin, one per line; "nan" if none.
median() {
	sort -g | awk '{ a[NR] = $1 }
		END { if (!NR) print "nan"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# Wall-clock seconds of one command (its output discarded), to 0.1 ms.
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

# Median of the rates a target printed as "  1.5 s: 123 units/s" (one line
# per interval of STEP seconds, default 0.5) over the intervals lying
# within [FROM, TO] seconds of its run.
#   median_rate FILE FROM TO [STEP]
median_rate() {
	awk -v from="$2" -v to="$3" -v step="${4:-0.5}" \
		'$2 == "s:" && $1 - step >= from - 0.05 && $1 <= to + 0.05 { print $3 }' "$1" | median
}
