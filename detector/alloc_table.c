/* alloc_table.c - heap blocks by address, sites by call chain (alloc_table.h). */
#include "detector/alloc_table.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/sorted.h"
#include "common/util.h"
#include "detector/line_table.h"

/* A freed block this many lines long or more is kept without looking for
 * sampled lines in it: looking would cost a lookup per line. */
#define LINES_CHECKED 64

struct block_key {
	uint32_t pid, pad;
	uint64_t addr;
};

struct site_key {
	uint32_t pid, call;
	uint64_t frames[ALLOC_FRAMES];
};

/* the live index, sorted by address, built on the first lookup after a change */
struct index_entry {
	uint64_t addr;
	uint32_t block, pad;
};

struct alloc_table {
	struct alloc_block *blocks;       /* live ones; a free list threads the holes */
	size_t n_blocks, alloc_blocks;
	uint32_t *free_slots;
	size_t n_free, alloc_free;
	struct hashmap live;              /* block_key -> block index + 1 */
	struct alloc_block *kept;         /* freed, a sampled line in them: a ring */
	size_t n_kept, alloc_kept, next_kept;
	struct alloc_block recent[ALLOC_RECENT_MAX];   /* the latest frees: a ring */
	size_t n_recent, next_recent;
	struct alloc_site *sites;
	size_t n_sites, alloc_sites;
	struct hashmap site_ids;          /* site_key -> site index + 1 */
	struct hashmap owed;              /* block_key -> frees still to come of
	                                     blocks a newer one replaced */
	struct index_entry *index;
	size_t n_index, alloc_index;
	bool index_stale;
	uint64_t records, dropped;
};

static const char *const call_names[ALLOC__COUNT] = {
	[ALLOC_MALLOC] = "malloc",
	[ALLOC_CALLOC] = "calloc",
	[ALLOC_REALLOC] = "realloc",
	[ALLOC_ALIGNED_ALLOC] = "aligned_alloc",
	[ALLOC_POSIX_MEMALIGN] = "posix_memalign",
	[ALLOC_MEMALIGN] = "memalign",
	[ALLOC_NEW] = "operator new",
	[ALLOC_NEW_ARRAY] = "operator new[]",
	[ALLOC_FREE] = "free",
};

const char *alloc_call_name(uint32_t call)
{
	return call < ALLOC__COUNT && call_names[call] ? call_names[call] : "allocation";
}

struct alloc_table *alloc_table_new(void)
{
	struct alloc_table *t = xcalloc(1, sizeof(*t));

	hashmap_init(&t->live, sizeof(struct block_key));
	hashmap_init(&t->site_ids, sizeof(struct site_key));
	hashmap_init(&t->owed, sizeof(struct block_key));
	return t;
}

void alloc_table_free(struct alloc_table *t)
{
	if (!t)
		return;
	hashmap_release(&t->live, NULL);
	hashmap_release(&t->site_ids, NULL);
	hashmap_release(&t->owed, NULL);
	free(t->blocks);
	free(t->free_slots);
	free(t->kept);
	free(t->sites);
	free(t->index);
	free(t);
}

static uint32_t site_of(struct alloc_table *t, const struct alloc_record *r)
{
	struct site_key k;
	uintptr_t id;

	memset(&k, 0, sizeof(k));
	k.pid = r->pid;
	k.call = r->call;
	memcpy(k.frames, r->frames, sizeof(k.frames));
	id = (uintptr_t)hashmap_get(&t->site_ids, &k);
	if (!id) {
		struct alloc_site *s;

		ALLOC_GROW(t->sites, t->n_sites + 1, t->alloc_sites);
		s = &t->sites[t->n_sites++];
		memset(s, 0, sizeof(*s));
		s->pid = r->pid;
		s->call = r->call;
		memcpy(s->frames, r->frames, sizeof(s->frames));
		id = t->n_sites;
		hashmap_put(&t->site_ids, &k, (void *)id);
	}
	t->sites[id - 1].blocks++;
	return (uint32_t)(id - 1);
}

static bool sampled_in(struct line_table *lines, const struct alloc_block *b)
{
	unsigned size;
	uint64_t first, last;

	if (!lines)
		return false;
	size = line_table_line_size(lines);
	first = b->addr & ~(uint64_t)(size - 1);
	last = (b->addr + (b->size ? b->size : 1) - 1) & ~(uint64_t)(size - 1);
	if ((last - first) / size >= LINES_CHECKED)
		return true;
	for (uint64_t a = first; a <= last; a += size)
		if (line_table_find(lines, b->pid, a))
			return true;
	return false;
}

