/* alloc_fix.h - the allocation shim's fix mode: blocks of chosen call
 * sites start a cache line and fill whole lines.
 *
 * `contend run --measure-fix` reruns its target with the shim preloaded
 * and ALLOC_FIX_ENV set to
 *
 *   "align=64 fd=701 site=DEV:INO:OFF [site=DEV:INO:OFF ...]"
 *
 * (numbers in hex but align and fd).  A site is an allocation call, named
 * by its return address as the file mapped there (device as makedev()
 * makes it, inode) and the offset in that file: the same in every run of
 * the same binary, wherever address randomization puts it.  The shim
 * parses the spec once, at its init, without allocating; finds each
 * site's address in its own /proc/self/maps (alloc_fix_map_line); then
 * allocates every block whose call returns there with aligned_alloc(align,
 * size rounded up to align): such blocks share no line with anything.  At
 * its exit it writes, as one uint64_t, how many blocks it placed so to
 * descriptor fd, when that is still the pipe it was at init.
 *
 * What this can fix: separate blocks of one site that share a line (each
 * thread's struct malloc'd on its own).  What it cannot: data inside one
 * block (an array of per-thread structs from one calloc keeps its
 * elements where they are).  Both sides are built from this file.
 */
#ifndef CONTEND_ALLOC_FIX_H
#define CONTEND_ALLOC_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOC_FIX_ENV "CONTEND_ALLOC_FIX"
#define ALLOC_FIX_SITES 8
#define ALLOC_FIX_ALIGN_MAX 4096

struct alloc_fix_site {
	uint64_t dev, ino;     /* the file the call is in */
	uint64_t off;          /* its return address, as an offset in that file */
	uint64_t addr;         /* that address in this process; 0: not mapped */
};

struct alloc_fix {
	unsigned align;        /* a power of 2, 16..ALLOC_FIX_ALIGN_MAX; 0: off */
	int report_fd;         /* where the count goes; -1: nowhere */
	unsigned n_sites;
	struct alloc_fix_site sites[ALLOC_FIX_SITES];
};

/* spec -> *f.  False, with f off (align 0), for anything malformed:
 * unknown keys, bad numbers, no site, too many.  No allocation. */
bool alloc_fix_parse(const char *spec, struct alloc_fix *f);

/* The spec of f (its sites' dev, ino, off; align; report_fd) into buf;
 * its length, or -1 when it does not fit. */
int alloc_fix_format(char *buf, size_t cap, const struct alloc_fix *f);

/* One line of /proc/PID/maps, len bytes (no newline needed): every site
 * in the executable mapping it describes gets its address. */
void alloc_fix_map_line(struct alloc_fix *f, const char *line, size_t len);

/* Is ret the return address of a site of f? */
static inline bool alloc_fix_match(const struct alloc_fix *f, uint64_t ret)
{
	for (unsigned i = 0; i < f->n_sites; i++)
		if (f->sites[i].addr == ret && ret)
			return true;
	return false;
}

/* size rounded up to a multiple of f->align, at least one align; 0 when
 * that overflows. */
size_t alloc_fix_size(const struct alloc_fix *f, size_t size);

#endif
