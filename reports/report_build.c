/* report_build.c - from a line table to the ranked, named report model.
 *
 * Classification picks the contended lines; this file names them.  Every
 * cell of a reported line gets a type attribution of its own, looked up at
 * the exact address it accessed: a line often holds the tail of one
 * object and the head of the next, and the cells that touch each tell
 * which is which.  The line, each range and the struct layout then take
 * the attribution that covers the most samples.
 */
#include "reports/report.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice.h"
#include "reports/gain.h"
#include "reports/locks.h"
#include "common/util.h"
#include "detector/callchain.h"
#include "symbolize/decode.h"
#include "detector/instances.h"
#include "symbolize/pointer_origin.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

/* untyped_by_reason when no type lookup was asked for (no sym or dt). */
#define NO_TYPE_LOOKUP "no type lookup"
/* ... when no lookup could run: the data is in no module's globals and
 * the pointer to it is unknown, for want of the accessing code (watched
 * hits no sample caught) or of a base register (an absolute address). */
#define NO_CODE_ADDRESS "no code address"
#define NO_POINTER_REGISTER "no pointer register"

struct cell_attr {
	bool typed;
	enum data_types_miss why;        /* when !typed and !why_here */
	const char *why_here;            /* a reason no lookup could give */
	struct data_attribution a;       /* when typed */
};

struct candidate {
	struct line *line;
	struct line_verdict v;
	unsigned n_instances;    /* lines pooled into line (instances.h) */
	bool owned;              /* line is an instance_line() to free */
};

struct build {
	struct report *r;
	struct symbolizer *sym;
	struct data_types *dt;
	struct pointer_origins *origins;  /* NULL without sym and dt */
	const struct callchains *chains;
	const struct classify_config *cfg;
	uint64_t total;          /* samples of the session, the scores' denominator */
	struct gain_queue *queue;
	size_t alloc_why;
};

/* Arrays grown here and handed to the model, which keeps no alloc counts. */
struct tid_set {
	uint32_t *v;
	unsigned n, alloc;
};

struct thread_tally {
	struct report_thread *v;
	unsigned n, alloc;
};

struct chain_tally {
	struct line_chain *v;
	unsigned n, alloc;
};

struct site_tally {
	struct site_acc {
		struct report_site site;
		uint64_t samples;
		struct chain_tally chains;
	} *v;
	unsigned n, alloc;
};

static char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* Accesses, counted once each (report.h): an RMW or atomic is a write,
 * as the watchpoints count it, though it also reads (and classification,
 * readers and writers lists treat it as both). */
static uint64_t cell_reads(const struct line_cell *c)
{
	return access_kind_writes(c->kind) ? 0 : c->count;
}

static uint64_t cell_writes(const struct line_cell *c)
{
	return access_kind_writes(c->kind) ? c->count : 0;
}

/* qsort() wants a valid pointer even for no elements; arrays here may be NULL. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void tid_set_add(struct tid_set *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] == tid)
			return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = tid;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct report_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void mem_add(struct report_mem *m, const struct line_cell *c)
{
	m->hitm_local += c->hitm_local;
	m->hitm_remote += c->hitm_remote;
	m->peer += c->peer;
	m->latency += c->weight;
	m->weighted += c->weighted;
}

static void thread_tally_add(struct thread_tally *t, const struct line_cell *c)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].tid == c->tid)
			break;
	if (i == t->n) {
		ALLOC_GROW(t->v, i + 1, t->alloc);
		memset(&t->v[i], 0, sizeof(t->v[i]));
		t->v[i].tid = c->tid;
		t->n++;
	}
	t->v[i].reads += cell_reads(c);
	t->v[i].writes += cell_writes(c);
	mem_add(&t->v[i].mem, c);
}

/* Threads sorted by tid, handed over to the model. */
static struct report_thread *thread_tally_finish(struct thread_tally *t, unsigned *n)
{
	sort(t->v, t->n, sizeof(*t->v), cmp_thread);
	*n = t->n;
	return t->v;
}

/* ------------------------------------------------------------------ */
/* header */

static int cmp_count(const void *a, const void *b)
{
	const struct named_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->what, y->what);
}

static void copy_header(struct report *r, const struct run_facts *hdr)
{
	r->command = strdup_or_null(hdr->command);
	r->backend = strdup_or_null(hdr->backend);
	r->backend_note = strdup_or_null(hdr->backend_note);
	r->mem_info = hdr->mem_info;
	r->freq = hdr->freq;
	r->duration = hdr->duration;
	r->target = hdr->target;
	r->target_status = hdr->target_status;
	r->samples = hdr->samples;
	r->decoded = hdr->decoded;

	r->dropped = xcalloc(hdr->n_dropped, sizeof(*r->dropped));
	for (unsigned i = 0; i < hdr->n_dropped; i++) {
		r->dropped[i].what = xstrdup(hdr->dropped[i].what);
		r->dropped[i].n = hdr->dropped[i].n;
	}
	r->n_dropped = hdr->n_dropped;
	sort(r->dropped, r->n_dropped, sizeof(*r->dropped), cmp_count);
}

static void count_untyped(struct build *b, const char *why, uint64_t n)
{
	struct report *r = b->r;

	for (unsigned i = 0; i < r->n_untyped_why; i++) {
		if (!strcmp(r->untyped_why[i].what, why)) {
			r->untyped_why[i].n += n;
			return;
		}
	}
	ALLOC_GROW(r->untyped_why, r->n_untyped_why + 1, b->alloc_why);
	r->untyped_why[r->n_untyped_why].what = xstrdup(why);
	r->untyped_why[r->n_untyped_why].n = n;
	r->n_untyped_why++;
}

/* ------------------------------------------------------------------ */
/* type attribution */

/*
 * A global variable at the accessed address wins: as the data's module
 * describes it, else (a library's variable copied into the executable) as
 * the accessing code's module does.  Otherwise the pointer held in the
 * memory operand's base register at the accessing code (a variable there,
 * else the load that set it: pointer_origin.h).  The reason kept for a
 * miss is that of the last lookup tried: the pointer's, for heap data.
 */
