/* hashmap.h - the one hash table every other table is built on.
 *
 * Open addressing, linear probing, kept under half full, in two forms:
 * the map (struct hashmap), which owns its slots and grows itself, and the
 * compact index (struct hash_index, below) for an index that must live in
 * the caller's memory.  The map:  Each
 * slot holds the key's 64-bit hash and a non-NULL value pointer; a map
 * made with key_size > 0 also keeps a copy of each fixed-size key (compared
 * with memcmp: zero a key's padding before use), and one made with
 * key_size 0 leaves the key to the caller, who matches it through the
 * value (hashmap_lookup's match).  Integer values go in as
 * (void *)(uintptr_t)(n + 1).  Pointers returned stay valid until the next
 * insertion; values are never freed unless a free function is given.
 */
#ifndef CONTEND_HASHMAP_H
#define CONTEND_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t hash;
	void *val;                    /* NULL: an empty slot */
};

struct hashmap {
	struct hashmap_slot *slots;
	unsigned char *keys;          /* cap * key_size bytes, or NULL */
	size_t key_size, used, cap;   /* cap: 0 or a power of two */
};

#define HASHMAP_INIT(key_size) { NULL, NULL, (key_size), 0, 0 }
void hashmap_init(struct hashmap *m, size_t key_size);

/* Fixed-size keys (key_size > 0). */
void *hashmap_get(const struct hashmap *m, const void *key);
/* Sets key's value (non-NULL), replacing any; returns the old one or NULL. */
void *hashmap_put(struct hashmap *m, const void *key, void *val);

/* Fixed-size keys: takes key out; returns its value, or NULL if absent. */
void *hashmap_remove(struct hashmap *m, const void *key);

/* Caller-matched keys (key_size 0): the value whose match(val, key) is
 * true among those added with this hash, or NULL. */
typedef bool hashmap_match_fn(const void *val, const void *key);
void *hashmap_lookup(const struct hashmap *m, uint64_t hash,
		     hashmap_match_fn *match, const void *key);
/* Adds val under hash; the caller knows no equal key is there. */
void hashmap_add(struct hashmap *m, uint64_t hash, void *val);

/* The values added under hash, one by one, for hot loops that match keys
 * in line rather than through a call per candidate:
 *	for (v = hashmap_first_of(m, hash, &pos); v; v = hashmap_next_of(m, hash, &pos))
 * pos is the walk's state; the map must not change during the walk. */
static inline void *hashmap_walk_(const struct hashmap *m, uint64_t hash, size_t i,
				  size_t *pos)
{
	size_t mask = m->cap - 1;

	/* under half full: an empty slot ends every walk */
	for (; m->slots[i].val; i = (i + 1) & mask) {
		if (m->slots[i].hash == hash) {
			*pos = (i + 1) & mask;
			return m->slots[i].val;
		}
	}
	return NULL;
}

static inline void *hashmap_first_of(const struct hashmap *m, uint64_t hash, size_t *pos)
{
	return m->cap ? hashmap_walk_(m, hash, hash & (m->cap - 1), pos) : NULL;
}

static inline void *hashmap_next_of(const struct hashmap *m, uint64_t hash, size_t *pos)
{
	return hashmap_walk_(m, hash, *pos, pos);
}

/* Visits every entry: start with *pos = 0; key is NULL for key_size 0. */
bool hashmap_next(const struct hashmap *m, size_t *pos, const void **key, void **val);
static inline size_t hashmap_count(const struct hashmap *m) { return m->used; }

/* Empties the map, calling free_val (may be NULL) on every value; clear
 * keeps the storage, release frees it. */
void hashmap_clear(struct hashmap *m, void (*free_val)(void *));
void hashmap_release(struct hashmap *m, void (*free_val)(void *));

/*
 * The compact form, for an index that sits beside the caller's own array
 * (detector/line_table.c keeps one per cache line, in the block of the
 * line's cells): up to 2^30 items numbered 0.., in 32-bit entries the
 * caller allocates, a power of two of them, at least twice the items it
 * will hold so that probes stay short.  An entry is 0 when empty, else
 * (item + 1) under the mask and the high half of the key's hash above it,
 * so a probe past another key rarely has to read that key's item.  The
 * caller matches keys through its items, as with key_size 0 above:
 *	for (hash_index_start(x, hash, &pos); hash_index_next(x, hash, &pos, &item);)
 *		if (equal(&items[item], key)) ...
 * It holds no memory of its own: to grow, allocate more entries, clear
 * them with hash_index_init() and add every item again.
 */
struct hash_index {
	uint32_t *entries;
	uint32_t mask;                /* number of entries - 1 */
};

#define HASH_INDEX_MAX_ITEMS (1U << 30)

/* entries: n_entries (a power of two) of the caller's, cleared here. */
void hash_index_init(struct hash_index *x, uint32_t *entries, size_t n_entries);

/* Adds item under hash; the caller knows it is not there and that the
 * index has room (items < half the entries). */
static inline void hash_index_add(struct hash_index *x, uint64_t hash, uint32_t item)
{
	size_t i = hash & x->mask;

	while (x->entries[i])
		i = (i + 1) & x->mask;
	x->entries[i] = ((uint32_t)(hash >> 32) & ~x->mask) | (item + 1);
}

static inline void hash_index_start(const struct hash_index *x, uint64_t hash, size_t *pos)
{
	*pos = hash & x->mask;
}

/* The next item whose entry carries hash's tag, false at the walk's end. */
static inline bool hash_index_next(const struct hash_index *x, uint64_t hash,
				   size_t *pos, uint32_t *item)
{
	uint32_t tag = (uint32_t)(hash >> 32) & ~x->mask;

	/* at most half full: an empty entry ends every walk */
	for (size_t i = *pos; x->entries[i]; i = (i + 1) & x->mask) {
		if ((x->entries[i] & ~x->mask) == tag) {
			*pos = (i + 1) & x->mask;
			*item = (x->entries[i] & x->mask) - 1;
			return true;
		}
	}
	return false;
}

uint64_t hash_bytes(const void *p, size_t n);
uint64_t hash_str(const char *s);

/* Interned strings: one copy of each, freed with the set. */
struct strset {
	struct hashmap map;
};
#define STRSET_INIT { HASHMAP_INIT(0) }
const char *strset_intern(struct strset *set, const char *s);  /* copies s */
const char *strset_own(struct strset *set, char *s);           /* takes malloc'd s */
bool strset_has(const struct strset *set, const char *s);
void strset_release(struct strset *set);

#endif
