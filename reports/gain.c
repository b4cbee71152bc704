#include "gain.h"

double gain_amdahl(double share, double residual)
{
	double rest;

	if (share <= 0)
		return 1;
	if (share > 1)
		share = 1;
	rest = 1 - share * (1 - residual);
	return rest > 0 ? 1 / rest : 1;
}

/* Samples of a range: an RMW sample counts as a read and a write. */
static uint64_t range_samples(const struct report_range *g)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < g->n_threads; i++) {
		const struct report_thread *t = &g->threads[i];
		n += t->reads > t->writes ? t->reads : t->writes;
	}
	return n;
}

void gain_predict(struct report_line *l, uint64_t total_samples)
{
	double false_part = 0, true_part = 0, fix;

	if (!total_samples)
		return;
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *g = &l->ranges[i];
		/* all of the range's samples: on a contended line the
		 * concurrency test only proves the contention; the time is
		 * spent on every access (measured on false_sharing_counters:
		 * the concurrent share alone predicted 1.1x for a 6.1x fix) */
		double s = (double)range_samples(g) / (double)total_samples;

		if (g->true_shared)
			true_part += s;
		else if (g->false_victim || g->false_writer)
			false_part += s;
	}
	fix = l->kind == SHARING_TRUE ? true_part : false_part;
	l->predicted_gain = gain_amdahl(fix, GAIN_RESIDUAL);
	l->predicted_gain_all = gain_amdahl(false_part + true_part, GAIN_RESIDUAL);
}
