/* json_read.c - recursive descent over RFC 8259, depth-limited. */
#include "common/json_read.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

struct parser {
	const char *s;
	size_t len, pos;
	struct strbuf *err;
	bool failed;
	size_t used, budget;     /* bytes of tree allocated, and the most allowed */
};

__attribute__((format(printf, 2, 3)))
static bool fail(struct parser *p, const char *fmt, ...)
{
	unsigned line = 1, col = 1;
	va_list ap;

	if (p->failed)
		return false;
	p->failed = true;
	for (size_t i = 0; i < p->pos && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	strbuf_addf(p->err, "line %u, column %u: ", line, col);
	va_start(ap, fmt);
	strbuf_vaddf(p->err, fmt, ap);
	va_end(ap);
	return false;
}

/* Every byte of the tree is charged against the budget before it is
 * allocated, so that a crafted document is refused rather than grown into
 * gigabytes ("[[0],[0],..." once cost 448 bytes per 4 bytes of text). */
static bool charge(struct parser *p, size_t bytes)
{
	if (bytes > p->budget - p->used)
		return fail(p, "the document would take more than %zu MiB of memory",
			    p->budget >> 20);
	p->used += bytes;
	return true;
}

/* ALLOC_GROW, charged, and from one slot: most arrays here are short. */
static bool grow(struct parser *p, void *arrp, size_t elsz, size_t need, size_t *alloc)
{
	void **arr = arrp;
	size_t n = *alloc ? *alloc * 2 : 1;

	if (need <= *alloc)
		return true;
	if (n < need)
		n = need;
	if (!charge(p, (n - *alloc) * elsz))
		return false;
	*arr = xrealloc(*arr, n * elsz);
	*alloc = n;
	return true;
}

static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static void skip_space(struct parser *p)
{
	int c;
	while ((c = peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		p->pos++;
}

static bool expect_word(struct parser *p, const char *word)
{
	size_t n = strlen(word);
	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "expected a value");
	p->pos += n;
	return true;
}

static bool parse_value(struct parser *p, struct json *out, unsigned depth);

static bool parse_number(struct parser *p, struct json *out)
{
	size_t start = p->pos;
	char buf[64];

	/* the JSON grammar; strtod alone would take "0x1", "inf", "1." */
	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0')
		p->pos++;
	else if (peek(p) >= '1' && peek(p) <= '9')
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	else
		return fail(p, "expected a digit");
	if (peek(p) == '.') {
		p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return fail(p, "expected a digit after '.'");
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return fail(p, "expected a digit in the exponent");
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	if (p->pos - start >= sizeof(buf))
		return fail(p, "number too long");
	copy_bytes(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = '\0';
	out->type = JSON_NUMBER;
	out->number = strtod(buf, NULL);
	return true;
}

static int hex4(struct parser *p)
{
	int v = 0;
	if (p->len - p->pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static void add_utf8(struct strbuf *sb, uint32_t cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xc0 | cp >> 6));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xe0 | cp >> 12));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (char)(0xf0 | cp >> 18));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

/* \uXXXX, with a surrogate pair for code points past the BMP */
static bool parse_unicode(struct parser *p, struct strbuf *sb)
{
	int hi = hex4(p), lo;

	if (hi < 0)
		return fail(p, "bad \\u escape");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(p, "unpaired low surrogate");
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
			return fail(p, "unpaired high surrogate");
		p->pos += 2;
		lo = hex4(p);
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(p, "bad low surrogate");
		add_utf8(sb, 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00));
		return true;
	}
	if (hi == 0)
		return fail(p, "\\u0000 in a string");
	add_utf8(sb, (uint32_t)hi);
	return true;
}

static bool parse_string(struct parser *p, char **out)
{
	static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	struct strbuf sb = STRBUF_INIT;

	p->pos++;                       /* the opening quote */
	for (;;) {
		int c = peek(p);
		const char *e;

		if (c < 0) {
			fail(p, "unterminated string");
			goto bad;
		}
		p->pos++;
		if (c == '"')
			break;
		if (c < 0x20) {
			fail(p, "control character in a string");
			goto bad;
		}
		if (c != '\\') {
			strbuf_addch(&sb, (char)c);
			continue;
		}
		c = peek(p);
		if (c < 0) {
			fail(p, "unterminated string");
			goto bad;
		}
		p->pos++;
		if (c == 'u') {
			if (!parse_unicode(p, &sb))
				goto bad;
			continue;
		}
		for (e = escapes; *e && *e != c; e += 2)
			;
		if (!*e) {
			fail(p, "bad escape");
			goto bad;
		}
		strbuf_addch(&sb, e[1]);
	}
	/* the string, and what malloc keeps beside it */
	if (!charge(p, sb.len + 1 + 2 * sizeof(size_t)))
		goto bad;
	*out = strbuf_detach(&sb);
	return true;
bad:
	strbuf_release(&sb);
	return false;
}

