/* shared_mem.c - the object and offset of an address in shared memory. */
#include "detector/shared_mem.h"

#include <sys/types.h>

#include "symbolize/symbolizer.h"

bool shared_mem_mapping(const struct mapping *m)
{
	/* A private file mapping copies on write: no other process sees
	 * those writes.  ino 0: an object we cannot name. */
	return m && m->obj.shared && m->obj.ino;
}

bool shared_mem_locate(struct symbolizer *sym, struct access_sample *a)
{
	const struct mapping *m = symbolizer_find_mapping(sym, (pid_t)a->pid, a->addr);

	if (!shared_mem_mapping(m)) {
		a->obj_dev = a->obj_ino = a->obj_off = 0;
		return false;
	}
	/* pgoff is in bytes here (MMAP2 and /proc/PID/maps both), and for
	 * MAP_SHARED|MAP_ANONYMOUS the kernel starts the object at 0 */
	a->obj_dev = m->obj.dev;
	a->obj_ino = m->obj.ino;
	a->obj_off = m->pgoff + (a->addr - m->start);
	return true;
}
