/* alloc_shim_pipe.h - the allocation shim's pipe to contend (alloc_shim.c).
 *
 * Part of libcontend-alloc.so, split from alloc_shim.c by job: the
 * wrappers and records there, the pipe they go down here.  Whatever
 * became of contend, a write here never harms the target: no SIGPIPE
 * reaches it, it never blocks on a full pipe, and a dead pipe turns the
 * shim into a pass-through.
 */
#ifndef CONTEND_ALLOC_SHIM_PIPE_H
#define CONTEND_ALLOC_SHIM_PIPE_H

#include <stdbool.h>
#include <stddef.h>

/* The pipe's write end, -1: report nothing (read on every call). */
extern int shim_channel;

/* Take fd as the channel if it is a pipe (remembered by device and inode:
 * a target that closes it and reuses the number gets nothing), and make
 * it non-blocking. */
void shim_pipe_open(int fd);
/* Send len bytes (under PIPE_BUF: one atomic write) if the channel is
 * still that pipe; drops the channel when contend is gone. */
void shim_pipe_send(const void *p, size_t len);
/* write(2) that cannot harm the target (above); false: the reader is gone. */
bool shim_write_quietly(int fd, const void *p, size_t len);

#endif
