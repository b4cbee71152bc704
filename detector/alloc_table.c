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
	struct alloc_block *blocks;       /* live ones, and holes (address 0) */
	struct block_key *keys;           /* the address each slot of blocks is bound to */
	size_t n_blocks, alloc_blocks, alloc_keys;
	/* (pid, address) -> index + 1 of the slot of blocks bound to it:
	 * common/hashmap keyless under block_hash(), matched through keys.
	 * A slot stays bound to its address after its block is freed, for
	 * the next block there (malloc hands the same addresses out again
	 * and again); bound slots without a block are swept out by
	 * compact().  A record costs one hash of two words and one walk,
	 * not a bytewise hash and a key compare per probe, twice
	 * (bench/alloc-overhead.sh: contend's CPU). */
	struct hashmap live;
	size_t n_live;                    /* blocks live (more slots may be bound) */
	struct alloc_block *kept;         /* freed, a sampled line in them: a ring */
	size_t n_kept, alloc_kept, next_kept;
	struct alloc_block recent[ALLOC_RECENT_MAX];   /* the latest frees: a ring */
	size_t n_recent, next_recent;
	struct alloc_site *sites;
	size_t n_sites, alloc_sites;
	struct hashmap site_ids;          /* site_hash() -> site index + 1, keys in sites */
	struct hashmap owed;              /* block_key -> frees still to come of
	                                     blocks a newer one replaced */
	struct index_entry *index;
	size_t n_index, alloc_index;
	bool index_stale;
	uint64_t records, dropped, traps;
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

	hashmap_init(&t->live, 0);
	hashmap_init(&t->site_ids, 0);
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
	free(t->keys);
	free(t->kept);
	free(t->sites);
	free(t->index);
	free(t);
}

static uint64_t block_hash(uint32_t pid, uint64_t addr)
{
	return hash_u64(addr ^ ((uint64_t)pid << 48));
}

/* The slot bound to (pid, addr): its index + 1, or 0.  Its block is
 * live when its address is not 0. */
static uint32_t slot_of(const struct alloc_table *t, uint64_t hash, uint32_t pid,
			uint64_t addr)
{
	size_t pos;

	for (void *v = hashmap_first_of(&t->live, hash, &pos); v;
	     v = hashmap_next_of(&t->live, hash, &pos)) {
		const struct block_key *k = &t->keys[(uintptr_t)v - 1];

		if (k->addr == addr && k->pid == pid)
			return (uint32_t)(uintptr_t)v;
	}
	return 0;
}

/* Once the slots outnumber the live blocks four times over, the holes go
 * and the map is made again (its storage kept): a cost of a few slots a
 * record, and memory bounded by the live blocks. */
static void compact(struct alloc_table *t)
{
	size_t n = 0;

	if (t->n_blocks < 4 * t->n_live + 4096)
		return;
	hashmap_clear(&t->live, NULL);
	for (size_t i = 0; i < t->n_blocks; i++) {
		if (!t->blocks[i].addr)
			continue;
		t->blocks[n] = t->blocks[i];
		t->keys[n] = t->keys[i];
		n++;
		hashmap_add(&t->live, block_hash(t->keys[n - 1].pid, t->keys[n - 1].addr),
			    (void *)(uintptr_t)n);
	}
	t->n_blocks = n;
	t->index_stale = true;
}

/* A hash of the site's words, not of its bytes one by one. */
static uint64_t site_hash(const struct site_key *k)
{
	uint64_t h = hash_u64((uint64_t)k->pid << 32 | k->call);

	for (int i = 0; i < ALLOC_FRAMES; i++)
		h = hash_u64(h ^ k->frames[i]);
	return h;
}

static bool same_site(const struct alloc_site *s, const struct site_key *k)
{
	return s->pid == k->pid && s->call == k->call &&
	       !memcmp(s->frames, k->frames, sizeof(s->frames));
}

