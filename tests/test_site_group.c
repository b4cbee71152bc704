/* test_site_group.c - code sites grouped by source line for the text
 * report: an unrolled loop's copies and a read-modify-write's load and
 * store are one row with their counts summed; other lines, functions,
 * inlined hosts and processes stay apart, and so do unnamed addresses.
 */
#include <stdlib.h>

#include "tap.h"
#include "printers/site_group.h"

static struct report_site site(uint64_t ip, const char *fn, int line, uint64_t r, uint64_t w)
{
	return (struct report_site){ .ip = ip, .pid = 7, .function = (char *)fn,
				     .file = fn ? "/src/x.c" : NULL, .line = line,
				     .reads = r, .writes = w };
}

int main(void)
{
	struct report_site s[] = {
		site(0x100, "worker", 52, 0, 300),     /* the store */
		site(0x108, "worker", 53, 40, 0),
		site(0x0fc, "worker", 52, 250, 0),     /* the load of the same += */
		site(0x200, NULL, 0, 5, 0),            /* no function: by address */
		site(0x204, NULL, 0, 6, 0),
		site(0x110, "worker", 52, 0, 20),      /* the loop unrolled */
	};
	struct site_group *g;
	unsigned n;

	n = site_groups(s, 6, &g);
	CHECK_EQ_U64(n, 4, "four places: x.c:52, x.c:53 and two addresses");
	CHECK(n >= 1 && g[0].site == &s[0] && g[0].reads == 250 && g[0].writes == 320,
	      "x.c:52 first, as its hottest site, with every copy's counts");
	CHECK(n >= 2 && g[1].site == &s[1] && g[1].reads == 40 && !g[1].writes, "x.c:53 apart");
	CHECK(n >= 4 && g[2].site == &s[3] && g[3].site == &s[4], "unnamed addresses apart");
	free(g);

	s[2].inlined_into = "main";
	n = site_groups(s, 3, &g);
	CHECK_EQ_U64(n, 3, "the same line inlined elsewhere is another place");
	free(g);
	s[2].inlined_into = NULL;
	s[2].pid = 8;
	n = site_groups(s, 3, &g);
	CHECK_EQ_U64(n, 3, "another process's copy is another place");
	free(g);

	CHECK_EQ_U64(site_groups(s, 0, &g), 0, "no sites");
	CHECK(!g, "nothing allocated");
	return test_done();
}
