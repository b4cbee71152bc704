/* shared_mem.h - memory that several processes map: one line, not one per pid.
 *
 * The line table keys a line by (pid, address): two processes writing one
 * line of a MAP_SHARED region would never meet there.  Before a sample
 * enters the table, shared_mem_locate() looks its data address up in the
 * process's mappings: when the mapping is MAP_SHARED and names an object
 * (a file, a /dev/shm object of shm_open, or the kernel's shmem object
 * behind MAP_SHARED|MAP_ANONYMOUS, which fork() hands to the child: same
 * device and inode in both processes' maps), the sample is given that
 * object, (device, inode), and the address's offset in it, and the line
 * table keys its line by them (line_table.h).  The sample keeps its own
 * pid and tid, so every access still says which process made it.
 */
#ifndef CONTEND_SHARED_MEM_H
#define CONTEND_SHARED_MEM_H

#include <stdbool.h>

#include "detector/sample.h"

struct symbolizer;
struct mapping;

/* The object and offset of a's data address if its mapping in a->pid is
 * shared (sets a->obj_*, returns true); else clears them. */
bool shared_mem_locate(struct symbolizer *sym, struct access_sample *a);
/* Is m memory other processes may share (MAP_SHARED, of a known object)? */
bool shared_mem_mapping(const struct mapping *m);

#endif
