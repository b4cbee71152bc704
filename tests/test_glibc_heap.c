/* Unit tests for detector/glibc_heap.c: our own heap, walked through
 * process_vm_readv as attach walks a target's (blocks of known sizes in
 * the main arena, a calloc'd array, a thread arena, a block over the mmap
 * threshold, a freed chunk), then made-up memory: chains of chunks,
 * a later heap of a thread arena, mapped chunks side by side, the read
 * budget, and corrupt or random bytes, which must neither crash, nor
 * loop, nor give a block that does not hold the address. */
#include "detector/glibc_heap.h"
#include "tests/tap.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* our own heap */

struct thread_blocks {
	void *small, *array, *big;
};

static void *thread_allocs(void *arg)
{
	struct thread_blocks *t = arg;

	t->small = malloc(100);
	t->array = calloc(4, 1000);
	t->big = malloc(30000);       /* under the mmap threshold: in the arena */
	return NULL;
}

static void check_block(struct glibc_heap *h, const void *p, enum glibc_heap_arena arena,
			const char *what)
{
	uint64_t a = (uintptr_t)p, usable = malloc_usable_size((void *)p);
	uint64_t probe[3] = { a, a + usable / 2, a + usable - 1 };
	struct glibc_heap_block b;

	for (unsigned i = 0; i < 3; i++) {
		bool found = glibc_heap_find(h, probe[i], &b);

		CHECK(found && b.start == a && b.usable == usable && b.arena == arena,
		      "%s, byte %" PRIu64 ": found %d, start 0x%" PRIx64 " (want 0x%" PRIx64
		      "), usable %" PRIu64 " (want %" PRIu64 "), arena %d (want %d)", what,
		      probe[i] - a, found, found ? b.start : 0, a, found ? b.usable : 0, usable,
		      found ? (int)b.arena : 0, (int)arena);
	}
}

static void test_own_heap(void)
{
	struct thread_blocks tb = { 0 };
	pthread_t th;
	void *m24, *m100, *m1000, *array, *m5000, *hole, *guard, *mapped;
	struct glibc_heap *h;
	struct glibc_heap_block b;
	struct glibc_heap_stats st;
	uint64_t lo, hi, hole_at;

	/* everything exists before the maps are read */
	CHECK(pthread_create(&th, NULL, thread_allocs, &tb) == 0, "a second thread");
	pthread_join(th, NULL);
	m24 = malloc(24);
	m100 = malloc(100);
	m1000 = malloc(1000);
	array = calloc(2, 3072);
	m5000 = malloc(5000);
	hole = malloc(2000);          /* over tcache's 1032: freed to a bin, marked free */
	guard = malloc(64);           /* keeps the hole off the top */
	mapped = malloc(1 << 20);     /* over the 128 KiB mmap threshold */
	h = glibc_heap_open(getpid());
	CHECK(h != NULL, "our own maps open");
	if (!h)
		return;
	hole_at = (uintptr_t)hole;
	free(hole);                   /* after the walker's own mallocs */

	check_block(h, m24, GLIBC_HEAP_MAIN, "malloc(24)");
	check_block(h, m100, GLIBC_HEAP_MAIN, "malloc(100)");
	check_block(h, m1000, GLIBC_HEAP_MAIN, "malloc(1000)");
	check_block(h, array, GLIBC_HEAP_MAIN, "calloc(2, 3072)");
	check_block(h, m5000, GLIBC_HEAP_MAIN, "malloc(5000)");
	check_block(h, guard, GLIBC_HEAP_MAIN, "malloc(64)");
	check_block(h, tb.small, GLIBC_HEAP_THREAD, "thread's malloc(100)");
	check_block(h, tb.array, GLIBC_HEAP_THREAD, "thread's calloc(4, 1000)");
	check_block(h, tb.big, GLIBC_HEAP_THREAD, "thread's malloc(30000)");
	check_block(h, mapped, GLIBC_HEAP_MMAPPED, "malloc(1 MiB)");

	CHECK(!glibc_heap_find(h, hole_at + 100, &b), "a freed chunk is no block");
	CHECK(!glibc_heap_find(h, (uintptr_t)m100 - 8, &b), "a chunk header is no block's");
	CHECK(!glibc_heap_find(h, (uintptr_t)&tb, &b), "the stack is no heap");
	CHECK(!glibc_heap_find(h, (uintptr_t)test_own_heap, &b), "code is no heap");

	if (glibc_heap_find(h, (uintptr_t)array + 3072, &b)) {
		glibc_heap_asked(&b, &lo, &hi);
		CHECK(lo <= 6144 && 6144 <= hi && hi - lo < 32,
		      "calloc(2, 3072): asked for %" PRIu64 "..%" PRIu64, lo, hi);
	}
	glibc_heap_stats(h, &st);
	CHECK(st.lookups == 35 && st.found == 31 && st.bytes_read <= GLIBC_HEAP_READ_MAX,
	      "stats: %" PRIu64 " lookups, %" PRIu64 " found, %" PRIu64 " bytes read",
	      st.lookups, st.found, st.bytes_read);
	glibc_heap_free(h);
	free(m24);
	free(m100);
	free(m1000);
	free(array);
	free(m5000);
	free(guard);
	free(mapped);
	free(tb.small);
	free(tb.array);
	free(tb.big);
}

