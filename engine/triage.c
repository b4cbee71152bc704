/* triage.c - counts for run/attach's one-line triage (triage.h). */
#include "engine/triage.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "detector/counters.h"
#include "detector/hw_backend.h"
#include "reports/stat_report.h"

struct triage {
	struct counter_plan plan;
	struct counter_set *cs;
};

struct triage *triage_start(pid_t pid, bool launched)
{
	struct triage *t = xcalloc(1, sizeof(*t));
	const struct hw_host *host = hw_host_here();

	if (!host->cpu_pmu) {          /* a VM without a PMU: none would open */
		free(t);
		return NULL;
	}
	counter_plan_make(&t->plan, host);
	t->plan.sw.n = 0;          /* the hardware group only: it is the triage */
	t->cs = counter_set_open(&t->plan, pid, true, launched);
	if (!counter_set_any_open(t->cs)) {
		counter_set_close(t->cs);
		counter_plan_release(&t->plan);
		free(t);
		return NULL;
	}
	return t;
}

void triage_finish(struct triage *t, bool quiet)
{
	struct counter_reading r;
	char *line;

	if (!t)
		return;
	counter_set_disable(t->cs);
	counter_set_read(t->cs, &r);
	line = stat_triage_line(&r);
	if (line && !quiet)
		fprintf(stderr, "contend: counters: %s (contend stat for the details)\n", line);
	free(line);
	counter_set_close(t->cs);
	counter_plan_release(&t->plan);
	free(t);
}
