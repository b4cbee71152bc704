/* alloc_channel.h - the pipe from the allocation shim in a `run` target.
 *
 * alloc_channel_open() finds libcontend-alloc.so (CONTEND_ALLOC_LIB, else
 * beside the contend binary -- the build tree --, else PKGLIBEXECDIR) and
 * makes the pipe; alloc_channel_export() puts the shim in the LD_PRELOAD
 * of the environment built for the child about to be forked (common/env.h:
 * contend's own is never edited) and the pipe's write end in its
 * CONTEND_ALLOC_FD; alloc_channel_child_started() closes our copy of the
 * write end once the child has it, so that the pipe ends when the target
 * and its children have exited.  alloc_channel_drain() moves what has
 * arrived into the table, never blocking.  The channel also publishes the
 * shim's time, from open to close (detector/alloc_tick.h), named in the
 * child's ALLOC_TICK_ENV.
 */
#ifndef CONTEND_ALLOC_CHANNEL_H
#define CONTEND_ALLOC_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

struct alloc_table;
struct line_table;
struct alloc_channel;
struct env;

/* NULL, with a warning saying why, when the shim cannot be used. */
struct alloc_channel *alloc_channel_open(void);
void alloc_channel_export(const struct alloc_channel *ch, struct env *child);
void alloc_channel_child_started(struct alloc_channel *ch);
void alloc_channel_drain(struct alloc_channel *ch, struct alloc_table *t,
			 struct line_table *lines);
/* Instead of a caller's wait of SECONDS: while the shim sends fast enough
 * to fill a quarter of its pipe between two waits (a malloc-heavy
 * program), the target would soon block on the full pipe, so drain it
 * through SECONDS, or until the pipe ends (every writer has exited: the
 * caller's wait would end then too), and return true; return false at
 * once, doing nothing, when the last wait did not bring that much or the
 * pipe has ended.  The first wait, before
 * anything is known, keeps up.  Drains come 2 ms apart at first, then as
 * often as the pipe fills by an eighth at the rate the last drain saw,
 * at most 20 ms apart. */
bool alloc_channel_keep_up(struct alloc_channel *ch, struct alloc_table *t,
			   struct line_table *lines, double seconds);
/* Bytes read so far (bench: what the channel carried). */
uint64_t alloc_channel_bytes(const struct alloc_channel *ch);
void alloc_channel_close(struct alloc_channel *ch);

#endif