static void attribute_cell(struct build *b, const struct line *l,
			   const struct line_cell *c, struct cell_attr *out)
{
	uint64_t addr = l->addr + c->offset;
	struct Dwfl_Module *data_mod, *code_mod;
	uint64_t data_bias, code_bias;

	memset(out, 0, sizeof(*out));
	data_mod = symbolizer_module(b->sym, l->pid, addr, &data_bias);
	code_mod = c->ip ? symbolizer_module(b->sym, l->pid, c->ip, &code_bias) : NULL;
	if (!data_mod && (!c->ip || c->base_reg < 0)) {
		/* heap data and no pointer to follow: say what was missing */
		out->why_here = !c->ip ? NO_CODE_ADDRESS : NO_POINTER_REGISTER;
		return;
	}

	out->why = data_mod || code_mod ? DT_NO_VARIABLE : DT_NO_DWARF;
	if (data_mod)
		out->why = data_types_global_access(b->dt, data_mod, data_bias, addr,
						    c->size, &out->a);
	if (out->why != DT_HIT && data_mod && code_mod && code_mod != data_mod &&
	    data_types_global_elsewhere(b->dt, data_mod, addr, c->size, code_mod,
					&out->a) == DT_HIT)
		out->why = DT_HIT;
	if (out->why != DT_HIT && code_mod && c->base_reg >= 0 && b->origins)
		out->why = pointer_origin_access(b->origins, l->pid, c->ip, c->base_reg,
						 c->base_off, addr, c->size, &out->a);
	out->typed = out->why == DT_HIT;
}

static void attribute_line(struct build *b, const struct line *l,
			   struct report_line *rl, struct cell_attr *attrs)
{
	bool lookup = b->sym && b->dt;
	uint64_t why[DT__COUNT] = { 0 }, most = 0;
	const char *here = NULL;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (lookup)
			attribute_cell(b, l, c, &attrs[i]);
		if (attrs[i].typed) {
			rl->typed += c->count;
			continue;
		}
		rl->untyped += c->count;
		count_untyped(b, !lookup ? NO_TYPE_LOOKUP : attrs[i].why_here ? attrs[i].why_here :
				 data_types_miss_name(attrs[i].why), c->count);
		if (attrs[i].why_here)
			here = attrs[i].why_here;
		else if ((unsigned)attrs[i].why < DT__COUNT)
			why[attrs[i].why] += c->count;
	}
	/* the line's own reason, for advice that must not say "build with
	 * -g" of a binary that has its debug info */
	if (rl->untyped && !lookup)
		rl->untyped_why = NO_TYPE_LOOKUP;
	else if (rl->untyped)
		rl->untyped_why = here;
	for (int w = 0; lookup && w < DT__COUNT; w++) {
		if (why[w] > most) {
			most = why[w];
			rl->untyped_why = data_types_miss_name(w);
		}
	}
	b->r->typed += rl->typed;
	b->r->untyped += rl->untyped;
}

/* Both name the same object: the line's variable/type_name/object_start. */
static bool same_object(const struct data_attribution *x, const struct data_attribution *y)
{
	return x->object_start == y->object_start && x->via_pointer == y->via_pointer &&
	       str_eq(x->variable, y->variable) && str_eq(x->type_name, y->type_name);
}

/* Both name the same member of it: a range's member. */
static bool same_member(const struct data_attribution *x, const struct data_attribution *y)
{
	return same_object(x, y) && str_eq(x->path, y->path);
}

static bool same_layout(const struct type_layout *x, const struct type_layout *y)
{
	if (!x || !y)
		return x == y;
	return x == y || (x->size == y->size && str_eq(x->name, y->name));
}

static bool same_instance(const struct data_attribution *x, const struct data_attribution *y)
{
	return same_layout(x->layout, y->layout) && x->layout_start == y->layout_start;
}

typedef bool (*attr_eq_fn)(const struct data_attribution *, const struct data_attribution *);

/*
 * Among the typed cells selected by mask (all if NULL), the attribution
 * that the most samples share under eq; NULL if none is typed.  Quadratic
 * in the cells of one line, which stay few.
 */
static const struct data_attribution *
most_sampled(const struct line *l, const struct cell_attr *attrs,
	     const bool *mask, attr_eq_fn eq)
{
	const struct data_attribution *best = NULL;
	uint64_t best_n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t n = 0;

		if (!attrs[i].typed || (mask && !mask[i]))
			continue;
		for (unsigned j = 0; j < l->n_cells; j++)
			if (attrs[j].typed && (!mask || mask[j]) &&
			    eq(&attrs[i].a, &attrs[j].a))
				n += l->cells[j].count;
		if (n > best_n) {
			best = &attrs[i].a;
			best_n = n;
		}
	}
	return best;
}

/*
 * "counters[1]", "klass_c1.secondary_super_cache" for globals; for an
 * object reached through a pointer the path alone, as the pointer's name
 * says little about the struct ("secondary_super_cache", "[2].hits"), or
 * "*p" for the whole pointee.
 */
static char *member_name(const struct data_attribution *a)
{
	const char *path = a->path ? a->path : "";

	if (!a->via_pointer)
		return xasprintf("%s%s", a->variable ? a->variable : "", path);
	if (!*path)
		return xasprintf("*%s", a->variable ? a->variable : "");
	return xstrdup(path[0] == '.' ? path + 1 : path);
}

/* ------------------------------------------------------------------ */
/* ranges */

static unsigned range_of(const struct line_verdict *v, const struct line_cell *c)
{
	for (unsigned i = 0; i < v->n_ranges; i++)
		if (v->ranges[i].offset == c->offset && v->ranges[i].size == c->size)
			return i;
	return v->n_ranges;
}

/* The chains of the cells of one site, summed. */
static void chain_tally_add(struct chain_tally *t, const struct line_cell *c)
{
	for (unsigned k = 0; k < LINE_CELL_CHAINS; k++) {
		const struct line_chain *ch = &c->chains[k];
		unsigned i;

		if (!ch->id)
			continue;
		for (i = 0; i < t->n; i++)
			if (t->v[i].id == ch->id)
				break;
		if (i == t->n) {
			ALLOC_GROW(t->v, i + 1, t->alloc);
			t->v[i] = (struct line_chain){ .id = ch->id };
			t->n++;
		}
		t->v[i].count += ch->count;
	}
}

static void site_tally_add(struct site_tally *t, const struct line_cell *c)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].site.ip == c->ip)
			break;
	if (i == t->n) {
		ALLOC_GROW(t->v, i + 1, t->alloc);
		memset(&t->v[i], 0, sizeof(t->v[i]));
		t->v[i].site.ip = c->ip;
		t->n++;
	}
	t->v[i].site.reads += cell_reads(c);
	t->v[i].site.writes += cell_writes(c);
	t->v[i].samples += c->count;
	chain_tally_add(&t->v[i].chains, c);
}

/* Sites by samples, most first; ties by address for a stable order. */
static int cmp_site(const void *a, const void *b)
{
	const struct site_acc *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return (x->site.ip > y->site.ip) - (x->site.ip < y->site.ip);
}

