#!/bin/sh
# A distribution's binary without its debug package: libdwfl fetches the
# DWARF by build-id from the debuginfod servers DEBUGINFOD_URLS names, as
# perf and gdb do, and contend must then name the member and the source
# line as it does with -g.  When the servers lack it, the report says so
# (not "install it" alone, which the user may have tried).
# A local debuginfod serves the split-off DWARF of a testcase.
# Skipped (77) without debuginfod(8), objcopy or python3.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tc="$top_builddir/testcases"
for tool in debuginfod objcopy python3; do
	command -v $tool >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$tmp"' EXIT

bin="$tmp/fsc_distro"
mkdir "$tmp/served"
cp "$tc/false_sharing_counters" "$bin" &&
	objcopy --only-keep-debug "$bin" "$tmp/served/fsc_distro.debug" &&
	strip --strip-debug "$bin" &&
	objcopy --add-gnu-debuglink="$tmp/served/fsc_distro.debug" "$bin" ||
	{ echo "FAIL: could not split the debug info"; exit 1; }
build_id=$(readelf -n "$bin" | sed -n 's/.*Build ID: *//p')
[ -n "$build_id" ] || { echo "SKIP: the testcase has no build-id"; exit 77; }
# a free port, then the server; ready when it serves the build-id
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F "$tmp/served" -p "$port" -d "$tmp/db.sqlite" -t 0 -g 0 \
	>"$tmp/server.log" 2>&1 &
server=$!
url="http://127.0.0.1:$port"
if ! python3 - "$url/buildid/$build_id/debuginfo" <<'PYEOF'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=2).read()
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)
PYEOF
then
	echo "SKIP: the local debuginfod did not serve in 20 s"; cat "$tmp/server.log"; exit 77
fi

fails=0
# sample_with URLS OUT: the split binary under contend, DWARF from URLS
sample_with() {
	for try in 1 2 3; do
		DEBUGINFOD_URLS=$1 DEBUGINFOD_CACHE_PATH="$tmp/cache" \
			"$contend" run -o "$2" -- "$bin" --seconds 1 >/dev/null 2>"$tmp/err"
		grep -q "FALSE SHARING .*counters" "$2" && return
	done
}

sample_with "$url" "$tmp/out"
if [ ! -s "$tmp/cache/$build_id/debuginfo" ]; then
	echo "FAIL: nothing was fetched from the server"
	cat "$tmp/out" "$tmp/err" "$tmp/server.log"
	fails=$((fails + 1))
elif ! grep -q "FALSE SHARING  counters (volatile long\[64\])" "$tmp/out" ||
   ! grep -q "counters\[1\] .* false" "$tmp/out" ||
   ! grep -q "sites: .*increment  false_sharing_counters.c:86" "$tmp/out"; then
	echo "FAIL: the debug info debuginfod served named no type, member or line"
	cat "$tmp/out" "$tmp/err" "$tmp/server.log"
	fails=$((fails + 1))
else
	echo "ok: fetched from debuginfod: counters (volatile long[64]), counters[1], false_sharing_counters.c:86"
fi

# a server that has nothing (no one listens on the port now freed)
kill $server; wait $server 2>/dev/null; server=
rm -rf "$tmp/cache"
sample_with "$url" "$tmp/out2"
if ! grep -q "untyped: debug info not installed or served by debuginfod" "$tmp/out2" ||
   ! tr '\n' ' ' <"$tmp/out2" | tr -s ' ' |
	grep -q "the debuginfod servers in DEBUGINFOD_URLS did not have it"; then
	echo "FAIL: the servers lacked the debug info, and the report does not say so"
	cat "$tmp/out2" "$tmp/err"
	fails=$((fails + 1))
else
	echo "ok: the servers lacked it: said"
fi
[ $fails = 0 ]
