/* json_string.c - a string as JSON (json_string.h). */
#include "printers/json_string.h"

#include <stdint.h>
#include <string.h>

/*
 * The UTF-8 sequence at s (at most n bytes) is well formed: its length, or
 * 0.  Overlong forms, surrogates and code points past U+10FFFF are not.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':  return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\t': return "\\t";
	case '\r': return "\\r";
	}
	return NULL;
}

/*
 * Other control characters, and bytes that are not part of well-formed
 * UTF-8 (a command line can hold anything), become \u00XX: the code point
 * of the same value, so the output is always valid JSON.
 */
void json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		const char *esc = short_escape(s[i]);
		size_t len;

		if (esc) {
			fputs(esc, out);
			i++;
			continue;
		}
		len = s[i] < 0x20 || s[i] == 0x7f ? 0 : utf8_len(s + i, n - i);
		if (!len) {
			fprintf(out, "\\u%04x", s[i]);
			i++;
			continue;
		}
		fwrite(s + i, 1, len, out);
		i += len;
	}
	fputc('"', out);
}
