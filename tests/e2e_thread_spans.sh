#!/bin/sh
# Threads that never lived at once are never paired: on one line, C
# writes counters[2] for the whole run, A writes counters[0] and exits,
# then B starts and writes counters[1].  A and B each contend with C; a
# "contending pair" of A and B would be false (they never met), though
# both have concurrent samples (with C).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/spans.c" <<'EOF2'
#include <pthread.h>
#include <time.h>
static volatile long counters[3];
static volatile int stop;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
static void *writer(void *arg)   /* counters[i] for s seconds */
{
	long i = (long)arg;
	double end = now() + (i == 2 ? 2.4 : 1.0);
	while (now() < end)
		for (int k = 0; k < 100000; k++)
			counters[i]++;
	return 0;
}
int main(void)
{
	pthread_t a, b, c;
	pthread_create(&c, 0, writer, (void *)2L);
	pthread_create(&a, 0, writer, (void *)0L);
	pthread_join(a, 0);
	pthread_create(&b, 0, writer, (void *)1L);
	pthread_join(b, 0);
	pthread_join(c, 0);
	return 0;
}
EOF2
cc -O1 -g -pthread -o "$tmp/spans" "$tmp/spans.c" 2>"$tmp/cc.err" ||
	{ echo "SKIP: cannot compile"; cat "$tmp/cc.err"; exit 77; }

for attempt in 1 2 3; do
	"$contend" run -q --no-price-probe --format json -o "$tmp/r.json" -- "$tmp/spans" >/dev/null 2>&1
	python3 - "$tmp/r.json" <<'PY' && exit 0
import json, sys
r = json.load(open(sys.argv[1]))
line = next((l for l in r["lines"] if l.get("variable") == "counters"), None)
if not line:
    print("note: no contended line on counters (busy machine?); again"); sys.exit(1)
tid = {}
for g in line["ranges"]:
    for t in g["threads"]:
        if t["writes"]:
            tid[g["member"]] = t["tid"]
if not {"counters[0]", "counters[1]", "counters[2]"} <= set(tid):
    print("note: not every writer sampled (%s); again" % tid); sys.exit(1)
a, b, c = tid["counters[0]"], tid["counters[1]"], tid["counters[2]"]
pairs = [(set(p["a"]["tids"]), set(p["b"]["tids"])) for p in line["pairs"]]
never = [p for p in pairs if (a in p[0] and b in p[1]) or (b in p[0] and a in p[1])]
with_c = [p for p in pairs if c in p[0] | p[1]]
if never:
    print("FAIL threads %d and %d never lived at once, yet paired: %s" % (a, b, never)); sys.exit(2)
if not with_c:
    print("FAIL no pair with %d, the thread that met both: %s" % (c, pairs)); sys.exit(2)
print("ok %d pairs, none of %d (counters[0]) with %d (counters[1]); %d with %d"
      % (len(pairs), a, b, len(with_c), c))
PY
	[ $? -eq 2 ] && exit 1
done
echo "FAIL no usable run in 3"
exit 1
