/* test_sarif - the SARIF printer on a hand-built report: one result per
 * finding (every line, or check's violations alone), at the hottest
 * writing site, related locations for the others, URIs relative to the
 * current directory (percent-encoded) or absolute file:// ones, and names
 * from the target escaped so that the document stays JSON.  The e2e test
 * (e2e_sarif.sh) validates real output against the SARIF 2.1.0 schema. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json_read.h"
#include "common/util.h"
#include "printers/format.h"
#include "reports/report.h"
#include "reports/report.h"
#include "tests/tap.h"

/* The URI the printer must give the directory: RFC 3986's unreserved
 * bytes and '/' as they are, every other byte %XX (a checkout path may hold
 * spaces and non-ASCII). */
static char *file_uri_of_dir(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "file://");
	for (const unsigned char *p = (const unsigned char *)dir; *p; p++) {
		if (isalnum(*p) || strchr("-._~/", *p))
			strbuf_addch(&sb, (char)*p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	strbuf_addch(&sb, '/');
	return strbuf_detach(&sb);
}

static const struct json *at(const struct json *j, size_t i)
{
	return j && j->type == JSON_ARRAY && i < j->n ? &j->items[i] : NULL;
}

static const struct json *path(const struct json *j, const char *keys)
{
	char *copy = xstrdup(keys), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); k && j; k = strtok_r(NULL, ".", &save))
		j = k[0] >= '0' && k[0] <= '9' ? at(j, (size_t)atoi(k)) : json_get(j, k);
	free(copy);
	return j;
}

static struct json *print(const struct report *r, const struct format_flags *f)
{
	const struct report_format *fmt = report_format_find("sarif", FORMAT_FOR_REPORT);
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct json *doc;

	fmt->print(r, out, f);
	fclose(out);
	doc = json_parse(buf, len, &err);
	CHECK(doc != NULL, "SARIF output is JSON (%s)", strbuf_str(&err));
	if (!doc)
		fputs(buf, stderr);
	free(buf);
	strbuf_release(&err);
	return doc;
}

static void test_sarif(void)
{
	/* a work tree of our own, entered: the source root is that work
	 * tree and the current directory alike, wherever the build runs */
	char tree[] = "/tmp/contend-sarif-XXXXXX";
	char *cwd = mkdtemp(tree) ? xstrdup(tree) : getcwd(NULL, 0);
	char *git = xasprintf("%s/.git", cwd), *back = getcwd(NULL, 0);
	char *hot_file = xasprintf("%s/my dir/x\"y.c", cwd);
	struct report_site hot = { .ip = 0x1000, .function = (char *)"bump\"it", .file = hot_file,
				   .line = 12, .writes = 10, .reads = 2 };
	struct report_site other = { .ip = 0x2000, .function = (char *)"look", .file =
				     (char *)"/elsewhere/z.c", .line = 3, .reads = 5 };
	struct report_range ranges[] = {
		{ .offset = 0, .size = 8, .member = (char *)"m\n[0]", .false_writer = true,
		  .sites = &other, .n_sites = 1 },
		{ .offset = 8, .size = 8, .member = (char *)"b", .false_victim = true,
		  .sites = &hot, .n_sites = 1 },
	};
	struct report_line line = { .kind = SHARING_FALSE, .score = 0.5, .n_threads = 2,
				    .object = (char *)"o\"bj", .variable = (char *)"o\"bj",
				    .ranges = ranges, .n_ranges = 2,
				    .advice = { .summary = (char *)"pad it" } };
	struct report r = { .command = (char *)"t", .backend = (char *)"soft",
			    .lines = &line, .n_lines = 1 };
	struct report_violation v = { &line, "new since the baseline" };
	const struct json *res;
	struct json *doc;
	char *root;

	if (mkdir(git, 0700) < 0 || chdir(cwd) < 0)
		CHECK(false, "cannot make the work tree %s", cwd);

	doc = print(&r, &(struct format_flags){ 0 });
	CHECK_STR(json_string(path(doc, "version")), "2.1.0", "version");
	res = path(doc, "runs.0.results.0");
	CHECK_STR(json_string(path(res, "ruleId")), "false-sharing", "ruleId of a false line");
	CHECK_STR(json_string(path(res, "level")), "warning", "a reported line is a warning");
	CHECK_STR(json_string(path(res, "locations.0.physicalLocation.artifactLocation.uri")),
		  "my%20dir/x%22y.c", "hottest writer's file, relative and percent-encoded");
	CHECK_STR(json_string(path(res, "locations.0.physicalLocation.artifactLocation.uriBaseId")),
		  "SRCROOT", "relative to SRCROOT");
	CHECK(json_number(path(res, "locations.0.physicalLocation.region.startLine"), 0) == 12,
	      "at the writing line");
	CHECK_STR(json_string(path(res, "locations.0.logicalLocations.0.name")), "bump\"it",
		  "function name with a quote survives");
	CHECK_STR(json_string(path(res, "relatedLocations.0.physicalLocation.artifactLocation.uri")),
		  "file:///elsewhere/z.c", "a file outside the root: absolute file URI");
	CHECK(path(res, "relatedLocations.0.physicalLocation.artifactLocation.uriBaseId") == NULL,
	      "no base id for an absolute URI");
	CHECK(path(res, "relatedLocations.1") == NULL, "the hottest site is not related to itself");
	CHECK(strstr(json_string(path(res, "message.text")) ?: "",
		     "false sharing on b with m\n[0] (score 0.500, 2 threads, written in bump\"it)") != NULL,
	      "message: kind, data (escaped and back), score: %s",
	      json_string(path(res, "message.text")));
	CHECK(strstr(json_string(path(res, "message.text")) ?: "", ": pad it") != NULL, "advice");
	root = file_uri_of_dir(cwd);
	CHECK_STR(json_string(path(doc, "runs.0.originalUriBaseIds.SRCROOT.uri")), root,
		  "SRCROOT is the current directory");
	free(root);
	json_free(doc);

	doc = print(&r, &(struct format_flags){ .judged = true });
	CHECK(path(doc, "runs.0.results") && path(doc, "runs.0.results")->n == 0,
	      "judged, no violation: no result");
	json_free(doc);

	doc = print(&r, &(struct format_flags){ .judged = true, .violations = &v, .n_violations = 1 });
	res = path(doc, "runs.0.results.0");
	CHECK_STR(json_string(path(res, "level")), "error", "a violation is an error");
	CHECK(strstr(json_string(path(res, "message.text")) ?: "", "; new since the baseline)"),
	      "why it fails, in the message");
	json_free(doc);
	free(hot_file);
	if (back && chdir(back) < 0)
		CHECK(false, "cannot go back to %s", back);
	rmdir(git);
	rmdir(cwd);
	free(git);
	free(back);
	free(cwd);
}

int main(void)
{
	test_sarif();
	return test_done();
}
