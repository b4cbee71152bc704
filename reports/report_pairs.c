/* report_pairs.c - who contends with whom on a line.
 *
 * The line's cells, merged by thread, code site and range, pair up where
 * two threads' concurrent accesses conflict: one of them wrote, to the
 * same bytes (true sharing) or to bytes classification found falsely
 * shared.  A pair is two code sites; the model keeps the heaviest few.
 */
#include "reports/report_build.h"

#include "reports/naming.h"
#include "symbolize/symbolizer.h"

/* A code site of a line: a source line, or an address without one.  The
 * load and the store of an increment are one site, as they are one line. */
struct code_site {
	uint64_t ip;                    /* the first address seen: the one named */
	uint32_t pid;                   /*   in this process */
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
	struct code_site key = { .ip = ip, .pid = pid };
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
			     : !s->line && s->ip == ip && s->pid == pid)
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
			.site = code_site_of(b, cell_pid(l, c), sites, c->ip),
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
 * Did threads a and b of line l both live at some time they were sampled
 * there?  Their first-to-last sample spans on the line meet.  Concurrent
 * samples say a thread met some other thread, not which one: a thread
 * that exited before another started met a third, not it.  An unknown
 * span (watched, never sampled) meets anything.
 */
static bool threads_met(const struct line *l, uint32_t a, uint32_t b)
{
	const struct line_thread *ta = NULL, *tb = NULL;

	for (unsigned i = 0; i < l->n_threads; i++) {
		if (l->threads[i].tid == a)
			ta = &l->threads[i];
		else if (l->threads[i].tid == b)
			tb = &l->threads[i];
	}
	if (!ta || !tb || !(ta->first_time || ta->last_time) ||
	    !(tb->first_time || tb->last_time))
		return true;
	return ta->first_time <= tb->last_time && tb->first_time <= ta->last_time;
}

/*
 * The pairs usage x takes part in, each once.  x conflicts with a
 * concurrent usage of another thread when one of the two wrote, and the
 * two threads' sampled spans meet: any sampled store counts, as in
 * classification, for stores are sampled far less than the loads they
 * stall.  x's side is that of the lower site; against its own site, that
 * of the lower thread id.
 */
static unsigned usage_roles(const struct line *l, const struct line_verdict *v,
			    const struct site_usage *u, unsigned n_usage, unsigned x,
			    struct pair_role **roles, unsigned *alloc)
{
	const struct site_usage *ux = &u[x];
	unsigned n = 0;

	for (unsigned y = 0; y < n_usage; y++) {
		const struct site_usage *uy = &u[y];
		struct pair_role r;
		bool x_first;
		unsigned k;

		if (!uy->concurrent || uy->tid == ux->tid || !(ux->writes || uy->writes) ||
		    !threads_met(l, ux->tid, uy->tid))
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
static void fill_side(struct build *b, const struct code_site *site,
		      struct pair_side_acc *acc, struct report_pair_side *out)
{
	out->site.ip = site->ip;
	out->site.pid = site->pid;
	symbolize_site(b->sym, site->pid, &out->site);
	out->site.reads = acc->reads;
	out->site.writes = acc->writes;
	sort(acc->tids.v, acc->tids.n, sizeof(*acc->tids.v), cmp_u32);
	out->tids = acc->tids.v;
	out->n_tids = acc->tids.n;
	acc->tids.v = NULL;
	out->concurrent = acc->concurrent;
}

/* ---- merging rows that print alike ---- */

static bool same_site_row(const struct report_site *x, const struct report_site *y)
{
	if (!x->function || !y->function)
		return !x->function && !y->function && x->ip == y->ip;
	return !strcmp(x->function, y->function) && str_eq(x->file, y->file) &&
	       x->line == y->line && str_eq(x->inlined_into, y->inlined_into);
}

static bool same_tids(const struct report_pair_side *x, const struct report_pair_side *y)
{
	return x->n_tids == y->n_tids &&
	       !memcmp(x->tids, y->tids, x->n_tids * sizeof(*x->tids));
}

static bool same_side(const struct report_pair_side *x, const struct report_pair_side *y)
{
	return same_tids(x, y) && same_site_row(&x->site, &y->site);
}

static void side_absorb(struct report_pair_side *into, struct report_pair_side *from)
{
	into->site.reads += from->site.reads;
	into->site.writes += from->site.writes;
	into->concurrent += from->concurrent;
	report_pair_side_release(from);
}

static int cmp_report_pair(const void *a, const void *b)
{
	const struct report_pair *x = a, *y = b;

	return (x->weight < y->weight) - (x->weight > y->weight);
}

unsigned report_pairs_merge(struct report_pair *p, unsigned n)
{
	unsigned keep = 0;

	for (unsigned i = 0; i < n; i++) {
		struct report_pair *into = NULL;

		for (unsigned k = 0; k < keep && !into; k++) {
			if (p[k].kind != p[i].kind)
				continue;
			if (same_side(&p[k].a, &p[i].a) && same_side(&p[k].b, &p[i].b)) {
				into = &p[k];
			} else if (same_side(&p[k].a, &p[i].b) && same_side(&p[k].b, &p[i].a)) {
				struct report_pair_side t = p[i].a;

				p[i].a = p[i].b;
				p[i].b = t;
				into = &p[k];
			}
		}
		if (!into) {
			p[keep++] = p[i];
			continue;
		}
		side_absorb(&into->a, &p[i].a);
		side_absorb(&into->b, &p[i].b);
		into->weight = into->a.concurrent < into->b.concurrent ?
			       into->a.concurrent : into->b.concurrent;
	}
	/* stable: equal weights keep the order they were built in */
	for (unsigned i = 1; i < keep; i++)
		for (unsigned k = i; k > 0 && cmp_report_pair(&p[k - 1], &p[k]) > 0; k--) {
			struct report_pair t = p[k];

			p[k] = p[k - 1];
			p[k - 1] = t;
		}
	return keep;
}

/*
 * Pairs of code sites in different threads whose concurrent accesses
 * conflict, weighed by the smaller side's concurrent samples.  The writing
 * side of a pair may have few samples (stores again); a pair is dropped as
 * noise only when neither side rises above classification's noise level.
 */
void build_pairs(struct build *b, const struct line *l,
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
		n = usage_roles(l, v, u, n_usage, x, &roles, &alloc_roles);
		for (unsigned k = 0; k < n; k++) {
			struct pair_acc *p = pair_get(&pairs, &roles[k]);

			side_add(roles[k].side_b ? &p->b : &p->a, &u[x]);
		}
	}

	sort(pairs.v, pairs.n, sizeof(*pairs.v), cmp_pair);
	rl->pairs = xcalloc(pairs.n ? pairs.n : 1, sizeof(*rl->pairs));
	for (unsigned i = 0; i < pairs.n; i++) {
		struct pair_acc *p = &pairs.v[i];
		struct report_pair *rp = &rl->pairs[keep];

		if (!pair_weight(p) || (double)pair_evidence(p) < noise)
			continue;
		rp->kind = p->kind;
		rp->weight = pair_weight(p);
		fill_side(b, &sites.v[p->site_a], &p->a, &rp->a);
		fill_side(b, &sites.v[p->site_b], &p->b, &rp->b);
		keep++;
	}
	keep = report_pairs_merge(rl->pairs, keep);
	for (unsigned i = REPORT_LINE_PAIRS; i < keep; i++) {
		report_pair_side_release(&rl->pairs[i].a);
		report_pair_side_release(&rl->pairs[i].b);
	}
	if (keep > REPORT_LINE_PAIRS)
		keep = REPORT_LINE_PAIRS;
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
