/* advice.c - what to say about a contended line: which kind of fix,
 * its sentences and notes.  The layouts it shows come as rows from the
 * model (advice_layout.c) and the proposal (advice_proposal.c); their C
 * text is advice_text.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice_internal.h"
#include "reports/alloc_text.h"
#include "common/escape.h"
#include "symbolize/data_types.h"

#define MAX_NAMED      3   /* names in a sentence before "and N more" */

static const char remedies[] =
	"use per-thread copies (sum on read), check before write "
	"(skip stores of unchanged values), or batch updates";
#define MAX_TIDS 6     /* a pool's 290 workers: "..., 106 and 284 more" */

/* "thread 101" / "threads 101, 102" */
void add_threads(struct strbuf *sb, const struct tidset *s)
{
	unsigned shown = s->n > MAX_TIDS + 1 ? MAX_TIDS : s->n;
	char buf[TID_LABEL_MAX];

	strbuf_addf(sb, "thread%s ", s->n == 1 ? "" : "s");
	for (unsigned i = 0; i < shown; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", tid_label(buf, s->tid[i]));
	if (shown < s->n)
		strbuf_addf(sb, " and %u more", s->n - shown);
}

/* "a", "a and b", "a, b and c", "a, b, c and 2 more" */
static void add_names(struct strbuf *sb, const char *const *name, unsigned n)
{
	unsigned shown = n > MAX_NAMED + 1 ? MAX_NAMED : n;

	for (unsigned i = 0; i < shown; i++) {
		if (i)
			strbuf_addf(sb, "%s", i + 1 == n ? " and " : ", ");
		strbuf_addf(sb, "%s", name[i]);
	}
	if (shown < n)
		strbuf_addf(sb, " and %u more", n - shown);
}

/* The comment over a writer group's line in a proposal. */
char *group_comment(const struct advisor *adv, int g)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "a line of its own: written by ");
	if (adv->groups[g].n)
		add_threads(&sb, &adv->groups[g]);
	else
		strbuf_addf(&sb, "unknown threads");
	return strbuf_detach(&sb);
}

/* ---- where the contending members meet ------------------------------ */

/* Fills the placement counts; returns the sentence for the layout.  The
 * pair is the hottest writer and the hottest member it victimizes; with
 * no victim here, the member across the line boundary next to the writer,
 * if in some placements the two would share a line (as at Klass's line
 * offset 24, where secondary_super_cache just ends a line). */
static char *placements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	const struct report_member *a, *b;
	uint64_t align = l->struct_align;
	struct strbuf sb = STRBUF_INIT;
	unsigned n, total, mn, mtotal;
	bool across = false, ends = false;
	char *owned = NULL;
	const char *title;
	int ia, ib;

	if (!contending_pair(adv, &ia, &ib)) {
		ia = hottest_written(adv);
		ib = ia >= 0 ? across_boundary(adv, ia, &ends) : -1;
		across = true;
	}
	if (ib < 0)
		return NULL;
	a = &adv->members[ia];
	b = &adv->members[ib];
	if (!align)
		align = lowbit(adv->elem_size) < 16 ? lowbit(adv->elem_size) : 16;
	n = advice_shared_placements(align, adv->L, a->offset, a->size,
				     b->offset, b->size, &total);
	if (across && !n)
		return NULL;            /* apart by the layout, not by luck */
	l->advice.placements_sharing = n;
	l->advice.placements_total = total;

	title = layout_title(adv, &owned);
	if (across)
		strbuf_addf(&sb, "here %s %s the line; in %u of %u placements of "
			    "%s (%" PRIu64 "-byte alignment) it shares its "
			    "%u-byte line with %s, next to it", a->name,
			    ends ? "ends" : "starts", n, total, title, align,
			    adv->L, b->name);
	else
		strbuf_addf(&sb, "%s and %s share a %u-byte line in %u of %u "
			    "placements of %s (%" PRIu64 "-byte alignment)",
			    a->name, b->name, adv->L, n, total, title, align);
	if (adv->heap && align < 16) {
		mn = advice_shared_placements(16, adv->L, a->offset, a->size,
					      b->offset, b->size, &mtotal);
		strbuf_addf(&sb, "; at malloc's 16-byte alignment: %u of %u",
			    mn, mtotal);
	}
	free(owned);
	return strbuf_detach(&sb);
}
/* ---- what to say ------------------------------------------------------ */

