/* format.c - the output formats of a report, one row each. */
#include "printers/printers.h"
#include "printers/format.h"

#include <string.h>

#include "common/util.h"
#include "reports/report.h"

static void print_text(const struct report *r, FILE *out, const struct format_flags *f)
{
	(void)f;
	report_print_text(r, out);
}

static void print_json(const struct report *r, FILE *out, const struct format_flags *f)
{
	(void)f;
	report_print_json(r, out);
}

static void print_html(const struct report *r, FILE *out, const struct format_flags *f)
{
	(void)f;
	report_print_html(r, out);
}

static void print_patch(const struct report *r, FILE *out, const struct format_flags *f)
{
	(void)f;
	report_print_patch(r, out);
}

static void print_annotate(const struct report *r, FILE *out, const struct format_flags *f)
{
	report_print_annotate(r, out, f && f->full);
}

/* In the order error messages list them. */
static const struct report_format formats[] = {
	{ "text", "txt", FORMAT_FOR_REPORT | FORMAT_FOR_WATCH, print_text },
	{ "json", "json", FORMAT_FOR_REPORT | FORMAT_FOR_WATCH, print_json },
	{ "html", "html", FORMAT_FOR_REPORT, print_html },
	{ "sarif", "sarif", FORMAT_FOR_REPORT, report_print_sarif },
	{ "pprof", "pb.gz", FORMAT_FOR_REPORT, report_print_pprof },
	{ "patch", "patch", FORMAT_FOR_REPORT, print_patch },
	{ "annotate", "txt", 0, print_annotate },   /* --annotate, not --format */
};

static bool usable(const struct report_format *fmt, unsigned use)
{
	return !use || (fmt->uses & use) == use;
}

const struct report_format *report_format_find(const char *name, unsigned use)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(formats[i].name, name) && usable(&formats[i], use))
			return &formats[i];
	return NULL;
}

char *report_format_names(unsigned use)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (usable(&formats[i], use))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", formats[i].name);
	return strbuf_detach(&sb);
}
