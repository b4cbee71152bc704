/* annotate.h - contended accesses placed on their source lines (internal
 * to reports/: the --annotate text and the HTML page both render it).
 *
 * annotation_build() groups the code sites of a report by source file
 * and line: one mark per (report line, range, source line), its samples
 * summed over the instructions there.  annotate_walk() reads each file
 * once and hands the renderer the lines to show: the whole file, or the
 * hot lines with ANNOTATE_CONTEXT lines around them, with a gap callback
 * between hunks.  The renderers only decide how a mark and a line look.
 * A source file is read only when it is a regular file, not a symlink,
 * that the report's source_reader could read (common/safe_file.h);
 * otherwise the renderer gets the reason and the marks without text.
 */
#ifndef CONTEND_ANNOTATE_H
#define CONTEND_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>
#include "reports/report.h"

#define ANNOTATE_CONTEXT 3

struct annotate_mark {
	const struct report_line *line;
	unsigned rank;                    /* 1-based, as in the report */
	const struct report_range *range;
	int lineno;
	uint64_t samples, reads, writes;  /* over the sites on this source line */
	/* what it contends with: the other side of the heaviest contending
	 * pair (report_line.pairs) that has this source line and one of its
	 * threads; without one, a range of the same line (the range itself
	 * for true sharing) and that range's busiest site, preferably on
	 * another source line; all NULL if nothing disturbs it */
	const struct report_pair_side *partner_side;
	const struct report_range *partner;
	const struct report_site *partner_site;
};

struct annotate_file {
	const char *path;
	struct annotate_mark *marks;      /* by lineno, then samples, most first */
	unsigned n_marks;
	uint64_t samples;                 /* over its marks */
};

struct annotation {
	uint64_t total_samples;           /* of the report: the 100% of a mark */
	struct annotate_file *files;      /* most samples first */
	unsigned n_files;
	unsigned sites_without_source;    /* sites with no file:line to show */
	const struct proc_creds *source_reader;   /* the report's (report.h) */
};

/* Marks of every reported line, or of only that one when only != NULL. */
void annotation_build(struct annotation *a, const struct report *r,
		      const struct report_line *only);
void annotation_release(struct annotation *a);

struct annotate_ops {
	/* error: NULL, or why the file cannot be read (then nothing follows) */
	void (*file_begin)(void *ctx, const struct annotate_file *f, const char *error);
	/* one source line, without its newline; marks may be 0 */
	void (*line)(void *ctx, const struct annotate_file *f, int lineno,
		     const char *text, const struct annotate_mark *marks, unsigned n_marks);
	void (*gap)(void *ctx, const struct annotate_file *f);
	/* marks past the end of the file (the source changed since the build);
	 * cut: NULL, or why the rest of the file was not read (its size) */
	void (*file_end)(void *ctx, const struct annotate_file *f, unsigned n_beyond_eof,
			 const char *cut);
};

void annotate_walk(const struct annotation *a, bool full,
		   const struct annotate_ops *ops, void *ctx);

/* Pieces of a mark's margin, shared by the renderers; the caller frees. */
double annotate_percent(const struct annotation *a, const struct annotate_mark *m);
char *annotate_member(const struct annotate_mark *m);    /* "counters[1]" */
char *annotate_threads(const struct annotate_mark *m);   /* "T1235,T1236+2" */
char *annotate_partner(const struct annotate_mark *m);   /* "<-> increment:42 (T1235)", "" */

#endif