static void symbolize_site(struct build *b, uint32_t pid, struct report_site *s)
{
	struct source_loc loc;
	const struct mapping *m;

	if (!b->sym)
		return;
	if (symbolizer_source(b->sym, pid, s->ip, &loc)) {
		s->function = strdup_or_null(loc.function);
		s->file = strdup_or_null(loc.file);
		s->line = loc.line;
		s->inlined_into = strdup_or_null(loc.inlined_into);
		s->via = strdup_or_null(loc.via);
		s->module = strdup_or_null(loc.module);
		s->module_off = loc.module_off;
		if (s->module)
			return;
	}
	/* no module from libdwfl (JIT code, say): the mapping still locates it */
	m = symbolizer_find_mapping(b->sym, pid, s->ip);
	if (m && m->name) {
		s->module = xstrdup(basename_of(m->name));
		s->module_off = s->ip - m->start + m->pgoff;
	}
}

/* "worker false_sharing_counters.c:80", "libc.so.6+0x8a0f", "0x7f00beef". */
static char *frame_name(struct build *b, uint32_t pid, uint64_t pc)
{
	struct source_loc loc = { 0 };
	const struct mapping *m = NULL;

	if (b->sym && symbolizer_source(b->sym, pid, pc, &loc)) {
		if (loc.function && loc.file && loc.line > 0)
			return xasprintf("%s %s:%d", loc.function, basename_of(loc.file), loc.line);
		if (loc.function)
			return xstrdup(loc.function);
	}
	if (loc.module)
		return xasprintf("%s+0x%" PRIx64, loc.module, loc.module_off);
	if (b->sym)
		m = symbolizer_find_mapping(b->sym, pid, pc);
	if (m && m->name)
		return xasprintf("%s+0x%" PRIx64, basename_of(m->name), pc - m->start + m->pgoff);
	return xasprintf("0x%" PRIx64, pc);
}

static int cmp_chain(const void *a, const void *b)
{
	const struct line_chain *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The site's most sampled chains, their first frames named; frees t. */
static void site_chains(struct build *b, uint32_t pid, struct chain_tally *t,
			struct report_site *s)
{
	sort(t->v, t->n, sizeof(*t->v), cmp_chain);
	s->chains = xcalloc(t->n < REPORT_SITE_CHAINS ? t->n : REPORT_SITE_CHAINS,
			    sizeof(*s->chains));
	for (unsigned i = 0; i < t->n && s->n_chains < REPORT_SITE_CHAINS; i++) {
		struct report_chain *rc = &s->chains[s->n_chains];
		unsigned n;
		const uint64_t *pcs = callchain_get(b->chains, t->v[i].id, &n);

		if (!pcs)
			continue;
		if (n > REPORT_CHAIN_FRAMES)
			n = REPORT_CHAIN_FRAMES;
		rc->frames = xcalloc(n, sizeof(*rc->frames));
		for (unsigned k = 0; k < n; k++)
			rc->frames[k] = frame_name(b, pid, pcs[k]);
		rc->n_frames = n;
		rc->count = t->v[i].count;
		s->n_chains++;
	}
	free(t->v);
}

/*
 * A range no typed cell names may still lie in the line's struct (written
 * by code without debug info): name it by the layout's member when the
 * struct is the object itself, so that no path prefix is missing.
 */
static char *member_from_layout(const struct data_attribution *inst, uint64_t addr,
				unsigned size)
{
	const struct type_layout *lay = inst ? inst->layout : NULL;

	if (!lay || inst->layout_start != inst->object_start)
		return NULL;
	for (unsigned k = 0; k < lay->n_members; k++) {
		const struct type_member *m = &lay->members[k];
		uint64_t start = inst->layout_start + m->offset;

		if (!m->name || addr < start || addr + size > start + m->size)
			continue;
		if (inst->via_pointer)
			return xstrdup(m->name);
		return xasprintf("%s.%s", inst->variable ? inst->variable : "", m->name);
	}
	return NULL;
}

static void fill_range(struct build *b, const struct line *l, const struct cell_attr *attrs,
		       const bool *in_range, const struct data_attribution *inst,
		       struct report_range *rr)
{
	struct thread_tally threads = { 0 };
	struct site_tally sites = { 0 };
	const struct data_attribution *best;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (!in_range[i])
			continue;
		rr->reads += cell_reads(c);
		rr->writes += cell_writes(c);
		mem_add(&rr->mem, c);
		thread_tally_add(&threads, c);
		site_tally_add(&sites, c);
	}
	rr->threads = thread_tally_finish(&threads, &rr->n_threads);

	sort(sites.v, sites.n, sizeof(*sites.v), cmp_site);
	rr->sites = xcalloc(sites.n, sizeof(*rr->sites));
	rr->n_sites = sites.n;
	for (unsigned i = 0; i < sites.n; i++) {
		rr->sites[i] = sites.v[i].site;
		symbolize_site(b, l->pid, &rr->sites[i]);
		site_chains(b, l->pid, &sites.v[i].chains, &rr->sites[i]);
	}
	free(sites.v);

	best = most_sampled(l, attrs, in_range, same_member);
	if (best)
		rr->member = member_name(best);
	else
		rr->member = member_from_layout(inst, l->addr + rr->offset, rr->size);
}

/* range[i]: cell i's range (range_of).  Returns the index of the range
 * with the most samples. */
static unsigned build_ranges(struct build *b, const struct line *l,
			     const struct line_verdict *v, const unsigned *range,
			     const struct cell_attr *attrs,
			     const struct data_attribution *inst, struct report_line *rl)
{
	bool *in_range = xcalloc(l->n_cells, sizeof(*in_range));
	uint64_t hottest_n = 0;
	unsigned hottest = 0;

	rl->ranges = xcalloc(v->n_ranges, sizeof(*rl->ranges));
	rl->n_ranges = v->n_ranges;
	for (unsigned ri = 0; ri < v->n_ranges; ri++) {
		const struct range_verdict *rv = &v->ranges[ri];
		struct report_range *rr = &rl->ranges[ri];

		for (unsigned i = 0; i < l->n_cells; i++)
			in_range[i] = range[i] == ri;
		rr->offset = rv->offset;
		rr->size = rv->size;
		rr->true_shared = rv->true_shared;
		rr->false_victim = rv->false_victim;
		rr->false_writer = rv->false_writer;
		fill_range(b, l, attrs, in_range, inst, rr);
		if (rv->all > hottest_n) {
			hottest_n = rv->all;
			hottest = ri;
		}
	}
	free(in_range);
	return hottest;
}

/* ------------------------------------------------------------------ */
/* members of the contended struct */

struct member_acc {
	struct tid_set writers, readers;
};

