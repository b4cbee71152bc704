#!/bin/sh
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 "$top_srcdir/tests/e2e.py" "$top_srcdir/testcases/read_mostly_config.expected.json"