static bool is_written(const struct member_info *mi)
{
	return mi->group >= 0;
}

static bool is_victim(const struct member_info *mi)
{
	return mi->group < 0 && (mi->samples || mi->false_victim);
}

/* On the line, or written elsewhere by a thread in a group of its own
 * (group_writers). */
static bool in_advice(const struct member_info *mi)
{
	return mi->on_line || mi->group >= 0;
}

/* Members in the advice that pick() accepts, hottest first. */
static unsigned hottest_members(const struct advisor *adv,
				bool (*pick)(const struct member_info *),
				unsigned *idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++) {
		unsigned j;

		if (!in_advice(&adv->mi[i]) || !pick(&adv->mi[i]))
			continue;
		j = n++;
		while (j && adv->mi[idx[j - 1]].samples < adv->mi[i].samples) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return n;
}

static unsigned count_members(const struct advisor *adv,
			      bool (*pick)(const struct member_info *))
{
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++)
		n += in_advice(&adv->mi[i]) && pick(&adv->mi[i]);
	return n;
}

static void add_member_names(struct strbuf *sb, const struct advisor *adv,
			     const unsigned *idx, unsigned n)
{
	const char **name = xcalloc(n ? n : 1, sizeof(*name));

	for (unsigned i = 0; i < n; i++) {
		name[i] = adv->members[idx[i]].name;
		if (!name[i])
			name[i] = "<anonymous>";
	}
	add_names(sb, name, n);
	free(name);
}

/* "move a to its own cache line, away from b and c" */
static void say_groups(struct strbuf *sb, const struct advisor *adv)
{
	unsigned *idx = xcalloc(adv->n_members, sizeof(*idx));
	unsigned *in = xcalloc(adv->n_members, sizeof(*in));
	unsigned n = hottest_members(adv, is_written, idx);

	if (adv->n_groups == 1) {
		strbuf_addf(sb, "move ");
		add_member_names(sb, adv, idx, n);
		strbuf_addf(sb, n == 1 ? " to its own cache line" :
			    " to a cache line of their own");
	} else {
		strbuf_addf(sb, "give each writer its own cache line: ");
		for (unsigned g = 0; g < adv->n_groups; g++) {
			unsigned k = 0;

			for (unsigned i = 0; i < n; i++)
				if (adv->mi[idx[i]].group == (int)g)
					in[k++] = idx[i];
			strbuf_addf(sb, "%s", g ? ", " : "");
			add_member_names(sb, adv, in, k);
			strbuf_addf(sb, " (");
			add_threads(sb, &adv->groups[g]);
			strbuf_addf(sb, ")");
		}
	}
	n = hottest_members(adv, is_victim, idx);
	if (n) {
		strbuf_addf(sb, ", away from ");
		add_member_names(sb, adv, idx, n);
	}
	free(in);
	free(idx);
}

/* What a range is called in a sentence. */
static char *range_name(const struct advisor *adv, unsigned i)
{
	const struct report_range *r = &adv->line->ranges[i];
	int m = adv->range_member[i];

	if (m >= 0 && adv->members[m].name && *adv->members[m].name)
		return xstrdup(adv->members[m].name);
	if (r->member && *r->member)
		return xstrdup(r->member);
	return xasprintf("line offset %u", r->offset);
}

/* True-shared ranges with the same writers and readers, said together. */
struct sharing_clause {
	struct tidset writers, readers;   /* readers: that do not write it */
	char **name;
	unsigned n_name;
};

