/* violation.c - how a line that breaks check's rules is told (violation.h). */
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

bool report_range_contended(const struct report_range *g)
{
	return g->true_shared || g->false_victim || g->false_writer;
}

/* How to call range g of line l: "counters[1]", "struct Klass.cache", ... */
static char *range_name(const struct report_line *l, const struct report_range *g)
{
	const char *m = g->member;

	if (!m)
		return xasprintf("%s+%u", l->object ? l->object : "line", g->offset);
	/* a global's path starts with its name; a pointee's is relative */
	if ((l->variable && !strncmp(m, l->variable, strlen(l->variable))) || !l->type_name ||
	    m[0] == '*')
		return xstrdup(m);
	return xasprintf("%s%s%s", l->type_name, m[0] == '[' ? "" : ".", m);
}

const struct report_site *report_violation_site(const struct report_line *l,
						const struct report_range **range)
{
	const struct report_site *best = NULL;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *g = &l->ranges[i];
		if (!report_range_contended(g))
			continue;
		for (unsigned s = 0; s < g->n_sites; s++) {
			const struct report_site *site = &g->sites[s];
			if (!best || site->writes > best->writes ||
			    (site->writes == best->writes && site->reads > best->reads)) {
				best = site;
				*range = g;
			}
		}
	}
	return best;
}

char *report_violation_message(const struct report_line *l, const char *why)
{
	const struct report_range *at = NULL;
	const struct report_site *site = report_violation_site(l, &at);
	struct strbuf sb = STRBUF_INIT;
	char **names = xcalloc(l->n_ranges + 1, sizeof(*names));
	unsigned n = 0;

	/* the range written most, then the others it contends with, each
	 * name once (a line may hold two instances of a struct) */
	names[n++] = at ? range_name(l, at) : xstrdup(l->object ? l->object : "?");
	strbuf_addf(&sb, "%s on %s", sharing_kind_name(l->kind), names[0]);
	for (unsigned i = 0; i < l->n_ranges; i++) {
		char *name;
		bool seen = false;

		if (!report_range_contended(&l->ranges[i]))
			continue;
		name = range_name(l, &l->ranges[i]);
		for (unsigned k = 0; k < n && !seen; k++)
			seen = !strcmp(names[k], name);
		if (seen) {
			free(name);
			continue;
		}
		strbuf_addf(&sb, "%s%s", n == 1 ? " with " : ", ", name);
		names[n++] = name;
	}
	for (unsigned k = 0; k < n; k++)
		free(names[k]);
	free(names);
	strbuf_addf(&sb, " (score %.3f, %u threads", l->score, l->n_threads);
	if (site && site->function)
		strbuf_addf(&sb, ", written in %s", site->function);
	if (why)
		strbuf_addf(&sb, "; %s", why);
	strbuf_addf(&sb, ")");
	if (l->advice.summary)
		strbuf_addf(&sb, ": %s", l->advice.summary);
	return strbuf_detach(&sb);
}
