#!/bin/sh
# Rust as shipped, without debug info (testcases/rust_arc_stats, built
# with rustc -O): two threads bump the two counters of an Arc<Stats>.  The
# line is named by the code that allocated it (main::main), the advice
# speaks Rust (#[repr(align(64))], crossbeam's CachePadded, debug = true),
# never C; the --padded twin is silent.  Skipped without rustc.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 "$top_srcdir/tests/e2e.py" "$top_srcdir/testcases/rust_arc_stats.expected.json"
