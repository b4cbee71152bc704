/* site_group.c - code sites grouped by source line (site_group.h). */
#include "printers/printers.h"
#include "reports/report.h"
#include "printers/site_group.h"

#include <stdlib.h>

#include "common/util.h"

static bool same_place(const struct report_site *x, const struct report_site *y)
{
	if (!x->function || !y->function)
		return x->ip == y->ip && x->pid == y->pid;
	return x->pid == y->pid && x->line == y->line && str_eq(x->function, y->function) &&
	       str_eq(x->file, y->file) && str_eq(x->inlined_into, y->inlined_into) &&
	       str_eq(x->via, y->via) && str_eq(x->module, y->module);
}

unsigned site_groups(const struct report_site *sites, unsigned n, struct site_group **out)
{
	struct site_group *g = n ? xcalloc(n, sizeof(*g)) : NULL;
	unsigned ng = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;

		while (k < ng && !same_place(g[k].site, &sites[i]))
			k++;
		if (k == ng)
			g[ng++].site = &sites[i];
		g[k].reads += sites[i].reads;
		g[k].writes += sites[i].writes;
	}
	*out = g;
	return ng;
}