static void clause_add(struct sharing_clause **c, unsigned *n, struct tidset *w,
		       struct tidset *r, char *name)
{
	unsigned k;

	for (k = 0; k < *n; k++)
		if (tidset_equal(&(*c)[k].writers, w) && tidset_equal(&(*c)[k].readers, r))
			break;
	if (k == *n) {
		*c = xrealloc(*c, (*n + 1) * sizeof(**c));
		memset(&(*c)[k], 0, sizeof(**c));
		(*c)[k].writers = *w;
		(*c)[k].readers = *r;
		(*n)++;
	} else {
		tidset_release(w);
		tidset_release(r);
	}
	for (unsigned j = 0; j < (*c)[k].n_name; j++) {
		if (!strcmp((*c)[k].name[j], name)) {
			free(name);
			return;
		}
	}
	(*c)[k].name = xrealloc((*c)[k].name, ((*c)[k].n_name + 1) * sizeof(char *));
	(*c)[k].name[(*c)[k].n_name++] = name;
}

/*
 * "threads 101, 102 write the same bytes of x", or for a value one thread
 * publishes to others, "thread 101 writes head while thread 102 reads
 * it", over the true-shared ranges; false if there are none.
 * *multi_writer: some range has two or more writers.
 */
static bool say_true_sharing(struct strbuf *sb, const struct advisor *adv,
			     bool *multi_writer)
{
	const struct report_line *l = adv->line;
	struct sharing_clause *c = NULL;
	unsigned n = 0, said = 0;

	*multi_writer = false;
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];
		struct tidset w = { 0 }, rd = { 0 };

		if (!r->true_shared)
			continue;
		for (unsigned t = 0; t < r->n_threads; t++)
			if (r->threads[t].writes)
				tidset_add(&w, r->threads[t].tid);
		for (unsigned t = 0; t < r->n_threads; t++)
			if (r->threads[t].reads && !tidset_has(&w, r->threads[t].tid))
				tidset_add(&rd, r->threads[t].tid);
		*multi_writer |= w.n != 1;
		clause_add(&c, &n, &w, &rd, range_name(adv, i));
	}
	for (unsigned k = 0; k < n; k++) {
		const struct sharing_clause *cl = &c[k];

		if (cl->writers.n == 1 && !cl->readers.n)
			continue;       /* nobody else touches it */
		strbuf_addf(sb, "%s", said++ ? "; " : "");
		if (cl->writers.n == 1) {
			add_threads(sb, &cl->writers);
			strbuf_addf(sb, " writes ");
			add_names(sb, (const char *const *)cl->name, cl->n_name);
			strbuf_addf(sb, " while ");
			add_threads(sb, &cl->readers);
			strbuf_addf(sb, " read%s %s", cl->readers.n == 1 ? "s" : "",
				    cl->n_name > 1 ? "them" : "it");
		} else {
			if (cl->writers.n)
				add_threads(sb, &cl->writers);
			else
				strbuf_addf(sb, "threads");
			strbuf_addf(sb, " write the same bytes of ");
			add_names(sb, (const char *const *)cl->name, cl->n_name);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		for (unsigned j = 0; j < c[k].n_name; j++)
			free(c[k].name[j]);
		free(c[k].name);
		tidset_release(&c[k].writers);
		tidset_release(&c[k].readers);
	}
	free(c);
	return said > 0;
}

/* One thread publishes, others read: no copies to sum, the readers need
 * the value; what helps is reading and publishing less often. */
static const char publish_remedies[] =
	"read the other thread's value less often (keep a local copy, re-read "
	"it only when that runs out) or publish in batches";

/* Mixed sharing: padding fixes the victims, not the true sharing. */
static void say_true_sharing_remains(struct strbuf *sb,
				     const struct advisor *adv)
{
	struct strbuf why = STRBUF_INIT;

	bool multi_writer;

	if (adv->line->kind == SHARING_MIXED && say_true_sharing(&why, adv, &multi_writer))
		strbuf_addf(sb, "; padding does not fix the true sharing (%s): %s",
			    why.buf, multi_writer ? remedies : publish_remedies);
	strbuf_release(&why);
}

