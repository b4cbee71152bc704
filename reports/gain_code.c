/* gain_code.c - the code the gain model looks at (gain.h's callbacks).
 *
 * The gain model asks for the bounds of the function around a code
 * address and for what that function stores (store_stream.h).  Answers
 * come from the symbolizer's view of the code, decoded with Capstone as
 * the architecture of the code's file says;
 * a function is decoded once per code address, not per question.
 */
#include "reports/report_build.h"

#include "reports/gain.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

/* What the function around one code address stores; whether the value
 * loaded there decides a branch. */
struct stream_answer {
	uint32_t pid;
	uint64_t ip;
	enum store_stream st;
	bool stream_known;
	int steers;              /* -1: not asked yet */
};

struct code_view {
	struct symbolizer *sym;
	struct decoder_set decs;   /* by the ELF machine of the code */
	unsigned line_size;
	/* the gain model asks per cell, and again for its queue: a function
	 * is decoded once per code address, not per question */
	struct stream_answer *answers;
	size_t n_answers, alloc_answers;
};

#define STREAM_MAX_FUNCTION (256 * 1024)   /* bytes decoded per function, at most */

static bool function_bounds(void *ctx, uint32_t pid, uint64_t ip,
			    uint64_t *start, uint64_t *end)
{
	struct code_view *cv = ctx;
	struct func_info fi;

	if (!symbolizer_function(cv->sym, pid, ip, &fi))
		return false;
	*start = fi.start;
	*end = fi.end;
	return true;
}

static enum store_stream decode_stream(struct code_view *cv, uint32_t pid, uint64_t ip)
{
	enum store_stream st = STORE_STREAM_UNKNOWN;
	struct decoder *dec;
	struct func_info fi;
	uint8_t *code;
	size_t len;

	if (!(code = symbolizer_function_code(cv->sym, pid, ip, STREAM_MAX_FUNCTION, &fi, &len)))
		return st;
	dec = decoder_set_get(&cv->decs, symbolizer_machine(cv->sym, pid, fi.start));
	if (dec && len == fi.end - fi.start)
		st = store_stream_of(dec, code, len, fi.start, ip, cv->line_size);
	free(code);
	return st;
}

static struct stream_answer *answer_at(struct code_view *cv, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < cv->n_answers; i++)
		if (cv->answers[i].pid == pid && cv->answers[i].ip == ip)
			return &cv->answers[i];
	ALLOC_GROW(cv->answers, cv->n_answers + 1, cv->alloc_answers);
	cv->answers[cv->n_answers] = (struct stream_answer){ .pid = pid, .ip = ip, .steers = -1 };
	return &cv->answers[cv->n_answers++];
}

/* each question decodes only what it needs, once: a load asked whether it
 * steers a branch never has its whole function decoded */
static enum store_stream stream_at(void *ctx, uint32_t pid, uint64_t ip)
{
	struct stream_answer *a = answer_at(ctx, pid, ip);

	if (!a->stream_known) {
		a->st = decode_stream(ctx, pid, ip);
		a->stream_known = true;
	}
	return a->st;
}

/* the instructions after ip up to the function's end, a window's worth */
#define STEER_BYTES (DECODE_STEER_WINDOW * DECODE_MAX_INSN)

static bool decode_steers(struct code_view *cv, uint32_t pid, uint64_t ip)
{
	uint8_t code[STEER_BYTES];
	struct decoder *dec;
	uint64_t start, end;
	size_t len;

	if (!function_bounds(cv, pid, ip, &start, &end) || ip < start || ip >= end)
		return false;
	dec = decoder_set_get(&cv->decs, symbolizer_machine(cv->sym, pid, start));
	len = end - ip < sizeof(code) ? end - ip : sizeof(code);
	return dec && symbolizer_read(cv->sym, pid, ip, code, len) == len &&
	       decoder_value_steers_branch(dec, code, len, ip);
}

static bool steers_at(void *ctx, uint32_t pid, uint64_t ip)
{
	struct stream_answer *a = answer_at(ctx, pid, ip);

	if (a->steers < 0)
		a->steers = decode_steers(ctx, pid, ip);
	return a->steers;
}

struct code_view *code_view_new(struct symbolizer *sym, unsigned line_size)
{
	struct code_view *cv;

	if (!sym)
		return NULL;
	cv = xcalloc(1, sizeof(*cv));
	cv->sym = sym;
	cv->line_size = line_size;
	return cv;
}

void code_view_free(struct code_view *cv)
{
	if (!cv)
		return;
	decoder_set_release(&cv->decs);
	free(cv->answers);
	free(cv);
}

struct gain_queue *code_view_gain_queue(struct code_view *cv, struct line_table *lines)
{
	struct gain_queue *q;

	if (!cv)
		return NULL;
	q = gain_queue_new(lines, function_bounds, stream_at, cv);
	gain_queue_set_steers(q, steers_at);
	return q;
}
