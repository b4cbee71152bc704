/* member_range.h - consecutive array elements named as one range.
 *
 * A line's ranges are its distinct accesses (offset, size): one per array
 * element a loop touched, "arg[0].blue[254]", "arg[0].blue[255]".
 * member_ranges_merge() folds each run of ranges that are consecutive
 * elements of one array -- members "P[i]", "P[i+1]", ..., each range
 * starting where the one before ends, all of one size -- touched by the
 * same threads, the same of them writing, all truly shared or none, into
 * one range named "P[a..b]": their bytes, and their samples, threads and
 * sites summed; false_writer and false_victim are any element's (which
 * elements of one writer's run show the evidence is chance of the
 * samples).  Ranges of other
 * threads, or with a gap between them, stay apart.  The rest of the line
 * (pairs, advice, gain) is left as built: run it last on a line.
 *
 * member_range_parse() (report.h, a view of the model) reads such a name back ("P[a..b]", or "P[i]" as
 * a = b = i), for those that must see the elements one by one: a
 * baseline written before ranges were merged, JSON's "elements".
 */
#ifndef CONTEND_MEMBER_RANGE_H
#define CONTEND_MEMBER_RANGE_H

#include <stdbool.h>
#include <stddef.h>

struct report_line;

void member_ranges_merge(struct report_line *rl);

#endif