/* ---- the kinds of advice -------------------------------------------- */

static void advise_true_sharing(struct advisor *adv)
{
	struct strbuf sb = STRBUF_INIT;

	bool multi_writer = true;

	strbuf_addf(&sb, "padding cannot help: ");
	if (!say_true_sharing(&sb, adv, &multi_writer))
		strbuf_addf(&sb, "threads write the same bytes of %s", adv->what);
	strbuf_addf(&sb, "; %s", multi_writer ? remedies : publish_remedies);
	adv->line->advice.summary = strbuf_detach(&sb);
}

/* Per-thread elements of an array: pad the element to whole lines. */
static void advise_elements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct report_layout *lay = &l->advice.proposed;
	struct strbuf sb = STRBUF_INIT;
	uint64_t n = adv->n_elems, esz = adv->elem_size, padded;
	const char *var = l->variable ? l->variable : "array";
	struct strbuf et = STRBUF_INIT, ev = STRBUF_INIT;

	if (adv->n_members) {
		struct proposal p;

		propose_aligned(adv, &p);
		proposal_layout(adv, &p, lay);
		padded = p.size;
		proposal_release(&p);
	} else {
		padded = padded_element_layout(adv, lay);
	}
	if (!adv->heap && n && l->rust)
		layout_add_after(lay, "static %s: [%s; %" PRIu64 "];\t", escape_text(&ev, var),
				 escape_text(&et, lay->title + (strncmp(lay->title, "struct ", 7) ?
								0 : 7)), n);
	else if (!adv->heap && n)
		layout_add_after(lay, "%s %s[%" PRIu64 "];\t", escape_text(&et, lay->title),
				 escape_text(&ev, var), n);
	if (n)
		layout_add_after(lay, "/* %" PRIu64 " x %" PRIu64 " bytes: +%"
				 PRIu64 " bytes */\n", n, padded,
				 n * (padded - esz));
	else
		layout_add_after(lay, "/* +%" PRIu64 " bytes per element */\n",
				 padded - esz);
	if (adv->heap && !adv->n_members && heap_align_note(l)) {
		layout_add_after(lay, "%s", heap_align_note(l));
	} else if (adv->heap && !adv->n_members) {
		char *block = alloc_align_advice(l->alloc, adv->L, lay->title, true);

		if (block)
			layout_add_after(lay, "%s", block);
		else
			layout_add_after(lay, "/* malloc aligns to 16 bytes only: allocate "
					 "with aligned_alloc(%u, n * sizeof(%s)) */\n",
					 adv->L, escape_text(&et, lay->title));
		free(block);
	}
	strbuf_release(&et);
	strbuf_release(&ev);

	if (padded == esz)
		strbuf_addf(&sb, "align %s to the %u-byte line so that no two "
			    "elements share one", adv->what, adv->L);
	else
		strbuf_addf(&sb, "pad each element of %s to %s %u-byte line",
			    adv->what, padded > adv->L ? "whole" : "its own",
			    adv->L);
	if (n)
		strbuf_addf(&sb, " (%" PRIu64 " x %" PRIu64 " bytes)", n, padded);
	else if (padded > esz)
		strbuf_addf(&sb, " (+%" PRIu64 " bytes per element)",
			    padded - esz);
	say_true_sharing_remains(&sb, adv);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.cost_bytes = (long)((n ? n : 1) * (padded - esz));
}

static bool range_written(const struct report_range *r)
{
	return r->false_writer;
}

static bool range_victim(const struct report_range *r)
{
	return r->false_victim && !r->false_writer;
}

/* Adds the names of the ranges pick() accepts; returns how many. */
static unsigned add_range_names(struct strbuf *sb, const struct advisor *adv,
				bool (*pick)(const struct report_range *))
{
	const struct report_line *l = adv->line;
	char **name = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*name));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_ranges; i++)
		if (pick(&l->ranges[i]))
			name[n++] = range_name(adv, i);
	add_names(sb, (const char *const *)name, n);
	for (unsigned i = 0; i < n; i++)
		free(name[i]);
	free(name);
	return n;
}

