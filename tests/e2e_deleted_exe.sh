#!/bin/sh
# A long-lived server whose executable was deleted, or replaced by a
# package upgrade, while it runs: attach still reads its code and symbols
# through /proc/PID/map_files (as root), decodes its samples, and names the
# line, members and code as for the file on disk.  Skips (77) when not
# root: map_files is root's (CAP_SYS_ADMIN).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/e2e_lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: /proc/PID/map_files needs root"; exit 77; }

check() {   # how, report.json
	python3 - "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
line = next((l for l in r["lines"] if l.get("variable") == "counters"), None)
if not line:
    print("no line on counters; lines: %s" % [l.get("object") for l in r["lines"]]); sys.exit(1)
members = {g.get("member") for g in line["ranges"]}
functions = {s.get("function") for g in line["ranges"] for s in g["sites"]}
decoded = r["decoded"] / max(r["samples"], 1)
if not {"counters[0]", "counters[1]"} <= members or "increment" not in functions or decoded < 0.5:
    print("members %s, functions %s, decoded %.0f%%" % (members, functions, 100 * decoded))
    sys.exit(1)
print("%s, decoded %.0f%%, in increment" % (line["kind"], 100 * decoded))
PY
}

for how in deleted replaced; do
	cp "$top_builddir/testcases/false_sharing_counters" "$tmp/server"
	"$tmp/server" --seconds 30 >/dev/null &
	pid=$!
	sleep 0.3
	if [ $how = deleted ]; then
		rm "$tmp/server"
	else    # an upgrade: a new file renamed over the path
		cp "$top_builddir/testcases/no_sharing" "$tmp/server.new" && mv "$tmp/server.new" "$tmp/server"
	fi
	got=
	for attempt in 1 2 3; do
		"$contend" attach -q --no-price-probe -p $pid -d 1.5 --format json -o "$tmp/$how.json" \
			>/dev/null 2>"$tmp/err"
		got=$(check $how "$tmp/$how.json") && break
	done
	if [ $? -eq 0 ] && [ -n "$got" ] && check $how "$tmp/$how.json" >/dev/null; then
		ok "executable $how while running: $got"
	else
		fail "executable $how while running: $got"; cat "$tmp/err"
	fi
	kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=
done
[ $fails -eq 0 ]
