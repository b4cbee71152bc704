/* overlap.c - did the target's threads run at the same time (overlap.h). */
#include "detector/overlap.h"

#include <string.h>

void overlap_init(struct overlap *o, uint64_t bucket_ns)
{
	memset(o, 0, sizeof(*o));
	o->bucket_ns = bucket_ns ? bucket_ns : 1;
}

void overlap_note(struct overlap *o, uint64_t time_ns, uint32_t tid)
{
	uint64_t b = time_ns / o->bucket_ns;

	if (!tid)
		return;
	if (o->tid && b > o->bucket) {   /* close the current bucket */
		o->active++;
		o->shared += o->multi;
		o->tid = 0;
		o->multi = 0;
	}
	if (!o->tid) {
		o->tid = tid;
		o->bucket = b > o->bucket ? b : o->bucket;
	} else if (tid != o->tid) {
		o->multi = 1;
	}
}

double overlap_share(const struct overlap *o)
{
	uint64_t active = o->active + (o->tid != 0);
	uint64_t shared = o->shared + (o->tid != 0 && o->multi);

	if (active < OVERLAP_MIN_BUCKETS)
		return -1;
	return (double)shared / (double)active;
}

bool machine_busy(double overlap, double cpu_pressure)
{
	return overlap >= 0 && overlap < OVERLAP_BUSY && cpu_pressure >= PRESSURE_BUSY;
}

double overlap_scale(double overlap)
{
	double f = overlap / OVERLAP_FULL;

	return f > 1 ? 1 : f < 0.1 ? 0.1 : f;
}
