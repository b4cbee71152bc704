# e2e_lib.sh - what the shell e2e tests share; source it after setting
# $tmp (a scratch directory).  fail/ok count and print one line per check;
# expect runs a command that must fail with a given status and say why on
# stderr in at most $expect_max_lines lines (unset: any number).
fails=0

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

expect() {   # name, want-status, stderr-pattern, command...
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want"; cat "$tmp/err"; return
	fi
	if ! grep -qE -- "$pat" "$tmp/err"; then
		fail "$name: stderr lacks /$pat/:"; cat "$tmp/err"; return
	fi
	if [ -n "${expect_max_lines:-}" ] && [ "$(wc -l <"$tmp/err")" -gt "$expect_max_lines" ]; then
		fail "$name: more than $expect_max_lines line(s) on stderr:"; cat "$tmp/err"; return
	fi
	ok "$name"
}
