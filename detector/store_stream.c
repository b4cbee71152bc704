#include "detector/store_stream.h"

#include <stdbool.h>
#include <stdlib.h>

#include "common/util.h"

struct swept {
	uint64_t ip;
	struct insn_info info;
};

/* Instructions from start up to the first that does not decode. */
static size_t sweep(struct decoder *d, const uint8_t *code, size_t len, uint64_t start,
		    struct swept **out)
{
	struct swept *v = NULL;
	size_t n = 0, alloc = 0, off = 0;

	while (off < len) {
		struct insn_info info;

		if (!decoder_insn(d, code + off, len - off, start + off, &info) || !info.length)
			break;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = (struct swept){ start + off, info };
		off += info.length;
	}
	*out = v;
	return n;
}

static bool same_line(const struct insn_mem *a, const struct insn_mem *b, unsigned line_size)
{
	int64_t d = a->disp - b->disp;

	return !a->stack && a->base == b->base && a->index == b->index &&
	       a->rip_relative == b->rip_relative && d > -(int64_t)line_size &&
	       d < (int64_t)line_size;
}

enum store_stream store_stream_of(struct decoder *d, const uint8_t *code, size_t len,
				  uint64_t start, uint64_t ip, unsigned line_size)
{
	struct swept *v;
	size_t n = sweep(d, code, len, start, &v), at = n, lo = n, hi = n;
	enum store_stream ret = STORE_STREAM_ONE_LINE;
	struct insn_mem acc;

	for (size_t i = 0; i < n; i++)
		if (v[i].ip == ip)
			at = i;
	if (at == n || !decoder_memory(d, code + (ip - start), len - (ip - start), ip, &acc) ||
	    !acc.access) {
		free(v);
		return STORE_STREAM_UNKNOWN;
	}
	/* the innermost loop: the shortest backward jump over ip, to an
	 * instruction start */
	for (size_t i = at; i < n; i++) {
		const struct insn_info *b = &v[i].info;
		size_t j = at;

		if (!b->has_target || b->is_call || b->target > ip || b->target < start)
			continue;
		while (j > 0 && v[j].ip > b->target)
			j--;
		if (v[j].ip != b->target)
			continue;
		if (hi == n || v[i].ip - v[j].ip < v[hi].ip - v[lo].ip) {
			lo = j;
			hi = i;
		}
	}
	if (hi == n) {
		free(v);
		return STORE_STREAM_MIXED;
	}
	for (size_t i = lo; i <= hi && ret == STORE_STREAM_ONE_LINE; i++) {
		struct insn_mem m;
		uint64_t off = v[i].ip - start;

		if (!decoder_memory(d, code + off, len - off, v[i].ip, &m))
			ret = STORE_STREAM_UNKNOWN;
		else if (m.writes && !same_line(&m, &acc, line_size))
			ret = STORE_STREAM_MIXED;
	}
	free(v);
	return ret;
}