/* keep: a sampled line lies in it (else it goes to the recent frees) */
static void retire(struct alloc_table *t, const struct alloc_block *b, bool keep)
{
	struct alloc_block *slot;

	if (keep) {
		if (t->n_kept < ALLOC_KEPT_MAX) {
			ALLOC_GROW(t->kept, t->n_kept + 1, t->alloc_kept);
			slot = &t->kept[t->n_kept++];
		} else {
			slot = &t->kept[t->next_kept];
			t->next_kept = (t->next_kept + 1) % ALLOC_KEPT_MAX;
		}
	} else {
		slot = &t->recent[t->next_recent];
		t->next_recent = (t->next_recent + 1) % ALLOC_RECENT_MAX;
		if (t->n_recent < ALLOC_RECENT_MAX)
			t->n_recent++;
	}
	*slot = *b;
	slot->freed = true;
}

/* Takes the live block at k out; its slot goes on the free list. */
static void unlink_block(struct alloc_table *t, const struct block_key *k, uint32_t i)
{
	hashmap_remove(&t->live, k);
	ALLOC_GROW(t->free_slots, t->n_free + 1, t->alloc_free);
	t->free_slots[t->n_free++] = i;
	t->blocks[i].size = 0;
	t->blocks[i].addr = 0;
	t->index_stale = true;
}

/* A block replaced at its address before its free came: the free is on
 * its way (another thread's batch) or lost.  Lost ones would pile up: past
 * ALLOC_RECENT_MAX addresses they are forgotten. */
static void owe_free(struct alloc_table *t, const struct block_key *k)
{
	uintptr_t n = (uintptr_t)hashmap_get(&t->owed, k);

	if (!n && hashmap_count(&t->owed) >= ALLOC_RECENT_MAX) {
		hashmap_release(&t->owed, NULL);
		hashmap_init(&t->owed, sizeof(struct block_key));
	}
	hashmap_put(&t->owed, k, (void *)(n + 1));
}

/* Takes one owed free at k, if there is one. */
static bool pay_owed(struct alloc_table *t, const struct block_key *k)
{
	uintptr_t n = (uintptr_t)hashmap_get(&t->owed, k);

	if (!n)
		return false;
	if (n == 1)
		hashmap_remove(&t->owed, k);
	else
		hashmap_put(&t->owed, k, (void *)(n - 1));
	return true;
}

/* a happened before b for certain: more than the clock's slack before */
static bool surely_before(uint64_t a, uint64_t b)
{
	return a + ALLOC_TIME_SLACK < b;
}

/*
 * Which block a free is of.  Records of one thread come in its order;
 * of two threads, their times order them only when further apart than
 * ALLOC_TIME_SLACK (alloc_record.h).  Closer, a free of an address whose
 * block a newer one replaced (its free was owed) is taken as that older
 * block's, arriving late; else as the live block's.
 */
static void on_free(struct alloc_table *t, const struct alloc_record *r,
		    struct line_table *lines)
{
	struct block_key k = { .pid = r->pid, .addr = r->addr };
	uintptr_t id = (uintptr_t)hashmap_get(&t->live, &k);
	struct alloc_block *b;

	if (!id) {
		pay_owed(t, &k);
		return;         /* not seen, dropped, or allocated before we looked */
	}
	b = &t->blocks[id - 1];
	if (!surely_before(b->time, r->time) && pay_owed(t, &k))
		return;         /* the late free of the block this one replaced */
	if (surely_before(r->time, b->time))
		return;         /* of an older block we never saw */
	retire(t, b, sampled_in(lines, b));
	unlink_block(t, &k, (uint32_t)(id - 1));
}

static void on_alloc(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines)
{
	struct block_key k = { .pid = r->pid, .addr = r->addr };
	uintptr_t id = (uintptr_t)hashmap_get(&t->live, &k);
	struct alloc_block nb = {
		.addr = r->addr, .size = r->size, .arg = r->arg, .time = r->time,
		.pid = r->pid, .tid = r->tid, .call = r->call,
	};
	uint32_t i;

	if (id) {
		struct alloc_block *old = &t->blocks[id - 1];

		if (surely_before(r->time, old->time)) {
			/* this block's free came (and its successor) before it did */
			nb.site = site_of(t, r);
			retire(t, &nb, sampled_in(lines, &nb));
			return;
		}
		/* the old block's free is late or lost: it is gone all the same */
		owe_free(t, &k);
		retire(t, old, sampled_in(lines, old));
		unlink_block(t, &k, (uint32_t)(id - 1));
	}
	if (hashmap_count(&t->live) >= ALLOC_LIVE_MAX && r->size < ALLOC_LARGE) {
		t->dropped++;
		return;
	}
	nb.site = site_of(t, r);
	if (t->n_free) {
		i = t->free_slots[--t->n_free];
	} else {
		ALLOC_GROW(t->blocks, t->n_blocks + 1, t->alloc_blocks);
		i = (uint32_t)t->n_blocks++;
	}
	t->blocks[i] = nb;
	hashmap_put(&t->live, &k, (void *)(uintptr_t)(i + 1));
	t->index_stale = true;
}

