/* hashmap.h - the one hash table every other table is built on.
 *
 * Open addressing, linear probing, grown to stay under half full.  Each
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
