#!/bin/sh
# contend run -g on a target that forks 200 children (tests/fixture_forker):
# memory is bounded by executables, lines and code sites, not processes.
# Each child's samples are unwound, and each child used to get a libdwfl
# session of its own with the same DWARF loaded again (2.6 GB, 8 s here);
# a forked child now borrows its parent's session for every file mapped
# alike, and the unwinder keeps at most 8.  contend's peak RSS must stay
# under 300 MB, the target must finish (exit 0, "200 children"), and the
# run must not take minutes.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

python3 - "$contend" "$top_builddir/tests/fixture_forker" "$tmp" <<'PY' >"$tmp/res" 2>&1
import resource, subprocess, sys, time
contend, forker, tmp = sys.argv[1:4]
t0 = time.time()
r = subprocess.run([contend, "run", "-g", "-q", "-o", tmp + "/r.txt", "--", forker],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
secs = time.time() - t0
# the largest waited-for descendant: contend (its children, the forker's
# 200, are small and were waited for by the forker, not by us)
mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(r.returncode, "%.0f" % mb, "%.1f" % secs, r.stdout.strip().replace(" ", "_"))
PY
read -r st mb secs out <"$tmp/res" || { fail "no result: $(cat "$tmp/res")"; exit 1; }
[ "$st" = 0 ] && [ "$out" = "200_children" ] &&
	ok "run -g over 200 forked children: the target finished ($out)" ||
	{ fail "run -g over 200 forked children: exit $st, output $out"; cat "$tmp/res"; }
[ "$mb" -lt 300 ] && ok "contend's peak RSS $mb MB (< 300 MB), $secs s" ||
	fail "contend's peak RSS $mb MB, want < 300 MB ($secs s)"
[ "$fails" -eq 0 ]
