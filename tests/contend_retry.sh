#!/bin/sh
# contend for the tests, run once more when the target was killed by a
# spurious debug trap with watchpoints armed: a virtual machine's
# hypervisor sends one about once in 10^7 watched accesses, contend says
# so ("spurious debug trap"), and tests/e2e.py retries the same way.
# Only `run`, `check` and `fix` launch a target; every other command,
# and every other failure, passes through as it is.
real=${CONTEND_REAL:?CONTEND_REAL names the contend binary}
case ${1-} in
run|check|fix) ;;
*) exec "$real" "$@" ;;
esac
err=$(mktemp) || exit 2
"$real" "$@" 2>"$err"
rc=$?
if [ $rc = 1 ] && grep -q 'spurious debug trap' "$err"; then
	cat "$err" >&2
	echo "note: the target was killed by a spurious debug trap; again" >&2
	"$real" "$@" 2>"$err"
	rc=$?
fi
cat "$err" >&2
rm -f "$err"
exit $rc
