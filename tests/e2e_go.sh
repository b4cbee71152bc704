#!/bin/sh
# Go (testcases/go_stats_slice/main.go, built with the go command): two
# goroutines add to adjacent elements of a []stats.  The runtime moves
# goroutines between OS threads, so ownership must follow the goroutine
# (its g register, soft.c): the line must be false sharing of main.stats,
# hits written by two goroutines (tid >= 2^30, "goroutine": 1 and 2) in
# main.work, the advice and the proposal in Go (no "struct", a _ [48]byte
# pad, cpu.CacheLinePad; never _Alignas or aligned_alloc).  --padded:
# nothing.  Skipped without go.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v go >/dev/null; then
	echo "skip: go not found"
	exit 77
fi
export GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GO111MODULE=off
if ! go build -o "$tmp/gss" "$top_srcdir/testcases/go_stats_slice/main.go" 2>"$tmp/err"; then
	echo "FAIL: go build: $(head -3 "$tmp/err")"
	exit 1
fi
fails=0
for run in 1 2 3; do
	"$contend" run --format json -o "$tmp/r$run.json" -- "$tmp/gss" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: contend exited $?:"; cat "$tmp/err"; exit 1; }
	python3 - "$tmp/r$run.json" "$run" <<'PY' || fails=$((fails + 1))
import json, sys
r = json.load(open(sys.argv[1]))
problems = []
lines = r["lines"]
if len(lines) != 1:
    sys.exit("FAIL run %s: %d lines, want 1" % (sys.argv[2], len(lines)))
l = lines[0]
if l["kind"] != "false":
    problems.append("kind %s, want false" % l["kind"])
if l.get("type") != "main.stats":
    problems.append("type %r, want main.stats" % l.get("type"))
writers = {}
for g in l["ranges"]:
    for t in g["threads"]:
        if t.get("writes"):
            writers.setdefault(g.get("member"), set()).add(t.get("goroutine"))
    if not any(s.get("function") == "main.work" for s in g.get("sites", [])):
        problems.append("range %s: no site in main.work" % g.get("member"))
gs = set().union(*writers.values()) if writers else set()
if None in gs or len(gs) != 2:
    problems.append("writers %s: want two goroutines" % writers)
a = l.get("advice") or {}
text = (a.get("summary") or "") + (a.get("layout_proposed") or "")
for want in ("give each main.stats", "_ [N]byte", "CacheLinePad", "type stats struct",
             "_      [48]byte"):
    if want not in text:
        problems.append("advice lacks %r" % want)
for bad in ("_Alignas", "aligned_alloc", "struct main.stats"):
    if bad in text:
        problems.append("advice says %r" % bad)
if problems:
    sys.exit("FAIL run %s: %s" % (sys.argv[2], "; ".join(problems)))
print("ok run %s: false sharing of main.stats by goroutines %s, Go advice" % (sys.argv[2], sorted(gs)))
PY
done
"$contend" run --format json -o "$tmp/p.json" -- "$tmp/gss" --padded >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: contend (--padded) exited $?:"; cat "$tmp/err"; exit 1; }
python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["lines"]; sys.exit(1 if l else 0)' \
	"$tmp/p.json" && echo "ok --padded: no line" ||
	{ echo "FAIL --padded: a line was reported"; fails=$((fails + 1)); }
[ $fails -eq 0 ]
