#!/bin/sh
# Names from the target are data: a program whose threads name themselves
# "a<ESC>[2Jb<LF>c" and "<ESC>]0;t<BEL>w0" (prctl PR_SET_NAME), and whose
# code sits in a file named "evil.c:99: note: all good<LF>x.c" (#line),
# must not reach the terminal raw nor forge a line: the text report,
# --annotate and check print no ESC, BEL or stray newline from those
# names, and print their escaped forms (common/escape.h) instead.  JSON
# keeps them exactly, as valid JSON.  DWARF names with a newline (a
# struct, its members, a variable) stay inside the layout's comment lines.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL $1"
	shift
	for f in "$@"; do echo "--- $f"; cat -v "$f"; done
	fails=$((fails + 1))
}

cat >"$tmp/evil.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>

static volatile long counters[8];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#line 5 "evil.c:99: note: all good\nx.c"
static void *work(void *arg)
{
	long i = (long)arg;
	double end = now() + 1.5;

	prctl(PR_SET_NAME, i ? "a\033[2Jb\nc" : "\033]0;t\007w0", 0, 0, 0);
	while (now() < end)
		for (int k = 0; k < 100000; k++)
			counters[i]++;
	return 0;
}

int main(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], 0, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOF
if ! cc -O2 -g -pthread -o "$tmp/evil" "$tmp/evil.c" 2>"$tmp/cc.err"; then
	echo "SKIP: cannot compile the test program"; cat "$tmp/cc.err"
	exit 77
fi

esc=$(printf '\033')
bel=$(printf '\007')
# raw: FILE holds an ESC or BEL, or a line that a name's newline began
raw() {
	grep -q "[$esc$bel]" "$1" || grep -qE '^(c\)|x\.c)' "$1"
}

# sampling needs the two threads at once: one retry on a busy machine
# run and check report on stderr (the target owns stdout): FILE gets it all
run_until() {   # pattern file command...
	pat=$1 out=$2
	shift 2
	for attempt in 1 2; do
		"$@" >"$tmp/stdout" 2>"$out"
		grep -qF -- "$pat" "$out" && return 0
	done
	return 1
}

if ! run_until 'evil.c\x3a99\x3a note\x3a all good\nx.c:' "$tmp/text" \
	"$contend" run --no-confirm -- "$tmp/evil" || raw "$tmp/text"; then
	fail "text report: escaped file name, no raw bytes" "$tmp/text"
elif ! grep -qF '(a\x1b[2Jb\nc)' "$tmp/text" || ! grep -qF '(\x1b]0;t\x07w0)' "$tmp/text"; then
	fail "text report: escaped thread names" "$tmp/text"
else
	echo "ok text report"
fi

if ! run_until '== ' "$tmp/annotate" "$contend" run --no-confirm --annotate -- "$tmp/evil" ||
   raw "$tmp/annotate" || ! grep -qF 'evil.c:99: note: all good\nx.c' "$tmp/annotate"; then
	fail "annotate: escaped file name, no raw bytes" "$tmp/annotate"
else
	echo "ok annotate"
fi

# check's "file:line: message": the forged line must not appear, the
# location's own colons are the only ones
if ! run_until ': false sharing on' "$tmp/check" "$contend" check --no-confirm -- "$tmp/evil" ||
   raw "$tmp/check" || grep -q '^[^ ]*evil\.c:99:' "$tmp/check" ||
   ! grep -qF 'evil.c\x3a99\x3a note\x3a all good\nx.c:' "$tmp/check"; then
	fail "check: location escaped, no forged line" "$tmp/check"
else
	echo "ok check"
fi

# pprof's strings are printed raw by pprof: escaped as the text report's
for attempt in 1 2; do
	"$contend" run -q --no-confirm --format pprof -o "$tmp/p.pb.gz" -- "$tmp/evil" >/dev/null 2>&1
	gzip -dc "$tmp/p.pb.gz" >"$tmp/p.pb" 2>/dev/null && grep -qF 'evil.c' "$tmp/p.pb" && break
done
if grep -qaF 'evil.c:99: note: all good\nx.c' "$tmp/p.pb"; then
	echo "ok pprof: the file name escaped"
else
	fail "pprof: file name not escaped" "$tmp/p.pb"
fi

# JSON keeps the names exactly (its own escaping), and stays valid
if command -v python3 >/dev/null 2>&1; then
	if ! run_until '"comm"' "$tmp/json" "$contend" run --no-confirm --format json -- "$tmp/evil" ||
	   raw "$tmp/json" || ! python3 - "$tmp/json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
names = {t.get("comm") for l in r["lines"] for t in l.get("threads", [])}
sys.exit(0 if "a\033[2Jb\nc" in names else 1)
EOF
	then
		fail "json: names kept exactly, escaped by JSON" "$tmp/json"
	else
		echo "ok json"
	fi
fi

# Names in the DWARF itself: a struct, its members and the variable named
# "evil_X<LF><ESC>[2JX" (the assembler writes the bytes; the ELF symbol
# stays evil_var).  The layout advice prints them in C comment lines (the
# placements note): each must stay on its own line, escaped, not end the
# comment and start a line of its own.
cat >"$tmp/evil_layout.c" <<'EOF'
#include <pthread.h>
#include <time.h>

struct evil_tag {
	long evil_ma;
	long evil_mb;
};
volatile struct evil_tag evil_var;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	double end = now() + 1.5;

	while (now() < end)
		for (int k = 0; k < 100000; k++) {
			if (arg)
				evil_var.evil_mb++;
			else
				evil_var.evil_ma++;
		}
	return 0;
}

int main(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], 0, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOF
if cc -O2 -g -S -o "$tmp/evil_layout.s" "$tmp/evil_layout.c" 2>"$tmp/cc.err" &&
   sed 's/"evil_\([a-z]*\)"/"evil_\1\\n\\033[2J\1"/' "$tmp/evil_layout.s" >"$tmp/evil_crafted.s" &&
   grep -q 'evil_ma\\n' "$tmp/evil_crafted.s" &&
   cc -pthread -o "$tmp/evil_layout" "$tmp/evil_crafted.s" 2>>"$tmp/cc.err"; then
	# a comment line cut by a name's newline: its tail starts a line
	cut_line() {
		grep -qE '^[[:space:]]*(\\x1b|'"$esc"')\[2J' "$1"
	}
	if ! run_until 'layout now:' "$tmp/layout" \
		"$contend" run --no-confirm -- "$tmp/evil_layout" ||
	   raw "$tmp/layout" || cut_line "$tmp/layout"; then
		fail "text layout: DWARF names escaped in every comment line" "$tmp/layout"
	elif ! grep -qF 'evil_ma\n\x1b[2Jma and evil_mb\n\x1b[2Jmb share' "$tmp/layout"; then
		fail "text layout: the placements note names the members, escaped" "$tmp/layout"
	else
		echo "ok text layout"
	fi
else
	echo "# cannot build the crafted-DWARF program: layout case not run"; cat "$tmp/cc.err"
fi

[ $fails -eq 0 ]
