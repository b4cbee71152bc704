/* instances.h - pool the evidence of many instances of one structure.
 *
 * Programs keep one object per class, bucket or connection, and every
 * thread runs the same code over all of them: the JVM's Klass, a hash
 * table's per-bucket locks.  Each instance is its own cache line, and on
 * each the timer sees few stores (they retire into the store buffer), so
 * line by line the writers are often not seen at all.  Lines whose hottest
 * access is the same code site at the same line offset, touched by the
 * same threads, are instances of one structure used the same way: their
 * cells are summed into one synthetic line, classified and reported once.
 *
 * The thread set is part of the key on purpose: per-thread objects (one
 * instance per thread) must never be pooled, or threads writing the same
 * offset of *different* instances would look like true sharing.
 *
 * Concurrency is pooled by the best-evidenced instance.  A sample is
 * concurrent when another thread's sample fell on the same line within
 * the window, so the more instances share the threads' time, the less
 * concurrent each looks; the instance with the most concurrent samples
 * (the one watch confirmation counted exactly, when it did) shows how the
 * structure is used.  A cell of another instance counts as at least as
 * concurrent as that instance's cell of the same thread, offset and kind.
 */
#ifndef CONTEND_INSTANCES_H
#define CONTEND_INSTANCES_H

#include <stddef.h>
#include "detector/line_table.h"

struct instance_group {
	struct line **lines;      /* the instances, hottest first */
	unsigned n;
};

/* Group lines (each with >= 2 threads); singletons become groups of one.
 * Returns the number of groups; free with instance_groups_free(). */
size_t instance_groups(struct line **lines, size_t n, struct instance_group **out);
void instance_groups_free(struct instance_group *g, size_t n);

/* One line holding the summed cells and threads of the group (address,
 * pid of its hottest instance).  Free with instance_line_free(). */
struct line *instance_line(const struct instance_group *g);
void instance_line_free(struct line *l);

#endif