static void member_count(struct report_member *m, struct member_acc *acc,
			 const struct line_cell *c)
{
	m->reads += cell_reads(c);
	m->writes += cell_writes(c);
	if (access_kind_writes(c->kind))
		tid_set_add(&acc->writers, c->tid);
	if (access_kind_reads(c->kind))
		tid_set_add(&acc->readers, c->tid);
}

static void members_finish(struct report_line *rl, struct member_acc *acc)
{
	for (unsigned i = 0; i < rl->n_members; i++) {
		struct report_member *m = &rl->members[i];

		sort(acc[i].writers.v, acc[i].writers.n, sizeof(uint32_t), cmp_u32);
		sort(acc[i].readers.v, acc[i].readers.n, sizeof(uint32_t), cmp_u32);
		m->writers = acc[i].writers.v;
		m->n_writers = acc[i].writers.n;
		m->readers = acc[i].readers.v;
		m->n_readers = acc[i].readers.n;
	}
	free(acc);
}

/*
 * Members of the struct instance at inst->layout_start.  Every cell whose
 * bytes land in the instance counts for the members they overlap, typed
 * or not: the address alone says which member it is, also for code that
 * has no debug info (JIT code, a stripped library).
 */
static void struct_members(const struct line *l, const struct data_attribution *inst,
			   struct report_line *rl)
{
	const struct type_layout *lay = inst->layout;
	struct member_acc *acc = xcalloc(lay->n_members, sizeof(*acc));

	rl->members = xcalloc(lay->n_members, sizeof(*rl->members));
	rl->n_members = lay->n_members;
	for (unsigned k = 0; k < lay->n_members; k++) {
		rl->members[k].name = strdup_or_null(lay->members[k].name);
		rl->members[k].type_name = strdup_or_null(lay->members[k].type_name);
		rl->members[k].offset = lay->members[k].offset;
		rl->members[k].size = lay->members[k].size;
	}
	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];
		uint64_t start = l->addr + c->offset, end = start + c->size;

		for (unsigned k = 0; k < lay->n_members; k++) {
			struct report_member *m = &rl->members[k];
			uint64_t m_start = inst->layout_start + m->offset;

			if (start < m_start + m->size && m_start < end)
				member_count(m, &acc[k], c);
		}
	}
	members_finish(rl, acc);
}

static int cmp_member(const void *a, const void *b)
{
	const struct report_member *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * An array of scalars has no members: one per element of that array
 * touched on the line, named like a range ("counters[1]").
 */
static void element_members(const struct line *l, const struct cell_attr *attrs,
			    const struct data_attribution *obj, struct report_line *rl)
{
	const struct type_layout *lay = obj->layout;
	struct member_acc *acc = NULL;
	size_t alloc = 0, alloc_acc = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct data_attribution *a = &attrs[i].a;
		uint64_t offset = a->layout_start - a->object_start;
		unsigned k;

		if (!attrs[i].typed || !same_object(a, obj) ||
		    !same_layout(a->layout, lay) || a->layout_start < a->object_start)
			continue;
		for (k = 0; k < rl->n_members; k++)
			if (rl->members[k].offset == offset)
				break;
		if (k == rl->n_members) {
			struct report_member *m;

			ALLOC_GROW(rl->members, k + 1, alloc);
			ALLOC_GROW(acc, k + 1, alloc_acc);
			m = &rl->members[k];
			memset(m, 0, sizeof(*m));
			memset(&acc[k], 0, sizeof(acc[k]));
			m->name = member_name(a);
			m->type_name = strdup_or_null(lay->name);
			m->offset = offset;
			m->size = lay->size;
			rl->n_members++;
		}
		member_count(&rl->members[k], &acc[k], &l->cells[i]);
	}
	members_finish(rl, acc);
	sort(rl->members, rl->n_members, sizeof(*rl->members), cmp_member);
}

/* Fills the layout of the line's object; returns the instance used, or NULL. */
static const struct data_attribution *
build_members(const struct line *l, const struct cell_attr *attrs,
	      const bool *in_lock, const struct data_attribution *obj,
	      struct report_line *rl)
{
	bool *mask = xcalloc(l->n_cells, sizeof(*mask));
	const struct data_attribution *inst;

	/* the most sampled layout instance inside the line's object; not
	 * a lock's insides, which are the library's to lay out */
	for (unsigned i = 0; i < l->n_cells; i++)
		mask[i] = attrs[i].typed && same_object(&attrs[i].a, obj) &&
			  attrs[i].a.layout && !in_lock[i];
	inst = most_sampled(l, attrs, mask, same_instance);
	free(mask);
	if (!inst)
		return NULL;
	rl->struct_size = inst->layout->size;
	rl->struct_align = inst->layout->align;
	rl->struct_name = strdup_or_null(inst->layout->name);
	rl->cxx = inst->layout->cxx;
	if (inst->layout->n_members)
		struct_members(l, inst, rl);
	else
		element_members(l, attrs, inst, rl);
	return inst;
}

/* ------------------------------------------------------------------ */
/* who contends with whom */

/* A code site of a line: a source line, or an address without one.  The
 * load and the store of an increment are one site, as they are one line. */
struct code_site {
	uint64_t ip;                    /* the first address seen: the one named */
	const char *function, *file;    /* the symbolizer's */
	int line;                       /* 0: the site is the address alone */
};

struct code_sites {
	struct code_site *v;
	unsigned n, alloc;
};

/* What one thread did on one range of the line from one site. */
struct site_usage {
	uint32_t tid;
	unsigned site;
	uint8_t offset, size;
	uint64_t concurrent, reads, writes;   /* reads, writes: all samples */
};

/* A pair of sites whose accesses conflict, as the usages add up. */
struct pair_acc {
	unsigned site_a, site_b;        /* site_a <= site_b */
	enum sharing_kind kind;
	struct pair_side_acc {
		struct tid_set tids;
		uint64_t concurrent, reads, writes;
	} a, b;
};

struct pair_tally {
	struct pair_acc *v;
	unsigned n, alloc;
};

/* Which pair a usage takes part in, and on which side. */
struct pair_role {
	unsigned site_a, site_b;
	enum sharing_kind kind;
	bool side_b;
};

static unsigned code_site_of(struct build *b, uint32_t pid, struct code_sites *cs,
			     uint64_t ip)
{
	struct code_site key = { .ip = ip };
	struct source_loc loc;
	unsigned i;

	if (b->sym && symbolizer_source(b->sym, pid, ip, &loc) && loc.file && loc.line > 0) {
		key.function = loc.function;
		key.file = loc.file;
		key.line = loc.line;
	}
	for (i = 0; i < cs->n; i++) {
		const struct code_site *s = &cs->v[i];

		if (key.line ? s->line == key.line && str_eq(s->file, key.file) &&
			       str_eq(s->function, key.function)
			     : !s->line && s->ip == ip)
			return i;
	}
	ALLOC_GROW(cs->v, i + 1, cs->alloc);
	cs->v[cs->n++] = key;
	return i;
}