/* ------------------------------------------------------------------ */
/* made-up memory */

struct fake {
	uint64_t base;
	unsigned char *buf;
	size_t len;
	/* instead of buf: every `period` bytes a chunk header of that size */
	uint64_t period;
};

static size_t fake_read(void *ctx, uint64_t addr, void *out, size_t len)
{
	struct fake *f = ctx;

	if (f->period) {
		for (size_t i = 0; i < len; i += 8) {
			uint64_t a = addr + i, v = (a - f->base) % f->period == 8 ? f->period | 1 : 0;

			memcpy((char *)out + i, &v, len - i < 8 ? len - i : 8);
		}
		return len;
	}
	if (addr < f->base || addr >= f->base + f->len)
		return 0;
	if (len > f->base + f->len - addr)
		len = f->base + f->len - addr;
	memcpy(out, f->buf + (addr - f->base), len);
	return len;
}

static void put(struct fake *f, uint64_t addr, uint64_t v)
{
	memcpy(f->buf + (addr - f->base), &v, 8);
}

/* [heap]: tcache's chunk, an in-use 0x30, a free 0x100, an in-use 0x1000,
 * the top */
static void test_chain(void)
{
	unsigned char mem[0x4000] = { 0 };
	struct fake f = { 0x10000000, mem, sizeof(mem), 0 };
	struct glibc_heap_map map = { f.base, f.base + f.len, true };
	struct glibc_heap *h = glibc_heap_new(&map, 1, fake_read, &f);
	struct glibc_heap_block b;
	uint64_t c = f.base;

	put(&f, c + 8, 0x290 | 1);
	c += 0x290;
	put(&f, c + 8, 0x30 | 1);               /* in use: next has PREV_INUSE */
	c += 0x30;
	put(&f, c + 8, 0x100 | 1);              /* free: next lacks it */
	c += 0x100;
	put(&f, c, 0x100);
	put(&f, c + 8, 0x1000);
	c += 0x1000;
	put(&f, c + 8, (f.base + f.len - c) | 1);   /* the top */

	CHECK(glibc_heap_find(h, f.base + 0x290 + 16, &b) && b.start == f.base + 0x2a0 &&
	      b.usable == 0x28 && b.arena == GLIBC_HEAP_MAIN, "the 0x30 chunk");
	CHECK(glibc_heap_find(h, f.base + 0x2c0 + 4, &b) && b.start == f.base + 0x2a0,
	      "its usable bytes run into the next chunk's prev_size");
	CHECK(!glibc_heap_find(h, f.base + 0x2c0 + 16 + 5, &b), "a free chunk");
	CHECK(glibc_heap_find(h, f.base + 0x3c0 + 0x800, &b) && b.start == f.base + 0x3d0 &&
	      b.usable == 0xff8, "the 0x1000 chunk");
	CHECK(!glibc_heap_find(h, c + 0x100, &b), "the top is free");
	CHECK(!glibc_heap_find(h, f.base + f.len + 8, &b), "past the mapping");
	glibc_heap_free(h);
	/* a thread arena's flag in the main arena: nonsense (a new walker:
	 * one keeps the window it read last) */
	put(&f, f.base + 0x290 + 8, 0x30 | 1 | 4);
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(!glibc_heap_find(h, f.base + 0x2a0, &b), "NON_MAIN_ARENA in [heap]");
	glibc_heap_free(h);
	put(&f, f.base + 0x290 + 8, 0x28 | 1);
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(!glibc_heap_find(h, f.base + 0x3d0, &b), "a misaligned size stops the walk");
	glibc_heap_free(h);
}

/* A thread arena's later heap (its malloc_state in the first heap), and
 * heap_infos that lie. */
