/* report_latent.c - latent false sharing: sharing one placement away.
 *
 * The line table keeps cells (thread, offset, size, kind) for every
 * sampled line, contended or not.  Here they become footprints: the byte
 * ranges each thread reads and writes, in absolute addresses, across
 * lines.  Two footprints of different threads, one writing, that lie on
 * different lines but less than a line apart, are false sharing that the
 * object's current start address happens to avoid: a heap that starts 32
 * bytes further on, another build, another machine puts them on one line.
 *
 * Only pairs within one object are reported, for only there is the
 * distance between the two ranges fixed by the program: the same global
 * (or the same pointee), or elements of one array (both typed by the same
 * struct, whose starts differ by a multiple of its size).  Two separate
 * allocations that happen to lie side by side move apart on their own.
 * Untyped ranges have no object, so no latent report.
 *
 * Quiet by construction: each footprint needs LATENT_MIN_SAMPLES samples,
 * the two together min_score of all samples (the bar of a contended line,
 * as if the whole pair were to contend), the threads' sample spans must
 * meet (threads that run one after the other never contend), and a pair
 * that no placement at the object's alignment puts on one line (padded
 * elements) is not reported.  Ranges on a reported line (contended or
 * minor) are left to that line: its advice pads them apart anyway.
 */
#include "reports/report_build.h"

#include <inttypes.h>

#include "reports/advice.h"
#include "reports/latent.h"
#include "reports/naming.h"

#define LATENT_MIN_SAMPLES 8

/* What one thread did to one byte range, over the whole run. */
struct footprint {
	uint32_t pid, tid;
	uint64_t addr;
	unsigned size;
	uint64_t reads, writes, count;
	const struct line *line;           /* the line it lies on */
	const struct line_cell *hottest;   /* its most sampled cell */
	uint64_t first, last;              /* the thread's span on that line */
	int attr;                          /* in the attr cache; -1: not yet */
};

/* Type attributions of the footprints in candidate pairs, looked up once. */
struct attr_cache {
	struct cell_attr *v;
	size_t n, alloc;
};

