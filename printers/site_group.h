/* site_group.h - a range's code sites as a reader sees them: one per
 * source line.
 *
 * Sites are per instruction, and the JSON keeps them so; an unrolled loop
 * or a read-modify-write's load and store make several of one line, which
 * the text and HTML reports show once, with their counts summed ("251 R
 * 251 W worker x.c:52", not two rows).  Sites with no function are kept apart
 * by address.
 */
#ifndef CONTEND_SITE_GROUP_H
#define CONTEND_SITE_GROUP_H

#include "reports/report.h"

struct site_group {
	const struct report_site *site;   /* the first, hottest: its name and chains */
	uint64_t reads, writes;           /* summed over the group */
};

/* The groups of sites[0..n), in the order of their first site; *out is
 * malloc'd (NULL when n is 0).  Returns how many. */
unsigned site_groups(const struct report_site *sites, unsigned n, struct site_group **out);

#endif
