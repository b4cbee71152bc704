/* line_cpus.h - where a line's samples ran: their CPUs, and the NUMA
 * nodes of those CPUs when the sampling machine's topology is known
 * (common/cpu_nodes.h), for the report's line (report.h: cpus, nodes). */
#ifndef CONTEND_LINE_CPUS_H
#define CONTEND_LINE_CPUS_H

struct cpu_nodes;
struct line;
struct report_line;

/* Sets rl's cpus, cpus_beyond, nodes and nodes_known from l; nodes
 * (may be NULL: unknown) maps CPUs to nodes. */
void line_cpus(struct report_line *rl, const struct line *l, const struct cpu_nodes *nodes);

#endif