static int cmp_footprint(const void *a, const void *b)
{
	const struct footprint *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const struct line_thread *thread_on(const struct line *l, uint32_t tid)
{
	for (unsigned i = 0; i < l->n_threads; i++)
		if (l->threads[i].tid == tid)
			return &l->threads[i];
	return NULL;
}

static int cmp_in_line(const void *a, const void *b)
{
	const struct footprint *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

/*
 * The line's cells as footprints, one per (thread, bytes), appended to
 * *fp when they have the samples a side needs: a line's cells differ by
 * code site and kind too, and most lines of a big table have few samples,
 * so the merge is per line and the sort over all lines sees only these.
 */
static void line_footprints(const struct line *l, struct footprint **fp, size_t *n,
			    size_t *alloc, struct footprint **tmp, size_t *tmp_alloc)
{
	size_t m = 0, out = 0;

	if (l->count < LATENT_MIN_SAMPLES)
		return;
	ALLOC_GROW(*tmp, l->n_cells, *tmp_alloc);
	for (unsigned k = 0; k < l->n_cells; k++) {
		const struct line_cell *c = &l->cells[k];

		(*tmp)[m++] = (struct footprint){
			.pid = l->pid, .tid = c->tid, .addr = l->addr + c->offset,
			.size = c->size ? c->size : 1,
			.reads = cell_reads(c), .writes = cell_writes(c),
			.count = c->count, .line = l, .hottest = c, .attr = -1,
		};
	}
	sort(*tmp, m, sizeof(**tmp), cmp_in_line);
	for (size_t i = 0; i < m; i++) {
		struct footprint *o = out ? &(*tmp)[out - 1] : NULL, *f = &(*tmp)[i];

		if (o && o->tid == f->tid && o->addr == f->addr && o->size == f->size) {
			o->reads += f->reads;
			o->writes += f->writes;
			o->count += f->count;
			if (f->hottest->count > o->hottest->count)
				o->hottest = f->hottest;
			continue;
		}
		(*tmp)[out++] = *f;
	}
	for (size_t i = 0; i < out; i++) {
		const struct line_thread *t = thread_on(l, (*tmp)[i].tid);

		if ((*tmp)[i].count < LATENT_MIN_SAMPLES)
			continue;
		(*tmp)[i].first = t ? t->first_time : 0;
		(*tmp)[i].last = t ? t->last_time : 0;
		ALLOC_GROW(*fp, *n + 1, *alloc);
		(*fp)[(*n)++] = (*tmp)[i];
	}
}

/* The footprints with enough samples, sorted by pid and address. */
static struct footprint *collect_footprints(struct line_table *lines, size_t *n_out)
{
	struct footprint *fp = NULL, *tmp = NULL;
	size_t n = 0, alloc = 0, tmp_alloc = 0;

	for (size_t i = 0; i < line_table_count(lines); i++)
		line_footprints(line_table_line(lines, i), &fp, &n, &alloc, &tmp, &tmp_alloc);
	free(tmp);
	sort(fp, n, sizeof(*fp), cmp_footprint);
	*n_out = n;
	return fp;
}

/* The reported lines (contended and minor), sorted for lookups. */
struct line_key {
	uint32_t pid;
	uint64_t addr;
};

static int cmp_line_key(const void *a, const void *b)
{
	const struct line_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static struct line_key *reported_lines(const struct report *r, size_t *n)
{
	struct line_key *k = xcalloc(r->n_lines + r->n_minor + 1, sizeof(*k));

	*n = 0;
	for (unsigned i = 0; i < r->n_lines; i++)
		k[(*n)++] = (struct line_key){ r->lines[i].pid, r->lines[i].addr };
	for (unsigned i = 0; i < r->n_minor; i++)
		k[(*n)++] = (struct line_key){ r->minor[i].pid, r->minor[i].addr };
	sort(k, *n, sizeof(*k), cmp_line_key);
	return k;
}

static bool on_reported_line(const struct line_key *k, size_t n, uint32_t pid, uint64_t line)
{
	struct line_key key = { pid, line };

	return search_items(&key, k, n, sizeof(*k), cmp_line_key) != NULL;
}

static bool spans_meet(const struct footprint *x, const struct footprint *y)
{
	if ((!x->first && !x->last) || (!y->first && !y->last))
		return true;            /* unknown: watched, never sampled */
	return x->first <= y->last && y->first <= x->last;
}

/* Could a and b (a starts first) ever contend: threads, writes, lines. */
static bool latent_pair(const struct build *b, const struct line_key *reported,
			size_t n_reported, const struct footprint *a,
			const struct footprint *x, unsigned L)
{
	uint64_t a_last = a->addr + a->size - 1;

	if (a->tid == x->tid || (!a->writes && !x->writes))
		return false;
	if (a_last / L >= x->addr / L)
		return false;           /* on one line now: the line's business */
	if (x->addr - a_last >= L)
		return false;           /* a line or more apart: never one line */
	if ((double)(a->count + x->count) < b->cfg->min_score * (double)b->total)
		return false;
	if (on_reported_line(reported, n_reported, a->pid, a->line->addr) ||
	    on_reported_line(reported, n_reported, x->pid, x->line->addr))
		return false;
	return spans_meet(a, x);
}

/* ------------------------------------------------------------------ */
/* one object */

struct latent_object {
	bool array;                  /* elements of one array: member "[k].m" */
	/* elements of one array the object's name already indexes
	 * ("arg[1].red", "[1].count" of a heap block): named as they are,
	 * but the padding goes on the element type, elem_type */
	bool elements;
	const char *elem_type;
	bool via_pointer;            /* named by the pointer the code used */
	uint64_t base;               /* offsets count from here */
	uint64_t elem_size, align;
	uint64_t decl_align;         /* the global's declaration's: _Alignas(64) on it */
	const char *type_name, *variable;
};

/* The two typed cells belong to one object whose layout fixes their
 * distance: false if not, or if either is untyped. */
static bool one_object(const struct cell_attr *x, const struct cell_attr *y,
		       struct latent_object *o)
{
	const struct data_attribution *p = &x->a, *q = &y->a;
	const struct type_layout *lay = p->layout;

	if (!x->typed || !y->typed)
		return false;
	memset(o, 0, sizeof(*o));
	o->align = lay && lay->align ? lay->align : 8;
	if (same_object(p, q)) {
		o->base = p->object_start;
		o->decl_align = p->variable_align;
		o->type_name = p->type_name;
		o->variable = p->variable;
		o->via_pointer = p->via_pointer;
		if (lay && q->layout && lay->n_members && lay->size == q->layout->size &&
		    str_eq(lay->name, q->layout->name) && p->element_index >= 0 &&
		    q->element_index >= 0 && p->element_index != q->element_index) {
			o->elements = true;
			o->elem_size = lay->size;
			o->elem_type = lay->name;
		}
		return true;
	}
	if (!lay || !q->layout || lay->size != q->layout->size || !lay->size ||
	    !str_eq(lay->name, q->layout->name))
		return false;
	/* elements of one array; two allocations of the type lie apart by
	 * malloc's chunk header as well, seldom a multiple of the size */
	if ((q->layout_start > p->layout_start ? q->layout_start - p->layout_start :
	     p->layout_start - q->layout_start) % lay->size)
		return false;
	o->array = true;
	o->base = p->layout_start < q->layout_start ? p->layout_start : q->layout_start;
	/* structs carved out of an aligned global (arena_struct) */
	o->decl_align = p->layout_start == o->base ? p->variable_align : q->variable_align;
	o->elem_size = lay->size;
	o->type_name = lay->name;
	o->variable = p->via_pointer ? p->variable : NULL;
	o->via_pointer = p->via_pointer;
	return true;
}

/* "[1].count" in an array, else the member as the object names it. */
static char *side_member(const struct latent_object *o, const struct data_attribution *a)
{
	const char *path;

	if (!o->array)
		return member_name(a);
	path = a->path ? a->path : "";
	if (a->layout_start != a->object_start || !a->via_pointer) {
		/* the attribution's path runs from an outer object: keep only
		 * what lies in the element */
		const char *dot = strrchr(path, ']');
		path = dot ? dot + 1 : path;
	}
	return element_member((a->layout_start - o->base) / o->elem_size, path);
}

static void fill_side(struct build *b, const struct latent_object *o,
		      const struct footprint *f, const struct cell_attr *at,
		      struct report_latent_side *s)
{
	s->tid = f->tid;
	s->addr = f->addr;
	s->size = f->size;
	s->offset = f->addr - o->base;
	s->member = member_span_name(side_member(o, &at->a), &at->a, f->addr, f->size);
	s->reads = f->reads;
	s->writes = f->writes;
	s->site.ip = f->hottest->ip;
	s->site.reads = f->reads;
	s->site.writes = f->writes;
	symbolize_site(b->sym, f->pid, &s->site);
}

/* A footprint's type attribution, looked up once (at its hottest cell). */
static const struct cell_attr *attr_of(struct build *b, struct attr_cache *cache,
				       struct footprint *f)
{
	if (f->attr < 0) {
		ALLOC_GROW(cache->v, cache->n + 1, cache->alloc);
		memset(&cache->v[cache->n], 0, sizeof(cache->v[cache->n]));
		if (b->sym && b->dt)
			attribute_cell(b, f->line, f->hottest, &cache->v[cache->n]);
		f->attr = (int)cache->n++;
	}
	return &cache->v[f->attr];
}

/* The report entry for footprints a and x, or false if they are not one
 * object's, or no placement would put them on one line. */
static bool build_latent(struct build *b, struct attr_cache *cache, struct footprint *a,
			 struct footprint *x, struct report_latent *lt)
{
	/* copies: the cache may grow under the second lookup */
	struct cell_attr at_a = *attr_of(b, cache, a), at_x = *attr_of(b, cache, x);
	struct latent_object o;
	unsigned L = b->r->line_size;
	bool heap = false;
	char *where;

	if (!one_object(&at_a, &at_x, &o))
		return false;
	memset(lt, 0, sizeof(*lt));
	lt->pid = a->pid;
	where = object_name(b->sym, a->pid, o.base, &heap);
	lt->heap = heap;
	/* a global by its name; what a pointer reached, by type and place */
	if (o.array || o.via_pointer || !o.variable)
		lt->object = xasprintf("%s%s at %s%s%s", o.type_name ? o.type_name : "?",
				       o.array ? "[]" : "", where, o.variable ? ", via " : "",
				       o.variable ? o.variable : "");
	else
		lt->object = xstrdup(o.variable);
	free(where);
	lt->type_name = strdup_or_null(o.elements ? o.elem_type : o.type_name);
	lt->object_start = o.base;
	lt->type_size = o.array || o.elements ? o.elem_size : 0;
	lt->type_align = o.align;
	lt->decl_align = heap ? 0 : o.decl_align;
	fill_side(b, &o, a, &at_a, &lt->a);
	fill_side(b, &o, x, &at_x, &lt->b);
	lt->gap = x->addr - (a->addr + a->size);
	lt->share = (double)(a->count + x->count) / (double)b->total;
	if (heap && (lt->alloc = alloc_describe_address(b, a->pid, a->addr)) &&
	    (x->addr < lt->alloc->start || x->addr >= lt->alloc->start + lt->alloc->size)) {
		report_alloc_free(lt->alloc);    /* two blocks: neither is the object */
		lt->alloc = NULL;
	}
	/* the block first: its recorded alignment is a placement too */
	latent_fill_placements(lt);
	lt->advice = latent_advice(lt, L, !at_a.a.layout ? ADVICE_C :
				   at_a.a.layout->rust ? ADVICE_RUST :
				   at_a.a.layout->cxx ? ADVICE_CXX : ADVICE_C);
	/* the object's own alignment keeps them apart: padded already */
	for (unsigned i = 0; i < lt->n_placements; i++)
		if (lt->placements[i].line_size == L && lt->placements[i].sharing)
			return true;
	report_latent_free_one(lt);
	return false;
}

/* The first footprint after i that starts past the line of i's last byte
 * (or of another pid): fp is sorted by pid and address. */
static size_t next_line(const struct footprint *fp, size_t n, size_t i, unsigned L)
{
	uint64_t past = ((fp[i].addr + fp[i].size - 1) / L + 1) * L;
	size_t lo = i + 1, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fp[mid].pid == fp[i].pid && fp[mid].addr < past)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_latent(const void *x, const void *y)
{
	const struct report_latent *a = x, *b = y;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	if (a->a.addr != b->a.addr)
		return a->a.addr < b->a.addr ? -1 : 1;
	return (a->b.addr > b->b.addr) - (a->b.addr < b->b.addr);
}

void report_latent_build(struct build *b, struct line_table *lines)
{
	struct report *r = b->r;
	unsigned L = r->line_size;
	size_t n, alloc = 0, n_reported;
	struct footprint *fp;
	struct line_key *reported;
	struct attr_cache cache = { 0 };

	if (!L || !b->total)
		return;
	fp = collect_footprints(lines, &n);
	reported = reported_lines(r, &n_reported);
	for (size_t i = 0; i < n; i++) {
		/* partners start on a later line: skip the rest of this one */
		for (size_t j = next_line(fp, n, i, L); j < n && fp[j].pid == fp[i].pid &&
		     fp[j].addr < fp[i].addr + fp[i].size + L; j++) {
			if (!latent_pair(b, reported, n_reported, &fp[i], &fp[j], L))
				continue;
			ALLOC_GROW(r->latent, r->n_latent + 1, alloc);
			if (build_latent(b, &cache, &fp[i], &fp[j], &r->latent[r->n_latent]))
				r->n_latent++;
		}
	}
	free(fp);
	free(reported);
	free(cache.v);
	sort(r->latent, r->n_latent, sizeof(*r->latent), cmp_latent);
}

void report_latent_free_one(struct report_latent *lt)
{
	free(lt->object);
	free(lt->type_name);
	free(lt->a.member);
	free(lt->b.member);
	report_site_release(&lt->a.site);
	report_site_release(&lt->b.site);
	free(lt->advice);
	report_alloc_free(lt->alloc);
}

void report_latent_free(struct report_latent *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		report_latent_free_one(&v[i]);
	free(v);
}
