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

/*
 * Blocks by (pid, address), for the live blocks and for the frees owed:
 * open addressing, linear probing, under half full, each slot holding its
 * key, hashed from two words.  Every record the shim sends is a lookup
 * here, so one record is one probe (find the slot, then fill or empty that
 * very slot), not common/hashmap's bytewise hash, key compare and second
 * probe to insert or remove (bench/alloc-overhead.sh: contend's CPU).
 */
struct addr_slot {
	uint64_t addr;                    /* 0: empty (no record has address 0) */
	uint32_t pid;
	uint32_t val;                     /* block index + 1, or a count; never 0 */
};

struct addr_map {
	struct addr_slot *slots;
	size_t cap, used;                 /* cap: 0 or a power of two */
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
	struct addr_map live;             /* -> block index + 1 */
	struct alloc_block *kept;         /* freed, a sampled line in them: a ring */
	size_t n_kept, alloc_kept, next_kept;
	struct alloc_block recent[ALLOC_RECENT_MAX];   /* the latest frees: a ring */
	size_t n_recent, next_recent;
	struct alloc_site *sites;
	size_t n_sites, alloc_sites;
	struct hashmap site_ids;          /* site_hash() -> site index + 1, keys in sites */
	struct addr_map owed;             /* -> frees still to come of blocks a
	                                     newer one replaced */
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

	hashmap_init(&t->site_ids, 0);
	return t;
}

void alloc_table_free(struct alloc_table *t)
{
	if (!t)
		return;
	free(t->live.slots);
	hashmap_release(&t->site_ids, NULL);
	free(t->owed.slots);
	free(t->blocks);
	free(t->free_slots);
	free(t->kept);
	free(t->sites);
	free(t->index);
	free(t);
}

static size_t addr_home(const struct addr_map *m, uint32_t pid, uint64_t addr)
{
	return (size_t)hash_u64(addr ^ ((uint64_t)pid << 48)) & (m->cap - 1);
}

/* The slot holding (pid, addr), or the empty one where it would go; cap > 0. */
static size_t addr_slot_of(const struct addr_map *m, uint32_t pid, uint64_t addr)
{
	size_t mask = m->cap - 1, i = addr_home(m, pid, addr);

	while (m->slots[i].addr && (m->slots[i].addr != addr || m->slots[i].pid != pid))
		i = (i + 1) & mask;
	return i;
}

/* The value at (pid, addr), or NULL. */
static uint32_t *addr_map_find(struct addr_map *m, uint32_t pid, uint64_t addr)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = addr_slot_of(m, pid, addr);
	return m->slots[i].addr ? &m->slots[i].val : NULL;
}

static void addr_map_grow(struct addr_map *m)
{
	struct addr_map old = *m;

	m->cap = old.cap ? 2 * old.cap : 1024;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].addr)
			m->slots[addr_slot_of(m, old.slots[i].pid, old.slots[i].addr)] = old.slots[i];
	free(old.slots);
}

/* The value at (pid, addr), 0 when it was not there (the caller sets it,
 * or takes the entry out again): valid until the map's next insert or
 * removal. */
static uint32_t *addr_map_insert(struct addr_map *m, uint32_t pid, uint64_t addr)
{
	size_t i;

	if (2 * (m->used + 1) > m->cap)
		addr_map_grow(m);
	i = addr_slot_of(m, pid, addr);
	if (!m->slots[i].addr) {
		m->slots[i] = (struct addr_slot){ .addr = addr, .pid = pid, .val = 0 };
		m->used++;
	}
	return &m->slots[i].val;
}

/* Takes out the entry whose value val (from find or insert) is.  Backward
 * shift: each entry after the hole that could live in it moves up, so
 * that no probe is cut short. */
static void addr_map_remove(struct addr_map *m, uint32_t *val)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)((struct addr_slot *)((char *)val - offsetof(struct addr_slot, val)) -
			    m->slots);

	for (size_t j = (i + 1) & mask; m->slots[j].addr; j = (j + 1) & mask) {
		size_t home = addr_home(m, m->slots[j].pid, m->slots[j].addr);

		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].addr = 0;
	m->used--;
}

static void addr_map_clear(struct addr_map *m)
{
	if (m->cap)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->used = 0;
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

/* The live block in slot i is gone: its slot goes on the free list (its
 * entry in the live map is the caller's to take out or reuse). */
static void release_block(struct alloc_table *t, uint32_t i)
{
	ALLOC_GROW(t->free_slots, t->n_free + 1, t->alloc_free);
	t->free_slots[t->n_free++] = i;
	t->blocks[i].size = 0;
	t->blocks[i].addr = 0;
	t->index_stale = true;
}

/* A block replaced at its address before its free came: the free is on
 * its way (another thread's batch) or lost.  Lost ones would pile up: past
 * ALLOC_RECENT_MAX addresses they are forgotten. */
static void owe_free(struct alloc_table *t, uint32_t pid, uint64_t addr)
{
	if (t->owed.used >= ALLOC_RECENT_MAX && !addr_map_find(&t->owed, pid, addr))
		addr_map_clear(&t->owed);
	(*addr_map_insert(&t->owed, pid, addr))++;
}

/* Takes one owed free at (pid, addr), if there is one. */
static bool pay_owed(struct alloc_table *t, uint32_t pid, uint64_t addr)
{
	uint32_t *n = addr_map_find(&t->owed, pid, addr);

	if (!n)
		return false;
	if (*n == 1)
		addr_map_remove(&t->owed, n);
	else
		(*n)--;
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
	uint32_t *id = addr_map_find(&t->live, r->pid, r->addr);
	struct alloc_block *b;

	if (!id) {
		pay_owed(t, r->pid, r->addr);
		return;         /* not seen, dropped, or allocated before we looked */
	}
	b = &t->blocks[*id - 1];
	if (!surely_before(b->time, r->time) && pay_owed(t, r->pid, r->addr))
		return;         /* the late free of the block this one replaced */
	if (surely_before(r->time, b->time))
		return;         /* of an older block we never saw */
	retire(t, b, sampled_in(lines, b));
	release_block(t, *id - 1);
	addr_map_remove(&t->live, id);
}

static void on_alloc(struct alloc_table *t, const struct alloc_record *r,
		     struct line_table *lines)
{
	uint32_t *id = addr_map_insert(&t->live, r->pid, r->addr);
	struct alloc_block nb = {
		.addr = r->addr, .size = r->size, .arg = r->arg, .time = r->time,
		.pid = r->pid, .tid = r->tid, .call = r->call,
	};
	uint32_t i;

	if (*id) {
		struct alloc_block *old = &t->blocks[*id - 1];

		if (surely_before(r->time, old->time)) {
			/* this block's free came (and its successor) before it did */
			nb.site = site_of(t, r);
			retire(t, &nb, sampled_in(lines, &nb));
			return;
		}
		/* the old block's free is late or lost: it is gone all the same */
		owe_free(t, r->pid, r->addr);
		retire(t, old, sampled_in(lines, old));
		release_block(t, *id - 1);
		*id = 0;
	}
	/* the live blocks but this new entry */
	if (t->live.used - 1 >= ALLOC_LIVE_MAX && r->size < ALLOC_LARGE) {
		t->dropped++;
		addr_map_remove(&t->live, id);
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
	*id = i + 1;
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
	out->live = t->live.used;
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
