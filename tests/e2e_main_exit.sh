#!/bin/sh
# attach to a process whose main thread called pthread_exit() (issue 14,
# item 8): /proc/PID is then a zombie with no memory (empty maps,
# unreadable mem and exe) while two workers run on.  contend used to say
# "no such process", even with -t TID, and attaching by a worker's TID
# dropped every sample as "code unreadable".  Now, as perf does, it
# attaches to the live threads and names the code and data:
#   attach -p PID            the line shared_pair, in bump, by both workers
#   attach -p PID -t T1,T2   the same, for the threads given
#   attach -p T1 -t T1       every sample decoded, none "code unreadable"
#   attach -p T2             a worker's TID: its process, said so
#   record -p PID; report    the same line from the data file
# and the target runs on and exits 0.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
fixture="$top_builddir/tests/fixture_main_exit"
tmp=$(mktemp -d)
target=
trap '[ -n "$target" ] && kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

"$fixture" --seconds 60 >"$tmp/ready" &
target=$!
for _ in $(seq 1 100); do
	grep -q "^ready" "$tmp/ready" && break
	sleep 0.05
done
read -r _ pid t1 t2 <"$tmp/ready" || { echo "FAIL the fixture did not start"; exit 1; }
[ "$pid" = "$target" ] || { echo "FAIL fixture pid $pid, started $target"; exit 1; }
sleep 0.2
# the premise: the main thread is a zombie without memory, the process lives
if [ -s "/proc/$pid/maps" ] || ! grep -q "^State:.*Z" "/proc/$pid/status"; then
	echo "SKIP: this kernel shows the exited main thread's memory: nothing to test"
	exit 77
fi

# names the false sharing of the two workers: json FILE -> 0 if so
named() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
need_threads = int(sys.argv[2])
dropped = r.get("dropped") or {}
if r["samples"] == 0 or r["decoded"] < r["samples"] * 0.9 or "code unreadable" in dropped:
    print("samples %d decoded %d dropped %s" % (r["samples"], r["decoded"], dropped))
    sys.exit(1)
if not need_threads:
    sys.exit(0)
for l in r["lines"]:
    fns = {s.get("function") for g in l.get("ranges", []) for s in g.get("sites", [])}
    files = {s.get("file", "").rsplit("/", 1)[-1] for g in l.get("ranges", []) for s in g.get("sites", [])}
    if l.get("variable") == "shared_pair" and "bump" in fns and "fixture_main_exit.c" in files \
       and len(l.get("threads", [])) >= need_threads:
        sys.exit(0)
print("no line shared_pair in bump (fixture_main_exit.c) of %d threads: %s" %
      (need_threads, [(l.get("variable"), l.get("object")) for l in r["lines"]]))
sys.exit(1)
EOF
}

# attach NAME THREADS ARGS...: up to 3 tries (the workers must overlap)
attach() {
	name=$1 threads=$2
	shift 2
	for try in 1 2 3; do
		timeout 60 "$contend" attach -q --format json -o "$tmp/r.json" "$@" 2>"$tmp/err"
		st=$?
		[ $st -eq 0 ] && named "$tmp/r.json" "$threads" >"$tmp/why" && { ok "$name"; return; }
		[ $st -ne 0 ] && break
	done
	fail "$name: exit $st: $(cat "$tmp/why" "$tmp/err" 2>/dev/null)"
}

attach "attach -p PID (main thread exited)" 2 -p "$pid" -d 1.5
attach "attach -p PID -t T1,T2" 2 -p "$pid" -t "$t1,$t2" -d 1.5
attach "attach -p T1 -t T1: code read" 0 -p "$t1" -t "$t1" -d 0.5

timeout 60 "$contend" attach -p "$t2" -d 1.5 --format json -o "$tmp/w.json" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ] || ! grep -q "^contend: $t2 is a thread of process $pid: sampling the process" "$tmp/err"; then
	fail "attach -p WORKER_TID: exit $st, $(cat "$tmp/err")"
elif ! named "$tmp/w.json" 2 >"$tmp/why"; then
	fail "attach -p WORKER_TID: $(cat "$tmp/why")"
else
	ok "attach -p WORKER_TID: its process, said so, code named"
fi

for try in 1 2 3; do
	timeout 60 "$contend" record -q -o "$tmp/m.data" -p "$pid" -d 1.5 2>"$tmp/err" &&
		"$contend" report -q -i "$tmp/m.data" --format json -o "$tmp/m.json" 2>>"$tmp/err" &&
		named "$tmp/m.json" 2 >"$tmp/why" && break
done
[ -s "$tmp/why" ] || [ ! -s "$tmp/m.json" ] && fail "record -p PID; report: $(cat "$tmp/why" "$tmp/err")" ||
	ok "record -p PID; report: named from the data file"

kill -0 "$target" 2>/dev/null && ok "the target runs on after five attaches" ||
	fail "the target died while attached"
kill "$target"
target=

[ $fails -eq 0 ]