static uint32_t site_of(struct alloc_table *t, const struct alloc_record *r)
{
	struct site_key k;
	uint64_t hash;
	uintptr_t id;
	size_t pos;

	k.pid = r->pid;
	k.call = r->call;
	memcpy(k.frames, r->frames, sizeof(k.frames));
	hash = site_hash(&k);
	for (id = (uintptr_t)hashmap_first_of(&t->site_ids, hash, &pos); id;
	     id = (uintptr_t)hashmap_next_of(&t->site_ids, hash, &pos))
		if (same_site(&t->sites[id - 1], &k))
			break;
	if (!id) {
		struct alloc_site *s;

		ALLOC_GROW(t->sites, t->n_sites + 1, t->alloc_sites);
		s = &t->sites[t->n_sites++];
		memset(s, 0, sizeof(*s));
		s->pid = r->pid;
		s->call = r->call;
		memcpy(s->frames, r->frames, sizeof(s->frames));
		id = t->n_sites;
		hashmap_add(&t->site_ids, hash, (void *)id);
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

/* The live block in slot i is gone; the slot stays bound to its address. */
static void release_block(struct alloc_table *t, uint32_t i)
{
	t->blocks[i].size = 0;
	t->blocks[i].addr = 0;
	t->n_live--;
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

/* Takes one owed free at (pid, addr), if there is one (mostly none is
 * owed at all: no hash then). */
static bool pay_owed(struct alloc_table *t, uint32_t pid, uint64_t addr)
{
	struct block_key k = { .pid = pid, .addr = addr };
	uintptr_t n;

	if (!hashmap_count(&t->owed))
		return false;
	n = (uintptr_t)hashmap_get(&t->owed, &k);
	if (!n)
		return false;
	if (n == 1)
		hashmap_remove(&t->owed, &k);
	else
		hashmap_put(&t->owed, &k, (void *)(n - 1));
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
	uint32_t id = slot_of(t, block_hash(r->pid, r->addr), r->pid, r->addr);
	struct alloc_block *b;

	if (!id || !t->blocks[id - 1].addr) {
		pay_owed(t, r->pid, r->addr);
		return;         /* not seen, dropped, or allocated before we looked */
	}
	b = &t->blocks[id - 1];
	if (!surely_before(b->time, r->time) && pay_owed(t, r->pid, r->addr))
		return;         /* the late free of the block this one replaced */
	if (surely_before(r->time, b->time))
		return;         /* of an older block we never saw */
	retire(t, b, sampled_in(lines, b));
	release_block(t, id - 1);
}

static void on_alloc(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines)
{
	uint64_t hash = block_hash(r->pid, r->addr);
	uint32_t id = slot_of(t, hash, r->pid, r->addr);
	struct alloc_block nb = {
		.addr = r->addr, .size = r->size, .arg = r->arg, .time = r->time,
		.pid = r->pid, .tid = r->tid, .call = r->call,
	};
	uint32_t i;

	if (id && t->blocks[id - 1].addr) {
		struct alloc_block *old = &t->blocks[id - 1];
		struct block_key k = { .pid = r->pid, .addr = r->addr };

		if (surely_before(r->time, old->time)) {
			/* this block's free came (and its successor) before it did */
			nb.site = site_of(t, r);
			retire(t, &nb, sampled_in(lines, &nb));
			return;
		}
		/* the old block's free is late or lost: it is gone all the same */
		owe_free(t, &k);
		retire(t, old, sampled_in(lines, old));
		release_block(t, id - 1);
	}
	if (t->n_live >= ALLOC_LIVE_MAX && r->size < ALLOC_LARGE) {
		t->dropped++;
		return;
	}
	nb.site = site_of(t, r);
	if (id) {
		i = id - 1;     /* the slot this address had */
	} else {
		compact(t);
		ALLOC_GROW(t->blocks, t->n_blocks + 1, t->alloc_blocks);
		ALLOC_GROW(t->keys, t->n_blocks + 1, t->alloc_keys);
		i = (uint32_t)t->n_blocks++;
		t->keys[i] = (struct block_key){ .pid = r->pid, .addr = r->addr };
		hashmap_add(&t->live, hash, (void *)(uintptr_t)(i + 1));
	}
	t->blocks[i] = nb;
	t->n_live++;
	t->index_stale = true;
}

void alloc_table_add(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines)
{
	t->records++;
	if (r->call == ALLOC_TRAP)
		t->traps++;
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
	out->live = t->n_live;
	out->kept_freed = t->n_kept;
	out->dropped = t->dropped;
	out->sites = t->n_sites;
	out->traps = t->traps;
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
