#!/bin/sh
# --format pprof read by the real client: `go tool pprof -top` and `-tags`
# on false_sharing_counters' profile list increment, kind false, members
# counters[0] and counters[1], both threads and the process; `-raw` shows
# the period, the binary's mapping (range, build-id) and numeric pid/tid; on
# klass_secondary_supers', is_subtype_of and secondary_super_cache.
# Skips (77) without Go (Debian's golang-go).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
# run and check again after a spurious debug trap (tests/contend_retry.sh)
contend="$(cd "$(dirname "$0")" && pwd)/contend_retry.sh"
export CONTEND_REAL="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok $*"; }

command -v go >/dev/null 2>&1 || { echo "SKIP: no go (apt-get install golang-go)"; exit 77; }
# go wants a home and a build cache; nothing here may touch the network
export HOME="$tmp" GOCACHE="$tmp/gocache" GOPROXY=off GOTOOLCHAIN=local
pprof() { go tool pprof "$@" 2>"$tmp/pprof.err"; }

profile() {   # testcase, output; retried: a busy machine can keep threads apart
	for attempt in 1 2 3; do
		"$contend" run -q --format pprof -o "$2" -- "$top_builddir/testcases/$1" \
			>/dev/null 2>"$tmp/err"
		pprof -tags "$2" >"$tmp/tags" && grep -q 'kind: Total' "$tmp/tags" && return 0
		echo "note: $1 attempt $attempt: no contended line (busy machine?); again"
	done
	return 1
}

# --- false_sharing_counters ------------------------------------------------------
if ! profile false_sharing_counters "$tmp/fsc.pb.gz"; then
	fail "fsc: no profile with a kind tag"; cat "$tmp/err" "$tmp/pprof.err"
else
	gzip -t "$tmp/fsc.pb.gz" && ok "fsc: the profile is gzipped" || fail "fsc: not gzip"
	pprof -top "$tmp/fsc.pb.gz" >"$tmp/top"
	if grep -qE '^ +[0-9]+ +100% +100% +[0-9]+ +100% +increment$' "$tmp/top"; then
		ok "fsc -top: $(grep -E 'increment$' "$tmp/top" | tr -s ' ')"
	else
		fail "fsc -top: increment is not all of it"; cat "$tmp/top" "$tmp/pprof.err"
	fi
	# a tag block: " key: Total N" then "  N (P%): value" lines
	tag() { awk -v k="$1" '$1 == k":" { on = 1; next } /^ *$/ { on = 0 } on { print $NF }' "$tmp/tags"; }
	[ "$(tag kind)" = "false" ] && ok "fsc -tags: kind=false alone" ||
		{ fail "fsc kind: $(tag kind)"; cat "$tmp/tags"; }
	[ "$(tag member | sort | tr '\n' ' ')" = "counters[0] counters[1] " ] &&
		ok "fsc -tags: members counters[0] counters[1]" ||
		{ fail "fsc members: $(tag member)"; cat "$tmp/tags"; }
	[ "$(tag object)" = "counters" ] && ok "fsc -tags: object counters" ||
		fail "fsc object: $(tag object)"
	[ "$(tag thread | grep -cE '^[0-9]+$')" -eq 2 ] && ok "fsc -tags: two threads" ||
		fail "fsc threads: $(tag thread)"
	[ "$(tag process | grep -cE '^[0-9]+$')" -eq 1 ] && ok "fsc -tags: one process" ||
		fail "fsc process: $(tag process)"
	[ "$(tag access | sort | tr '\n' ' ')" = "read write " ] && ok "fsc -tags: reads and writes" ||
		fail "fsc access: $(tag access)"
	# -raw: the period of a sample, the binary's real mapping, numeric labels
	pprof -raw "$tmp/fsc.pb.gz" >"$tmp/raw"
	grep -qx 'PeriodType: cpu nanoseconds' "$tmp/raw" && grep -qx 'Period: 1000000' "$tmp/raw" &&
		ok "fsc -raw: period type cpu nanoseconds, period 1000000 (1000 Hz)" ||
		{ fail "fsc -raw: no period"; head -8 "$tmp/raw"; }
	if grep -qE '^1: 0x[0-9a-f]{4,}/0x[0-9a-f]+/0x[0-9a-f]+ false_sharing_counters [0-9a-f]{40} ' \
		"$tmp/raw"; then
		ok "fsc -raw: mapping $(grep -E '^1: ' "$tmp/raw" | cut -d' ' -f2-4)"
	else
		fail "fsc -raw: no mapping with a range and build-id"; sed -n '/^Mappings/,$p' "$tmp/raw"
	fi
	[ "$(grep -cE '^ +pid:\[[0-9]+\] tid:\[[0-9]+\]$' "$tmp/raw")" -ge 2 ] &&
		ok "fsc -raw: numeric pid and tid labels" ||
		{ fail "fsc -raw: no numeric pid/tid labels"; sed -n '/^Samples/,/^Locations/p' "$tmp/raw"; }
	pprof -top -tagfocus kind=false "$tmp/fsc.pb.gz" | grep -qE 'increment$' &&
		ok "-tagfocus kind=false keeps increment" || fail "-tagfocus kind=false"
	pprof -top -tagfocus kind=true "$tmp/fsc.pb.gz" | grep -qE 'increment$' &&
		fail "-tagfocus kind=true still shows increment" || ok "-tagfocus kind=true drops it"
fi

# --- klass_secondary_supers -------------------------------------------------------
if ! profile klass_secondary_supers "$tmp/k.pb.gz"; then
	fail "klass: no profile with a kind tag"; cat "$tmp/err" "$tmp/pprof.err"
else
	pprof -top "$tmp/k.pb.gz" | grep -qE ' is_subtype_of$' && ok "klass -top: is_subtype_of" ||
		{ fail "klass -top"; pprof -top "$tmp/k.pb.gz"; }
	grep -qE '\): secondary_super_cache$' "$tmp/tags" &&
		grep -qE '\): (true|mixed)$' "$tmp/tags" &&
		ok "klass -tags: secondary_super_cache, true or mixed sharing" ||
		{ fail "klass -tags"; cat "$tmp/tags"; }
fi

[ $fails -eq 0 ] || exit 1
