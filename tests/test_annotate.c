/* test_annotate.c - --annotate text and the HTML page from a hand-made report.
 *
 * One false-sharing line with two ranges whose sites point into a source
 * file the test writes: the hot line's margin must say exactly what the
 * sites hold (two instructions of one source line merged), only the hot
 * lines' neighbourhoods are printed unless full, and an unreadable file
 * or a line past the end of the file is said in one line.  The HTML page
 * must escape what the report holds and draw the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "printers/printers.h"
#include "reports/report.h"

#define SOURCE_LINES 30
#define HOT_A 10                 /* stats.hits, T101 */
#define HOT_B 25                 /* q<T>::head, T102 */

static char dir[] = "/tmp/test_annotate.XXXXXX";
static char *source_path;

static void write_source(void)
{
	FILE *f;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(99);
	}
	source_path = xasprintf("%s/work.c", dir);
	f = fopen(source_path, "w");
	if (!f) {
		perror(source_path);
		exit(99);
	}
	for (int n = 1; n <= SOURCE_LINES; n++) {
		if (n == HOT_A)
			fprintf(f, "\tstats.hits++;\n");
		else if (n == HOT_B)
			fprintf(f, "\tq->head = n < 0 ? 0 : n;\n");
		else
			fprintf(f, "line %d\n", n);
	}
	fclose(f);
}

static struct report_site site(const char *function, const char *file, int line,
			       uint64_t reads, uint64_t writes)
{
	return (struct report_site){
		.ip = 0x401000 + line, .function = (char *)function, .file = (char *)file,
		.line = line, .module = "work", .module_off = 0x1000 + line,
		.reads = reads, .writes = writes,
	};
}

/*
 * stats.hits at +0 (T101: a load and a store on line 10) and q<T>::head
 * at +8 (T102 on line 25, plus a site without debug info).  The arrays
 * are static: the report is read, never freed.
 */
static struct report *make_report(const char *file, int line_b)
{
	static struct report_thread t101 = { .tid = 101, .comm = "work", .reads = 400, .writes = 390 };
	static struct report_thread t102 = { .tid = 102, .comm = "work<2>", .reads = 205, .writes = 180 };
	static struct report_thread threads[2];
	static struct report_site sites_a[2], sites_b[2];
	static struct report_range ranges[2];
	static struct report_member members[2] = {
		{ .name = "hits", .type_name = "long", .offset = 0, .size = 8,
		  .reads = 400, .writes = 390 },
		{ .name = "q<T>::head", .type_name = "int", .offset = 8, .size = 4,
		  .reads = 205, .writes = 180 },
	};
	static struct report_line line;
	static struct report r;

	threads[0] = t101;
	threads[1] = t102;
	sites_a[0] = site("worker", file, HOT_A, 400, 0);
	sites_a[1] = site("worker", file, HOT_A, 0, 390);
	sites_b[0] = site("other", file, line_b, 200, 180);
	sites_b[1] = site(NULL, NULL, 0, 5, 0);
	ranges[0] = (struct report_range){
		.offset = 0, .size = 8, .member = "stats.hits",
		.false_victim = true, .false_writer = true, .reads = 400, .writes = 390,
		.threads = &threads[0], .n_threads = 1, .sites = sites_a, .n_sites = 2,
	};
	ranges[1] = (struct report_range){
		.offset = 8, .size = 4, .member = "q<T>::head",
		.false_victim = true, .false_writer = true, .reads = 205, .writes = 180,
		.threads = &threads[1], .n_threads = 1, .sites = sites_b, .n_sites = 2,
	};
	line = (struct report_line){
		.pid = 100, .addr = 0x601040, .line_size = 64, .kind = SHARING_FALSE,
		.score = 0.8, .share = 0.85, .concurrent_frac = 0.95,
		.samples = 1000, .concurrent = 950, .object = "stats", .variable = "stats",
		.type_name = "struct stats", .object_start = 0x601040,
		.threads = threads, .n_threads = 2, .ranges = ranges, .n_ranges = 2,
		.members = members, .n_members = 2, .struct_size = 16, .struct_align = 8,
		.advice = { .summary = "put hits and head on lines of their own",
			    .layout_now = "struct stats {\n\tlong hits;\n};" },
	};
	r = (struct report){
		.command = "./work -t 2", .backend = "soft", .freq = 1000, .line_size = 64,
		.samples = 1000, .decoded = 990, .lines = &line, .n_lines = 1,
		.n_candidates = 1,
	};
	return &r;
}

/* The output of a printer, as one string; the caller frees. */
static char *render(const struct report *r, bool html, bool full)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (html)
		report_print_html(r, out);
	else
		report_print_annotate(r, out, full);
	fclose(out);
	return buf;
}

