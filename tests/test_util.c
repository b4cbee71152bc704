/* Unit tests for common/util.c: strbuf growth and formatting, ALLOC_GROW. */
#include "common/util.h"
#include "tests/tap.h"

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

int main(void)
{
	test_basename_of();
	test_strbuf();
	test_alloc_grow();
	CHECK(hash_u64(1) != hash_u64(2), "hash distinguishes");
	return test_done();
}