static int cmp_usage(const void *a, const void *b)
{
	const struct site_usage *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

/* The cells merged by (thread, site, range); returns how many. */
static unsigned site_usages(struct build *b, const struct line *l, struct code_sites *sites,
			    struct site_usage **out)
{
	struct site_usage *u = xcalloc(l->n_cells, sizeof(*u));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		u[i] = (struct site_usage){
			.tid = c->tid, .offset = c->offset, .size = c->size,
			.site = code_site_of(b, l->pid, sites, c->ip),
			.concurrent = c->concurrent,
			.reads = cell_reads(c), .writes = cell_writes(c),
		};
	}
	sort(u, l->n_cells, sizeof(*u), cmp_usage);
	for (unsigned i = 0; i < l->n_cells; i++) {
		if (n && !cmp_usage(&u[n - 1], &u[i])) {
			u[n - 1].concurrent += u[i].concurrent;
			u[n - 1].reads += u[i].reads;
			u[n - 1].writes += u[i].writes;
		} else {
			u[n++] = u[i];
		}
	}
	*out = u;
	return n;
}

static bool ranges_overlap(const struct site_usage *x, const struct site_usage *y)
{
	return x->offset < y->offset + y->size && y->offset < x->offset + x->size;
}

static const struct range_verdict *usage_range(const struct line_verdict *v,
					       const struct site_usage *u)
{
	for (unsigned i = 0; i < v->n_ranges; i++)
		if (v->ranges[i].offset == u->offset && v->ranges[i].size == u->size)
			return &v->ranges[i];
	return NULL;
}

/* Disjoint bytes falsely share only where classification found it: two
 * fields the same threads all write do not (classify.h). */
static bool falsely_shared(const struct line_verdict *v, const struct site_usage *x,
			   const struct site_usage *y)
{
	const struct range_verdict *rx = usage_range(v, x), *ry = usage_range(v, y);

	if (!rx || !ry)
		return true;
	return (rx->false_writer && ry->false_victim) ||
	       (ry->false_writer && rx->false_victim);
}

static bool same_role(const struct pair_role *x, const struct pair_role *y)
{
	return x->site_a == y->site_a && x->site_b == y->site_b &&
	       x->kind == y->kind && x->side_b == y->side_b;
}

/*
 * The pairs usage x takes part in, each once.  x conflicts with a
 * concurrent usage of another thread when one of the two wrote: any
 * sampled store counts, as in classification, for stores are sampled far
 * less than the loads they stall.  x's side is that of the lower site;
 * against its own site, that of the lower thread id.
 */
static unsigned usage_roles(const struct line_verdict *v, const struct site_usage *u,
			    unsigned n_usage, unsigned x, struct pair_role **roles,
			    unsigned *alloc)
{
	const struct site_usage *ux = &u[x];
	unsigned n = 0;

	for (unsigned y = 0; y < n_usage; y++) {
		const struct site_usage *uy = &u[y];
		struct pair_role r;
		bool x_first;
		unsigned k;

		if (!uy->concurrent || uy->tid == ux->tid || !(ux->writes || uy->writes))
			continue;
		x_first = ux->site < uy->site || (ux->site == uy->site && ux->tid < uy->tid);
		r.site_a = x_first ? ux->site : uy->site;
		r.site_b = x_first ? uy->site : ux->site;
		r.kind = ranges_overlap(ux, uy) ? SHARING_TRUE : SHARING_FALSE;
		if (r.kind == SHARING_FALSE && !falsely_shared(v, ux, uy))
			continue;
		r.side_b = !x_first;
		for (k = 0; k < n && !same_role(&(*roles)[k], &r); k++)
			;
		if (k == n) {
			ALLOC_GROW(*roles, n + 1, *alloc);
			(*roles)[n++] = r;
		}
	}
	return n;
}

static struct pair_acc *pair_get(struct pair_tally *t, const struct pair_role *r)
{
	struct pair_acc *p;

	for (unsigned i = 0; i < t->n; i++) {
		p = &t->v[i];
		if (p->site_a == r->site_a && p->site_b == r->site_b && p->kind == r->kind)
			return p;
	}
	ALLOC_GROW(t->v, t->n + 1, t->alloc);
	p = &t->v[t->n++];
	memset(p, 0, sizeof(*p));
	p->site_a = r->site_a;
	p->site_b = r->site_b;
	p->kind = r->kind;
	return p;
}

static void side_add(struct pair_side_acc *s, const struct site_usage *u)
{
	tid_set_add(&s->tids, u->tid);
	s->concurrent += u->concurrent;
	s->reads += u->reads;
	s->writes += u->writes;
}

static uint64_t pair_weight(const struct pair_acc *p)
{
	return p->a.concurrent < p->b.concurrent ? p->a.concurrent : p->b.concurrent;
}

static uint64_t pair_evidence(const struct pair_acc *p)
{
	return p->a.concurrent > p->b.concurrent ? p->a.concurrent : p->b.concurrent;
}

/* Heaviest first; ties in a stable order. */
static int cmp_pair(const void *a, const void *b)
{
	const struct pair_acc *x = a, *y = b;
	uint64_t wx = pair_weight(x), wy = pair_weight(y);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->site_a != y->site_a)
		return x->site_a < y->site_a ? -1 : 1;
	return (x->site_b > y->site_b) - (x->site_b < y->site_b);
}

/* Hands the side's thread ids over to the model. */
static void fill_side(struct build *b, uint32_t pid, const struct code_site *site,
		      struct pair_side_acc *acc, struct report_pair_side *out)
{
	out->site.ip = site->ip;
	symbolize_site(b, pid, &out->site);
	out->site.reads = acc->reads;
	out->site.writes = acc->writes;
	sort(acc->tids.v, acc->tids.n, sizeof(*acc->tids.v), cmp_u32);
	out->tids = acc->tids.v;
	out->n_tids = acc->tids.n;
	acc->tids.v = NULL;
	out->concurrent = acc->concurrent;
}

/*
 * Pairs of code sites in different threads whose concurrent accesses
 * conflict, weighed by the smaller side's concurrent samples.  The writing
 * side of a pair may have few samples (stores again); a pair is dropped as
 * noise only when neither side rises above classification's noise level.
 */