void alloc_table_add(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines)
{
	t->records++;
	if (!r->addr || !r->call || r->call >= ALLOC__COUNT)
		return;
	if (r->flags & ALLOC_FLAG_FREED) {
		/* from a data file: freed, kept for its samples */
		struct alloc_block b = {
			.addr = r->addr, .size = r->size, .arg = r->arg, .time = r->time,
			.pid = r->pid, .tid = r->tid, .call = r->call, .site = site_of(t, r),
		};

		retire(t, &b, true);
		return;
	}
	if (r->call == ALLOC_FREE)
		on_free(t, r, lines);
	else
		on_alloc(t, r, lines);
}

static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void build_index(struct alloc_table *t)
{
	t->n_index = 0;
	for (size_t i = 0; i < t->n_blocks; i++) {
		if (!t->blocks[i].addr)
			continue;
		ALLOC_GROW(t->index, t->n_index + 1, t->alloc_index);
		t->index[t->n_index++] = (struct index_entry){ t->blocks[i].addr, (uint32_t)i, 0 };
	}
	sort_items(t->index, t->n_index, sizeof(*t->index), cmp_index);
	t->index_stale = false;
}

static bool holds(const struct alloc_block *b, uint32_t pid, uint64_t addr)
{
	return b->pid == pid && addr >= b->addr && addr < b->addr + (b->size ? b->size : 1);
}

/* The newest of a ring's blocks that holds addr. */
static const struct alloc_block *newest_in(const struct alloc_block *v, size_t n,
					   uint32_t pid, uint64_t addr)
{
	const struct alloc_block *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (holds(&v[i], pid, addr) && (!best || v[i].time > best->time))
			best = &v[i];
	return best;
}

const struct alloc_block *alloc_table_find(struct alloc_table *t, uint32_t pid, uint64_t addr)
{
	const struct alloc_block *b;
	size_t at;

	if (t->index_stale)
		build_index(t);
	at = FIRST_ABOVE(t->index, t->n_index, addr, addr);
	/* blocks of other processes (forks) may sit at the same addresses */
	for (size_t i = at, seen = 0; i-- > 0 && seen < 64; seen++) {
		b = &t->blocks[t->index[i].block];
		if (holds(b, pid, addr))
			return b;
	}
	b = newest_in(t->kept, t->n_kept, pid, addr);
	return b ? b : newest_in(t->recent, t->n_recent, pid, addr);
}

const struct alloc_site *alloc_table_site(const struct alloc_table *t, uint32_t id)
{
	return id < t->n_sites ? &t->sites[id] : NULL;
}

void alloc_table_stats(const struct alloc_table *t, struct alloc_stats *out)
{
	out->records = t->records;
	out->live = hashmap_count(&t->live);
	out->kept_freed = t->n_kept;
	out->dropped = t->dropped;
	out->sites = t->n_sites;
}

static void as_record(const struct alloc_table *t, const struct alloc_block *b,
		      struct alloc_record *out)
{
	const struct alloc_site *s = alloc_table_site(t, b->site);

	memset(out, 0, sizeof(*out));
	out->time = b->time;
	out->addr = b->addr;
	out->size = b->size;
	out->arg = b->arg;
	out->pid = b->pid;
	out->tid = b->tid;
	out->call = b->call;
	out->flags = b->freed ? ALLOC_FLAG_FREED : 0;
	if (s)
		memcpy(out->frames, s->frames, sizeof(out->frames));
}

bool alloc_table_next(const struct alloc_table *t, struct line_table *only_sampled,
		      size_t *pos, struct alloc_record *out)
{
	/* live blocks, then the kept; the recent frees are nobody's */
	for (; *pos < t->n_blocks + t->n_kept; (*pos)++) {
		const struct alloc_block *b = *pos < t->n_blocks ? &t->blocks[*pos] :
					      &t->kept[*pos - t->n_blocks];

		if (!b->addr || (only_sampled && !sampled_in(only_sampled, b)))
			continue;
		as_record(t, b, out);
		(*pos)++;
		return true;
	}
	return false;
}