/* A scalar variable: a line of its own. */
static void advise_scalar(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT;

	l->advice.cost_bytes = (long)padded_scalar_layout(adv, &l->advice.proposed);
	strbuf_addf(&sb, "give %s a %u-byte line of its own: it shares one "
		    "with data other threads use", l->variable, adv->L);
	say_true_sharing_remains(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
}

/* Only a binary without DWARF is helped by "build with -g". */
static void say_why_untyped(struct strbuf *sb, const struct report_line *l)
{
	const char *why = l->untyped_why;

	if ((!why || !strcmp(why, data_types_miss_name(DT_NO_DWARF))) && l->rust)
		strbuf_addf(sb, " (no type information for a layout: build with debug info, "
			    "-g, or debug = true in Cargo.toml's [profile.release])");
	else if ((!why || !strcmp(why, data_types_miss_name(DT_NO_DWARF))) && l->go)
		strbuf_addf(sb, " (no type information for a layout: the binary was linked "
			    "without DWARF; build without -ldflags=-w or -s)");
	else if (!why || !strcmp(why, data_types_miss_name(DT_NO_DWARF)))
		strbuf_addf(sb, " (no type information for a layout: build with -g)");
	else if (!strcmp(why, data_types_miss_name(DT_DEBUG_NOT_INSTALLED)))
		strbuf_addf(sb, " (no type information for a layout: the binary's debug info "
			    "is not installed; it names a separate debug file (.gnu_debuglink): "
			    "install it, e.g. the distribution's -dbgsym or -debuginfo package, "
			    "or name a debuginfod server in DEBUGINFOD_URLS, as for perf and gdb, "
			    "e.g. https://debuginfod.debian.net)");
	else if (!strcmp(why, data_types_miss_name(DT_DEBUG_NOT_SERVED)))
		strbuf_addf(sb, " (no type information for a layout: the binary's debug info "
			    "is not installed, and the debuginfod servers in DEBUGINFOD_URLS did "
			    "not have it; it names a separate debug file (.gnu_debuglink): "
			    "install it, e.g. the distribution's -dbgsym or -debuginfo package)");
	else
		strbuf_addf(sb, " (no type information for a layout: %s)", why);
}

#define HEAP_WRITERS_SAID 4

/* Heap data without a struct: which bytes of the line each thread writes
 * ("thread 2374 writes bytes 0..31, thread 2375 bytes 32..63"). */
static void say_heap_writers(struct strbuf *sb, const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	uint32_t tid[HEAP_WRITERS_SAID];
	unsigned lo[HEAP_WRITERS_SAID], hi[HEAP_WRITERS_SAID], n = 0;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];

		for (unsigned t = 0; t < r->n_threads; t++) {
			unsigned k;

			if (!r->threads[t].writes)
				continue;
			for (k = 0; k < n && tid[k] != r->threads[t].tid; k++)
				;
			if (k == n) {
				if (n == HEAP_WRITERS_SAID)
					continue;
				tid[n] = r->threads[t].tid;
				lo[n] = r->offset;
				hi[n++] = r->offset + r->size - 1;
			}
			if (r->offset < lo[k])
				lo[k] = r->offset;
			if (r->offset + r->size - 1 > hi[k])
				hi[k] = r->offset + r->size - 1;
		}
	}
	if (n < 2)
		return;
	for (unsigned k = 0; k < n; k++)
		strbuf_addf(sb, "%s%s %" PRIu32 " writes bytes %u..%u", k ? ", " : "; ",
			    k ? "thread" : "of the line, thread", tid[k], lo[k], hi[k]);
}

/* Heap data without a struct: what is known is the block, and the fix
 * is in how it is carved up and allocated. */
