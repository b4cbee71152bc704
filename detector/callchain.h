/* callchain.h - call chains interned to small ids.
 *
 * An access sample carries the id of its call chain (sample.h), not the
 * chain: the line table keeps a few ids per cell, and the report turns
 * them back into frames.  A chain is the code addresses of the callers of
 * the sampled code, innermost first; equal chains get equal ids.  Memory
 * grows with distinct chains, up to CALLCHAIN_MAX_CHAINS of them: past
 * that, a new chain gets id 0, "no chain", like an empty one.
 */
#ifndef CONTEND_CALLCHAIN_H
#define CONTEND_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>

#define CALLCHAIN_MAX_DEPTH 64        /* frames kept per chain */
#define CALLCHAIN_MAX_CHAINS 100000

struct callchains;

struct callchains *callchains_new(void);
void callchains_free(struct callchains *c);

/* The id of the chain pcs[0..n), at most CALLCHAIN_MAX_DEPTH of them
 * counted; 0 for an empty chain or a full table. */
uint32_t callchain_intern(struct callchains *c, const uint64_t *pcs, unsigned n);

/* The addresses of chain id, and their number in *n; NULL for id 0 or an
 * id never handed out.  Valid until the next callchain_intern(). */
const uint64_t *callchain_get(const struct callchains *c, uint32_t id, unsigned *n);

size_t callchains_count(const struct callchains *c);   /* distinct chains */
uint64_t callchains_refused(const struct callchains *c); /* interns past the cap */

#endif
