/* test_format - the table of report formats: lookup by name and use, the
 * names error messages list, and that each row prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printers/format.h"
#include "reports/report.h"
#include "tests/tap.h"

static void test_lookup(void)
{
	const struct report_format *f;
	char *names;

	f = report_format_find("json", FORMAT_FOR_REPORT);
	CHECK(f && !strcmp(f->name, "json") && !strcmp(f->extension, "json"), "json for reports");
	CHECK(report_format_find("html", FORMAT_FOR_REPORT) != NULL, "html for reports");
	CHECK(report_format_find("html", FORMAT_FOR_WATCH) == NULL, "no html for watch");
	CHECK(report_format_find("annotate", FORMAT_FOR_REPORT) == NULL,
	      "annotate is --annotate, not --format");
	CHECK(report_format_find("annotate", 0) != NULL, "annotate by name");
	CHECK(report_format_find("xml", 0) == NULL, "unknown name");

	names = report_format_names(FORMAT_FOR_REPORT);
	CHECK_STR(names, "text, json, html, sarif, pprof, patch", "--format names of run/report");
	free(names);
	names = report_format_names(FORMAT_FOR_WATCH);
	CHECK_STR(names, "text, json", "--format names of watch");
	free(names);
}

/* r printed by the format called name; *len its bytes (may be NULL). */
static char *print_as(const char *name, const struct report *r, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	report_format_find(name, 0)->print(r, out, &(struct format_flags){ .full = false });
	fclose(out);
	if (len)
		*len = n;
	return buf;
}

/* An empty report goes through every printer without trouble. */
static void test_print(void)
{
	static const char *const all[] = { "text", "json", "html", "sarif", "pprof", "annotate" };
	struct report r;

	memset(&r, 0, sizeof(r));
	r.command = (char *)"true";
	r.backend = (char *)"soft";
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		size_t len;
		char *buf = print_as(all[i], &r, &len);

		CHECK(len > 0, "%s prints an empty report (%zu bytes)", all[i], len);
		free(buf);
	}
}

/* No line: the patch says why, and an inconclusive run (a busy machine)
 * is not told as "nothing to fix". */
static void test_patch_without_lines(void)
{
	struct report r;
	char *text;

	memset(&r, 0, sizeof(r));
	r.command = (char *)"./a";
	r.backend = (char *)"soft";
	text = print_as("patch", &r, NULL);
	CHECK(strstr(text, "# no contended line: nothing to patch\n") != NULL,
	      "no line: nothing to patch: %s", text);
	free(text);
	r.inconclusive = (char *)"the threads ran at once 3%\x1b[m";
	text = print_as("patch", &r, NULL);
	CHECK(strstr(text, "# inconclusive: the threads ran at once 3%\\x1b[m: nothing to "
		     "patch\n") && !strstr(text, "no contended line"),
	      "inconclusive said, escaped, not 'no contended line': %s", text);
	free(text);
}

int main(void)
{
	test_lookup();
	test_print();
	test_patch_without_lines();
	return test_done();
}
