#!/bin/sh
# The machine's transfer price (detector/transfer_price.h, reports/gain.h):
# - run times it once sampling ends and says so: the header's "transfer
#   price:" line, JSON transfer_price with both ratios and the runs, or
#   null and why not (a busy machine);
# - --no-price-probe prices at the reference, and says so;
# - the data file keeps the prices, and they decide the gain report -i
#   predicts: a recording at the reference, patched to an AMD EPYC Zen 5
#   VM's prices (locked 2.88x, store 2.5x), predicts true_sharing_counter's
#   locked-add line at ~2.9x, not the reference's ~7x;
# - a price a data file cannot hold is refused in one line.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tsc="$top_builddir/testcases/true_sharing_counter"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/e2e_lib.sh"

# price FIELD JSON: transfer_price's FIELD ("null" if null)
price() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[2]))["transfer_price"].get(sys.argv[1])
print("null" if v is None else v)' "$1" "$2"
}
# gain JSON: the top line's predicted_gain, 0 if no line
gain() {
	python3 -c 'import json, sys
l = json.load(open(sys.argv[1]))["lines"]
print(l[0]["predicted_gain"] if l else 0)' "$1"
}

# --- run: measured, or not and why ------------------------------------------
"$contend" run --format json -o "$tmp/r.json" -- "$tsc" -t 2 --iters 2000000 >/dev/null 2>"$tmp/err"
st=$?
locked=$(price locked "$tmp/r.json" 2>/dev/null)
if [ $st -ne 0 ]; then
	fail "run: exit $st"; cat "$tmp/err"
elif [ "$locked" = null ]; then
	note=$(price note "$tmp/r.json")
	case $note in
	"not measured: "*) ok "run: no price, and why ($note)" ;;
	*) fail "run: no price and no reason: $note" ;;
	esac
elif python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["transfer_price"]
ok = 1 <= t["locked"] <= 1000 and 1 <= t["store"] <= 1000 and 3 <= t["runs"] <= 12
ok = ok and t["priced_locked"] == t["locked"] and t["priced_store"] == t["store"]
ok = ok and t["reference_locked"] == 7.18 and t["reference_store"] == 1.26 and "note" not in t
sys.exit(0 if ok else 1)' "$tmp/r.json"; then
	ok "run: measured (locked $locked, store $(price store "$tmp/r.json")) and priced at it"
else
	fail "run: transfer_price wrong:"; grep -A3 transfer_price "$tmp/r.json"
fi

"$contend" run -- "$tsc" -t 2 --iters 2000000 >/dev/null 2>"$tmp/err"
if grep -qE '^# transfer price: (contended, a locked add costs [0-9.]+x, a plain one [0-9.]+x and a fenced store [0-9.]+x|not measured: )' "$tmp/err"; then
	ok "text: the header says what the gains are priced at"
else
	fail "text: no transfer price line:"; head -12 "$tmp/err"
fi

# --- --no-price-probe: the reference ----------------------------------------
"$contend" run --no-price-probe --format json -o "$tmp/n.json" -- "$tsc" -t 2 --iters 2000000 \
	>/dev/null 2>&1
if [ "$(price locked "$tmp/n.json")" = null ] &&
   [ "$(price note "$tmp/n.json")" = "not measured (--no-price-probe)" ] &&
   [ "$(price priced_locked "$tmp/n.json")" = 7.18 ] &&
   [ "$(price priced_store "$tmp/n.json")" = 1.26 ]; then
	ok "--no-price-probe: priced at the reference, and said so"
else
	fail "--no-price-probe:"; grep -A3 transfer_price "$tmp/n.json"
fi

# --- the data file's prices decide report -i's gain -----------------------
for attempt in 1 2 3; do
	"$contend" record -q --no-price-probe -o "$tmp/t.data" -- "$tsc" -t 2 --iters 5000000 \
		>/dev/null 2>&1
	"$contend" report -i "$tmp/t.data" --format json -o "$tmp/ref.json" 2>/dev/null
	[ "$(gain "$tmp/ref.json")" != 0 ] && break
	echo "note: attempt $attempt saw no line (busy machine?); again"
done
# the summary holds: f64 locked, f64 store, u32 runs, u16 note length, note
# (and, from version 6, the machine's facts after it)
python3 - "$tmp/t.data" "$tmp/amd.data" <<'PY' || fail "cannot patch the data file"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
note = b"not measured (--no-price-probe)"
at = b.rfind(note) - 2 - 4 - 16
assert at > 0 and b[at:at + 20] == bytes(20), "not a --no-price-probe summary"
b[at:at + 20] = struct.pack("<ddI", 2.88, 2.5, 5)
open(sys.argv[2], "wb").write(b)
PY
"$contend" report -i "$tmp/amd.data" --format json -o "$tmp/amd.json" 2>"$tmp/err"
ref=$(gain "$tmp/ref.json"); amd=$(gain "$tmp/amd.json")
if [ "$(price locked "$tmp/amd.json")" != 2.88 ] || [ "$(price priced_store "$tmp/amd.json")" != 2.5 ]; then
	fail "report -i: the file's prices not read:"; grep -A3 transfer_price "$tmp/amd.json"
elif python3 -c 'import sys; r, a = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if r >= 4 and 1.5 <= a <= 4 and a < 0.6 * r else 1)' "$ref" "$amd"; then
	ok "report -i: the file's prices decide the gain (reference ${ref}x, at Zen 5's ${amd}x)"
else
	fail "report -i: gain at the reference ${ref}x, at Zen 5's prices ${amd}x"
fi

# --- a price no probe gives: refused --------------------------------------
python3 - "$tmp/t.data" "$tmp/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.rfind(b"not measured (--no-price-probe)") - 2 - 4 - 16
b[at:at + 20] = struct.pack("<ddI", 0.5, 2.5, 5)
open(sys.argv[2], "wb").write(b)
PY
expect_max_lines=1
expect "a contended loop faster than a private one" 2 \
	"corrupt summary record .*transfer prices 0.5 and 2.5 from 5 runs" \
	"$contend" report -i "$tmp/bad.data"

[ $fails -eq 0 ] || exit 1
