/* line_cpus.c - where a line's samples ran (line_cpus.h). */
#include "reports/line_cpus.h"

#include <string.h>

#include "common/cpu_nodes.h"
#include "detector/line_table.h"
#include "reports/report.h"

_Static_assert(REPORT_CPUS_MAX == LINE_CPUS_MAX && LINE_CPUS_MAX == CPU_NODES_MAX,
	       "one bound for CPUs, from the line to the report");

/* The line's CPUs, and their nodes when every one's is known. */
void line_cpus(struct report_line *rl, const struct line *l, const struct cpu_nodes *nodes)
{
	bool any = false;

	memcpy(rl->cpus, l->cpus, sizeof(rl->cpus));
	rl->cpus_beyond = l->cpus_beyond;
	rl->nodes_known = nodes && !l->cpus_beyond;
	for (unsigned c = 0; c < REPORT_CPUS_MAX; c++) {
		int node;

		if (!(l->cpus[c / 64] & (1ULL << (c % 64))))
			continue;
		any = true;
		node = cpu_nodes_of(nodes, c);
		if (node < 0)
			rl->nodes_known = false;
		else
			rl->nodes |= 1ULL << node;
	}
	if (!any || !rl->nodes_known) {
		rl->nodes_known = false;
		rl->nodes = 0;
	}
}
