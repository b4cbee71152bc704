/* Unit tests for common/util.c: strbuf growth and formatting, ALLOC_GROW,
 * the descriptor table's reserve. */
#include "common/util.h"
#include "common/procfs.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	CHECK_STR(strbuf_str(&sb), "", "empty strbuf reads as empty string");
	strbuf_addf(&sb, "%s=%d", "x", 42);
	strbuf_addch(&sb, ';');
	strbuf_add(&sb, "abc", 2);
	CHECK_STR(sb.buf, "x=42;ab", "addf/addch/add");
	CHECK_EQ_U64(sb.len, 7, "length");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%04d", i);
	CHECK_EQ_U64(sb.len, 7 + 4000, "length after growth");
	CHECK(!strncmp(sb.buf + sb.len - 4, "0999", 4), "tail is %s", sb.buf + sb.len - 4);
	strbuf_reset(&sb);
	CHECK_STR(sb.buf, "", "reset");
	strbuf_addf(&sb, "q");
	s = strbuf_detach(&sb);
	CHECK_STR(s, "q", "detach");
	CHECK(sb.buf == NULL && sb.len == 0, "detached strbuf is empty");
	free(s);
	s = strbuf_detach(&sb);
	CHECK_STR(s, "", "detach of empty strbuf gives an empty string");
	free(s);
}

static void test_alloc_grow(void)
{
	int *a = NULL;
	size_t alloc = 0;
	for (int i = 0; i < 100; i++) {
		ALLOC_GROW(a, (size_t)i + 1, alloc);
		a[i] = i;
	}
	CHECK(alloc >= 100, "alloc %zu", alloc);
	CHECK(a[99] == 99, "content kept across growth");
	free(a);
	char *p = xasprintf("%d-%s", 7, "x");
	CHECK_STR(p, "7-x", "xasprintf");
	free(p);
}

static void test_basename_of(void)
{
	CHECK_STR(basename_of(""), "", "empty path");
	CHECK_STR(basename_of("/"), "/", "root stays whole");
	CHECK_STR(basename_of("a"), "a", "no slash");
	CHECK_STR(basename_of("a/b"), "b", "relative");
	CHECK_STR(basename_of("/x/y"), "y", "absolute");
	CHECK_STR(basename_of("/x/y/"), "/x/y/", "trailing slash keeps the path whole");
	CHECK_STR(basename_of("//"), "//", "slashes only");
	CHECK_STR(basename_of("/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6", "a library");
	CHECK_STR(basename_of("[heap]"), "[heap]", "a pseudo mapping");
}

/* Each input is copied into an allocation of exactly its size, so that a
 * write past the NUL or a read beyond it is an ASan error, not luck. */
static void check_normalize(const char *in, const char *want)
{
	size_t n = strlen(in) + 1;
	char *p = malloc(n);

	memcpy(p, in, n);
	path_normalize(p);
	CHECK(!strcmp(p, want), "path_normalize(\"%s\"): got \"%s\", want \"%s\"", in, p, want);
	free(p);
}

static void test_path_normalize(void)
{
	char long_in[600], long_want[600];

	check_normalize("", "");
	check_normalize("/", "/");
	check_normalize("//", "/");
	check_normalize("a", "a");
	check_normalize("/a", "/a");
	check_normalize("/a/b", "/a/b");
	check_normalize("/a/b/", "/a/b");
	check_normalize("a/b", "a/b");
	check_normalize("./a", "a");
	check_normalize("/a/./b//c/", "/a/b/c");
	check_normalize("/a/b/../c.c", "/a/c.c");
	check_normalize("/a/b/../../c.c", "/c.c");
	check_normalize("/..", "/");
	check_normalize("/../a", "/a");
	check_normalize("..", "..");
	check_normalize("../x.c", "../x.c");
	check_normalize("../../x.c", "../../x.c");
	check_normalize("a/../../x.c", "../x.c");
	check_normalize("a/..", "");
	check_normalize("dir/../x.c", "x.c");
	check_normalize("/build/src/../../src/x.c", "/src/x.c");
	check_normalize("/tmp/fresh clone \u2713.Ab/deep/contend/testcases/../testcases/f.c",
			"/tmp/fresh clone \u2713.Ab/deep/contend/testcases/f.c");
	check_normalize("/x/..a/b..", "/x/..a/b..");
	check_normalize("/x/.a/./b", "/x/.a/b");
	/* a path past 100 characters, as a deep checkout has */
	strcpy(long_in, "/tmp");
	strcpy(long_want, "/tmp");
	for (int i = 0; i < 25; i++) {
		strcat(long_in, "/deep/.");
		strcat(long_want, "/deep");
	}
	strcat(long_in, "/contend/build/../testcases/false_sharing_counters.c");
	strcat(long_want, "/contend/testcases/false_sharing_counters.c");
	check_normalize(long_in, long_want);
}

static void test_edit_distance(void)
{
	CHECK(edit_distance("freq", "freq") == 0, "same: 0");
	CHECK(edit_distance("freqq", "freq") == 1, "one more: 1");
	CHECK(edit_distance("confrim", "confirm") == 2, "swapped: 2");
	CHECK(edit_distance("", "top") == 3, "from nothing: its length");
	CHECK(edit_distance("run", "report") == 5, "run/report: 5");
}

/* The kernel's table size for this process, or -1. */
static long fd_table_size(void)
{
	return process_status_number(0, "FDSize");
}

static void test_fd_table_reserve(void)
{
	int before = open_fd_count();

	/* a harness (valgrind) may hand us a grown table: nothing to see then */
	if (fd_table_size() < 0 || fd_table_size() > HIGH_FD_BASE + 63) {
		CHECK(1, "skip: FDSize %ld in /proc/self/status", fd_table_size());
		return;
	}
	fd_table_reserve(HIGH_FD_BASE + 63);
	CHECK(fd_table_size() > HIGH_FD_BASE + 63, "grown to hold fd %d: %ld",
	      HIGH_FD_BASE + 63, fd_table_size());
	CHECK(open_fd_count() == before, "no descriptor left open: %d, %d", open_fd_count(), before);
}

int main(void)
{
	test_fd_table_reserve();
	test_edit_distance();
	test_path_normalize();
	test_basename_of();
	test_strbuf();
	test_alloc_grow();
	CHECK(hash_u64(1) != hash_u64(2), "hash distinguishes");
	return test_done();
}
