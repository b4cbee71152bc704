#include "detector/thread_names.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"

void thread_names_set(struct thread_names *t, uint32_t tid, const char *comm)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (t->v[i].tid == tid)
			break;
	if (i == t->n) {
		ALLOC_GROW(t->v, t->n + 1, t->alloc);
		t->n++;
	}
	t->v[i].tid = tid;
	snprintf(t->v[i].comm, sizeof(t->v[i].comm), "%s", comm);
}

const char *thread_names_get(const struct thread_names *t, uint32_t tid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].tid == tid)
			return t->v[i].comm;
	return NULL;
}

void thread_names_release(struct thread_names *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->alloc = 0;
}
