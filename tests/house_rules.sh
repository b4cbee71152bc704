#!/bin/bash
# The house (docs/DESIGN.md), checked: includes point down only, every
# project include names its floor, no production file grows past
# MAX_LINES nor function past MAX_FUNCTION, no bare qsort/bsearch, no hash
# table but common/hashmap.h's, printers that read the report model and
# nothing else of the analysis, the folder map of docs/DESIGN.md matches the
# tree, one perf_event_open call site and one ring reader, and no run output
# is tracked at the top of the tree.
# Prints one line per violation; exit 1 if any.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$top_srcdir" || exit 99
MAX_LINES=1000
floors="cli engine printers reports detector symbolize common"
bad=0

rank() {   # a floor's height: cli 6 ... common 0; -1 if not a floor
	case "$1" in
	cli) echo 6 ;; engine) echo 5 ;; printers) echo 4 ;; reports) echo 3 ;; detector) echo 2 ;;
	symbolize) echo 1 ;; common) echo 0 ;; *) echo -1 ;;
	esac
}

# A printer reads the model, and nothing else of the analysis below it:
# reports/report.h, or stat's own model for stat's printer.
printer_may_include() {
	case "$1" in
	reports/report.h|reports/stat_report.h) return 0 ;;
	*) return 1 ;;
	esac
}

for floor in $floors; do
	me=$(rank "$floor")
	for f in "$floor"/*.[ch]; do
		[ -e "$f" ] || continue
		case "$f" in *.pb-c.[ch]) continue ;; esac   # protoc-c's, in an in-tree build
		while IFS= read -r inc; do
			case "$inc" in
			config.h) continue ;;
			*/*) ;;
			*) echo "$f: #include \"$inc\" does not name its floor"; bad=1; continue ;;
			esac
			to=$(rank "${inc%%/*}")
			if [ "$to" -lt 0 ]; then
				echo "$f: #include \"$inc\" is not a header of the house"; bad=1
			elif [ "$to" -gt "$me" ]; then
				echo "$f: includes $inc, a floor above $floor"; bad=1
			elif [ "$floor" = printers ] && [ "$to" -ne 4 ] && [ "$to" -ne 0 ] &&
			     ! printer_may_include "$inc"; then
				echo "$f: includes $inc: a printer reads the report model (reports/report.h) only"
				bad=1
			fi
		done < <(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
		n=$(wc -l < "$f")
		if [ "$n" -gt "$MAX_LINES" ]; then
			echo "$f: $n lines, over $MAX_LINES: split it by job"; bad=1
		fi
	done
done

# qsort/bsearch of an empty NULL array is undefined (UBSan aborts): the
# tree calls sort_items()/search_items() of common/util.h instead
for f in $(grep -lE '\b(qsort|bsearch) *\(' $(for d in $floors; do echo "$d"/*.[ch]; done)); do
	[ "$f" = common/util.h ] && continue
	echo "$f: calls qsort()/bsearch(): use sort_items()/search_items() (common/util.h)"; bad=1
done

# one hash table (common/hashmap.h): no linear probing or FNV hashing of
# its own anywhere else
for f in $(grep -lE '= \(\w+ \+ 1\) & |0xcbf29ce484222325|0x100000001b3' \
		$(for d in $floors; do echo "$d"/*.[ch]; done)); do
	# the preloaded allocation shim links nothing of the house (it may not
	# call malloc): its pending-record index is its own
	case "$f" in common/hashmap.[ch]|detector/alloc_shim.c) continue ;; esac
	echo "$f: probes or hashes a table of its own: use common/hashmap.h"; bad=1
done

# no function over MAX_FUNCTION lines (protoc-c's generated code aside): a
# function is the lines from its opening brace in column 0 to its closing one
MAX_FUNCTION=80
long=$(python3 - "$MAX_FUNCTION" $(for d in $floors; do echo "$d"/*.c; done) <<'EOP'
import re, sys
limit = int(sys.argv[1])
for path in sys.argv[2:]:
    if path.endswith(".pb-c.c"):
        continue
    lines = open(path, errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            if k - i + 1 > limit:
                print("%s:%d: %s() is %d lines, over %d: split it by step"
                      % (path, j + 1, m.group(1) if m else "?", k - i + 1, limit))
            i = k
        i += 1
EOP
)
if [ -n "$long" ]; then
	echo "$long"; bad=1
fi

# docs/DESIGN.md's folder map names every source file and nothing else
if ! python3 tests/folder_map.py; then
	bad=1
fi

# one perf_event_open(2) call site, in detector/perf_event.c; one reader
# of perf ring buffers, detector/perf_ring.c
for f in $(grep -lE 'SYS_perf_event_open|__NR_perf_event_open' \
		$(for d in $floors; do echo "$d"/*.c; done)); do
	[ "$f" = detector/perf_event.c ] && continue
	echo "$f: calls perf_event_open itself: use perf_event_open_fd() (detector/perf_event.h)"; bad=1
done
for f in $(grep -lE '\bdata_tail\b' $(for d in $floors; do echo "$d"/*.c; done)); do
	[ "$f" = detector/perf_ring.c ] && continue
	echo "$f: reads a perf ring buffer itself: use detector/perf_ring.h"; bad=1
done

# run outputs (reports, data files, transcripts) never go into git
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	for f in $(git ls-files | grep -v /); do
		case "$f" in
		*.data|*.out|*.json|*.html|*.log|*.partial|perf-*.map)
			echo "$f: a run output is tracked at the top of the tree"; bad=1 ;;
		esac
	done
fi

if [ "$bad" = 0 ]; then
	echo "house rules hold: $(ls $floors | wc -l) entries in 7 floors"
fi
exit "$bad"
