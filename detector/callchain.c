/* callchain.c - call chains interned to small ids.
 *
 * The addresses of all chains live end to end in one array; a chain is an
 * (offset, length) in it, and its id is its index + 1.  An open-addressing
 * hash of ids finds an existing chain by content.
 */
#include "detector/callchain.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t *slots;        /* ids, 0 if empty */
	size_t mask;
	uint64_t refused;
};

struct callchains *callchains_new(void)
{
	struct callchains *c = xcalloc(1, sizeof(*c));

	c->mask = 255;
	c->slots = xcalloc(c->mask + 1, sizeof(*c->slots));
	return c;
}

void callchains_free(struct callchains *c)
{
	if (!c)
		return;
	free(c->pcs);
	free(c->chains);
	free(c->slots);
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
	return ch->hash == hash && ch->len == n &&
	       !memcmp(c->pcs + ch->start, pcs, n * sizeof(*pcs));
}

/* The slot holding the chain, or the empty slot where it belongs. */
static uint32_t *chain_slot(struct callchains *c, uint64_t hash,
			    const uint64_t *pcs, unsigned n)
{
	size_t i = hash & c->mask;

	for (;; i = (i + 1) & c->mask) {
		uint32_t *slot = &c->slots[i];

		if (!*slot || chain_is(c, &c->chains[*slot - 1], hash, pcs, n))
			return slot;
	}
}

static void grow_slots(struct callchains *c)
{
	free(c->slots);
	c->mask = c->mask * 2 + 1;
	c->slots = xcalloc(c->mask + 1, sizeof(*c->slots));
	for (size_t id = 1; id <= c->n_chains; id++) {
		size_t i = c->chains[id - 1].hash & c->mask;

		while (c->slots[i])
			i = (i + 1) & c->mask;
		c->slots[i] = id;
	}
}

uint32_t callchain_intern(struct callchains *c, const uint64_t *pcs, unsigned n)
{
	uint64_t hash;
	uint32_t *slot;
	struct chain *ch;

	if (n > CALLCHAIN_MAX_DEPTH)
		n = CALLCHAIN_MAX_DEPTH;
	if (!n)
		return 0;
	hash = chain_hash(pcs, n);
	slot = chain_slot(c, hash, pcs, n);
	if (*slot)
		return *slot;
	if (c->n_chains >= CALLCHAIN_MAX_CHAINS) {
		c->refused++;
		return 0;
	}
	/* grown before passing 70% load */
	if ((c->n_chains + 1) * 10 > (c->mask + 1) * 7) {
		grow_slots(c);
		slot = chain_slot(c, hash, pcs, n);
	}
	ALLOC_GROW(c->pcs, c->n_pcs + n, c->alloc_pcs);
	memcpy(c->pcs + c->n_pcs, pcs, n * sizeof(*pcs));
	ALLOC_GROW(c->chains, c->n_chains + 1, c->alloc_chains);
	ch = &c->chains[c->n_chains++];
	ch->hash = hash;
	ch->start = c->n_pcs;
	ch->len = n;
	c->n_pcs += n;
	*slot = c->n_chains;
	return *slot;
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
