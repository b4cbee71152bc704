/* heap_walk.c - attach's heap blocks, opened and accounted for (heap_walk.h). */
#include "engine/heap_walk.h"

#include <inttypes.h>
#include <stdio.h>

#include "detector/glibc_heap.h"

struct glibc_heap *heap_walk_open(const struct options *opt, pid_t pid)
{
	if (pid <= 0 || !opt->alloc_sites)
		return NULL;
	return glibc_heap_open(pid);
}

void heap_walk_done(struct glibc_heap *heap, bool quiet)
{
	struct glibc_heap_stats st;

	if (!heap)
		return;
	glibc_heap_stats(heap, &st);
	if (!quiet && st.lookups)
		fprintf(stderr, "contend: heap blocks: %" PRIu64 " of %" PRIu64 " addresses found "
			"in the target's glibc heap, %.1f ms, %" PRIu64 " KiB read%s\n",
			st.found, st.lookups, st.seconds * 1e3, st.bytes_read >> 10,
			st.refused ? " (some memory could not be read)" : "");
	glibc_heap_free(heap);
}