static void build_pairs(struct build *b, const struct line *l,
			const struct line_verdict *v, struct report_line *rl)
{
	double noise = b->cfg ? b->cfg->noise_frac * (double)l->concurrent : 0;
	struct code_sites sites = { 0 };
	struct pair_tally pairs = { 0 };
	struct pair_role *roles = NULL;
	struct site_usage *u;
	unsigned n_usage, alloc_roles = 0, keep = 0;

	n_usage = site_usages(b, l, &sites, &u);
	for (unsigned x = 0; x < n_usage; x++) {
		unsigned n;

		if (!u[x].concurrent)
			continue;
		n = usage_roles(v, u, n_usage, x, &roles, &alloc_roles);
		for (unsigned k = 0; k < n; k++) {
			struct pair_acc *p = pair_get(&pairs, &roles[k]);

			side_add(roles[k].side_b ? &p->b : &p->a, &u[x]);
		}
	}

	sort(pairs.v, pairs.n, sizeof(*pairs.v), cmp_pair);
	rl->pairs = xcalloc(pairs.n < REPORT_LINE_PAIRS ? pairs.n : REPORT_LINE_PAIRS,
			    sizeof(*rl->pairs));
	for (unsigned i = 0; i < pairs.n && keep < REPORT_LINE_PAIRS; i++) {
		struct pair_acc *p = &pairs.v[i];
		struct report_pair *rp = &rl->pairs[keep];

		if (!pair_weight(p) || (double)pair_evidence(p) < noise)
			continue;
		rp->kind = p->kind;
		rp->weight = pair_weight(p);
		fill_side(b, l->pid, &sites.v[p->site_a], &p->a, &rp->a);
		fill_side(b, l->pid, &sites.v[p->site_b], &p->b, &rp->b);
		keep++;
	}
	rl->n_pairs = keep;
	for (unsigned i = 0; i < pairs.n; i++) {
		free(pairs.v[i].a.tids.v);
		free(pairs.v[i].b.tids.v);
	}
	free(pairs.v);
	free(roles);
	free(u);
	free(sites.v);
}

/* ------------------------------------------------------------------ */
/* locks */

/* Samples of the cells whose access lies in the lock named name. */
static uint64_t lock_samples(const struct line *l, const struct lock_ref *refs,
			     const char *name)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < l->n_cells; i++)
		if (refs[i].name && !strcmp(refs[i].name, name))
			n += l->cells[i].count;
	return n;
}

/* Its bytes from an instance that knows them, else those its cells touch. */
static void lock_extent(const struct line *l, const struct lock_ref *refs,
			struct lock_ref *lock)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t a = l->addr + l->cells[i].offset;

		if (!refs[i].name || strcmp(refs[i].name, lock->name))
			continue;
		if (refs[i].size) {
			lock->start = refs[i].start;
			lock->size = refs[i].size;
			return;
		}
		if (a < lo)
			lo = a;
		if (a + l->cells[i].size > hi)
			hi = a + l->cells[i].size;
	}
	lock->start = lo;
	lock->size = hi > lo ? hi - lo : 0;
}

/* The lock that most of the line's samples touch (locks.h); false if none. */
static bool find_lock(const struct line *l, const struct cell_attr *attrs,
		      struct lock_ref *lock)
{
	struct lock_ref *refs = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*refs));
	uint64_t best_n = 0;
	int best = -1;

	for (unsigned i = 0; i < l->n_cells; i++)
		if (attrs[i].typed)
			lock_of_access(&attrs[i].a, l->addr + l->cells[i].offset,
				       l->cells[i].size, &refs[i]);
	for (unsigned i = 0; i < l->n_cells; i++) {
		uint64_t n = refs[i].name ? lock_samples(l, refs, refs[i].name) : 0;

		if (n > best_n) {
			best_n = n;
			best = (int)i;
		}
	}
	memset(lock, 0, sizeof(*lock));
	if (best >= 0) {
		lock->name = xstrdup(refs[best].name);
		lock->type_name = refs[best].type_name;
		lock_extent(l, refs, lock);
	}
	for (unsigned i = 0; i < l->n_cells; i++)
		lock_ref_release(&refs[i]);
	free(refs);
	return best >= 0;
}

/* The lock's bytes on the line: [*lo, *hi) in line offsets. */
static void lock_on_line(const struct line *l, unsigned line_size,
			 const struct lock_ref *lock, unsigned *lo, unsigned *hi)
{
	uint64_t start = lock->start > l->addr ? lock->start : l->addr;
	uint64_t end = lock->start + lock->size;

	if (end > l->addr + line_size)
		end = l->addr + line_size;
	*lo = (unsigned)(start - l->addr);
	*hi = end > start ? (unsigned)(end - l->addr) : *lo;
}

/*
 * A copy of the line on which every access to the lock's bytes covers
 * all of them on the line: classification then sees one object that the
 * threads write in turn (true sharing), not __lock written beside __kind
 * read (false sharing inside the lock).  in_lock[i] says which cells.
 */
static struct line *fold_lock(const struct line *l, unsigned line_size,
			      const struct lock_ref *lock, bool *in_lock)
{
	struct line *f = xmalloc(sizeof(*f));
	unsigned lo, hi;

	*f = *l;
	f->cells = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*f->cells));
	memcpy(f->cells, l->cells, l->n_cells * sizeof(*f->cells));
	lock_on_line(l, line_size, lock, &lo, &hi);
	for (unsigned i = 0; i < l->n_cells && hi > lo; i++) {
		struct line_cell *c = &f->cells[i];

		in_lock[i] = c->offset < hi && lo < c->offset + c->size;
		if (in_lock[i]) {
			c->offset = (uint8_t)lo;
			c->size = (uint8_t)(hi - lo);
		}
	}
	return f;
}

static void free_folded(struct line *f)
{
	if (!f)
		return;
	free(f->cells);
	free(f);
}

/* The folded range is named after the lock; the model keeps the lock. */
static void name_lock(const struct line *l, const struct lock_ref *lock,
		      struct report_line *rl)
{
	unsigned lo, hi;

	lock_on_line(l, rl->line_size, lock, &lo, &hi);
	for (unsigned i = 0; i < rl->n_ranges; i++) {
		struct report_range *rr = &rl->ranges[i];

		if (rr->offset != lo || rr->size != hi - lo)
			continue;
		free(rr->member);
		rr->member = xstrdup(lock->name);
	}
	rl->lock.name = xstrdup(lock->name);
	rl->lock.type_name = strdup_or_null(lock->type_name);
	rl->lock.addr = lock->start;
	rl->lock.size = lock->size;
}

/* ------------------------------------------------------------------ */
/* one line */

