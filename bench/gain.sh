#!/usr/bin/env bash
# Predicted gain vs measured: contend's "fixing this line: ~Nx" on the
# contended variant, against the measured speedup of the fixed variant
# (median of RUNS interleaved runs each).
#   bench/gain.sh [RUNS]      (default 3; from the build tree)
set -uo pipefail
runs=${1:-3}
b=${top_builddir:-$(pwd)}
contend="$b/contend"
tc="$b/testcases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"
rate() { "$@" 2>/dev/null | sed -n 's/^checks\/s: //p'; }
predicted() {   # which field, command...
	local f=$1; shift
	"$contend" run -q --format json -o "$tmp/r.json" -- "$@" >/dev/null 2>&1
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["lines"]; print(l[0][sys.argv[2]] if l else 1)' "$tmp/r.json" "$f"
}

echo "| case | fix | predicted | measured | error |"
echo "|---|---|---|---|---|"
for c in "false_sharing_counters --iters 300000000" "heap_per_thread_stats --iters 200000000"; do
	set -- $c; name=$1; shift
	: >"$tmp/p"; : >"$tmp/a"; : >"$tmp/b"
	for ((i = 0; i < runs; i++)); do
		predicted predicted_gain "$tc/$name" "$@" >>"$tmp/p"
		wall "$tc/$name" "$@" >>"$tmp/a"
		wall "$tc/$name" --padded "$@" >>"$tmp/b"
	done
	p=$(median <"$tmp/p"); m=$(awk -v a="$(median <"$tmp/a")" -v b="$(median <"$tmp/b")" 'BEGIN{print a/b}')
	awk -v p="$p" -v m="$m" -v n="$name" 'BEGIN{printf "| %s | --padded | %.2fx | %.2fx | %+.0f%% |\n", n, p, m, 100*(p-m)/m}'
done

# true sharing: per-thread counters would each run at one thread's speed,
# so the fixed time of 2 threads is the time of 1 doing the same adds
: >"$tmp/p"; : >"$tmp/a"; : >"$tmp/b"
for ((i = 0; i < runs; i++)); do
	predicted predicted_gain "$tc/true_sharing_counter" -t 2 --iters 10000000 >>"$tmp/p"
	wall "$tc/true_sharing_counter" -t 2 --iters 10000000 >>"$tmp/a"
	wall "$tc/true_sharing_counter" -t 1 --iters 10000000 >>"$tmp/b"
done
p=$(median <"$tmp/p"); m=$(awk -v a="$(median <"$tmp/a")" -v b="$(median <"$tmp/b")" 'BEGIN{print a/b}')
awk -v p="$p" -v m="$m" 'BEGIN{printf "| true_sharing_counter | per-thread counters (-t 1 speed) | %.2fx | %.2fx | %+.0f%% |\n", p, m, 100*(p-m)/m}'

: >"$tmp/p"; : >"$tmp/p2"; : >"$tmp/a"; : >"$tmp/b"; : >"$tmp/c"
for ((i = 0; i < runs; i++)); do
	predicted predicted_gain "$tc/klass_secondary_supers" --seconds 1 >>"$tmp/p"
	predicted predicted_gain_all "$tc/klass_secondary_supers" --seconds 1 >>"$tmp/p2"
	rate "$tc/klass_secondary_supers" --seconds 1 >>"$tmp/a"
	rate "$tc/klass_secondary_supers" --seconds 1 --pad >>"$tmp/b"
	rate "$tc/klass_secondary_supers" --seconds 1 --no-cache-write >>"$tmp/c"
done
base=$(median <"$tmp/a")
for v in "--pad|$tmp/b|$tmp/p" "--no-cache-write|$tmp/c|$tmp/p2"; do
	IFS='|' read -r fix f pf <<<"$v"
	p=$(median <"$pf"); m=$(awk -v a="$(median <"$f")" -v b="$base" 'BEGIN{print a/b}')
	awk -v p="$p" -v m="$m" -v fix="$fix" 'BEGIN{printf "| klass_secondary_supers | %s | %.2fx | %.2fx | %+.0f%% |\n", fix, p, m, 100*(p-m)/m}'
done
