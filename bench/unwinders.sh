#!/usr/bin/env bash
# The two unwinders of -g (issue 34): --call-graph=dwarf (libdw) against
# --call-graph=libunwind, on bundled testcases and on held-out code built
# -O2 without frame pointers (bench/unwind/: C, C++, and a library with no
# debug info).  Per program and method, RUNS runs (default 3); medians of:
#   unwound    samples with at least one caller, of the samples unwound
#   frames     callers per sample
#   complete   of the reported sites' sampled accesses, the share whose
#              chain reaches the thread's root (start_thread, __clone*,
#              __libc_start*): a walk that stopped early misses it
#   us/sample  time in the unwinder per sample (its throughput: 1e6/us)
# contend prints the first three facts itself at the end of a -g run
# (engine/session.c note_unwinding).  Confirmation stays on: the Klass line
# is reported only with it.
#   bench/unwinders.sh [RUNS]       (from the build tree)
set -uo pipefail
runs=${1:-3}
top=${top_builddir:-$(pwd)}
src=${top_srcdir:-$top}
. "$src/bench/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc=${CC:-cc}; cxx=${CXX:-c++}
$cc -O2 -g0 -fomit-frame-pointer -fPIC -shared -o "$tmp/libhot.so" "$src/bench/unwind/libhot.c" &&
$cc -O2 -g -fomit-frame-pointer -pthread -o "$tmp/deep-c" "$src/bench/unwind/deep.c" \
	-L"$tmp" -lhot -Wl,-rpath,"$tmp" &&
$cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -pthread \
	-o "$tmp/deep-c-debug-frame" "$src/bench/unwind/deep.c" -L"$tmp" -lhot -Wl,-rpath,"$tmp" &&
$cxx -std=c++17 -O2 -g -fomit-frame-pointer -pthread -o "$tmp/deep-cxx" "$src/bench/unwind/deep.cc" ||
	{ echo "bench/unwinders.sh: cannot build the held-out programs"; exit 1; }

programs=(
	"false_sharing_counters|$top/testcases/false_sharing_counters"
	"heap_struct_array|$top/testcases/heap_struct_array"
	"klass_secondary_supers|$top/testcases/klass_secondary_supers"
	"held-out C -O2, no fp, lib without -g|$tmp/deep-c 40000"
	"held-out C++ -O2, no fp|$tmp/deep-cxx 40000"
	"held-out C -O2, no fp, .debug_frame only|$tmp/deep-c-debug-frame 40000"
)

complete_share() {   # report.json: the share of chained accesses reaching a thread's root
	python3 - "$1" <<'EOP'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("nan"); sys.exit()
total = full = 0
for l in d.get("lines", []):
    for r in l.get("ranges", []):
        for s in r.get("sites", []):
            for c in s.get("chains") or []:
                total += c["count"]
                if any(f.split()[0].startswith(("start_thread", "__clone", "__libc_start"))
                       for f in c["frames"]):
                    full += c["count"]
print("%.3f" % (full / total) if total else "nan")
EOP
}

printf '| program | method | unwound | frames/sample | complete | us/sample |\n'
printf '|---|---|---|---|---|---|\n'
for entry in "${programs[@]}"; do
	name=${entry%%|*}
	read -r -a cmd <<<"${entry#*|}"
	for method in dwarf libunwind; do
		: >"$tmp/u"; : >"$tmp/f"; : >"$tmp/c"; : >"$tmp/t"
		for _ in $(seq "$runs"); do
			"$top/contend" run -g --call-graph="$method" --no-price-probe \
				--no-alloc-sites --format json -o "$tmp/r.json" -- "${cmd[@]}" \
				>/dev/null 2>"$tmp/err"
			line=$(grep 'call graph' "$tmp/err")
			# "... (libdw): A of B samples unwound (C by frame pointers), F frames per sample, T us per sample"
			awk '{ for (i = 1; i <= NF; i++) if ($i == "of") { print $(i - 1) / $(i + 1); exit } }' \
				<<<"$line" >>"$tmp/u"
			sed -n 's/.*, \([0-9.]*\) frames per sample.*/\1/p' <<<"$line" >>"$tmp/f"
			sed -n 's/.*, \([0-9.]*\) us per sample.*/\1/p' <<<"$line" >>"$tmp/t"
			complete_share "$tmp/r.json" >>"$tmp/c"
		done
		printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$method" \
			"$(grep -v nan "$tmp/u" | median)" "$(grep -v nan "$tmp/f" | median)" \
			"$(grep -v nan "$tmp/c" | median)" "$(grep -v nan "$tmp/t" | median)"
	done
done
