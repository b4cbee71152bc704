#!/bin/sh
# Rust at -O: two threads bump the two AtomicU64 fields of an Arc<Stats>.
# The report must speak of the user's code, not of Rust's standard
# library: the sites are the closures' lines in main.rs (AtomicU64's
# fetch_add is inlined from /rustc/.../atomic.rs), the members are the
# fields ("...data.hits", not "...hits.v.value": AtomicU64 and UnsafeCell
# are the library's wrappers), the advice's layout is Stats, proposed in
# Rust (#[repr(C, align(64))], "hits: AtomicU64,"), and the
# block was allocated by Arc::new in main, not in alloc.rs.  Built
# without -g (no DWARF: no types), the line is named by the code that
# allocated it (main::main), and the advice speaks Rust (#[repr(align(64))],
# crossbeam's CachePadded, debug = true), never C (aligned_alloc, -g
# alone); its twin with each counter in a #[repr(align(64))] wrapper is
# not reported.  Skipped without rustc.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
contend="$top_builddir/contend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v rustc >/dev/null; then
	echo "SKIP: no rustc"
	exit 77
fi
cat >"$tmp/main.rs" <<'EOR'
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

struct Stats {
    hits: AtomicU64,
    misses: AtomicU64,
}

fn main() {
    let stats = Arc::new(Stats { hits: AtomicU64::new(0), misses: AtomicU64::new(0) }); // ALLOC
    let s = stats.clone();
    let a = thread::spawn(move || for _ in 0..100_000_000u64 { s.hits.fetch_add(1, Ordering::Relaxed); }); // HITS
    let s = stats.clone();
    let b = thread::spawn(move || for _ in 0..100_000_000u64 { s.misses.fetch_add(1, Ordering::Relaxed); }); // MISSES
    a.join().unwrap();
    b.join().unwrap();
    println!("{}", stats.hits.load(Ordering::Relaxed) + stats.misses.load(Ordering::Relaxed));
}
EOR
rustc -O -g -o "$tmp/stats" "$tmp/main.rs" 2>"$tmp/err" ||
	{ echo "SKIP: rustc cannot build here: $(head -3 "$tmp/err")"; exit 77; }
for try in 1 2 3; do
	"$contend" run --format json -o "$tmp/r.json" -- "$tmp/stats" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: contend exited $?:"; cat "$tmp/err"; exit 1; }
	grep -q '"kind": "false"' "$tmp/r.json" && break
	echo "try $try: no false sharing reported"
done
python3 - "$tmp/r.json" "$tmp/main.rs" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
line = {m: i + 1 for i, l in enumerate(src) for m in ("ALLOC", "HITS", "MISSES") if "// " + m in l}
fails = []
lines = [l for l in r["lines"] if l["kind"] == "false"]
if not lines:
    sys.exit("FAIL: no false-sharing line")
l = lines[0]
members = [g.get("member") or "" for g in l["ranges"]]
if not any(m.endswith("data.hits") for m in members) or not any(m.endswith("data.misses") for m in members):
    fails.append("members %s: want ...data.hits and ...data.misses" % members)
if any(".v." in m or m.endswith(".value") for m in members):
    fails.append("members %s name the library's wrappers" % members)
sites = {(s.get("file") or "").rsplit("/", 1)[-1] + ":" + str(s.get("line")) for g in l["ranges"] for s in g.get("sites", [])}
want = {"main.rs:%d" % line["HITS"], "main.rs:%d" % line["MISSES"]}
if not want <= sites or any(not s.startswith("main.rs:") for s in sites):
    fails.append("sites %s: want %s only" % (sorted(sites), sorted(want)))
a = l.get("allocation") or {}
site = a.get("site") or {}
if (site.get("file") or "").rsplit("/", 1)[-1] != "main.rs" or site.get("line") != line["ALLOC"]:
    fails.append("allocation site %s:%s, want main.rs:%d" % (site.get("file"), site.get("line"), line["ALLOC"]))
text = json.dumps(l.get("advice"))
if "Stats {" not in text or "UnsafeCell" in text:
    fails.append("advice's layout is not Stats: %s" % text[:200])
proposed = (l.get("advice") or {}).get("layout_proposed") or ""
if (not proposed.startswith("#[repr(C, align(64))]\nstruct Stats {") or "hits:" not in proposed or
        "_Alignas" in proposed or "aligned_alloc" in proposed):
    fails.append("the proposal is not Rust: %s" % proposed[:300])
if fails:
    sys.exit("FAIL: " + "; ".join(fails))
print("ok rust: members %s, sites %s, allocated at main.rs:%d" % (members, sorted(sites), line["ALLOC"]))
EOP
[ $? -eq 0 ] || exit 1

# --- without -g ------------------------------------------------------------
rustc -O -o "$tmp/stats_nog" "$tmp/main.rs" 2>"$tmp/err" ||
	{ echo "FAIL: rustc -O (no -g): $(head -3 "$tmp/err")"; exit 1; }
for try in 1 2 3; do
	"$contend" run -o "$tmp/nog.txt" -- "$tmp/stats_nog" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: contend (no -g) exited $?:"; cat "$tmp/err"; exit 1; }
	grep -q "FALSE SHARING" "$tmp/nog.txt" && break
	echo "try $try (no -g): no false sharing reported"
done
fails=
grep -q "^== #1  FALSE SHARING  malloc(32) block from main::main " "$tmp/nog.txt" ||
	fails="$fails; the line is not named by its allocation in main::main"
tr -s ' \n' ' ' <"$tmp/nog.txt" >"$tmp/nog.flat"
grep -q "#\[repr(align(64))\] struct, or in crossbeam_utils::CachePadded" "$tmp/nog.flat" ||
	fails="$fails; no Rust padding advice"
grep -q "debug = true in Cargo.toml's \[profile.release\]" "$tmp/nog.flat" ||
	fails="$fails; no Rust debug-info advice"
grep -q "aligned_alloc\|build with -g)" "$tmp/nog.flat" &&
	fails="$fails; C advice for Rust code"
if [ -n "$fails" ]; then
	echo "FAIL (no -g):${fails#;}"
	sed -n '/^== #1/,/fixing this line/p' "$tmp/nog.txt"
	exit 1
fi
echo "ok rust without -g: named by main::main's allocation, advice in Rust"

# the padded twin: each counter in a #[repr(align(64))] wrapper, no -g
sed -e 's/^struct Stats {/#[repr(align(64))]\nstruct Padded(AtomicU64);\n\nstruct Stats {/' \
	-e 's/: AtomicU64,/: Padded,/' -e 's/AtomicU64::new(0)/Padded(AtomicU64::new(0))/g' \
	-e 's/\.hits\./.hits.0./g; s/\.misses\./.misses.0./g' "$tmp/main.rs" >"$tmp/padded.rs"
rustc -O -o "$tmp/padded_nog" "$tmp/padded.rs" 2>"$tmp/err" ||
	{ echo "FAIL: rustc -O padded.rs: $(head -3 "$tmp/err")"; exit 1; }
"$contend" run -o "$tmp/padded.txt" -- "$tmp/padded_nog" >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: contend (padded) exited $?:"; cat "$tmp/err"; exit 1; }
if grep -q "SHARING" "$tmp/padded.txt"; then
	echo "FAIL: the padded twin was reported:"
	sed -n '/^== #1/,/advice/p' "$tmp/padded.txt"
	exit 1
fi
echo "ok rust padded twin: nothing reported"
