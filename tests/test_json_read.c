/* test_json_read - the JSON reader behind check --baseline: values,
 * escapes and numbers as RFC 8259 says, and a clear error (never a crash)
 * for anything else, including every truncation of a valid report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "common/util.h"
#include "common/json_read.h"

static const char report[] =
	"{\n"
	"  \"schema\": \"contend-report\", \"version\": 1,\n"
	"  \"lines\": [\n"
	"    { \"kind\": \"false\", \"score\": 0.943, \"variable\": \"counters\",\n"
	"      \"type\": null, \"ok\": true, \"bad\": false,\n"
	"      \"ranges\": [ { \"member\": \"counters[0]\", \"false_writer\": true },\n"
	"                  { \"member\": \"counters[1]\", \"offset\": 8 } ] }\n"
	"  ],\n"
	"  \"empty\": {}, \"none\": []\n"
	"}\n";

static void test_report(void)
{
	struct strbuf err = STRBUF_INIT;
	struct json *j = json_parse(report, strlen(report), &err);
	const struct json *lines, *l, *ranges;

	CHECK(j != NULL, "parse: %s", strbuf_str(&err));
	if (!j)
		return;
	CHECK_STR(json_string(json_get(j, "schema")), "contend-report", "schema");
	CHECK(json_number(json_get(j, "version"), 0) == 1, "version");
	lines = json_get(j, "lines");
	CHECK(lines && lines->type == JSON_ARRAY && lines->n == 1, "lines");
	if (lines && lines->n == 1) {
		l = &lines->items[0];
		CHECK_STR(json_string(json_get(l, "kind")), "false", "kind");
		CHECK(fabs(json_number(json_get(l, "score"), 0) - 0.943) < 1e-12, "score");
		CHECK(json_get(l, "type") && json_get(l, "type")->type == JSON_NULL, "null");
		CHECK(json_string(json_get(l, "type")) == NULL, "null is not a string");
		CHECK(json_get(l, "ok")->type == JSON_BOOL && json_get(l, "ok")->boolean, "true");
		CHECK(!json_get(l, "bad")->boolean, "false");
		ranges = json_get(l, "ranges");
		CHECK(ranges && ranges->n == 2, "ranges");
		if (ranges && ranges->n == 2) {
			CHECK_STR(json_string(json_get(&ranges->items[1], "member")), "counters[1]",
				  "member");
			CHECK(json_number(json_get(&ranges->items[1], "offset"), -1) == 8, "offset");
		}
	}
	CHECK(json_get(j, "empty")->type == JSON_OBJECT && json_get(j, "empty")->n == 0, "{}");
	CHECK(json_get(j, "none")->type == JSON_ARRAY && json_get(j, "none")->n == 0, "[]");
	CHECK(json_get(j, "nope") == NULL, "absent key");
	CHECK(json_get(lines, "x") == NULL, "json_get on an array");
	CHECK(json_number(json_get(j, "schema"), -5) == -5, "number default");
	json_free(j);
	strbuf_release(&err);
}

static struct json *parse(const char *s, struct strbuf *err)
{
	strbuf_reset(err);
	return json_parse(s, strlen(s), err);
}

static void test_values(void)
{
	struct strbuf err = STRBUF_INIT;
	struct json *j;

	j = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\"", &err);
	CHECK_STR(json_string(j), "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		  "escapes and UTF-8");
	json_free(j);

	j = parse(" -12.5e+2 ", &err);
	CHECK(j && j->number == -1250, "number");
	json_free(j);
	j = parse("0", &err);
	CHECK(j && j->number == 0, "zero");
	json_free(j);
	j = parse("1E-3", &err);
	CHECK(j && j->number == 0.001, "exponent");
	json_free(j);
	strbuf_release(&err);
}

static void expect_error(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct json *j = parse(text, &err);

	CHECK(j == NULL, "accepted: %s", text);
	CHECK(strstr(strbuf_str(&err), want), "\"%s\": error \"%s\" lacks \"%s\"",
	      text, strbuf_str(&err), want);
	json_free(j);
	strbuf_release(&err);
}

static void test_errors(void)
{
	char deep[400];

	expect_error("", "line 1, column 1: unexpected end");
	expect_error("{\"a\": 1,\n  \"b\" 2}", "line 2, column 7: expected ':'");
	expect_error("[1 2]", "expected ',' or ']'");
	expect_error("{\"a\": 1 \"b\": 2}", "expected ',' or '}'");
	expect_error("{1: 2}", "expected a member name");
	expect_error("[1,]", "expected a value");
	expect_error("01", "text after");
	expect_error("1.", "expected a digit after '.'");
	expect_error("-", "expected a digit");
	expect_error("1e", "exponent");
	expect_error("0x10", "text after");
	expect_error("inf", "expected a value");
	expect_error("NaN", "expected a value");
	expect_error("tru", "expected a value");
	expect_error("nul", "expected a value");
	expect_error("\"abc", "unterminated string");
	expect_error("\"abc\\", "unterminated string");
	expect_error("\"a\\x\"", "bad escape");
	expect_error("\"a\\u12\"", "bad \\u escape");
	expect_error("\"\\u0000\"", "\\u0000");
	expect_error("\"\\ud800\"", "unpaired high surrogate");
	expect_error("\"\\udc00\"", "unpaired low surrogate");
	expect_error("\"\\ud800\\u0041\"", "bad low surrogate");
	expect_error("\"a\nb\"", "control character");
	expect_error("{} {}", "text after");
	expect_error("1234567890123456789012345678901234567890123456789012345678901234567890",
		     "number too long");

	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	expect_error(deep, "nested deeper than 64");

	{       /* embedded NUL: the length counts, not the terminator */
		struct strbuf err = STRBUF_INIT;
		struct json *j = json_parse("\"a\0b\"", 5, &err);
		CHECK(!j && strstr(strbuf_str(&err), "control character"), "NUL: %s",
		      strbuf_str(&err));
		json_free(j);
		strbuf_release(&err);
	}
}