static void say_heap_block(struct strbuf *sb, const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	const struct report_alloc *a = l->alloc;
	uint64_t first, last;
	char *call;

	if (!a)
		return;
	first = l->addr > a->start ? l->addr - a->start : 0;
	last = l->addr + l->line_size - a->start;
	if (last > a->size)
		last = a->size;
	call = alloc_call_text(a);
	strbuf_addf(sb, "; the line holds bytes %" PRIu64 "..%" PRIu64 " of the block %s "
		    "allocated in %s: give each thread's part of it whole %u-byte lines",
		    first, last ? last - 1 : 0, call, a->site ? a->site : "unknown code", adv->L);
	if (l->rust)
		strbuf_addf(sb, ": wrap each part in a #[repr(align(%u))] struct, or in "
			    "crossbeam_utils::CachePadded (Box, Vec and Arc allocate it "
			    "aligned)", adv->L);
	else if (l->go)
		strbuf_addf(sb, ": pad each part to a multiple of %u bytes with a _ [N]byte "
			    "field, or put a golang.org/x/sys/cpu.CacheLinePad between them",
			    adv->L);
	else
		strbuf_addf(sb, " (round each part up to a multiple of %u) and allocate it "
			    "with aligned_alloc(%u, ...)", adv->L, adv->L);
	free(call);
}

