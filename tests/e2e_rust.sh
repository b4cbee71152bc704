#!/bin/sh
# Rust at -O: two threads bump the two AtomicU64 fields of an Arc<Stats>.
# The report must speak of the user's code, not of Rust's standard
# library: the sites are the closures' lines in main.rs (AtomicU64's
# fetch_add is inlined from /rustc/.../atomic.rs), the members are the
# fields ("...data.hits", not "...hits.v.value": AtomicU64 and UnsafeCell
# are the library's wrappers), the advice's layout is Stats, proposed in
# Rust (#[repr(C, align(64))], "hits: AtomicU64,"), and the
# block was allocated by Arc::new in main, not in alloc.rs.  Built
# without -g: testcases/rust_arc_stats.  Skipped without rustc.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
# run and check again after a spurious debug trap (tests/contend_retry.sh)
contend="$(cd "$(dirname "$0")" && pwd)/contend_retry.sh"
export CONTEND_REAL="$top_builddir/contend"
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

# Without -g (no DWARF, no types) and its padded twin: the bundled
# testcases/rust_arc_stats (tests/e2e_rust_arc_stats.sh).