static void test_truncated(void)
{
	size_t len = strlen(report), refused = 0;
	struct strbuf err = STRBUF_INIT;

	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so that ASan sees any overread */
		char *copy = xmalloc(n ? n : 1);
		struct json *j;

		memcpy(copy, report, n);
		strbuf_reset(&err);
		j = json_parse(copy, n, &err);
		/* only the trailing newline may go */
		if (j == NULL && err.len)
			refused++;
		json_free(j);
		free(copy);
	}
	CHECK_EQ_U64(refused, len - 1, "truncations refused");
	strbuf_release(&err);
}

/* "[[0],[0],...]" in at most n bytes (*len): 4 bytes of text per node; the
 * reader once spent 8 slots (448 bytes) on each one-element array, 1.7 GB
 * for 32 MiB. */
static char *crafted_nested(size_t n, size_t *len)
{
	char *t = xmalloc(n);
	size_t i = 0;

	t[i++] = '[';
	while (i + 8 <= n) {
		memcpy(t + i, "[0],", 4);
		i += 4;
	}
	memcpy(t + i, "[0]]", 4);
	*len = i + 4;
	return t;
}

static void test_memory_bound(void)
{
	size_t len = 32u << 20, budget = len * JSON_MEM_PER_BYTE + JSON_MEM_SLACK;
	struct strbuf err = STRBUF_INIT;
	size_t text_len;
	char *text = crafted_nested(len, &text_len);
	struct json *j;
	pid_t child;
	int status;

	j = json_parse(text, text_len, &err);
	CHECK(j == NULL, "a 32 MiB document of one-element arrays is refused");
	CHECK(strstr(strbuf_str(&err), "would take more than") != NULL,
	      "and says why: %s", strbuf_str(&err));
	json_free(j);

	/* The bound, measured: in a child whose address space can grow by
	 * the budget and 64 MiB more, the refusal comes, not an out-of-memory
	 * death.  ASan reserves terabytes of shadow: no limit there. */
#if !defined(__SANITIZE_ADDRESS__)
	child = fork();
	if (child == 0) {
		struct rlimit rl;
		unsigned long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");

		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(3);
		fclose(f);
		rl.rlim_cur = rl.rlim_max = pages * (size_t)sysconf(_SC_PAGESIZE) +
					     budget + (64u << 20);
		setrlimit(RLIMIT_AS, &rl);
		strbuf_reset(&err);
		_exit(json_parse(text, text_len, &err) == NULL && err.len ? 0 : 1);
	}
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "refused within the budget's address space (status %#x)", status);
#else
	(void)child; (void)status; (void)budget;
#endif
	free(text);

	/* a document as large, mostly space, is read */
	text = xmalloc(len);
	memset(text, ' ', len);
	memcpy(text, "[0,1,2]", 7);
	strbuf_reset(&err);
	j = json_parse(text, len, &err);
	CHECK(j && j->n == 3, "32 MiB of mostly white space is read: %s", strbuf_str(&err));
	json_free(j);
	free(text);
	strbuf_release(&err);
}

int main(void)
{
	test_memory_bound();
	test_report();
	test_values();
	test_errors();
	test_truncated();
	return test_done();
}
