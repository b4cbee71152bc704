#include "common/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define MIN_CAP 16

void hashmap_init(struct hashmap *m, size_t key_size)
{
	memset(m, 0, sizeof(*m));
	m->key_size = key_size;
}

void hash_index_init(struct hash_index *x, uint32_t *entries, size_t n_entries)
{
	if (!n_entries || (n_entries & (n_entries - 1)) ||
	    n_entries / 2 > HASH_INDEX_MAX_ITEMS)
		die("hash index: %zu entries, want a power of two up to 2^31", n_entries);
	x->entries = entries;
	x->mask = (uint32_t)(n_entries - 1);
	memset(entries, 0, n_entries * sizeof(*entries));
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a, then mixed */

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return hash_u64(h);
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static const unsigned char *slot_key(const struct hashmap *m, size_t i)
{
	return m->keys + i * m->key_size;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_keyed(const struct hashmap *m, const void *key, uint64_t hash)
{
	size_t mask = m->cap - 1, i = hash & mask;

	while (m->slots[i].val &&
	       (m->slots[i].hash != hash || memcmp(slot_key(m, i), key, m->key_size)))
		i = (i + 1) & mask;
	return i;
}

static size_t free_slot(const struct hashmap *m, uint64_t hash)
{
	size_t mask = m->cap - 1, i = hash & mask;

	while (m->slots[i].val)
		i = (i + 1) & mask;
	return i;
}

static void grow(struct hashmap *m)
{
	struct hashmap old = *m;

	if (2 * (m->used + 1) <= m->cap)
		return;
	m->cap = old.cap ? 2 * old.cap : MIN_CAP;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	m->keys = m->key_size ? xcalloc(m->cap, m->key_size) : NULL;
	for (size_t i = 0; i < old.cap; i++) {
		size_t j;

		if (!old.slots[i].val)
			continue;
		j = free_slot(m, old.slots[i].hash);
		m->slots[j] = old.slots[i];
		if (m->key_size)
			memcpy(m->keys + j * m->key_size, slot_key(&old, i), m->key_size);
	}
	free(old.slots);
	free(old.keys);
}

void *hashmap_get(const struct hashmap *m, const void *key)
{
	if (!m->cap)
		return NULL;
	return m->slots[find_keyed(m, key, hash_bytes(key, m->key_size))].val;
}

void *hashmap_put(struct hashmap *m, const void *key, void *val)
{
	uint64_t hash = hash_bytes(key, m->key_size);
	void *old;
	size_t i;

	grow(m);
	i = find_keyed(m, key, hash);
	old = m->slots[i].val;
	if (!old) {
		m->used++;
		m->slots[i].hash = hash;
		memcpy(m->keys + i * m->key_size, key, m->key_size);
	}
	m->slots[i].val = val;
	return old;
}

/* Backward-shift deletion: every entry after the hole that could have
 * lived in it moves up, so no probe sequence is ever cut short. */
void *hashmap_remove(struct hashmap *m, const void *key)
{
	size_t mask = m->cap - 1, i, j;
	void *old;

	if (!m->cap)
		return NULL;
	i = find_keyed(m, key, hash_bytes(key, m->key_size));
	old = m->slots[i].val;
	if (!old)
		return NULL;
	for (j = (i + 1) & mask; m->slots[j].val; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;

		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		memcpy(m->keys + i * m->key_size, slot_key(m, j), m->key_size);
		i = j;
	}
	m->slots[i].val = NULL;
	m->used--;
	return old;
}

void *hashmap_lookup(const struct hashmap *m, uint64_t hash,
		     hashmap_match_fn *match, const void *key)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	for (size_t i = hash & mask; m->slots[i].val; i = (i + 1) & mask)
		if (m->slots[i].hash == hash && match(m->slots[i].val, key))
			return m->slots[i].val;
	return NULL;
}

void hashmap_add(struct hashmap *m, uint64_t hash, void *val)
{
	size_t i;

	grow(m);
	i = free_slot(m, hash);
	m->slots[i].hash = hash;
	m->slots[i].val = val;
	m->used++;
}

bool hashmap_next(const struct hashmap *m, size_t *pos, const void **key, void **val)
{
	for (; *pos < m->cap; (*pos)++) {
		size_t i = *pos;

		if (!m->slots[i].val)
			continue;
		if (key)
			*key = m->key_size ? slot_key(m, i) : NULL;
		if (val)
			*val = m->slots[i].val;
		(*pos)++;
		return true;
	}
	return false;
}

void hashmap_clear(struct hashmap *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].val && free_val)
			free_val(m->slots[i].val);
		m->slots[i].val = NULL;
	}
	m->used = 0;
}

void hashmap_release(struct hashmap *m, void (*free_val)(void *))
{
	hashmap_clear(m, free_val);
	free(m->slots);
	free(m->keys);
	hashmap_init(m, m->key_size);
}

static bool str_match(const void *val, const void *key)
{
	return !strcmp(val, key);
}

const char *strset_own(struct strset *set, char *s)
{
	uint64_t hash = hash_str(s);
	char *have = hashmap_lookup(&set->map, hash, str_match, s);

	if (have) {
		free(s);
		return have;
	}
	hashmap_add(&set->map, hash, s);
	return s;
}

const char *strset_intern(struct strset *set, const char *s)
{
	char *have = hashmap_lookup(&set->map, hash_str(s), str_match, s);

	return have ? have : strset_own(set, xstrdup(s));
}

bool strset_has(const struct strset *set, const char *s)
{
	return hashmap_lookup(&set->map, hash_str(s), str_match, s) != NULL;
}

void strset_release(struct strset *set)
{
	hashmap_release(&set->map, free);
}
