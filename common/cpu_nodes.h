/* cpu_nodes.h - which NUMA node each CPU is on.
 *
 * The report says which CPUs a line's samples ran on and, where the
 * machine's topology is known, which NUMA nodes: a line that crosses
 * nodes pays remote transfers (perf c2c's "Node" column).  Read from this
 * machine's /sys/devices/system/node (live sessions), or from a perf.data's
 * NUMA topology feature (a recording made elsewhere).  CPUs from
 * CPU_NODES_MAX up and nodes from 64 up are not mapped.
 */
#ifndef CONTEND_CPU_NODES_H
#define CONTEND_CPU_NODES_H

#include <stdbool.h>
#include <stdint.h>

#define CPU_NODES_MAX 256

struct cpu_nodes {
	int8_t node[CPU_NODES_MAX];   /* -1: not in any node read */
	bool known;                   /* some node was read */
};

void cpu_nodes_init(struct cpu_nodes *n);
/* This machine's; false (and n not known) without a node directory. */
bool cpu_nodes_read_sysfs(struct cpu_nodes *n);
/* CPUs of cpulist ("0-3,8,10-11", as sysfs and perf write it) are on
 * node.  False if the list does not parse or node is over 63. */
bool cpu_nodes_add(struct cpu_nodes *n, unsigned node, const char *cpulist);
/* The node of cpu, -1 if unknown. */
int cpu_nodes_of(const struct cpu_nodes *n, uint32_t cpu);

#endif
