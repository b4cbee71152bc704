#!/bin/sh
# contend must never harm its target (issue 35, item 4): `contend run`
# preloads the allocation shim, which writes to a pipe contend reads.
#   - contend killed (kill -9) while the target allocates: the shim's next
#     write finds the pipe's reader gone; the target must not die of
#     SIGPIPE, and must finish its work and exit 0;
#   - contend stopped (SIGSTOP) while the target allocates: the pipe fills;
#     the target must not block on it, and finishes on time.
# A small program allocating blocks that live long enough to be reported
# (over the shim's 5 ms), in two threads, for 1.5 s.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
target=
cpid=
trap 'kill -9 $cpid 2>/dev/null; kill -CONT $cpid 2>/dev/null; stop_target; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

cat >"$tmp/allocs.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
static void *work(void *arg)
{
	static __thread void *keep[65536];
	double end = now() + 1.5;
	long n = 0;
	for (; now() < end; n++) {
		free(keep[n % 65536]);
		keep[n % 65536] = malloc(32 + n % 200);   /* lives 65536 rounds: reported */
	}
	for (int i = 0; i < 65536; i++)
		free(keep[i]);
	return arg;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	puts("done");
	return 0;
}
EOC
cc -O2 -pthread -o "$tmp/allocs" "$tmp/allocs.c" || { echo "SKIP: no C compiler"; exit 77; }

# start_under_contend: contend run in the background, the target's pid in
# $target once it runs, its status in $tmp/status when it ends
start_under_contend() {
	rm -f "$tmp/status" "$tmp/out"
	"$contend" run -q --no-confirm -o /dev/null -- sh -c "'$tmp/allocs' >'$tmp/out'; echo \$? >'$tmp/status'" &
	cpid=$!
	target=
	for _ in $(seq 100); do
		target=$(pgrep -f "^$tmp/allocs\$" | head -1)
		[ -n "$target" ] && break
		sleep 0.02
	done
}

wait_done() {   # up to $1 seconds for the target's status
	for _ in $(seq $(($1 * 10))); do
		[ -s "$tmp/status" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- contend killed ---------------------------------------------------------
start_under_contend
[ -n "$target" ] || { fail "the target did not start under contend"; exit 1; }
sleep 0.4
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
if kill -0 "$target" 2>/dev/null; then
	ok "kill -9 of contend: the target lives on"
else
	fail "kill -9 of contend: the target is gone"
fi
if wait_done 5 && [ "$(cat "$tmp/status")" = 0 ] && grep -q done "$tmp/out"; then
	ok "kill -9 of contend: the target finished its work and exited 0"
else
	fail "kill -9 of contend: the target's exit status '$(cat "$tmp/status" 2>/dev/null)'" \
	     "(141: SIGPIPE), output '$(cat "$tmp/out" 2>/dev/null)'"
fi

# --- contend stopped ----------------------------------------------------------
start_under_contend
[ -n "$target" ] || { fail "the target did not start under contend"; exit 1; }
sleep 0.2
kill -STOP "$cpid"
t0=$(date +%s)
if wait_done 6 && [ "$(cat "$tmp/status")" = 0 ]; then
	ok "contend stopped: the target did not block on the pipe ($(($(date +%s) - t0)) s)"
else
	fail "contend stopped: the target did not finish in 6 s (blocked on the full pipe?)"
fi
kill -9 "$cpid" 2>/dev/null
kill -CONT "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
cpid=

[ $fails -eq 0 ]
