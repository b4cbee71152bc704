/* ingest.c - an access sample into a line table (ingest.h). */
#include "detector/ingest.h"

#include "detector/line_table.h"
#include "symbolize/symbolizer.h"

void ingest_access(struct line_table *t, struct symbolizer *sym, struct access_sample *a)
{
	if (sym)
		a->ip = symbolizer_versioned(sym, (pid_t)a->pid, a->ip);
	line_table_add(t, a);
}
