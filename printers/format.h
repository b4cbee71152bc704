/* format.h - the output formats of a report, one row each.
 *
 * Every command that prints a report picks its printer here by name
 * (report_format_find), and validates --format against the same rows, so
 * a new format is one printer (report.h) and one row in format.c.  A row
 * says where it may be asked for: `--format NAME` of the sampling and
 * report commands, `--format NAME` of watch, or neither (annotate, which
 * --annotate selects).  print() must not fail: write errors show when the
 * caller closes the stream.
 */
#ifndef CONTEND_FORMAT_H
#define CONTEND_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

struct report;
struct report_violation;
struct report_latent;

/* What a caller may pass on to a printer beyond the report. */
struct format_flags {
	bool full;                    /* annotate: whole source files */
	/* check: the lines that break its rules (violation.h), which a
	 * printer of verdicts (SARIF) reports alone; without judged, every
	 * reported line is a finding. */
	bool judged;
	const struct report_violation *violations;
	unsigned n_violations;
	/* check --fail-on latent: the latent pairs (report.h) that break it */
	const struct report_latent *const *latent_violations;
	unsigned n_latent_violations;
};

enum format_use {
	FORMAT_FOR_REPORT = 1 << 0,   /* --format of run, attach, report */
	FORMAT_FOR_WATCH = 1 << 1,    /* --format of watch */
};

struct report_format {
	const char *name;             /* "text", "json", ... */
	const char *extension;        /* of a file holding it, without the dot */
	unsigned uses;                /* enum format_use bits */
	void (*print)(const struct report *r, FILE *out, const struct format_flags *f);
};

/* Printers of the formats that have no other entry point. */
void report_print_sarif(const struct report *r, FILE *out, const struct format_flags *f);
void report_print_pprof(const struct report *r, FILE *out, const struct format_flags *f);

/* The format called name, if it may be asked for as use says (0: any
 * use); NULL otherwise. */
const struct report_format *report_format_find(const char *name, unsigned use);

/* "text, json, html": the names that may be asked for as use says, for
 * error messages.  Caller frees. */
char *report_format_names(unsigned use);

#endif
