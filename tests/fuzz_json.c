/* fuzz_json - libFuzzer target: the JSON reader behind check --baseline.
 *
 * The input is parsed as a document (common/json_read.h); a refusal must
 * come with a "line L, column C: what" reason, and a tree is walked the
 * way load_baseline() walks a report (lines, their kind, score and
 * members) and freed.  The reader's memory bound (JSON_MEM_PER_BYTE) is
 * part of what is checked: ASan's allocator fails loudly past its limit.
 * Corpus: tests/fuzz-corpus/json (contend reports and broken ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_read.h"
#include "common/util.h"

/* visit every node; returns a number so the walk is not optimised out */
static size_t walk(const struct json *j, unsigned depth)
{
	size_t n = 1;

	if (depth > JSON_MAX_DEPTH + 1)
		abort();        /* the depth limit did not hold */
	if (j->type == JSON_STRING)
		n += strlen(j->string);
	for (size_t i = 0; (j->type == JSON_ARRAY || j->type == JSON_OBJECT) && i < j->n; i++) {
		n += walk(&j->items[i], depth + 1);
		if (j->type == JSON_OBJECT)
			n += strlen(j->keys[i]);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct json *doc = json_parse((const char *)data, size, &err);
	const struct json *lines;
	volatile size_t sink;

	if (!doc) {
		if (!err.len)
			abort();        /* a refusal without a reason */
		strbuf_release(&err);
		return 0;
	}
	sink = walk(doc, 0);
	json_string(json_get(doc, "schema"));
	lines = json_get(doc, "lines");
	for (size_t i = 0; lines && lines->type == JSON_ARRAY && i < lines->n; i++) {
		const struct json *l = &lines->items[i];

		/* as cmd_check reads it: a double, compared, never converted
		 * (a cast of 5.2e+29 to size_t is undefined behaviour) */
		sink += (json_number(json_get(l, "score"), 0) > 0.5) +
			(json_string(json_get(l, "kind")) != NULL) +
			(json_get(l, "ranges") != NULL);
	}
	(void)sink;
	json_free(doc);
	strbuf_release(&err);
	return 0;
}
