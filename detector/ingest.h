/* ingest.h - the one way an access sample enters a line table.
 *
 * Every path in goes through ingest_access(): live sampling and census
 * hits (run, attach, record: engine/session.c), the replay of a data file
 * (report -i: cli/cmd_report.c), and the windows of top and attach -c
 * (reports/live_window.c), which replay the samples the session took.
 *
 * The sample's ip is first pinned to the version of the code mapped there
 * now (symbolizer_versioned()), so that code unmapped later (dlclose,
 * exec) is still named by what was sampled; then line_table_add().  The
 * access is taken as the sampler decoded it: shared memory is located
 * before (shared_mem_locate(), in the session, so that a data file holds
 * it located).
 */
#ifndef CONTEND_INGEST_H
#define CONTEND_INGEST_H

#include "detector/sample.h"

struct line_table;
struct symbolizer;

/* a->ip is rewritten to its versioned address; sym NULL: taken as is. */
void ingest_access(struct line_table *t, struct symbolizer *sym, struct access_sample *a);

#endif
