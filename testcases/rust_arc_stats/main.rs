// rust_arc_stats: two threads each bump their own counter of one
// Arc<Stats>, hits and misses, 8 bytes apart: one cache line, false
// sharing.  Built as people ship Rust, without debug info (rustc -O, no
// -g), so contend must name the line by the code that allocated it
// (main::main) and speak Rust in its advice.  --padded is the twin: each
// counter in a #[repr(align(64))] wrapper, on a line of its own.
use std::env;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

struct Stats {
    hits: AtomicU64,
    misses: AtomicU64,
}

#[repr(align(64))]
struct Padded(AtomicU64);

struct PaddedStats {
    hits: Padded,
    misses: Padded,
}

const ITERS: u64 = 100_000_000;

fn shared() -> u64 {
    let stats = Arc::new(Stats { hits: AtomicU64::new(0), misses: AtomicU64::new(0) });
    let s = stats.clone();
    let a = thread::spawn(move || for _ in 0..ITERS { s.hits.fetch_add(1, Ordering::Relaxed); });
    let s = stats.clone();
    let b = thread::spawn(move || for _ in 0..ITERS { s.misses.fetch_add(1, Ordering::Relaxed); });
    a.join().unwrap();
    b.join().unwrap();
    stats.hits.load(Ordering::Relaxed) + stats.misses.load(Ordering::Relaxed)
}

fn padded() -> u64 {
    let stats = Arc::new(PaddedStats {
        hits: Padded(AtomicU64::new(0)),
        misses: Padded(AtomicU64::new(0)),
    });
    let s = stats.clone();
    let a = thread::spawn(move || for _ in 0..ITERS { s.hits.0.fetch_add(1, Ordering::Relaxed); });
    let s = stats.clone();
    let b = thread::spawn(move || for _ in 0..ITERS { s.misses.0.fetch_add(1, Ordering::Relaxed); });
    a.join().unwrap();
    b.join().unwrap();
    stats.hits.0.load(Ordering::Relaxed) + stats.misses.0.load(Ordering::Relaxed)
}

fn main() {
    let total = if env::args().any(|a| a == "--padded") { padded() } else { shared() };
    println!("{}", total);
}