static bool parse_array(struct parser *p, struct json *out, unsigned depth)
{
	size_t alloc = 0;

	out->type = JSON_ARRAY;
	p->pos++;
	skip_space(p);
	if (peek(p) == ']') {
		p->pos++;
		return true;
	}
	for (;;) {
		if (!grow(p, &out->items, sizeof(*out->items), out->n + 1, &alloc))
			return false;
		memset(&out->items[out->n], 0, sizeof(*out->items));
		out->n++;
		if (!parse_value(p, &out->items[out->n - 1], depth + 1))
			return false;
		skip_space(p);
		if (peek(p) == ']') {
			p->pos++;
			return true;
		}
		if (peek(p) != ',')
			return fail(p, "expected ',' or ']'");
		p->pos++;
	}
}

static bool parse_object(struct parser *p, struct json *out, unsigned depth)
{
	size_t alloc = 0, alloc_keys = 0;

	out->type = JSON_OBJECT;
	p->pos++;
	skip_space(p);
	if (peek(p) == '}') {
		p->pos++;
		return true;
	}
	for (;;) {
		char *key;

		skip_space(p);
		if (peek(p) != '"')
			return fail(p, "expected a member name");
		if (!parse_string(p, &key))
			return false;
		if (!grow(p, &out->keys, sizeof(*out->keys), out->n + 1, &alloc_keys) ||
		    !grow(p, &out->items, sizeof(*out->items), out->n + 1, &alloc)) {
			free(key);
			return false;
		}
		out->keys[out->n] = key;
		memset(&out->items[out->n], 0, sizeof(*out->items));
		out->n++;
		skip_space(p);
		if (peek(p) != ':')
			return fail(p, "expected ':'");
		p->pos++;
		if (!parse_value(p, &out->items[out->n - 1], depth + 1))
			return false;
		skip_space(p);
		if (peek(p) == '}') {
			p->pos++;
			return true;
		}
		if (peek(p) != ',')
			return fail(p, "expected ',' or '}'");
		p->pos++;
	}
}

static bool parse_value(struct parser *p, struct json *out, unsigned depth)
{
	if (depth > JSON_MAX_DEPTH)
		return fail(p, "nested deeper than %d", JSON_MAX_DEPTH);
	skip_space(p);
	switch (peek(p)) {
	case '{':
		return parse_object(p, out, depth);
	case '[':
		return parse_array(p, out, depth);
	case '"':
		out->type = JSON_STRING;
		return parse_string(p, &out->string);
	case 't':
		out->type = JSON_BOOL;
		out->boolean = true;
		return expect_word(p, "true");
	case 'f':
		out->type = JSON_BOOL;
		return expect_word(p, "false");
	case 'n':
		out->type = JSON_NULL;
		return expect_word(p, "null");
	case -1:
		return fail(p, "unexpected end of the text");
	default:
		if (peek(p) == '-' || (peek(p) >= '0' && peek(p) <= '9'))
			return parse_number(p, out);
		return fail(p, "expected a value");
	}
}

static void json_release(struct json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_release(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->string);
}

struct json *json_parse(const char *text, size_t len, struct strbuf *err)
{
	struct parser p = { .s = text, .len = len, .err = err };
	struct json *j = xcalloc(1, sizeof(*j));

	p.budget = len > (SIZE_MAX - JSON_MEM_SLACK) / JSON_MEM_PER_BYTE ? SIZE_MAX :
		   len * JSON_MEM_PER_BYTE + JSON_MEM_SLACK;

	if (parse_value(&p, j, 0)) {
		skip_space(&p);
		if (p.pos == p.len)
			return j;
		fail(&p, "text after the JSON value");
	}
	json_free(j);
	return NULL;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	json_release(j);
	free(j);
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return &j->items[i];
	return NULL;
}

const char *json_string(const struct json *j)
{
	return j && j->type == JSON_STRING ? j->string : NULL;
}

double json_number(const struct json *j, double dflt)
{
	return j && j->type == JSON_NUMBER ? j->number : dflt;
}
