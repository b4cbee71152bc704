/* glibc_heap.c - malloc chunks of a live process, walked read-only (glibc_heap.h). */
#include "detector/glibc_heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "common/procfs.h"
#include "common/util.h"

#define SIZE_SZ 8
#define CHUNK_HDR 16                  /* prev_size, size */
#define MIN_CHUNK 32
#define ALIGN_MASK 15
#define PREV_INUSE 1ull
#define IS_MMAPPED 2ull
#define NON_MAIN_ARENA 4ull
#define FLAG_BITS 7ull
#define PAGE 4096ull
/* sizeof(heap_info): 32, or 48 since it holds the pagesize (glibc 2.35);
 * an arena's malloc_state follows it, so its ar_ptr says which */
#define HEAP_INFO_OLD 32
#define HEAP_INFO_NEW 48
/* sizeof(struct malloc_state) on 64-bit: 2200 since have_fastchunks
 * (glibc 2.26), 2192 before */
static const uint64_t malloc_state_sizes[] = { 2200, 2192 };
/* regions found, kept with their checkpoints; past this many, none new */
#define REGIONS_MAX 256
#define CHECKPOINTS_MAX (GLIBC_HEAP_READ_TOTAL / GLIBC_HEAP_WINDOW + 1)

/* A run of chunks end to end: [first, end). */
struct region {
	uint64_t first, end;
	enum glibc_heap_arena arena;
	uint64_t walked;             /* the furthest chunk reached, for checkpoints */
	uint64_t *marks;             /* chunk starts, ascending, one per window */
	unsigned n_marks;
};

struct glibc_heap {
	pid_t pid;
	glibc_heap_read_fn read;
	void *ctx;
	struct glibc_heap_map *maps;
	size_t n_maps;
	struct region regions[REGIONS_MAX];
	unsigned n_regions;
	uint64_t *mark_pool;         /* handed out to the first regions, CHECKPOINTS_MAX each */
	size_t marks_used;
	unsigned char *win;          /* the window read last: [win_start, win_start + win_len) */
	uint64_t win_start, win_len;
	uint64_t lookup_read, lookup_chunks;   /* this lookup's share of the budget */
	struct glibc_heap_stats st;
	struct glibc_heap_block *recorded;     /* glibc_heap_recorded(): by start */
	size_t n_recorded;
	struct glibc_heap_block *found;        /* GLIBC_HEAP_FOUND_MAX, allocated up front */
	size_t n_found;
};

/* regions with checkpoints: the read budget is spent on a few anyway */
#define MARK_POOL (CHECKPOINTS_MAX * 8)
/* a probe of a header reads this much, a walk a whole window */
#define PROBE 64

static size_t read_self_or_other(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n > 0 ? (size_t)n : 0;
}

struct glibc_heap *glibc_heap_new(const struct glibc_heap_map *maps, size_t n,
				  glibc_heap_read_fn read, void *ctx)
{
	struct glibc_heap *h = xcalloc(1, sizeof(*h));

	h->read = read;
	h->ctx = ctx;
	h->maps = xcalloc(n ? n : 1, sizeof(*h->maps));
	copy_bytes(h->maps, maps, n * sizeof(*maps));
	h->n_maps = n;
	/* everything a lookup needs, now: the heap it reads may be ours */
	h->win = xmalloc(GLIBC_HEAP_WINDOW);
	h->mark_pool = xcalloc(MARK_POOL, sizeof(*h->mark_pool));
	h->found = xcalloc(GLIBC_HEAP_FOUND_MAX, sizeof(*h->found));
	return h;
}

static bool candidate_map(const char *name, uint32_t prot, bool *main_heap)
{
	*main_heap = !strcmp(name, "[heap]");
	return (prot & (PROT_READ | PROT_WRITE)) == (PROT_READ | PROT_WRITE) &&
	       (*main_heap || !name[0]);
}

struct glibc_heap *glibc_heap_open(pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0, n = 0, alloc = 0;
	struct glibc_heap_map *maps = NULL;
	struct glibc_heap *h;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0 && n < GLIBC_HEAP_MAPS_MAX) {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;
		struct map_object obj;
		bool main_heap;

		if (!parse_maps_line_object(line, &start, &end, &pgoff, &prot, &name, &obj) ||
		    obj.shared || !candidate_map(name, prot, &main_heap))
			continue;
		ALLOC_GROW(maps, n + 1, alloc);
		maps[n++] = (struct glibc_heap_map){ start, end, main_heap };
	}
	free(line);
	fclose(f);
	h = glibc_heap_new(maps, n, read_self_or_other, (void *)(intptr_t)pid);
	h->pid = pid;
	free(maps);
	return h;
}

