#!/bin/sh
# contend run -- java: the JVM's data is named from its memory, which is
# gone once the JVM exits, and `run` builds its report after that.  contend
# holds one idle JVM thread at its exit (engine/exit_hold.h) and names the
# data then.  testcases/jvm_type_check/TypeCheck.java under `contend run`:
# the top line must be a Klass named by class with the member
# _secondary_super_cache and the JDK-8180450 advice, never "[anon]" or
# "had exited"; the JVM's exit status comes through (0), and no JVM
# process is left behind.
# Skipped (77) without java or javac.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
. "$top_srcdir/tests/e2e_lib.sh"
require_jvm_sampling
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! javac -d "$tmp" "$top_srcdir/testcases/jvm_type_check/TypeCheck.java"; then
	echo "FAIL: javac TypeCheck.java"
	exit 1
fi
"$contend" run -o "$tmp/r.txt" -- java -cp "$tmp" TypeCheck 2 5 >"$tmp/jvm.out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && ok "contend run -- java exits 0" ||
	{ fail "contend run -- java exited with $st:"; cat "$tmp/err"; }
grep -q '^2 threads: .* checks in ' "$tmp/jvm.out" && ok "the JVM ran to its end" ||
	{ fail "the JVM did not finish:"; cat "$tmp/jvm.out"; }
sed -n '/^== #1 /,/^   advice/p' "$tmp/r.txt" | grep -v '^ *[0-9]* R\|sites:' | head -20
top=$(sed -n '/^== #1 /,/^$/p' "$tmp/r.txt")
echo "$top" | grep -q '^== #1  [A-Z]* SHARING  Klass TypeCheck\$C[0-3] ' &&
	ok "top line named as a Klass by class" || fail "top line not named Klass TypeCheck\$Cn"
echo "$top" | grep -q '_secondary_super_cache' && ok "member _secondary_super_cache" ||
	fail "no member _secondary_super_cache on the top line"
echo "$top" | grep -q 'JDK-8180450' && ok "advice names JDK-8180450" || fail "no JDK-8180450 advice"
if grep -q 'had exited\|\[anon\]+0x[0-9a-f]*  line' "$tmp/r.txt" && ! echo "$top" | grep -q Klass; then
	fail "the report still says the JVM had exited / names [anon]"
fi
grep -q '(padding)' "$tmp/r.txt" && fail "a Klass line prices a padding fix" ||
	ok "no padding gain on a Klass line"
if pgrep -f "TypeCheck 2 5" >/dev/null; then
	fail "a JVM is left running"; pkill -f "TypeCheck 2 5"
else
	ok "no JVM left behind"
fi
[ $fails -eq 0 ] && echo "PASS" || echo "$fails check(s) failed"
exit $((fails != 0))
