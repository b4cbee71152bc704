#!/bin/sh
# Go (testcases/go_stats_slice/main.go, built with the go command): two
# goroutines add to adjacent elements of a []stats.  The runtime moves
# goroutines between OS threads, so ownership must follow the goroutine
# (its g register, soft.c): the line must be false sharing of main.stats,
# hits written by two goroutines (tid >= 2^30, "goroutine": 1 and 2) in
# main.work, the advice and the proposal in Go (no "struct", a _ [48]byte
# pad, cpu.CacheLinePad; never _Alignas or aligned_alloc).  --padded:
# nothing.  testcases/go_stats_slice.expected.json says so; skipped
# without go.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 "$top_srcdir/tests/e2e.py" "$top_srcdir/testcases/go_stats_slice.expected.json"