static int cmp_block_start(const void *a, const void *b)
{
	const struct glibc_heap_block *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct glibc_heap *glibc_heap_recorded(pid_t pid, const struct glibc_heap_block *v, size_t n)
{
	struct glibc_heap *h = xcalloc(1, sizeof(*h));
	size_t out = 0;

	h->pid = pid;
	h->recorded = xcalloc(n ? n : 1, sizeof(*h->recorded));
	copy_bytes(h->recorded, v, n * sizeof(*v));
	sort_items(h->recorded, n, sizeof(*v), cmp_block_start);
	for (size_t i = 0; i < n; i++) {
		const struct glibc_heap_block *b = &h->recorded[i];

		if (!b->usable || b->start + b->usable < b->start ||
		    (out && b->start < h->recorded[out - 1].start + h->recorded[out - 1].usable))
			continue;
		h->recorded[out++] = *b;
	}
	h->n_recorded = out;
	h->found = xcalloc(GLIBC_HEAP_FOUND_MAX, sizeof(*h->found));
	return h;
}

/* The recorded block holding addr. */
static bool recorded_find(const struct glibc_heap *h, uint64_t addr, struct glibc_heap_block *out)
{
	size_t lo = 0, hi = h->n_recorded;

	while (lo < hi) {                 /* the first block starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (h->recorded[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - h->recorded[lo - 1].start >= h->recorded[lo - 1].usable)
		return false;
	*out = h->recorded[lo - 1];
	return true;
}

void glibc_heap_free(struct glibc_heap *h)
{
	if (!h)
		return;
	free(h->recorded);
	free(h->found);
	free(h->maps);
	free(h->win);
	free(h->mark_pool);
	free(h);
}

pid_t glibc_heap_pid(const struct glibc_heap *h)
{
	return h->pid;
}

const struct glibc_heap_block *glibc_heap_found(const struct glibc_heap *h, size_t *n)
{
	*n = h->n_found;
	return h->found;
}

/* Into the found list, once: no allocation here (glibc_heap.h). */
static void note_found(struct glibc_heap *h, const struct glibc_heap_block *b)
{
	for (size_t i = h->n_found; i-- > 0;)
		if (h->found[i].start == b->start)
			return;
	if (h->n_found < GLIBC_HEAP_FOUND_MAX)
		h->found[h->n_found++] = *b;
}

void glibc_heap_stats(const struct glibc_heap *h, struct glibc_heap_stats *out)
{
	*out = h->st;
}

void glibc_heap_asked(const struct glibc_heap_block *b, uint64_t *lo, uint64_t *hi)
{
	/* request2size(n) = max(32, (n + 8 + 15) & ~15), and memalign or a
	 * shrinking realloc keeps a tail under MINSIZE: up to 31 bytes more;
	 * a mapped chunk is rounded up to pages */
	uint64_t slack = b->arena == GLIBC_HEAP_MMAPPED ? PAGE + MIN_CHUNK : 31;

	*hi = b->usable;
	*lo = b->usable > slack ? b->usable - slack : 0;
}

/* ------------------------------------------------------------------ */
/* reading */

/* len bytes at addr (len <= PROBE), through the window, which a miss
 * refills with up to window bytes from addr on, never past limit; false
 * past the budget or where the memory cannot be read. */
static bool fetch(struct glibc_heap *h, uint64_t addr, uint64_t limit, size_t window,
		  void *out, size_t len)
{
	size_t want, got;

	if (addr < h->win_start || addr + len > h->win_start + h->win_len) {
		if (addr + len > limit || addr + len < addr)
			return false;
		want = limit - addr < window ? (size_t)(limit - addr) : window;
		if (h->lookup_read + want > GLIBC_HEAP_READ_MAX ||
		    h->st.bytes_read + want > GLIBC_HEAP_READ_TOTAL)
			return false;
		got = h->read(h->ctx, addr, h->win, want);
		h->lookup_read += want;
		h->st.bytes_read += want;
		h->st.reads++;
		h->win_start = addr;
		h->win_len = got;
		if (!got)
			h->st.refused = true;
		if (got < len)
			return false;
	}
	copy_bytes(out, h->win + (addr - h->win_start), len);
	return true;
}

static bool fetch_u64(struct glibc_heap *h, uint64_t addr, uint64_t limit, size_t window,
		      uint64_t *v)
{
	return fetch(h, addr, limit, window, v, sizeof(*v));
}

static const struct glibc_heap_map *map_at(const struct glibc_heap *h, uint64_t addr)
{
	for (size_t i = 0; i < h->n_maps; i++)
		if (addr >= h->maps[i].start && addr < h->maps[i].end)
			return &h->maps[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* regions */

static struct region *region_get(struct glibc_heap *h, uint64_t first, uint64_t end,
				 enum glibc_heap_arena arena)
{
	struct region *r;

	for (unsigned i = 0; i < h->n_regions; i++)
		if (h->regions[i].first == first && h->regions[i].arena == arena)
			return &h->regions[i];
	if (h->n_regions == REGIONS_MAX)
		return NULL;
	r = &h->regions[h->n_regions++];
	memset(r, 0, sizeof(*r));
	r->first = first;
	r->end = end;
	r->arena = arena;
	r->walked = first;
	if (h->marks_used + CHECKPOINTS_MAX <= MARK_POOL) {
		r->marks = h->mark_pool + h->marks_used;
		h->marks_used += CHECKPOINTS_MAX;
	}
	return r;
}

static bool sane_size(uint64_t chunk, uint64_t size, uint64_t end)
{
	return size >= MIN_CHUNK && !(size & ALIGN_MASK) && size <= end - chunk;
}

/* heap_info at base: fills the region of its chunks; false if it is none. */
static bool thread_heap(struct glibc_heap *h, const struct glibc_heap_map *m, uint64_t base,
			uint64_t *first, uint64_t *end)
{
	uint64_t info[4], ar_ptr, prev, size, mprot, hi, next;

	if (!fetch(h, base, m->end, PROBE, info, sizeof(info)))
		return false;
	ar_ptr = info[0];
	prev = info[1];
	size = info[2];
	mprot = info[3];
	if (size < PAGE || size > GLIBC_HEAP_MAX || size % PAGE || mprot < size ||
	    mprot > GLIBC_HEAP_MAX || (prev & (GLIBC_HEAP_MAX - 1)) || prev == base)
		return false;
	*end = base + size < m->end ? base + size : m->end;
	if (ar_ptr == base + HEAP_INFO_OLD || ar_ptr == base + HEAP_INFO_NEW) {
		/* an arena's first heap: heap_info, malloc_state, then chunks;
		 * the sizeof the build had is the one whose chunk makes sense */
		if (prev)
			return false;
		for (unsigned i = 0; i < sizeof(malloc_state_sizes) / sizeof(*malloc_state_sizes); i++) {
			uint64_t c = (ar_ptr + malloc_state_sizes[i] + ALIGN_MASK) & ~(uint64_t)ALIGN_MASK;

			if (c + CHUNK_HDR <= *end && fetch_u64(h, c + SIZE_SZ, *end, PROBE, &next) &&
			    sane_size(c, next & ~FLAG_BITS, *end) && !(next & IS_MMAPPED)) {
				*first = c;
				return true;
			}
		}
		return false;
	}
	/* a later heap of an arena whose first heap holds its malloc_state */
	if (!prev)
		return false;
	hi = ar_ptr & (GLIBC_HEAP_MAX - 1);
	if (hi != HEAP_INFO_OLD && hi != HEAP_INFO_NEW)
		return false;
	*first = base + hi;
	return true;
}

/* The region addr lies in, or NULL. */
static struct region *region_of(struct glibc_heap *h, uint64_t addr)
{
	const struct glibc_heap_map *m = map_at(h, addr);
	uint64_t base, first, end, hdr[2];
	struct region *r;

	if (!m)
		return NULL;
	if (m->main_heap)
		return region_get(h, m->start, m->end, GLIBC_HEAP_MAIN);
	base = addr & ~(GLIBC_HEAP_MAX - 1);
	if (base >= m->start) {
		for (unsigned i = 0; i < h->n_regions; i++)
			if (h->regions[i].arena == GLIBC_HEAP_THREAD &&
			    (h->regions[i].first & ~(GLIBC_HEAP_MAX - 1)) == base)
				return &h->regions[i];
		if (thread_heap(h, m, base, &first, &end) && addr < end)
			return region_get(h, first, end, GLIBC_HEAP_THREAD);
	}
	r = NULL;
	for (unsigned i = 0; i < h->n_regions; i++)
		if (h->regions[i].arena == GLIBC_HEAP_MMAPPED && h->regions[i].first == m->start)
			r = &h->regions[i];
	if (r)
		return r;
	/* a mapped chunk: prev_size 0 (no alignment correction), its size
	 * pages, IS_MMAPPED the only flag */
	if (!fetch(h, m->start, m->end, PROBE, hdr, sizeof(hdr)) || hdr[0] ||
	    (hdr[1] & FLAG_BITS) != IS_MMAPPED || (hdr[1] & ~FLAG_BITS) % PAGE ||
	    !sane_size(m->start, hdr[1] & ~FLAG_BITS, m->end))
		return NULL;
	return region_get(h, m->start, m->end, GLIBC_HEAP_MMAPPED);
}

/* ------------------------------------------------------------------ */
/* walking */

/* Where a walk to addr starts: the last checkpoint at or below it. */
static uint64_t walk_start(const struct region *r, uint64_t addr)
{
	uint64_t from = r->first;

	for (unsigned i = 0; i < r->n_marks && r->marks[i] <= addr; i++)
		from = r->marks[i];
	return from;
}

static void note_mark(struct region *r, uint64_t chunk)
{
	if (chunk <= r->walked)
		return;
	r->walked = chunk;
	if (r->marks && r->n_marks < CHECKPOINTS_MAX &&
	    (!r->n_marks || chunk - r->marks[r->n_marks - 1] >= GLIBC_HEAP_WINDOW))
		r->marks[r->n_marks++] = chunk;
}

/* Is the chunk at c (size bytes) in use: the next one says so (PREV_INUSE),
 * and its own flags fit its arena. */
static bool in_use(struct glibc_heap *h, const struct region *r, uint64_t c, uint64_t head)
{
	uint64_t size = head & ~FLAG_BITS, next;

	if (r->arena == GLIBC_HEAP_MMAPPED)
		return (head & FLAG_BITS) == IS_MMAPPED;
	if (head & IS_MMAPPED)
		return false;
	if (!!(head & NON_MAIN_ARENA) != (r->arena == GLIBC_HEAP_THREAD))
		return false;
	if (c + size + CHUNK_HDR > r->end)
		return false;     /* the last chunk: the top, free */
	return fetch_u64(h, c + size + SIZE_SZ, r->end, GLIBC_HEAP_WINDOW, &next) &&
	       (next & PREV_INUSE);
}

static bool walk_to(struct glibc_heap *h, struct region *r, uint64_t addr,
		    struct glibc_heap_block *out)
{
	uint64_t c = walk_start(r, addr), head, size, usable;

	while (c + CHUNK_HDR <= r->end) {
		if (h->lookup_chunks++ >= GLIBC_HEAP_CHUNKS_MAX ||
		    !fetch_u64(h, c + SIZE_SZ, r->end, GLIBC_HEAP_WINDOW, &head))
			return false;
		h->st.chunks++;
		size = head & ~FLAG_BITS;
		if (!sane_size(c, size, r->end) ||
		    (r->arena == GLIBC_HEAP_MMAPPED && ((head & FLAG_BITS) != IS_MMAPPED || size % PAGE)))
			return false;
		/* the block spans into the next chunk's prev_size field */
		usable = size - (r->arena == GLIBC_HEAP_MMAPPED ? CHUNK_HDR : SIZE_SZ);
		if (addr < c + CHUNK_HDR)
			return false;     /* in a header: no block's */
		if (addr < c + CHUNK_HDR + usable) {
			if (!in_use(h, r, c, head))
				return false;
			out->start = c + CHUNK_HDR;
			out->usable = usable;
			out->arena = r->arena;
			return true;
		}
		note_mark(r, c);
		c += size;        /* size >= 32: always forward */
	}
	return false;
}

bool glibc_heap_find(struct glibc_heap *h, uint64_t addr, struct glibc_heap_block *out)
{
	double t0 = monotonic_s();
	struct region *r;
	bool found = false;

	h->st.lookups++;
	h->lookup_read = h->lookup_chunks = 0;
	if (h->recorded) {
		found = recorded_find(h, addr, out);
	} else {
		r = region_of(h, addr);
		if (r && addr >= r->first && addr < r->end)
			found = walk_to(h, r, addr, out);
	}
	/* whatever the walk read, the answer must hold the address */
	if (found && (out->start > addr || addr - out->start >= out->usable || !out->usable))
		found = false;
	if (found) {
		h->st.found++;
		note_found(h, out);
	}
	h->st.seconds += monotonic_s() - t0;
	return found;
}
