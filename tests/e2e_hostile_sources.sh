#!/bin/sh
# Source files a hostile target names in its DWARF (#line), read by
# --annotate as root:
#   - /proc/kallsyms (and any file on proc, sysfs, debugfs, ...) is never
#     read as a source: the report says why, and no kernel symbol appears;
#   - a sparse 100 GB file with no line end is read only up to a cap: the
#     report comes in under 5 s and 100 MB of memory, and says the file
#     was cut.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/e2e_lib.sh"

# two threads writing neighbours for a second, the loop's lines named by
# $1 (#line).  Timed, not counted: 4e8 increments took 0.12 s on an Ice
# Lake guest, too short for the two threads to meet on a busy machine.
program() {   # source-name output
	cat >"$tmp/p.c" <<EOF2
#include <pthread.h>
#include <unistd.h>
static volatile long counters[8];
static volatile int stop;
static void *worker(void *arg)
{
	volatile long *c = arg;
#line 12 "$1"
	while (!stop)
		(*c)++;
	return 0;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, (void *)&counters[i]);
	usleep(1000000);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOF2
	cc -O1 -g -pthread -o "$2" "$tmp/p.c" 2>"$tmp/cc.err"
}

program /proc/kallsyms "$tmp/kallsyms" || { echo "SKIP: cannot compile"; cat "$tmp/cc.err"; exit 77; }
# up to 5 tries: the file is annotated only where the line is reported,
# and a busy machine may keep the two threads apart for a whole run
for attempt in 1 2 3 4 5; do
	"$contend" run -q --no-confirm --no-price-probe --annotate -o "$tmp/k.txt" -- "$tmp/kallsyms" \
		>/dev/null 2>&1
	grep -q '^== /proc/kallsyms' "$tmp/k.txt" && break
	echo "note: try $attempt: $(head -1 "$tmp/k.txt") (busy machine?); again"
done
if ! grep -q '^== /proc/kallsyms' "$tmp/k.txt"; then
	fail "kallsyms: the annotated file is not in the report"; cat "$tmp/k.txt"
elif grep -q 'on a kernel file system' "$tmp/k.txt" &&
     ! grep -qE '[0-9a-f]{16} [TtDdBbRr] ' "$tmp/k.txt"; then
	ok "kallsyms: refused as a source ($(grep -o 'on a kernel file system[^;]*' "$tmp/k.txt" | head -1)), no kernel symbol shown"
else
	fail "kallsyms: read as a source"; head -40 "$tmp/k.txt"
fi

program "$tmp/huge.c" "$tmp/huge" || { fail "cannot compile"; exit 1; }
truncate -s 100G "$tmp/huge.c" 2>/dev/null || { echo "SKIP: no sparse 100 GB file here"; exit 77; }
# recorded once, then the report alone timed: the cap is the report's
for attempt in 1 2 3 4 5; do
	"$contend" record -q --no-confirm --no-price-probe -o "$tmp/h.data" -- "$tmp/huge" \
		>/dev/null 2>&1
	python3 - "$tmp/usage" "$contend" report -q --annotate -i "$tmp/h.data" -o "$tmp/h.txt" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.2f %d\n" % (time.monotonic() - t0, ru.ru_maxrss // 1024))
PY
	grep -q '^== .*huge.c' "$tmp/h.txt" && break
done
read -r secs mb <"$tmp/usage"
if grep -q 'file cut: read only its first 64 MiB' "$tmp/h.txt" &&
   awk -v m="$mb" -v s="$secs" 'BEGIN { exit !(m < 100 && s < 5) }'; then
	ok "sparse 100 GB source: cut and said so; report -i --annotate in $secs s, $mb MB"
else
	fail "sparse 100 GB source: report -i --annotate in $secs s, $mb MB"; head -30 "$tmp/h.txt"
fi

[ $fails -eq 0 ]