/* No layout to work with: say which bytes to separate. */
static void advise_untyped(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT, writers = STRBUF_INIT;
	struct strbuf victims = STRBUF_INIT;
	unsigned n;

	/* a scalar variable; not what a pointer to heap data points to,
	 * which is one of many and may be the start of anything */
	if (l->type_name && l->variable && !adv->is_array && !adv->heap) {
		advise_scalar(adv);
		return;
	}
	n = add_range_names(&writers, adv, range_written);
	if (n == 1)
		strbuf_addf(&sb, "move %s to a %u-byte line of its own",
			    writers.buf, adv->L);
	else if (n)
		strbuf_addf(&sb, "put %s on separate %u-byte lines",
			    writers.buf, adv->L);
	else
		strbuf_addf(&sb, "put the data different threads write on "
			    "separate %u-byte lines", adv->L);
	if (add_range_names(&victims, adv, range_victim))
		strbuf_addf(&sb, ", away from %s", victims.buf);
	if (!l->type_name)
		say_why_untyped(&sb, l);
	else if (adv->heap)
		strbuf_addf(&sb, " (no struct type is known: the accesses go through "
			    "%s pointers)", l->type_name);
	if (adv->heap)
		say_heap_writers(&sb, adv);
	say_heap_block(&sb, adv);
	say_true_sharing_remains(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
	strbuf_release(&writers);
	strbuf_release(&victims);
}

static void advise_struct(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT;
	/* the fight is inside the struct: members to part */
	bool inside = adv->n_groups >= 2 ||
		      (adv->n_groups && count_members(adv, is_victim));
	struct proposal p;

	if (!inside && !adv->n_groups && !adv->outside) {
		advise_untyped(adv);    /* nothing in the struct to move */
		return;
	}
	if (inside) {
		say_groups(&sb, adv);
		propose_groups(adv, &p);
	} else {
		char *owned = NULL;

		/* a heap object is one of many: the pointer names none */
		if (adv->heap && l->go && l->type_name)   /* Go says no "struct" */
			strbuf_addf(&sb, "give each %s", l->type_name);
		else if (adv->heap)
			strbuf_addf(&sb, "give each %s",
				    layout_title(adv, &owned));
		else
			strbuf_addf(&sb, "give %s", adv->what);
		strbuf_addf(&sb, " a %u-byte line of its own: it shares one "
			    "with data other threads use", adv->L);
		propose_aligned(adv, &p);
		free(owned);
	}
	say_true_sharing_remains(&sb, adv);
	proposal_layout(adv, &p, &l->advice.proposed);
	layout_add_after(&l->advice.proposed, "/* cost: %+" PRId64 " bytes per "
			 "instance (%" PRIu64 " -> %" PRIu64 ") */\n",
			 (int64_t)(p.size - adv->elem_size), adv->elem_size,
			 p.size);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.cost_bytes = (long)(p.size - adv->elem_size);
	proposal_release(&p);
}

/* ---- locks ------------------------------------------------------------- */

static const char lock_remedies[] =
	"shard it (a lock per bucket or per group of threads) or the data "
	"it protects, hold it for less time (work outside it), or give each "
	"thread its own data and merge at the end";

/* The range of the line that is the lock (report_build names it so). */
static const struct report_range *lock_range(const struct report_line *l)
{
	for (unsigned i = 0; i < l->n_ranges; i++)
		if (l->ranges[i].member && !strcmp(l->ranges[i].member, l->lock.name))
			return &l->ranges[i];
	return NULL;
}

/* "threads 101, 102 take it in turn" */
static void say_lock_takers(struct strbuf *sb, const struct report_range *r)
{
	struct tidset takers = { 0 };

	for (unsigned t = 0; t < r->n_threads; t++)
		tidset_add(&takers, r->threads[t].tid);
	if (takers.n >= 2) {
		add_threads(sb, &takers);
		strbuf_addf(sb, " take it in turn");
	} else {
		strbuf_addf(sb, "threads take it in turn");
	}
	tidset_release(&takers);
}

/* A lock on more than one line costs a transfer of each to take it. */
static void say_lock_straddles(struct strbuf *sb, const struct report_lock *k,
			       unsigned L)
{
	const char *member = strrchr(k->name, '.');

	if (!k->size || k->addr / L == (k->addr + k->size - 1) / L)
		return;
	strbuf_addf(sb, "; it straddles two %u-byte lines (%" PRIu64 " bytes "
		    "from line offset %" PRIu64 ")", L, k->size, k->addr % L);
	if (member && k->type_name)
		strbuf_addf(sb, ": declare it _Alignas(%u) %s %s; to keep it on "
			    "one", L, k->type_name, member + 1);
	else
		strbuf_addf(sb, ": align it to a line to keep it on one");
}

/* Other data on the lock's line that the lock's traffic hurts. */
static void say_lock_neighbours(struct strbuf *sb, const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	const char **name = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*name));
	char **owned = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*owned));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];

		if (!(r->false_victim || r->false_writer) ||
		    (r->member && !strcmp(r->member, l->lock.name)))
			continue;
		name[n] = owned[n] = range_name(adv, i);
		n++;
	}
	if (n) {
		strbuf_addf(sb, "; ");
		add_names(sb, name, n);
		strbuf_addf(sb, " share%s the lock's line: move %s to a line of "
			    "%s own", n == 1 ? "s" : "", n == 1 ? "it" : "them",
			    n == 1 ? "its" : "their");
	}
	for (unsigned i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(name);
}

/*
 * Threads take a lock in turn: the lock word itself moves between them,
 * and no padding changes that.  Its insides are the library's: no
 * layout is proposed for them.
 */
static void advise_lock(struct advisor *adv, const struct report_range *r)
{
	struct report_line *l = adv->line;
	const struct report_lock *k = &l->lock;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "lock contention on %s", k->name);
	if (k->type_name)
		strbuf_addf(&sb, " (%s)", k->type_name);
	strbuf_addf(&sb, ": ");
	say_lock_takers(&sb, r);
	strbuf_addf(&sb, ", and padding cannot help; %s", lock_remedies);
	say_lock_straddles(&sb, k, adv->L);
	say_lock_neighbours(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
}

/* Threads contend on different elements of one array member (one slot
 * per thread): aligning the struct keeps the slots on one line; padding
 * each slot to lines of its own parts them. */
