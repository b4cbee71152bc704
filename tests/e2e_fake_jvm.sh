#!/bin/sh
# A process is not a JVM because it says so.  Run as nobody, it maps a
# file named libjvm.so, handles SIGQUIT, and sits in a root-owned
# directory it cannot write: a root contend attaching to it must not
# create .attach_pid<N> there (nor anywhere the process could not), and
# must not signal it, since HotSpot's tables are not in that libjvm.so.
# Skips (77) when not root or without setpriv.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/e2e_lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: the attack is on a root contend"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
chmod 755 "$tmp"
mkdir -p "$tmp/lib" "$tmp/rootdir" "$tmp/out"   # rootdir: root's, 0755
chmod 777 "$tmp/out"
echo 'int not_hotspot;' >"$tmp/lib.c"
cat >"$tmp/fake.c" <<EOF2
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static volatile long counters[2];
static void on_quit(int sig)
{
	char path[64];
	struct stat st;
	int fd;
	snprintf(path, sizeof(path), ".attach_pid%d", (int)getpid());
	fd = open("$tmp/out/quit", O_WRONLY | O_CREAT | O_APPEND, 0666);
	if (fd >= 0) {
		write(fd, stat(path, &st) == 0 ? "file\n" : "signal\n", stat(path, &st) == 0 ? 5 : 7);
		close(fd);
	}
	(void)sig;
}
static void *work(void *arg)
{
	volatile long *c = arg;
	for (;;)
		for (int i = 0; i < 1000000; i++)
			(*c)++;
	return 0;
}
int main(void)
{
	pthread_t t[2];
	if (!dlopen("$tmp/lib/libjvm.so", RTLD_NOW))
		return 1;
	signal(SIGQUIT, on_quit);
	if (chdir("$tmp/rootdir"))
		return 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, work, (void *)&counters[i]);
	pause();
	return 0;
}
EOF2
cc -shared -fPIC -o "$tmp/lib/libjvm.so" "$tmp/lib.c" &&
	cc -O1 -g -pthread -o "$tmp/fake" "$tmp/fake.c" -ldl 2>"$tmp/cc.err" ||
	{ echo "SKIP: cannot compile"; cat "$tmp/cc.err"; exit 77; }
chmod 755 "$tmp/lib" "$tmp/lib/libjvm.so" "$tmp/fake"

setpriv --reuid=nobody --regid=nogroup --clear-groups "$tmp/fake" &
pid=$!
sleep 0.5
"$contend" attach -p $pid -d 1 -o "$tmp/r.txt" >/dev/null 2>"$tmp/err"
st=$?
sleep 0.2
if ls -A "$tmp/rootdir" | grep -q attach_pid || grep -q file "$tmp/out/quit" 2>/dev/null; then
	fail "root created .attach_pid in a directory the process cannot write"; ls -la "$tmp/rootdir"
else
	ok "no .attach_pid in the process's root-owned cwd"
fi
if [ -e "$tmp/out/quit" ]; then
	fail "the fake JVM was sent SIGQUIT: $(cat "$tmp/out/quit")"
else
	ok "the fake JVM was not signalled"
fi
grep -q "without HotSpot's vmStructs" "$tmp/err" && ok "contend says why: $(grep -o 'maps a libjvm.so[^;]*' "$tmp/err" | head -1)" ||
	{ fail "no word of why (exit $st)"; cat "$tmp/err"; }
kill $pid 2>/dev/null
[ $fails -eq 0 ]
