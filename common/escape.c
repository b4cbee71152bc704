#include "common/escape.h"

#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (1..4), its code point in *cp;
 * 0 if s does not start one (a stray continuation byte, an overlong form,
 * a surrogate, a code point past U+10FFFF, or a sequence cut short). */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	uint32_t c = s[0], min;
	int len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2; c &= 0x1f; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3; c &= 0x0f; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4; c &= 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)   /* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Code points that are valid but change how a terminal shows the line. */
static bool invisible_control(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||        /* C1: CSI, NEL, ... */
	       (cp >= 0x202a && cp <= 0x202e) ||    /* bidi embeddings/overrides */
	       (cp >= 0x2066 && cp <= 0x2069);      /* bidi isolates */
}

enum escape_flags {
	ESCAPE_COLON = 1,       /* ':' too: a file:line path */
	ESCAPE_SOURCE = 2,      /* a line of source text: tab and '\\' as they are */
};

static const char *escape(struct strbuf *sb, const char *str, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	uint32_t cp;
	int len;

	strbuf_reset(sb);
	while (*s) {
		if ((flags & ESCAPE_SOURCE) && (*s == '\t' || *s == '\\')) {
			strbuf_addch(sb, (char)*s++);
			continue;
		}
		switch (*s) {
		case '\n': strbuf_add(sb, "\\n", 2); s++; continue;
		case '\r': strbuf_add(sb, "\\r", 2); s++; continue;
		case '\t': strbuf_add(sb, "\\t", 2); s++; continue;
		case '\\': strbuf_add(sb, "\\\\", 2); s++; continue;
		}
		if (*s < 0x20 || *s == 0x7f || ((flags & ESCAPE_COLON) && *s == ':')) {
			strbuf_addf(sb, "\\x%02x", *s++);
			continue;
		}
		len = utf8_seq(s, &cp);
		if (!len) {
			strbuf_addf(sb, "\\x%02x", *s++);
			continue;
		}
		if (invisible_control(cp))
			strbuf_addf(sb, "\\u%04x", (unsigned)cp);
		else
			strbuf_add(sb, (const char *)s, (size_t)len);
		s += len;
	}
	return strbuf_str(sb);
}

const char *escape_text(struct strbuf *sb, const char *s)
{
	return escape(sb, s, 0);
}

const char *escape_location_path(struct strbuf *sb, const char *s)
{
	return escape(sb, s, ESCAPE_COLON);
}

const char *escape_source_line(struct strbuf *sb, const char *s)
{
	return escape(sb, s, ESCAPE_SOURCE);
}