/* "counters+8", "[heap]+0x2a0", or the bare address.  Sets *heap. */
static char *object_name(struct build *b, uint32_t pid, uint64_t addr, bool *heap)
{
	struct data_symbol ds;
	struct Dwfl_Module *mod;
	const char *file;
	uint64_t off, bias;

	*heap = false;
	if (!b->sym || !symbolizer_data_symbol(b->sym, pid, addr, &ds) || !ds.name)
		return xasprintf("0x%" PRIx64, addr);
	off = addr - ds.start;
	if (ds.is_symbol)
		return off ? xasprintf("%s+%" PRIu64, ds.name, off) : xstrdup(ds.name);
	/* In a binary -- its .bss may spill past the file into an anonymous
	 * mapping -- the binary's own address, as nm, objdump and the code
	 * sites print them, not the offset into whichever mapping holds it. */
	if ((ds.kind == MAPPING_FILE || ds.kind == MAPPING_ANON) &&
	    (mod = symbolizer_module(b->sym, pid, addr, &bias)) &&
	    (file = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL)))
		return xasprintf("%s+0x%" PRIx64, basename_of(file), addr - bias);
	*heap = ds.kind == MAPPING_HEAP || ds.kind == MAPPING_ANON;
	return xasprintf("%s+0x%" PRIx64, basename_of(ds.name), off);
}

static bool range_contended(const struct report_range *r)
{
	return r->true_shared || r->false_writer || r->false_victim;
}

/*
 * The line offset whose symbol names the line: the first contended byte
 * of the line's object ("counters", not the hottest element's
 * "counters+8"; ranges are sorted by offset).  Not merely the first byte
 * touched: a read-only global that starts the line (p4_omp's data
 * pointer, before hist) is not what the threads fight over.  Failing
 * that, the first contended byte, then the first touched.
 */
static unsigned naming_offset(const struct report_line *rl)
{
	const struct report_range *first = NULL;

	for (unsigned i = 0; i < rl->n_ranges; i++) {
		const struct report_range *r = &rl->ranges[i];

		if (!range_contended(r))
			continue;
		if (!rl->object_start || rl->addr + r->offset >= rl->object_start)
			return r->offset;
		if (!first)
			first = r;
	}
	if (first)
		return first->offset;
	return rl->n_ranges ? rl->ranges[0].offset : 0;
}

static void line_threads(const struct line *l, struct report_line *rl)
{
	struct thread_tally threads = { 0 };

	for (unsigned i = 0; i < l->n_cells; i++) {
		thread_tally_add(&threads, &l->cells[i]);
		mem_add(&rl->mem, &l->cells[i]);
	}
	rl->threads = thread_tally_finish(&threads, &rl->n_threads);
}

/* The code the gain model looks at (gain_queue_new's callbacks). */
struct stream_answer {
	uint32_t pid;
	uint64_t ip;
	enum store_stream st;
};

struct code_view {
	struct symbolizer *sym;
	struct decoder *dec;       /* NULL if Capstone would not open */
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
	uint64_t start, end;
	uint8_t *code;

	if (!cv->dec || !function_bounds(cv, pid, ip, &start, &end) ||
	    ip < start || ip >= end || end - start > STREAM_MAX_FUNCTION)
		return st;
	code = xmalloc(end - start);
	if (symbolizer_read(cv->sym, pid, start, code, end - start) == end - start)
		st = store_stream_of(cv->dec, code, end - start, start, ip, cv->line_size);
	free(code);
	return st;
}

static enum store_stream stream_at(void *ctx, uint32_t pid, uint64_t ip)
{
	struct code_view *cv = ctx;
	enum store_stream st;

	for (size_t i = 0; i < cv->n_answers; i++)
		if (cv->answers[i].pid == pid && cv->answers[i].ip == ip)
			return cv->answers[i].st;
	st = decode_stream(cv, pid, ip);
	ALLOC_GROW(cv->answers, cv->n_answers + 1, cv->alloc_answers);
	cv->answers[cv->n_answers++] = (struct stream_answer){ pid, ip, st };
	return st;
}

static void predict_gain(struct build *b, const struct line *l,
			 const struct line_verdict *v, const unsigned *range,
			 struct report_line *rl)
{
	double *saved = xcalloc(v->n_ranges + 1, sizeof(*saved));

	gain_saved(l, range, v->n_ranges, b->queue, saved);
	gain_predict(rl, saved, b->total);
	free(saved);
}

static void build_line(struct build *b, const struct candidate *cand,
		       unsigned line_size, struct report_line *rl)
{
	const struct line *l = cand->line;
	const struct line_verdict *v = &cand->v;
	struct cell_attr *attrs = xcalloc(l->n_cells, sizeof(*attrs));
	unsigned *range = xcalloc(l->n_cells, sizeof(*range));
	bool *in_lock = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*in_lock));
	const struct data_attribution *obj, *inst = NULL;
	struct line_verdict folded_v = { 0 };
	struct line *folded = NULL;
	struct lock_ref lock;
	bool heap;

	rl->pid = l->pid;
	rl->addr = l->addr;
	rl->line_size = line_size;
	rl->kind = v->kind;
	rl->score = v->score;
	rl->share = v->share;
	rl->concurrent_frac = v->concurrent_frac;
	rl->samples = l->count;
	rl->concurrent = l->concurrent;
	rl->n_instances = cand->n_instances;

	attribute_line(b, l, rl, attrs);
	if (find_lock(l, attrs, &lock)) {
		folded = fold_lock(l, line_size, &lock, in_lock);
		classify_line(folded, b->total, b->cfg, &folded_v);
		l = folded;
		v = &folded_v;
		rl->kind = v->kind;
	}
	line_threads(l, rl);
	obj = most_sampled(l, attrs, NULL, same_object);
	if (obj) {
		rl->variable = strdup_or_null(obj->variable);
		rl->type_name = strdup_or_null(obj->type_name);
		rl->object_start = obj->object_start;
		inst = build_members(l, attrs, in_lock, obj, rl);
	}
	for (unsigned i = 0; i < l->n_cells; i++)
		range[i] = range_of(v, &l->cells[i]);
	build_ranges(b, l, v, range, attrs, inst, rl);
	if (folded)
		name_lock(l, &lock, rl);
	build_pairs(b, l, v, rl);
	rl->object = object_name(b, l->pid, l->addr + naming_offset(rl), &heap);
	free(attrs);
	advice_for_line(rl, heap);
	predict_gain(b, l, v, range, rl);
	free(range);
	free(in_lock);
	if (folded) {
		line_verdict_release(&folded_v);
		free_folded(folded);
		lock_ref_release(&lock);
	}
}

/* ------------------------------------------------------------------ */

static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->v.score != y->v.score)
		return x->v.score > y->v.score ? -1 : 1;
	if (x->line->count != y->line->count)
		return x->line->count > y->line->count ? -1 : 1;
	if (x->line->pid != y->line->pid)
		return x->line->pid < y->line->pid ? -1 : 1;
	return (x->line->addr > y->line->addr) - (x->line->addr < y->line->addr);
}