/* The output line holding what, or NULL; the caller frees. */
static char *line_with(const char *text, const char *what)
{
	const char *hit = strstr(text, what), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	end = strchrnul(hit, '\n');
	return xasprintf("%.*s", (int)(end - start), start);
}

/* Some output line has n in its line-number column: "|  10 |". */
static bool shows_line(const char *text, int n)
{
	for (const char *s = text; *s; s = strchrnul(s, '\n'), s += !!*s) {
		const char *bar = strchr(s, '|');
		int got, end = 0;

		if (bar && bar < strchrnul(s, '\n') &&
		    sscanf(bar + 1, "%d |%n", &got, &end) == 1 && end && got == n)
			return true;
	}
	return false;
}

static void test_neighbourhood(void)
{
	char *text = render(make_report(source_path, HOT_B), false, false);
	char *hot = line_with(text, "|  10 |");
	char *partner = line_with(text, "|  25 |");
	char *gap = line_with(text, "| ... |");
	char *missing = line_with(text, "code site");
	bool only_near = true;

	/* 790 of 1000 samples: the load and the store of line 10 */
	CHECK_STR(hot, "   79.0%  R 400 W 390  stats.hits  T101  <-> other:25 (T102)  "
		  "|  10 |         stats.hits++;", "hot line");
	CHECK_STR(partner, "   20.0%  R 200 W 180  q<T>::head  T102  <-> worker:10 (T101) "
		  "|  25 |         q->head = n < 0 ? 0 : n;", "partner line");
	CHECK(gap && strlen(gap) == strlen(hot) - strlen(" stats.hits++;") - 8,
	      "gap lines up with the gutter: \"%s\" %zu %zu", gap ? gap : "(none)", gap ? strlen(gap) : 0, strlen(hot));
	for (int n = 1; n <= SOURCE_LINES; n++) {
		bool near = abs(n - HOT_A) <= 3 || abs(n - HOT_B) <= 3;

		if (shows_line(text, n) != near) {
			only_near = false;
			CHECK(false, "line %d %s", n, near ? "missing" : "shown");
		}
	}
	CHECK(only_near, "only lines within 3 of a hot line");
	CHECK(strstr(text, "== ") && strstr(strstr(text, "== "), "work.c   99.0% of samples"),
	      "file header: %s", text);
	CHECK_STR(missing, "# not shown: 1 code site without a source line (no debug info)",
		  "site without debug info");
	free(text);
	free(hot);
	free(partner);
	free(gap);
	free(missing);
}

static void test_full(void)
{
	char *text = render(make_report(source_path, HOT_B), false, true);
	bool all = true;

	for (int n = 1; n <= SOURCE_LINES; n++)
		all &= shows_line(text, n);
	CHECK(all, "--full prints every line:\n%s", text);
	CHECK(!strstr(text, "| ... |"), "--full has no gaps");
	free(text);
}

static void test_unreadable(void)
{
	char *gone = xasprintf("%s/gone.c", dir);
	char *text = render(make_report(gone, HOT_B), false, false);
	char *err = line_with(text, "gone.c");
	char *hot = line_with(text, "|  10 |");

	CHECK(err && strstr(err, ": cannot read it (No such file or directory)"),
	      "one line for an unreadable file: %s", err ? err : "(none)");
	CHECK(hot && strstr(hot, "79.0%") && !strstr(hot, "stats.hits++"),
	      "its marks without code: %s", hot ? hot : "(none)");
	free(text);
	free(err);
	free(hot);
	free(gone);
}

/* Issue 14, items 3 and 7: the file a DWARF line names is the target's
 * choice.  A FIFO must not hang us (alarm: the old fopen() blocked for
 * ever), a symlink is not followed, and a file the target's user could not
 * read (report.source_reader) is not shown, in text and HTML alike. */
static void check_refused(const char *path, const struct proc_creds *reader,
			  const char *reason, const char *what)
{
	for (int html = 0; html <= 1; html++) {
		struct report *r = make_report(path, HOT_B);
		char *text;

		r->source_reader = reader;
		text = render(r, html, false);
		CHECK(strstr(text, reason), "%s (%s): says '%s':\n%s", what,
		      html ? "html" : "text", reason, text);
		CHECK(!strstr(text, "stats.hits++"), "%s (%s): its text is not shown",
		      what, html ? "html" : "text");
		r->source_reader = NULL;
		free(text);
	}
}

