/* thread_names.h - tid -> command name (comm), as learnt from COMM records
 * or /proc.  Small linear table: reports name a handful of threads. */
#ifndef CONTEND_THREAD_NAMES_H
#define CONTEND_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct thread_name {
	uint32_t tid;
	char comm[16];
};

struct thread_names {
	struct thread_name *v;
	size_t n, alloc;
};

void thread_names_set(struct thread_names *t, uint32_t tid, const char *comm);
const char *thread_names_get(const struct thread_names *t, uint32_t tid);  /* NULL if unknown */
void thread_names_release(struct thread_names *t);

#endif
