#!/bin/sh
# e2e.py's tolerate_misses: a run passes with up to that many repetitions
# that reported nothing at all, never with one that reported something
# wrong, and never with none passing.  Runs e2e.py's check_run() over
# canned reports; no testcase runs.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 - "$top_srcdir/tests" <<'PY'
import io, sys, contextlib
sys.path.insert(0, sys.argv[1])
import e2e

nothing = {"lines": [], "minor_lines": [], "latent": []}
wrong = {"lines": [{"kind": "true"}], "minor_lines": [], "latent": []}
good = {"lines": [], "minor_lines": [{"kind": "false"}], "latent": []}
fails = 0

def verdict(reports, tolerate):
    queue = list(reports)
    def run_once(contend, binary, run):
        r = queue.pop(0)
        return r, ([] if r is good else ["want a minor line"]), "kept.json"
    e2e.run_once = run_once
    e2e.os.unlink = lambda path: None
    with contextlib.redirect_stdout(io.StringIO()):
        return e2e.check_run("contend", "bin", {"name": "default"}, len(reports), tolerate)

def expect(what, got, want):
    global fails
    print("%s %s" % ("ok" if got == want else "FAIL", what))
    fails += got != want

expect("all pass", verdict([good, good], 0), True)
expect("a miss, none tolerated", verdict([good, nothing], 0), False)
expect("a miss, one tolerated", verdict([nothing, good], 1), True)
expect("two misses, one tolerated", verdict([nothing, nothing, good], 1), False)
expect("a wrong report is never tolerated", verdict([wrong, good], 1), False)
expect("all missed: fails whatever the tolerance", verdict([nothing, nothing], 1), False)
sys.exit(1 if fails else 0)
PY