static void test_thread_heap(void)
{
	static unsigned char mem[0x10000];
	uint64_t base = 0x7f0008000000ull;
	struct fake f = { base, mem, sizeof(mem), 0 };
	struct glibc_heap_map map = { base, base + sizeof(mem), false };
	struct glibc_heap *h;
	struct glibc_heap_block b;
	uint64_t c = base + 48;

	memset(mem, 0, sizeof(mem));
	put(&f, base, 0x7f0004000000ull + 48);   /* ar_ptr: in the first heap */
	put(&f, base + 8, 0x7f0004000000ull);    /* prev */
	put(&f, base + 16, sizeof(mem));
	put(&f, base + 24, sizeof(mem));
	put(&f, c + 8, 0x100 | 1 | 4);
	c += 0x100;
	put(&f, c + 8, 0x200 | 1 | 4);
	c += 0x200;
	put(&f, c + 8, (base + sizeof(mem) - c) | 1);
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(glibc_heap_find(h, base + 48 + 16 + 10, &b) && b.start == base + 64 &&
	      b.usable == 0xf8 && b.arena == GLIBC_HEAP_THREAD, "a later heap's first chunk");
	CHECK(!glibc_heap_find(h, base + 48 + 0x300 + 0x40, &b), "the top of the later heap");
	glibc_heap_free(h);

	put(&f, base + 8, base);                 /* prev: itself */
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(!glibc_heap_find(h, base + 64, &b), "a heap whose prev is itself");
	glibc_heap_free(h);

	put(&f, base + 8, 0x7f0004000000ull);
	put(&f, base + 16, GLIBC_HEAP_MAX * 2);
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(!glibc_heap_find(h, base + 64, &b), "a heap larger than HEAP_MAX_SIZE");
	glibc_heap_free(h);
}

/* Two mapped chunks the kernel shows as one mapping. */
static void test_mapped(void)
{
	static unsigned char mem[0x3000];
	uint64_t base = 0x7f1000000000ull;
	struct fake f = { base, mem, sizeof(mem), 0 };
	struct glibc_heap_map map = { base, base + sizeof(mem), false };
	struct glibc_heap *h;
	struct glibc_heap_block b;

	put(&f, base + 8, 0x2000 | 2);
	put(&f, base + 0x2000 + 8, 0x1000 | 2);
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(glibc_heap_find(h, base + 0x100, &b) && b.start == base + 16 &&
	      b.usable == 0x1ff0 && b.arena == GLIBC_HEAP_MMAPPED, "the first mapped chunk");
	CHECK(glibc_heap_find(h, base + 0x2fff, &b) && b.start == base + 0x2010 &&
	      b.usable == 0xff0, "the second, adjacent");
	glibc_heap_free(h);
	put(&f, base, 16);                        /* an alignment correction: not handled */
	h = glibc_heap_new(&map, 1, fake_read, &f);
	CHECK(!glibc_heap_find(h, base + 0x100, &b), "prev_size set: no guess");
	glibc_heap_free(h);
}

