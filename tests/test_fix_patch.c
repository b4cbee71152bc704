/* The fix as a patch: the source scanner, the unified diff, and the
 * patches fix_patch_build() writes for the report's shapes. */
#include "reports/fix_patch.h"
#include "reports/fix_source.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

static char dir[] = "/tmp/contend-test-fix-XXXXXX";

static char *write_source(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_scanner(void)
{
	static const char text[] =
		"long hits[4]; /* hits[0] in a comment\n"
		" * hits[1] still the comment */ int x = hits[2];\n"
		"const char *s = \"hits[3]\"; // hits\n"
		"y = hits [a[1]] + myhits[0] + hits_2;";
	char *path = write_source("scan.c", text), *why = NULL, *rel;
	unsigned *lines, *ends, n;
	struct fix_source s;

	CHECK(fix_source_read(path, NULL, &s, &why) == 0, "read: %s", why ? why : "");
	CHECK_EQ_U64(s.n_lines, 4, "lines");
	CHECK(s.no_newline, "no newline at the end");
	CHECK_STR(fix_source_line(&s, 3), "const char *s = \"hits[3]\"; // hits\n", "line 3");
	CHECK_STR(fix_source_line(&s, 9), "", "past the end");
	n = fix_source_uses(&s, "hits", &lines, &ends);
	/* the declaration, line 2's code, line 4's: not comments, strings,
	 * myhits or hits_2 */
	CHECK_EQ_U64(n, 3, "uses of hits");
	if (n == 3) {
		CHECK_EQ_U64(lines[0], 1, "the declaration");
		CHECK_EQ_U64(ends[0], 9, "past its name");
		CHECK_EQ_U64(lines[1], 2, "after the comment closes");
		CHECK_EQ_U64(lines[2], 4, "line 4");
		CHECK_EQ_U64(fix_bracket_end(fix_source_line(&s, 4), 9), 15, "nested brackets");
	}
	free(lines);
	free(ends);
	CHECK(!fix_line_names("a = 1; /* hits */", "hits"), "a comment does not name it");
	CHECK(fix_line_names("\tlong hits;", "hits"), "a declaration does");
	CHECK_EQ_U64(fix_bracket_end("a[b", 1), 0, "an unclosed bracket");
	fix_source_release(&s);
	CHECK(fix_source_read("/nonexistent/x.c", NULL, &s, &why) < 0 && why, "missing file");
	free(why);
	why = NULL;
	unlink(path);
	CHECK(symlink("/etc/passwd", path) == 0, "symlink");
	CHECK(fix_source_read(path, NULL, &s, &why) < 0, "a symlink is refused");
	free(why);
	unlink(path);
	free(path);

	rel = fix_relative_path("/a/b/c.c", "/a");
	CHECK_STR(rel, "b/c.c", "under the root");
	free(rel);
	CHECK(!fix_relative_path("/ab/c.c", "/a"), "a sibling is not under it");
	CHECK(!fix_relative_path("/a/../etc/passwd", "/a"), "nor a path that climbs out");
}

static void test_unified_diff(void)
{
	char *path = write_source("d.c", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n");
	struct report_edit e1 = { .path = "d.c", .line = 2, .n_old = 0, .new_text = "new\n" };
	struct report_edit e2 = { .path = "d.c", .line = 14, .n_old = 1, .new_text = "fourteen\n" };
	const struct report_edit *edits[] = { &e1, &e2 };
	struct fix_source s;
	char *why = NULL, *diff;

	CHECK(fix_source_read(path, NULL, &s, &why) == 0, "read");
	diff = fix_unified_diff(&s, "d.c", edits, 2);
	CHECK_STR(diff,
		  "--- a/d.c\n+++ b/d.c\n"
		  "@@ -1,4 +1,5 @@\n 1\n+new\n 2\n 3\n 4\n"
		  "@@ -11,5 +12,5 @@\n 11\n 12\n 13\n-14\n+fourteen\n 15\n", "two hunks");
	free(diff);
	fix_source_release(&s);
	unlink(path);
	free(path);
}

/* A report of one line with the layouts the advice would give. */
struct fixture {
	struct report r;
	struct report_line l;
	struct report_member members[4];
	struct report_layout_row cur[4], prop[4];
	struct report_thread threads[2];
};

static void fixture_init(struct fixture *f, enum sharing_kind kind)
{
	memset(f, 0, sizeof(*f));
	f->r.lines = &f->l;
	f->r.n_lines = 1;
	f->l.kind = kind;
	f->l.line_size = 64;
	f->l.object = "[heap]+0x40";
	f->l.predicted_gain = 2.5;
	f->threads[0] = (struct report_thread){ .tid = 101, .comm = "worker*/x" };
	f->threads[1] = (struct report_thread){ .tid = 102 };
	f->l.threads = f->threads;
	f->l.n_threads = 2;
	f->l.advice.summary = "move b to its own cache line";
	f->l.advice.current.title = f->l.advice.proposed.title = "struct S";
	f->l.advice.current.rows = f->cur;
	f->l.advice.proposed.rows = f->prop;
	f->l.members = f->members;
	f->l.struct_name = "struct S";
}

static void add_member(struct fixture *f, const char *name, unsigned decl, uint64_t offset)
{
	unsigned n = f->l.n_members++;

	f->members[n] = (struct report_member){ .name = (char *)name, .decl_line = decl,
						.offset = offset, .size = 8 };
	f->cur[n] = (struct report_layout_row){ .member = (char *)name, .type_name = "long",
						.offset = offset, .size = 8 };
	f->l.advice.current.n_rows++;
}

static void propose(struct fixture *f, const char *name, uint64_t offset, bool aligned)
{
	unsigned n = f->l.advice.proposed.n_rows++;

	f->prop[n] = (struct report_layout_row){ .member = (char *)name, .type_name = "long",
						 .offset = offset, .size = 8,
						 .line_aligned = aligned,
						 .comment = aligned ? "a line of its own" : NULL };
}

/* The file at path with r's edits applied, as patch(1) would leave it. */
static char *applied(const struct report *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct fix_source s;
	char *why = NULL;
	unsigned k = 1;

	if (fix_source_read(path, NULL, &s, &why) < 0) {
		free(why);
		return xstrdup("");
	}
	for (;;) {
		const struct report_edit *next = NULL;

		for (unsigned i = 0; i < r->patch.n_edits; i++)
			if (r->patch.edits[i].line >= k &&
			    (!next || r->patch.edits[i].line < next->line))
				next = &r->patch.edits[i];
		for (; k <= s.n_lines && (!next || k < next->line); k++)
			strbuf_addf(&sb, "%s", fix_source_line(&s, k));
		if (!next)
			break;
		strbuf_addf(&sb, "%s", next->new_text);
		k = next->line + next->n_old;
		if (!next->n_old)       /* an insertion: its line stays */
			strbuf_addf(&sb, "%s", fix_source_line(&s, k++));
	}
	fix_source_release(&s);
	return strbuf_detach(&sb);
}

static void test_struct_moved(void)
{
	char *path = write_source("s.c",
		"struct S {\n"
		"\tlong a;\n"
		"\t/* b: the hot one */\n"
		"\tlong b;\n"
		"\tlong c;\n"
		"};\n"
		"_Static_assert(sizeof(struct S) == 24, \"S\");\n"
		"_Static_assert(offsetof(struct S, c) == 16, \"S\");\n");
	struct fixture f;
	const char *d;
	char *patched;

	fixture_init(&f, SHARING_FALSE);
	f.l.struct_decl = (struct report_decl){ path, 1 };
	add_member(&f, "a", 2, 0);
	add_member(&f, "b", 4, 8);
	add_member(&f, "c", 5, 16);
	propose(&f, "a", 0, false);
	propose(&f, "c", 8, false);
	propose(&f, "b", 64, true);
	f.l.advice.current.size = 24;
	f.l.advice.proposed.size = 128;
	f.l.advice.cost_bytes = 104;
	fix_patch_build(&f.r, dir);
	d = f.r.patch.diff ? f.r.patch.diff : "";
	CHECK(f.l.fix.summary, "patched: %s", f.l.fix.none_why ? f.l.fix.none_why : "");
	CHECK_STR(f.r.patch.root, dir, "--root");
	CHECK(strstr(d, "--- a/s.c\n+++ b/s.c\n"), "paths under the root:\n%s", d);
	patched = applied(&f.r, path);
	CHECK_STR(patched,
		  "struct S {\n"
		  "\tlong a;\n"
		  "\tlong c;\n"
		  "\t/* b: the hot one */\n"
		  "\t/* contend: a line of its own; false sharing on [heap]+0x40 by threads "
		  "101 (worker* /x), 102; predicted gain 2.5x */\n"
		  "\t_Alignas(64) long b;\n"
		  "};\n"
		  "_Static_assert(sizeof(struct S) == 128, \"S\");\n"
		  "_Static_assert(offsetof(struct S, c) == 8, \"S\");\n",
		  "b moves last with its comment, aligned, the comment's names safe, the "
		  "assertions follow");
	free(patched);
	CHECK(strstr(d, "--- a/s.c\n+++ b/s.c\n@@ -1,8 +1,9 @@\n"), "one hunk:\n%s", d);
	CHECK(f.l.fix.caveat && strstr(f.l.fix.caveat, "from 24 to 128") &&
	      strstr(f.l.fix.caveat, "static assertions"), "said: %s",
	      f.l.fix.caveat ? f.l.fix.caveat : "");
	CHECK(f.l.fix.summary && strstr(f.l.fix.summary, "costs 104 bytes"), "the cost");
	/* a gain stated as its floor says so in the comment, as the report does */
	report_patch_release(&f.r);
	f.l.gain_note = "the samples cannot tell";
	fix_patch_build(&f.r, dir);
	d = f.r.patch.diff ? f.r.patch.diff : "";
	CHECK(strstr(d, "; predicted gain at least 2.5x */"), "a floor:\n%s", d);
	report_patch_release(&f.r);
	unlink(path);
	free(path);
}

static void test_true_sharing(void)
{
	struct fixture f;

	fixture_init(&f, SHARING_TRUE);
	f.l.advice.proposed.title = NULL;
	fix_patch_build(&f.r, dir);
	CHECK(!f.l.fix.summary && !f.r.patch.diff, "no patch");
	CHECK(f.l.fix.none_why && !strncmp(f.l.fix.none_why, "true sharing", 12), "why: %s",
	      f.l.fix.none_why ? f.l.fix.none_why : "");
	report_patch_release(&f.r);
}

static void test_refusals(void)
{
	static const struct { const char *source, *why; } cases[] = {
		{ "struct S {\n\tlong a, b;\n\tlong c;\n};\n", "declared on one line" },
		{ "struct S {\n\tlong a;\n\tlong b;\n\tlong c;\n} __attribute__((packed));\n",
		  "packed" },
		{ "struct S {\n\tlong x;\n\tlong y;\n\tlong z;\n};\n", "does not declare member" },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		char *path = write_source("r.c", cases[i].source);
		struct fixture f;

		fixture_init(&f, SHARING_FALSE);
		f.l.struct_decl = (struct report_decl){ path, 1 };
		add_member(&f, "a", 2, 0);
		add_member(&f, "b", i == 0 ? 2 : 3, 8);
		add_member(&f, "c", i == 0 ? 3 : 4, 16);
		propose(&f, "a", 0, false);
		propose(&f, "b", 64, true);
		propose(&f, "c", 72, false);
		fix_patch_build(&f.r, dir);
		CHECK(!f.r.patch.diff && f.l.fix.none_why && strstr(f.l.fix.none_why, cases[i].why),
		      "case %u refused: %s", i, f.l.fix.none_why ? f.l.fix.none_why : "(patched)");
		report_patch_release(&f.r);
		unlink(path);
		free(path);
	}
}

static void test_scalar_array(void)
{
	char *path = write_source("a.c",
		"static volatile long hits[8];\t/* one per thread, a, b */\n"
		"void bump(int i) { hits[i]++; /* hits[i] */ }\n"
		"volatile long *first = hits;\n");
	struct fixture f;
	const char *d;

	fixture_init(&f, SHARING_FALSE);
	f.l.struct_name = "volatile long";
	f.l.variable = "hits";
	f.l.variable_decl = (struct report_decl){ path, 1 };
	f.l.advice.proposed.style = LAYOUT_PLAIN;
	f.l.advice.proposed.title = "struct padded_volatile_long";
	f.l.advice.current.title = NULL;
	f.prop[0] = (struct report_layout_row){ .member = "v", .type_name = "volatile long",
						.size = 8, .line_aligned = true };
	f.prop[1] = (struct report_layout_row){ .member = "pad", .type_name = "char[56]",
						.offset = 8, .size = 56 };
	f.l.advice.proposed.n_rows = 2;
	fix_patch_build(&f.r, dir);
	d = f.r.patch.diff ? f.r.patch.diff : "";
	CHECK(strstr(d, "+struct padded_volatile_long {\n+\t_Alignas(64) volatile long v;\n+};\n"
		      "+static struct padded_volatile_long hits[8];\t/* one per thread, a, b */\n"),
	      "the element wrapped, static kept, the comment too:\n%s", d);
	CHECK(strstr(d, "+void bump(int i) { hits[i].v++; /* hits[i] */ }\n"),
	      "an indexed use gains .v, the comment not");
	CHECK(f.l.fix.caveat && strstr(f.l.fix.caveat, "without an index on line(s) 3"),
	      "the bare use is said: %s", f.l.fix.caveat ? f.l.fix.caveat : "");
	CHECK(f.l.fix.n_edits == 2, "two edits: %u", f.l.fix.n_edits);
	report_patch_release(&f.r);
	unlink(path);
	free(path);
}

/* Names from the target are data: a type name that would write a line of
 * code, a file name that would forge a line of the diff, get no patch. */
static void test_hostile_names(void)
{
	char *path = write_source("h.c", "static long hits[8];\n");
	char *evil = write_source("e\n+++ x.c", "struct S {\n\tlong a;\n\tlong b;\n\tlong c;\n};\n");
	struct fixture f;

	fixture_init(&f, SHARING_FALSE);
	f.l.variable = "hits";
	f.l.variable_decl = (struct report_decl){ path, 1 };
	f.l.advice.proposed.style = LAYOUT_PLAIN;
	f.l.advice.proposed.title = "struct padded_long";
	f.prop[0] = (struct report_layout_row){ .member = "v", .size = 8, .line_aligned = true,
						.type_name = "long;\nsystem(\"x\")" };
	f.l.advice.proposed.n_rows = 1;
	fix_patch_build(&f.r, dir);
	CHECK(!f.r.patch.diff && f.l.fix.none_why && strstr(f.l.fix.none_why, "not one to write"),
	      "a type name with a newline: %s", f.l.fix.none_why ? f.l.fix.none_why : "(patched)");
	report_patch_release(&f.r);

	fixture_init(&f, SHARING_FALSE);
	f.l.struct_decl = (struct report_decl){ evil, 1 };
	add_member(&f, "a", 2, 0);
	add_member(&f, "b", 3, 8);
	add_member(&f, "c", 4, 16);
	propose(&f, "a", 0, false);
	propose(&f, "b", 64, true);
	propose(&f, "c", 72, false);
	fix_patch_build(&f.r, dir);
	CHECK(!f.r.patch.diff && f.l.fix.none_why && strstr(f.l.fix.none_why, "control characters"),
	      "a file name with a newline: %s", f.l.fix.none_why ? f.l.fix.none_why : "(patched)");
	report_patch_release(&f.r);
	unlink(path);
	unlink(evil);
	free(path);
	free(evil);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_scanner();
	test_unified_diff();
	test_struct_moved();
	test_true_sharing();
	test_refusals();
	test_scalar_array();
	test_hostile_names();
	rmdir(dir);
	return test_done();
}