static void advise_member_elements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	const struct report_member *m = &adv->members[adv->split_member];
	struct report_member *changed = xcalloc(adv->n_members, sizeof(*changed));
	struct strbuf sb = STRBUF_INIT, en = STRBUF_INIT;
	const char *name = m->name ? m->name : "<anonymous>";
	uint64_t n, esz, padded;
	char *elem_type, *owned = NULL;
	const char *title;
	struct proposal p;

	member_array(m, &elem_type, &n, &esz);
	padded = round_up(esz, adv->L);
	copy_bytes(changed, adv->members, adv->n_members * sizeof(*changed));
	changed[adv->split_member].type_name =
		padded_array_type(elem_type, n, adv->L);
	changed[adv->split_member].size = n * padded;
	propose_split_member(adv, changed, &p);
	proposal_layout(adv, &p, &l->advice.proposed);
	layout_add_after(&l->advice.proposed, "/* use %s[i].v; cost: %+" PRId64
			 " bytes per instance (%" PRIu64 " -> %" PRIu64 ") */\n",
			 escape_text(&en, name), (int64_t)(p.size - adv->elem_size),
			 adv->elem_size, p.size);
	strbuf_release(&en);

	title = layout_title(adv, &owned);
	if (padded == esz)
		strbuf_addf(&sb, "align each element of %s in %s to the %u-byte "
			    "line so that no two share one", name, title, adv->L);
	else
		strbuf_addf(&sb, "pad each element of %s in %s to %s %u-byte "
			    "line", name, title,
			    padded > adv->L ? "whole" : "its own", adv->L);
	strbuf_addf(&sb, " (%" PRIu64 " x %" PRIu64 " bytes): threads "
		    "contend on different elements of it", n, padded);
	say_true_sharing_remains(&sb, adv);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.cost_bytes = (long)(p.size - adv->elem_size);
	proposal_release(&p);
	free(changed[adv->split_member].type_name);
	free(changed);
	free(elem_type);
	free(owned);
}

void advice_for_line(struct report_line *line, bool heap_object)
{
	struct advisor adv;
	char *note = NULL;
	const struct report_range *lock;
	bool elements, split;

	/* Overwritten, not freed: the caller's line may come from plain
	 * malloc, and report_free() owns whatever was there before. */
	memset(&line->advice, 0, sizeof(line->advice));
	advisor_init(&adv, line, heap_object);
	elements = adv.is_array && !adv.nested &&
		   (!adv.n_members || adv.spans_elements);
	/* elements of one member always share where they meet: no luck of
	 * placement to count */
	split = !elements && adv.split_member >= 0;
	if (adv.n_members && !elements && !split)
		note = placements(&adv);
	if (adv.n_members)
		current_layout(&adv, note, &line->advice.current);

	if (line->kind == SHARING_NONE)
		line->advice.summary = xstrdup("no contention: nothing to change");
	else if (line->lock.name && (lock = lock_range(line)) &&
		 lock->true_shared)
		advise_lock(&adv, lock);
	else if (line->kind == SHARING_TRUE)
		advise_true_sharing(&adv);
	else if (elements)
		advise_elements(&adv);
	else if (split)
		advise_member_elements(&adv);
	else if (adv.n_members)
		advise_struct(&adv);
	else
		advise_untyped(&adv);

	if (line->cxx) {
		line->advice.summary = respell_for_cxx(line->advice.summary);
		layout_respell_for_cxx(&line->advice.current);
		layout_respell_for_cxx(&line->advice.proposed);
	}
	if (line->go && line->type_name && line->kind != SHARING_NONE && line->kind != SHARING_TRUE &&
	    line->advice.summary) {   /* untyped Go data is told in say_heap_block() */
		char *s = xasprintf("%s (Go aligns no type: pad with a _ [N]byte field, or put a "
				    "golang.org/x/sys/cpu.CacheLinePad between the fields)",
				    line->advice.summary);
		free(line->advice.summary);
		line->advice.summary = s;
	}
	/* the deprecated text fields, from the rows like every format */
	line->advice.layout_now = advice_layout_text(&line->advice.current);
	line->advice.layout_proposed = advice_layout_text(&line->advice.proposed);
	free(note);
	advisor_release(&adv);
}