/* 200 MiB of 256 KiB chunks: a read per chunk, and the budget ends it. */
static void test_budget(void)
{
	struct fake f = { 0x20000000, NULL, 0, GLIBC_HEAP_WINDOW };
	struct glibc_heap_map map = { f.base, f.base + (200ull << 20), true };
	struct glibc_heap *h = glibc_heap_new(&map, 1, fake_read, &f);
	struct glibc_heap_block b;
	struct glibc_heap_stats st;

	uint64_t before;

	CHECK(glibc_heap_find(h, f.base + (10ull << 20) + 100, &b) &&
	      b.start == f.base + (10ull << 20) + 16, "10 MiB in");
	/* the checkpoints: 10 MiB in again costs a few windows, not 40 */
	glibc_heap_stats(h, &st);
	before = st.reads;
	CHECK(glibc_heap_find(h, f.base + (10ull << 20) + 200, &b), "10 MiB in, again");
	glibc_heap_stats(h, &st);
	CHECK(st.reads - before <= 3, "a second lookup read %" PRIu64 " windows",
	      st.reads - before);
	/* 64 MiB a lookup: each goes on from where the one before stopped */
	before = st.bytes_read;
	CHECK(!glibc_heap_find(h, f.base + (150ull << 20) + 100, &b), "150 MiB in: past one lookup's");
	glibc_heap_stats(h, &st);
	CHECK(st.bytes_read - before <= GLIBC_HEAP_READ_MAX &&
	      st.bytes_read - before > GLIBC_HEAP_READ_MAX / 2, "one lookup read %" PRIu64 " bytes",
	      st.bytes_read - before);
	CHECK(!glibc_heap_find(h, f.base + (150ull << 20) + 100, &b), "150 MiB in, again: 138 MiB reached");
	CHECK(glibc_heap_find(h, f.base + (150ull << 20) + 100, &b) &&
	      b.start == f.base + (150ull << 20) + 16, "150 MiB in, a third time: found");
	/* and 256 MiB in all */
	for (int i = 0; i < 8; i++)
		glibc_heap_find(h, f.base + (199ull << 20) + (uint64_t)i * 4096, &b);
	glibc_heap_stats(h, &st);
	CHECK(st.bytes_read <= GLIBC_HEAP_READ_TOTAL && st.bytes_read > GLIBC_HEAP_READ_TOTAL / 2,
	      "read %" PRIu64 " bytes in all", st.bytes_read);
	glibc_heap_free(h);
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random and half-made memory: whatever is answered holds the address and
 * lies in the mapping. */
static void test_corrupt(void)
{
	static unsigned char mem[0x8000];
	uint64_t base = 0x7f2004000000ull;       /* 64 MiB aligned: a heap_info is tried */
	struct fake f = { base, mem, sizeof(mem), 0 };
	struct glibc_heap_map maps[2] = {
		{ base, base + sizeof(mem), false },
		{ 0x30000000, 0x30000000 + sizeof(mem), true },
	};
	unsigned bad = 0, found = 0;

	for (int round = 0; round < 3000; round++) {
		struct glibc_heap *h;
		struct glibc_heap_block b;
		unsigned kind = round % 4;

		f.base = round & 1 ? base : 0x30000000;
		for (size_t i = 0; i < sizeof(mem); i += 8) {
			uint64_t v = rnd();

			/* plausible sizes most of the time, with random flags */
			if (kind == 1)
				v = (v % 64) * 16 + (v >> 60 & 7);
			else if (kind == 2)
				v = (v & 1) ? 32 | (v >> 61) : 0;
			memcpy(mem + i, &v, 8);
		}
		if (kind == 3) {   /* a heap_info that looks right, chunks random */
			put(&f, base, base + 48);
			put(&f, base + 8, 0);
			put(&f, base + 16, sizeof(mem));
			put(&f, base + 24, sizeof(mem));
		}
		h = glibc_heap_new(maps, 2, fake_read, &f);
		for (int k = 0; k < 8; k++) {
			uint64_t a = f.base + rnd() % sizeof(mem);

			if (!glibc_heap_find(h, a, &b))
				continue;
			found++;
			if (b.start > a || a - b.start >= b.usable || b.start < f.base ||
			    b.start + b.usable > f.base + sizeof(mem) + 8)
				bad++;
		}
		glibc_heap_free(h);
	}
	CHECK(bad == 0, "%u of %u blocks found in random memory do not hold their address",
	      bad, found);
}

static bool glibc_malloc(void)
{
#ifdef __SANITIZE_ADDRESS__
	return false;
#else
	return true;
#endif
}

/* record -p's blocks, read back: lookups answer from them alone; an
 * overlapping one is dropped; found blocks are kept once each. */
static void test_recorded(void)
{
	const struct glibc_heap_block v[] = {
		{ .start = 0x3000, .usable = 0x100, .arena = GLIBC_HEAP_MAIN },
		{ .start = 0x1000, .usable = 0x40, .arena = GLIBC_HEAP_THREAD },
		{ .start = 0x3080, .usable = 0x10, .arena = GLIBC_HEAP_MAIN },   /* inside the first */
		{ .start = 0x8000, .usable = 0x2000, .arena = GLIBC_HEAP_MMAPPED },
	};
	struct glibc_heap *h = glibc_heap_recorded(77, v, 4);
	const struct glibc_heap_block *found;
	struct glibc_heap_block b;
	size_t n;

	CHECK(glibc_heap_pid(h) == 77, "the recorded pid");
	CHECK(glibc_heap_find(h, 0x1000, &b) && b.start == 0x1000 && b.usable == 0x40 &&
	      b.arena == GLIBC_HEAP_THREAD, "a block's first byte");
	CHECK(glibc_heap_find(h, 0x303f, &b) && b.start == 0x3000 && b.usable == 0x100,
	      "inside, the one that came first by address");
	CHECK(glibc_heap_find(h, 0x3085, &b) && b.start == 0x3000, "the overlapping one dropped");
	CHECK(glibc_heap_find(h, 0x9fff, &b) && b.start == 0x8000, "a block's last byte");
	CHECK(!glibc_heap_find(h, 0x1040, &b), "just past a block");
	CHECK(!glibc_heap_find(h, 0xfff, &b), "just before the first");
	CHECK(!glibc_heap_find(h, 0xa000, &b), "past the last");
	found = glibc_heap_found(h, &n);
	CHECK(n == 3 && found[0].start == 0x1000 && found[1].start == 0x3000 &&
	      found[2].start == 0x8000, "found, each once, in order: %zu", n);
	glibc_heap_free(h);
	h = glibc_heap_recorded(77, NULL, 0);
	CHECK(!glibc_heap_find(h, 0x1000, &b), "no blocks: nothing found");
	glibc_heap_free(h);
}

int main(void)
{
	if (glibc_malloc())
		test_own_heap();
	else
		printf("# own heap skipped: built with AddressSanitizer, whose allocator is not glibc's\n");
	test_chain();
	test_thread_heap();
	test_mapped();
	test_budget();
	test_corrupt();
	test_recorded();
	return test_done();
}
