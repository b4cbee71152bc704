/* alloc_text.c - a heap block in words (alloc_text.h). */
#include "reports/alloc_text.h"

#include <inttypes.h>
#include <string.h>

#include "common/escape.h"
#include "common/util.h"

char *alloc_call_text(const struct report_alloc *a)
{
	if (a->walked)
		return xasprintf("of %" PRIu64 " usable bytes", a->usable);
	if (a->count)
		return xasprintf("%s(%" PRIu64 ", %" PRIu64 ")", a->call, a->count, a->elem_size);
	/* C++17's aligned new, as the code spells it */
	if (a->align && a->call && !strncmp(a->call, "operator new", 12))
		return xasprintf("%s(%" PRIu64 ", std::align_val_t(%" PRIu64 "))", a->call,
				 a->size, a->align);
	if (a->align)
		return xasprintf("%s(%" PRIu64 ", %" PRIu64 ")", a->call, a->align, a->size);
	return xasprintf("%s(%" PRIu64 ")", a->call, a->size);
}

/* "6144 bytes at 0x... (2 x struct worker_arg, by its size, pointed to
 * by arg), 6152 usable, read from the glibc heap: ..." */
static char *walked_text(const struct report_alloc *a)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%" PRIu64 " %sbytes at 0x%" PRIx64, a->size,
		    a->size == a->usable ? "usable " : "", a->start);
	if (a->type_name && a->type_size && a->size / a->type_size > 1)
		strbuf_addf(&sb, " (%" PRIu64 " x %s", a->size / a->type_size, a->type_name);
	else if (a->type_name)
		strbuf_addf(&sb, " (%s", a->type_name);
	if (a->type_name)
		strbuf_addf(&sb, a->variable ? " by its size, as pointers named %s go)" :
			    " by its size)", a->variable);
	if (a->usable != a->size)
		strbuf_addf(&sb, ", %" PRIu64 " usable", a->usable);
	strbuf_addf(&sb, ", read from the glibc heap: allocation site not recorded "
		    "under attach (contend run records it)");
	return strbuf_detach(&sb);
}

char *alloc_sentence(const struct report_alloc *a)
{
	struct strbuf sb = STRBUF_INIT;
	char *call;

	if (a->walked)
		return walked_text(a);
	call = alloc_call_text(a);
	strbuf_addf(&sb, "%s = %" PRIu64 " bytes at 0x%" PRIx64, call, a->size, a->start);
	if (a->type_name && a->type_size && a->size % a->type_size == 0 &&
	    a->size / a->type_size > 1)
		strbuf_addf(&sb, " (%" PRIu64 " x %s", a->size / a->type_size, a->type_name);
	else if (a->type_name)
		strbuf_addf(&sb, " (%s", a->type_name);
	if (a->type_name)
		strbuf_addf(&sb, a->variable ? ", kept in %s)" : ")", a->variable);
	strbuf_addf(&sb, ", allocated in %s", a->site ? a->site : "unknown code");
	for (unsigned i = 0; i < a->n_callers; i++)
		strbuf_addf(&sb, " <- %s", a->callers[i]);
	if (a->tid)
		strbuf_addf(&sb, " by thread %" PRIu32, a->tid);
	if (a->freed)
		strbuf_addf(&sb, ", freed before the end");
	free(call);
	return strbuf_detach(&sb);
}

char *alloc_align_advice(const struct report_alloc *a, uint64_t align, const char *title,
			 bool array)
{
	struct strbuf es = STRBUF_INIT, et = STRBUF_INIT;
	const char *site, *type;
	uint64_t n = 0;
	char *call, *where, *out, *many = NULL;

	if (!a || (a->call && !strncmp(a->call, "operator new", 12)))
		return NULL;
	if (a->count)
		n = a->count;
	else if (a->type_size && a->size % a->type_size == 0)
		n = a->size / a->type_size;
	if (n > 1)
		many = xasprintf("%" PRIu64 " * ", n);
	else if (array && !n)
		many = xstrdup("n * ");
	/* "calloc(2, 3072) in main x.c:113", or a block read from the heap */
	if (a->walked) {
		where = xasprintf("the block at 0x%" PRIx64 " (allocation site not recorded "
				  "under attach)", a->start);
	} else {
		call = alloc_call_text(a);
		site = a->site ? escape_text(&es, a->site) : "unknown code";
		where = xasprintf("%s in %s", call, site);
		free(call);
	}
	type = escape_text(&et, title);
	/* aligned already: only the size to say (a block read from the heap
	 * says its alignment by where it starts: aligned_alloc, or luck) */
	if (a->align >= align || (a->walked && a->start % align == 0))
		out = xasprintf("/* %s: allocate aligned_alloc(%" PRIu64 ", %ssizeof(%s)) */\n",
				where, align, many ? many : "", type);
	else
		out = xasprintf("/* %s aligns to 16 bytes only: allocate with "
				"aligned_alloc(%" PRIu64 ", %ssizeof(%s))%s */\n", where,
				align, many ? many : "", type,
				a->count ? " and zero it" : "");
	free(where);
	free(many);
	strbuf_release(&es);
	strbuf_release(&et);
	return out;
}