static void test_refused_sources(void)
{
	char *fifo = xasprintf("%s/fifo.c", dir), *link = xasprintf("%s/link.c", dir);
	struct proc_creds nobody = { .uid = 65534, .gid = 65534 };
	struct proc_creds me = { .uid = geteuid(), .gid = getegid() };
	struct report *r;
	char *text;

	alarm(20);
	CHECK(mkfifo(fifo, 0666) == 0, "mkfifo");
	check_refused(fifo, NULL, "is a FIFO", "a FIFO");
	CHECK(symlink(source_path, link) == 0, "symlink");
	check_refused(link, NULL, "is a symbolic link", "a symlink");
	chmod(source_path, 0600);
	if (geteuid() != 65534)
		check_refused(source_path, &nobody, "could not read it", "a file nobody cannot read");
	r = make_report(source_path, HOT_B);
	r->source_reader = &me;
	text = render(r, false, false);
	CHECK(strstr(text, "stats.hits++"), "the target's own file is shown:\n%s", text);
	r->source_reader = NULL;
	free(text);
	chmod(source_path, 0644);
	alarm(0);
	unlink(fifo);
	unlink(link);
	free(fifo);
	free(link);
}

static void test_past_eof(void)
{
	char *text = render(make_report(source_path, 99), false, false);
	char *note = line_with(text, "past the end");
	char *hot = line_with(text, "|  99 |");

	CHECK_STR(note, "   (1 mark is past the end of the file: it changed since the build?)",
		  "note for a line past the end");
	CHECK(hot && strstr(hot, "q<T>::head"), "the mark is still shown: %s",
	      hot ? hot : "(none)");
	free(text);
	free(note);
	free(hot);
}

/* A range no other thread disturbs contends with nothing. */
static void test_no_partner(void)
{
	struct report *r = make_report(source_path, HOT_B);
	struct report_range *rr = r->lines[0].ranges;
	char *text, *hot;

	rr[0].false_victim = rr[1].false_victim = rr[1].false_writer = false;
	text = render(r, false, false);
	hot = line_with(text, "|  25 |");
	CHECK(hot && !strstr(hot, "<->") && strstr(hot, "q<T>::head  T102 "),
	      "no partner: %s", hot ? hot : "(none)");
	free(text);
	free(hot);
}

/* The report's contending pairs name the partner when they have the line. */
static void test_pair(void)
{
	static uint32_t t101[] = { 101 }, t102[] = { 102 };
	struct report *r = make_report(source_path, HOT_B);
	struct report_pair pair = {
		.a = { .site = site("worker", source_path, HOT_A, 400, 390),
		       .tids = t101, .n_tids = 1, .concurrent = 700 },
		.b = { .site = site("other", source_path, 27, 0, 90),
		       .tids = t102, .n_tids = 1, .concurrent = 80 },
		.kind = SHARING_FALSE, .weight = 80,
	};
	char *text, *hot, *partner;

	r->lines[0].pairs = &pair;
	r->lines[0].n_pairs = 1;
	text = render(r, false, false);
	hot = line_with(text, "|  10 |");
	partner = line_with(text, "|  25 |");
	CHECK(hot && strstr(hot, "T101  <-> other:27 (T102) "), "partner from the pair: %s",
	      hot ? hot : "(none)");
	CHECK(partner && strstr(partner, "T102  <-> worker:10 (T101) "),
	      "no pair on line 25: the ranges say: %s", partner ? partner : "(none)");
	free(text);
	text = render(r, true, false);
	CHECK(strstr(text, "<h3>Contending pairs</h3>") &&
	      strstr(text, "<b>T102</b> other <span class=\"dim\">work.c:27</span>"),
	      "the page lists the pair");
	free(text);
	free(hot);
	free(partner);
}

static void test_html(void)
{
	char *html = render(make_report(source_path, HOT_B), true, false);

	CHECK(!strncmp(html, "<!DOCTYPE html>", 15), "doctype");
	CHECK(strstr(html, "<svg class=\"pic\" id=\"line-1\""), "svg of line 1");
	CHECK(strstr(html, "FALSE SHARING"), "kind badge");
	CHECK(strstr(html, "q&lt;T&gt;::head"), "member escaped");
	CHECK(!strstr(html, "q<T>"), "no raw markup from the report");
	CHECK(strstr(html, "<title>work&lt;2&gt;</title>") == NULL &&
	      strstr(html, "work&lt;2&gt;"), "thread name escaped");
	CHECK(strstr(html, "&lt;-&gt; other:25 (T102)"), "partner in the source margin");
	CHECK(strstr(html, "<td class=\"code\">\tstats.hits++;</td>"), "source line");
	CHECK(strstr(html, "q-&gt;head = n &lt; 0 ? 0 : n;"), "source escaped");
	CHECK(!strstr(html, "http://") || !strstr(strstr(html, "http://"), "<link"),
	      "nothing loaded from the network");
	CHECK(!strstr(html, "<script"), "no script");
	CHECK(strstr(html, "</html>\n"), "complete page");
	free(html);
}

int main(void)
{
	warnings_quiet = true;
	write_source();
	test_neighbourhood();
	test_full();
	test_unreadable();
	test_refused_sources();
	test_past_eof();
	test_no_partner();
	test_pair();
	test_html();
	unlink(source_path);
	rmdir(dir);
	free(source_path);
	return test_done();
}
