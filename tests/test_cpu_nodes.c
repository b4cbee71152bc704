/* test_cpu_nodes.c - CPU lists into nodes (common/cpu_nodes.h), as sysfs
 * and perf.data's NUMA topology write them. */
#include "tap.h"
#include "common/cpu_nodes.h"

int main(void)
{
	struct cpu_nodes n;

	cpu_nodes_init(&n);
	CHECK(!n.known && cpu_nodes_of(&n, 0) == -1, "nothing read: unknown");
	CHECK(cpu_nodes_add(&n, 0, "0-3,8\n"), "node 0");
	CHECK(cpu_nodes_add(&n, 1, "4-7,9-10"), "node 1");
	CHECK(n.known, "known");
	CHECK_EQ_U64(cpu_nodes_of(&n, 0), 0, "cpu 0");
	CHECK_EQ_U64(cpu_nodes_of(&n, 3), 0, "cpu 3");
	CHECK_EQ_U64(cpu_nodes_of(&n, 4), 1, "cpu 4");
	CHECK_EQ_U64(cpu_nodes_of(&n, 8), 0, "cpu 8");
	CHECK_EQ_U64(cpu_nodes_of(&n, 10), 1, "cpu 10");
	CHECK(cpu_nodes_of(&n, 11) == -1, "cpu 11: in no node");
	CHECK(cpu_nodes_of(&n, 100000) == -1, "past the table");
	CHECK(cpu_nodes_of(NULL, 0) == -1, "no topology");
	CHECK(!cpu_nodes_add(&n, 64, "0"), "node 64: over the bound");
	CHECK(!cpu_nodes_add(&n, 2, "3-1"), "a backwards range");
	CHECK(!cpu_nodes_add(&n, 2, "x"), "not a list");
	CHECK(!cpu_nodes_add(&n, 2, "1;2"), "a stray separator");
	CHECK(cpu_nodes_add(&n, 2, "250-1000"), "a range past the table is cut");
	CHECK_EQ_U64(cpu_nodes_of(&n, 255), 2, "cpu 255");
	CHECK(cpu_nodes_read_sysfs(&n) || !n.known, "this machine's, or none");
	return test_done();
}
