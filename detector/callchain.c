/* callchain.c - call chains interned to small ids.
 *
 * The addresses of all chains live end to end in one array; a chain is an
 * (offset, length) in it, and its id is its index + 1.  A hash map of ids
 * (common/hashmap.h) finds an existing chain by content.
 */
#include "detector/callchain.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/util.h"

struct chain {
	uint64_t hash;
	size_t start;           /* in pcs[] */
	unsigned len;
};

struct callchains {
	uint64_t *pcs;
	size_t n_pcs, alloc_pcs;
	struct chain *chains;   /* chains[id - 1] */
	size_t n_chains, alloc_chains;
	struct hashmap ids;     /* id as a value, by chain_hash() */
	uint64_t refused;
};

struct callchains *callchains_new(void)
{
	struct callchains *c = xcalloc(1, sizeof(*c));

	hashmap_init(&c->ids, 0);
	return c;
}

void callchains_free(struct callchains *c)
{
	if (!c)
		return;
	free(c->pcs);
	free(c->chains);
	hashmap_release(&c->ids, NULL);
	free(c);
}

static uint64_t chain_hash(const uint64_t *pcs, unsigned n)
{
	uint64_t h = hash_u64(n);

	for (unsigned i = 0; i < n; i++)
		h = hash_u64(h ^ pcs[i]);
	return h;
}

static bool chain_is(const struct callchains *c, const struct chain *ch,
		     uint64_t hash, const uint64_t *pcs, unsigned n)
{
	/* an empty chain may have no arrays at all: memcmp(NULL, ..., 0) is
	 * undefined too */
	return ch->hash == hash && ch->len == n &&
	       (!n || !memcmp(c->pcs + ch->start, pcs, n * sizeof(*pcs)));
}

/* The id of the chain pcs[0..n), whose hash is hash, or 0. */
static uint32_t find_chain(const struct callchains *c, uint64_t hash,
			   const uint64_t *pcs, unsigned n)
{
	size_t pos;

	for (void *v = hashmap_first_of(&c->ids, hash, &pos); v;
	     v = hashmap_next_of(&c->ids, hash, &pos)) {
		uint32_t id = (uint32_t)(uintptr_t)v;

		if (chain_is(c, &c->chains[id - 1], hash, pcs, n))
			return id;
	}
	return 0;
}

uint32_t callchain_intern(struct callchains *c, const uint64_t *pcs, unsigned n)
{
	uint64_t hash;
	uint32_t id;
	struct chain *ch;

	if (n > CALLCHAIN_MAX_DEPTH)
		n = CALLCHAIN_MAX_DEPTH;
	if (!n)
		return 0;
	hash = chain_hash(pcs, n);
	id = find_chain(c, hash, pcs, n);
	if (id)
		return id;
	if (c->n_chains >= CALLCHAIN_MAX_CHAINS) {
		c->refused++;
		return 0;
	}
	ALLOC_GROW(c->pcs, c->n_pcs + n, c->alloc_pcs);
	copy_bytes(c->pcs + c->n_pcs, pcs, n * sizeof(*pcs));
	ALLOC_GROW(c->chains, c->n_chains + 1, c->alloc_chains);
	ch = &c->chains[c->n_chains++];
	ch->hash = hash;
	ch->start = c->n_pcs;
	ch->len = n;
	c->n_pcs += n;
	id = (uint32_t)c->n_chains;
	hashmap_add(&c->ids, hash, (void *)(uintptr_t)id);   /* ids start at 1: never NULL */
	return id;
}

const uint64_t *callchain_get(const struct callchains *c, uint32_t id, unsigned *n)
{
	const struct chain *ch;

	*n = 0;
	if (!c || !id || id > c->n_chains)
		return NULL;
	ch = &c->chains[id - 1];
	*n = ch->len;
	return c->pcs + ch->start;
}

size_t callchains_count(const struct callchains *c)
{
	return c->n_chains;
}

uint64_t callchains_refused(const struct callchains *c)
{
	return c->refused;
}