/* Contended lines, ranked; counts the candidates on the way.  Instances
 * of one structure used the same way are pooled first (instances.h). */
static struct candidate *contended_lines(struct line_table *lines, uint64_t total,
					 const struct classify_config *cfg,
					 struct report *r, size_t *n_out)
{
	struct candidate *c = NULL;
	struct line **shared = NULL;
	struct instance_group *groups;
	size_t n = 0, alloc = 0, n_shared = 0, n_groups;

	for (size_t i = 0; i < line_table_count(lines); i++) {
		struct line *l = line_table_line(lines, i);

		if (l->n_threads < 2)
			continue;
		r->n_candidates++;
		ALLOC_GROW(shared, n_shared + 1, alloc);
		shared[n_shared++] = l;
	}
	alloc = 0;
	n_groups = instance_groups(shared, n_shared, &groups);
	for (size_t i = 0; i < n_groups; i++) {
		ALLOC_GROW(c, n + 1, alloc);
		c[n].n_instances = groups[i].n;
		c[n].owned = groups[i].n > 1;
		c[n].line = c[n].owned ? instance_line(&groups[i]) : groups[i].lines[0];
		classify_line(c[n].line, total, cfg, &c[n].v);
		if (c[n].v.contended) {
			n++;
			continue;
		}
		line_verdict_release(&c[n].v);
		if (c[n].owned)
			instance_line_free(c[n].line);
	}
	instance_groups_free(groups, n_groups);
	free(shared);
	sort(c, n, sizeof(*c), cmp_candidate);
	*n_out = n;
	return c;
}

struct report *report_build(const struct run_facts *hdr,
			    struct line_table *lines,
			    const struct classify_config *cfg, unsigned top,
			    struct symbolizer *sym, struct data_types *dt)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct build b = {
		.r = r, .sym = sym, .dt = dt, .chains = hdr->chains, .cfg = cfg,
	};
	struct code_view cv = { .sym = sym };
	uint64_t total = line_table_samples(lines);
	struct candidate *cand;
	size_t n_contended, n;

	copy_header(r, hdr);
	r->line_size = line_table_line_size(lines);
	/* score is a share of everything sampled, undecodable samples included */
	if (hdr->samples > total)
		total = hdr->samples;

	b.total = total;
	cand = contended_lines(lines, total, cfg, r, &n_contended);
	n = top && n_contended > top ? top : n_contended;
	r->lines = xcalloc(n, sizeof(*r->lines));
	r->n_lines = n;
	cv.line_size = r->line_size;
	if (n && sym) {
		cv.dec = decoder_new_x86_64();
		b.queue = gain_queue_new(lines, function_bounds, stream_at, &cv);
	}
	if (n && sym && dt)
		b.origins = pointer_origins_new(sym, dt);
	for (size_t i = 0; i < n; i++)
		build_line(&b, &cand[i], r->line_size, &r->lines[i]);
	gain_queue_free(b.queue);
	decoder_free(cv.dec);
	free(cv.answers);
	pointer_origins_free(b.origins);

	for (size_t i = 0; i < n_contended; i++) {
		line_verdict_release(&cand[i].v);
		if (cand[i].owned)
			instance_line_free(cand[i].line);
	}
	free(cand);
	sort(r->untyped_why, r->n_untyped_why, sizeof(*r->untyped_why), cmp_count);
	return r;
}

/* ------------------------------------------------------------------ */

static void free_counts(struct named_count *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(c[i].what);
	free(c);
}

static void free_threads(struct report_thread *t, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(t[i].comm);
	free(t);
}

static void free_site(struct report_site *s)
{
	free(s->function);
	free(s->file);
	free(s->inlined_into);
	free(s->via);
	free(s->module);
	for (unsigned i = 0; i < s->n_chains; i++) {
		for (unsigned k = 0; k < s->chains[i].n_frames; k++)
			free(s->chains[i].frames[k]);
		free(s->chains[i].frames);
	}
	free(s->chains);
}

static void free_range(struct report_range *rr)
{
	free(rr->member);
	free_threads(rr->threads, rr->n_threads);
	for (unsigned i = 0; i < rr->n_sites; i++)
		free_site(&rr->sites[i]);
	free(rr->sites);
}

static void free_watch_word(struct report_watch_word *ww)
{
	free(ww->member);
	free_threads(ww->threads, ww->n_threads);
	for (unsigned i = 0; i < ww->n_sites; i++)
		free_site(&ww->sites[i]);
	free(ww->sites);
}

static void free_pair_side(struct report_pair_side *side)
{
	free_site(&side->site);
	free(side->tids);
}

void report_confirm_locks(struct report *r)
{
	for (unsigned i = 0; i < r->n_lines; i++) {
		struct report_line *rl = &r->lines[i];
		const struct report_lock *k = &rl->lock;
		bool all_in = rl->n_words > 0;

		for (unsigned w = 0; w < rl->n_words; w++) {
			uint64_t a = rl->addr + rl->words[w].offset;

			all_in &= a < k->addr + k->size && k->addr < a + rl->words[w].size;
		}
		if (k->name && all_in && rl->confirmed)
			rl->watch_kind = SHARING_TRUE;
	}
}

static void free_line(struct report_line *rl)
{
	free(rl->lock.name);
	free(rl->lock.type_name);
	free(rl->object);
	free(rl->variable);
	free(rl->type_name);
	free(rl->struct_name);
	free_threads(rl->threads, rl->n_threads);
	for (unsigned i = 0; i < rl->n_ranges; i++)
		free_range(&rl->ranges[i]);
	free(rl->ranges);
	for (unsigned i = 0; i < rl->n_words; i++)
		free_watch_word(&rl->words[i]);
	free(rl->words);
	for (unsigned i = 0; i < rl->n_members; i++) {
		free(rl->members[i].name);
		free(rl->members[i].type_name);
		free(rl->members[i].writers);
		free(rl->members[i].readers);
	}
	free(rl->members);
	free(rl->advice.summary);
	free(rl->advice.layout_now);
	free(rl->advice.layout_proposed);
	for (unsigned i = 0; i < rl->n_pairs; i++) {
		free_pair_side(&rl->pairs[i].a);
		free_pair_side(&rl->pairs[i].b);
	}
	free(rl->pairs);
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->command);
	free(r->backend);
	free(r->backend_note);
	free_counts(r->dropped, r->n_dropped);
	free_counts(r->untyped_why, r->n_untyped_why);
	for (unsigned i = 0; i < r->n_lines; i++)
		free_line(&r->lines[i]);
	free(r->lines);
	free(r);
}
