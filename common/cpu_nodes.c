/* cpu_nodes.c - which NUMA node each CPU is on (cpu_nodes.h). */
#include "common/cpu_nodes.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpu_nodes_init(struct cpu_nodes *n)
{
	memset(n->node, -1, sizeof(n->node));
	n->known = false;
}

bool cpu_nodes_add(struct cpu_nodes *n, unsigned node, const char *cpulist)
{
	const char *p = cpulist;

	if (node > 63)
		return false;
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return false;
			p = end;
		}
		for (unsigned long c = lo; c <= hi && c < CPU_NODES_MAX; c++)
			n->node[c] = (int8_t)node;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return false;
	}
	n->known = true;
	return true;
}

bool cpu_nodes_read_sysfs(struct cpu_nodes *n)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;

	cpu_nodes_init(n);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		char path[300], list[4096];
		unsigned node;
		FILE *f;

		if (sscanf(e->d_name, "node%u", &node) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(list, sizeof(list), f))
			cpu_nodes_add(n, node, list);
		fclose(f);
	}
	closedir(d);
	return n->known;
}

int cpu_nodes_of(const struct cpu_nodes *n, uint32_t cpu)
{
	return n && n->known && cpu < CPU_NODES_MAX ? n->node[cpu] : -1;
}
