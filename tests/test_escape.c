/* Unit tests for common/escape.c: what the target names stays one line of
 * visible text; valid UTF-8 is kept. */
#include "common/escape.h"
#include "tests/tap.h"

static void expect(const char *in, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(escape_text(&sb, in), want, what);
	strbuf_release(&sb);
}

static void test_controls(void)
{
	expect("plain_name", "plain_name", "plain ASCII kept");
	expect("", "", "empty string");
	expect(NULL, "", "NULL reads as empty");
	/* the forged check line: the newline is what would start it */
	expect("x.c\nreal.c:99: note: all good", "x.c\\nreal.c:99: note: all good",
	       "newline made visible: no second line");
	expect("a\rb\tc", "a\\rb\\tc", "CR and tab");
	expect("\x1b[2Jgone", "\\x1b[2Jgone", "ESC[2J cannot clear the screen");
	expect("del\x7f", "del\\x7f", "DEL");
	expect("\x01\x1f", "\\x01\\x1f", "other C0 controls");
	expect("a\\nb", "a\\\\nb", "backslash doubled: a literal \\n differs from a newline");
}

static void test_utf8(void)
{
	expect("/tmp/fresh clone \xe2\x9c\x93/x.c", "/tmp/fresh clone \xe2\x9c\x93/x.c",
	       "valid UTF-8 (check mark) kept");
	expect("caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80",
	       "2- and 4-byte UTF-8 kept");
	expect("a\xc2\x9b" "2Jb", "a\\u009b2Jb", "C1 CSI (U+009B) in UTF-8 escaped");
	expect("\xc2\x85\xc2\x80\xc2\x9f", "\\u0085\\u0080\\u009f", "C1 range ends");
	expect("\xc2\xa0", "\xc2\xa0", "U+00A0 just past C1 kept");
	expect("x\xe2\x80\xaey", "x\\u202ey", "bidi override U+202E escaped");
	expect("\xe2\x81\xa6", "\\u2066", "bidi isolate U+2066 escaped");
	expect("bad\xff", "bad\\xff", "invalid byte 0xff");
	expect("\x80x", "\\x80x", "stray continuation byte");
	expect("\xc0\xaf", "\\xc0\\xaf", "overlong '/' is not a slash");
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80", "UTF-8 surrogate refused");
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "past U+10FFFF refused");
	expect("\xe2\x9c", "\\xe2\\x9c", "truncated sequence at the end");
	expect("\xe2\x9cz", "\\xe2\\x9cz", "truncated sequence before ASCII");
}

static void test_location_path(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(escape_location_path(&sb, "x.c:99: note\n"), "x.c\\x3a99\\x3a note\\n",
		  "colons in a location path escaped too");
	CHECK_STR(escape_location_path(&sb, "/src/\xe2\x9c\x93.c"), "/src/\xe2\x9c\x93.c",
		  "location path keeps UTF-8");
	CHECK_STR(escape_text(&sb, "a:1"), "a:1", "escape_text keeps colons");
	CHECK_STR(escape_source_line(&sb, "\tputs(\"a\\n\"); /* \x1b[2J \xe2\x9c\x93 */"),
		  "\tputs(\"a\\n\"); /* \\x1b[2J \xe2\x9c\x93 */",
		  "source line: tab and backslash kept, ESC escaped, UTF-8 kept");
	CHECK_STR(escape_source_line(&sb, "x\r\xc2\x9b\xff"), "x\\r\\u009b\\xff",
		  "source line: CR, C1 and invalid bytes escaped");
	strbuf_release(&sb);
}

int main(void)
{
	test_controls();
	test_utf8();
	test_location_path();
	return test_done();
}
