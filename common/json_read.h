/* json_read.h - a small strict JSON reader, for contend's own JSON reports
 * (check --baseline).
 *
 * json_parse() builds a tree of the whole document (RFC 8259: one value,
 * strings in UTF-8 with \uXXXX escapes decoded).  Nesting is limited to
 * JSON_MAX_DEPTH, so a hostile file cannot exhaust the stack, and the tree
 * may take at most JSON_MEM_PER_BYTE bytes per byte of text (plus
 * JSON_MEM_SLACK): a document that would need more is refused with an
 * error, not grown (contend's own reports need 4 to 6 times their size).
 */
#ifndef CONTEND_JSON_READ_H
#define CONTEND_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define JSON_MAX_DEPTH 64
#define JSON_MEM_PER_BYTE 16
#define JSON_MEM_SLACK (1u << 20)

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type type;
	bool boolean;
	double number;
	char *string;            /* NUL-terminated; a \u0000 escape is refused */
	struct json *items;      /* array elements, object member values */
	char **keys;             /* object member names, parallel to items */
	size_t n;
};

/* The document text[0..len); NULL with "line L, column C: what" in err. */
struct json *json_parse(const char *text, size_t len, struct strbuf *err);
void json_free(struct json *j);

/* Member key of an object: NULL if j is not an object or has no such key
 * (the first one, if repeated). */
const struct json *json_get(const struct json *j, const char *key);
/* The value if j has that type, else NULL / dflt. */
const char *json_string(const struct json *j);
double json_number(const struct json *j, double dflt);

#endif
