/* report_build.c - from a line table to the ranked, named report model.
 *
 * Classification picks the contended lines; this file ranks them and
 * builds each one: its threads, its ranges with their code sites and call
 * chains, then what report_objects.c, report_locks.c and report_pairs.c
 * add (report_build.h), the object's name, advice and the predicted gain.
 * It also frees the model.
 */
#include "reports/report_build.h"
#include "reports/line_cpus.h"
#include "detector/overlap.h"

#include "reports/advice.h"
#include "reports/cxx_library.h"
#include "reports/gain.h"
#include "reports/jvm_names.h"
#include "reports/locks.h"
#include "reports/member_range.h"
#include "reports/naming.h"
#include "symbolize/symbolizer.h"
#include "detector/callchain.h"
#include "detector/instances.h"
#include "symbolize/pointer_origin.h"

/* Printers strip the pin with report.h's report_code_addr(). */
_Static_assert(REPORT_CODE_VERSION_SHIFT == SYMBOLIZER_VERSION_SHIFT,
	       "report.h and symbolizer.h pin code addresses alike");

struct candidate {
	struct line *line;
	struct line_verdict v;
	unsigned n_instances;    /* lines pooled into line (instances.h) */
	uint64_t *instance_lines;    /* their addresses, hottest first; NULL when 1 */
	bool owned;              /* line is an instance_line() to free */
};

struct thread_tally {
	struct report_thread *v;
	unsigned n;
	size_t alloc;
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

struct report_thread *report_thread_of(struct report_thread **threads, unsigned *n,
				       size_t *alloc, uint32_t tid)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if ((*threads)[i].tid == tid)
			return &(*threads)[i];
	ALLOC_GROW(*threads, i + 1, *alloc);
	memset(&(*threads)[i], 0, sizeof((*threads)[i]));
	(*threads)[i].tid = tid;
	(*n)++;
	return &(*threads)[i];
}

static void thread_tally_add(struct thread_tally *t, const struct line *l,
			     const struct line_cell *c)
{
	struct report_thread *th = report_thread_of(&t->v, &t->n, &t->alloc, c->tid);

	th->pid = cell_pid(l, c);

	th->reads += cell_reads(c);
	th->writes += cell_writes(c);
	mem_add(&th->mem, c);
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
	r->jit_note = strdup_or_null(hdr->jit_note);
	r->watch_note = strdup_or_null(hdr->watch_note);
	if (hdr->instruments)
		r->instruments = *hdr->instruments;
	r->overlap = hdr->overlap;
	r->cpu_pressure = hdr->cpu_pressure;
	r->load = hdr->load;
	r->price = hdr->price;
	r->price_note = strdup_or_null(hdr->price_note);
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

/*
 * The process whose code names c's site.  On a line of shared memory the
 * cells come from several processes: a forked child runs its parent's
 * code at the same addresses, and its sites are the parent's (one site,
 * not one per process); code of another program is its own.
 */
static uint32_t code_pid(struct build *b, const struct line *l, const struct line_cell *c)
{
	uint32_t pid = cell_pid(l, c);
	const struct mapping *mine, *first;

	if (pid == l->pid || !b->sym)
		return pid;
	mine = symbolizer_find_mapping(b->sym, (pid_t)pid, c->ip);
	first = symbolizer_find_mapping(b->sym, (pid_t)l->pid, c->ip);
	if (mine && first && mine->name == first->name && mine->start == first->start &&
	    mine->pgoff == first->pgoff && mine->obj.ino == first->obj.ino)
		return l->pid;
	return pid;
}

static void site_tally_add(struct site_tally *t, uint32_t pid, const struct line_cell *c)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].site.ip == c->ip && t->v[i].site.pid == pid)
			break;
	if (i == t->n) {
		ALLOC_GROW(t->v, i + 1, t->alloc);
		memset(&t->v[i], 0, sizeof(t->v[i]));
		t->v[i].site.ip = c->ip;
		t->v[i].site.pid = pid;
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
	if (x->site.ip != y->site.ip)
		return x->site.ip < y->site.ip ? -1 : 1;
	return (x->site.pid > y->site.pid) - (x->site.pid < y->site.pid);
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
			rc->frames[k] = frame_name(b->sym, pid, pcs[k]);
		rc->n_frames = n;
		rc->count = t->v[i].count;
		s->n_chains++;
	}
	free(t->v);
}

static void fill_range(struct build *b, const struct line *l, const struct cell_attr *attrs,
		       const bool *in_range, const struct data_attribution *inst,
		       struct report_range *rr)
{
	struct thread_tally threads = { 0 };
	struct site_tally sites = { 0 };
	const struct data_attribution *best;
	bool *user;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct line_cell *c = &l->cells[i];

		if (!in_range[i])
			continue;
		rr->reads += cell_reads(c);
		rr->writes += cell_writes(c);
		mem_add(&rr->mem, c);
		thread_tally_add(&threads, l, c);
		site_tally_add(&sites, code_pid(b, l, c), c);
	}
	rr->threads = thread_tally_finish(&threads, &rr->n_threads);

	sort(sites.v, sites.n, sizeof(*sites.v), cmp_site);
	rr->sites = xcalloc(sites.n, sizeof(*rr->sites));
	rr->n_sites = sites.n;
	for (unsigned i = 0; i < sites.n; i++) {
		rr->sites[i] = sites.v[i].site;
		symbolize_site(b->sym, rr->sites[i].pid, &rr->sites[i]);
		site_chains(b, rr->sites[i].pid, &sites.v[i].chains, &rr->sites[i]);
	}
	free(sites.v);

	/* the name the user's code gives these bytes, where it gave one */
	user = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*user));
	for (unsigned i = 0; i < l->n_cells; i++)
		user[i] = in_range[i] && !attrs[i].system_code;
	best = most_sampled(l, attrs, user, same_member);
	free(user);
	if (!best)
		best = most_sampled(l, attrs, in_range, same_member);
	if (best)
		rr->member = member_span_name(member_name(best), best, l->addr + rr->offset,
					      rr->size);
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
/* one line */

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
		thread_tally_add(&threads, l, &l->cells[i]);
		mem_add(&rl->mem, &l->cells[i]);
	}
	rl->threads = thread_tally_finish(&threads, &rl->n_threads);
}

/* The processes of the line's threads, sorted; and its shared object. */
static void line_processes(const struct line *l, struct report_line *rl)
{
	rl->obj_dev = l->obj_dev;
	rl->obj_ino = l->obj_ino;
	rl->obj_off = l->obj_off;
	rl->pids = xcalloc(rl->n_threads ? rl->n_threads : 1, sizeof(*rl->pids));
	for (unsigned i = 0; i < rl->n_threads; i++) {
		uint32_t pid = rl->threads[i].pid;
		unsigned k = 0;

		while (k < rl->n_pids && rl->pids[k] != pid)
			k++;
		if (k == rl->n_pids)
			rl->pids[rl->n_pids++] = pid;
	}
	sort(rl->pids, rl->n_pids, sizeof(*rl->pids), cmp_u32);
}

static void predict_gain(struct build *b, const struct line *l,
			 const struct line_verdict *v, const unsigned *range,
			 struct report_line *rl)
{
	struct gain_saving *saved = xcalloc(v->n_ranges + 1, sizeof(*saved));

	gain_saved(l, range, v->n_ranges, b->queue, &b->prices, saved);
	gain_predict(rl, saved, b->total);
	free(saved);
}

/* The line's object: the one most samples fall in, among the user's own
 * objects where there are any.  A C++ library's internals beside them
 * (the std::thread state a lambda's captures live in, a shared_ptr's
 * control block) are not the user's to pad, and advice on them helps no
 * one; its locks (std::mutex) are the user's choice all the same.  Nor
 * is an object as a system library's code types it (glibc's mutex code
 * sees a std::mutex in a user's struct as an int *__futex): the user's
 * code typed the same bytes as what they are to the user. */
static const struct data_attribution *line_object(const struct line *l,
						  const struct cell_attr *attrs)
{
	bool *user = xcalloc(l->n_cells ? l->n_cells : 1, sizeof(*user));
	const struct data_attribution *obj;

	for (unsigned i = 0; i < l->n_cells; i++) {
		const struct type_layout *lay = attrs[i].a.layout;

		user[i] = (!lay || !lay->library || !lay->cxx || lock_type(lay->name)) &&
			  !attrs[i].system_code;
	}
	obj = most_sampled(l, attrs, user, same_object);
	free(user);
	return obj ? obj : most_sampled(l, attrs, NULL, same_object);
}

/* The object the line lies in, and its allocation; true if on the heap. */
static bool name_object(struct build *b, const struct line *l, struct report_line *rl)
{
	bool heap;

	if (l->obj_ino) {     /* shared memory: named the same in every process */
		rl->object = shared_object_name(b->sym, l->pid, l->addr + naming_offset(rl),
						l->obj_off + naming_offset(rl));
		return false;
	}
	rl->object = object_name(b->sym, l->pid, l->addr + naming_offset(rl), &heap);
	alloc_describe_line(b, l, rl);
	return heap || rl->alloc;
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
	enum jvm_naming jvm = JVM_UNNAMED;
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
	line_cpus(rl, l, b->cpu_nodes);
	rl->n_instances = cand->n_instances;
	if (cand->instance_lines) {
		rl->instance_lines = xcalloc(cand->n_instances, sizeof(*rl->instance_lines));
		memcpy(rl->instance_lines, cand->instance_lines,
		       cand->n_instances * sizeof(*rl->instance_lines));
	}

	attribute_line(b, l, rl, attrs);
	if (find_lock(l, attrs, &lock)) {
		folded = fold_lock(l, line_size, &lock, in_lock);
		classify_line(folded, b->total, b->cfg, &folded_v);
		l = folded;
		v = &folded_v;
		rl->kind = v->kind;
	}
	line_threads(l, rl);
	line_processes(l, rl);
	obj = line_object(l, attrs);
	if (obj) {
		rl->variable = strdup_or_null(obj->variable);
		rl->type_name = strdup_or_null(obj->type_name);
		rl->object_start = obj->object_start;
		inst = build_members(b->lines, l, attrs, in_lock, obj, rl);
	}
	for (unsigned i = 0; i < l->n_cells; i++)
		range[i] = range_of(v, &l->cells[i]);
	build_ranges(b, l, v, range, attrs, inst, rl);
	if (folded)
		name_lock(l, &lock, rl);
	build_pairs(b, l, v, rl);
	heap = name_object(b, l, rl);
	if (!obj)
		jvm = jvm_name_line(b->jvm, rl);
	if (jvm != JVM_UNNAMED)
		attribute_line_named_elsewhere(b, l, rl, attrs);
	free(attrs);
	if (jvm == JVM_UNNAMED)
		report_line_language(b->sym, rl);
	advice_for_line(rl, heap);
	predict_gain(b, l, v, range, rl);
	gain_note_lock(rl);
	jvm_advise_line(b->jvm, rl, jvm);
	cxx_library_advise_line(rl);
	member_ranges_merge(rl);     /* last: gain and advice index v's ranges */
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

/* Undecided lines: the most sampled first. */
static int cmp_by_samples(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->line->count != y->line->count)
		return x->line->count > y->line->count ? -1 : 1;
	return cmp_candidate(a, b);
}

/* Contended lines, ranked; counts the candidates on the way.  Instances
 * of one structure used the same way are pooled first (instances.h).
 * Lines with real sharing below the thresholds (line_verdict_minor) go to
 * *minor, ranked alike. */
/* Two threads used the line, each for UNDECIDED_THREAD_SHARE of its
 * samples, and it holds min_score of them: worth naming when nothing
 * else could be decided (report.inconclusive). */
#define UNDECIDED_THREAD_SHARE 0.1
static bool undecided_candidate(const struct line *l, uint64_t total,
				const struct classify_config *cfg)
{
	unsigned heavy = 0;

	if ((double)l->count < cfg->min_score * (double)total || l->count < cfg->min_concurrent)
		return false;
	for (unsigned i = 0; i < l->n_threads; i++)
		heavy += l->threads[i].count >= UNDECIDED_THREAD_SHARE * (double)l->count;
	return heavy >= 2;
}

struct sorted_candidates {
	struct candidate *c;
	size_t n, alloc;
};

static void keep_candidate(struct sorted_candidates *s, const struct candidate *c)
{
	ALLOC_GROW(s->c, s->n + 1, s->alloc);
	s->c[s->n++] = *c;
}

/*
 * The verdict on a line.  On a busy machine (report.busy) a line that
 * the thresholds scaled to the threads' overlap call contended is taken
 * as such only where the watch saw two threads share it in one window
 * (line.watch_shared): threads a busy machine kept apart and threads
 * that take turns by design look alike in the samples (testcases/phased
 * under a load: overlap 0, 3% concurrent), and only exact counts in a
 * short window tell them apart.
 */
static void judge_line(const struct line *l, uint64_t total, const struct classify_config *cfg,
		       const struct classify_config *busy, struct line_verdict *v)
{
	struct line_verdict scaled;

	classify_line(l, total, cfg, v);
	if (v->contended || !busy || !l->watch_shared)
		return;
	classify_line(l, total, busy, &scaled);
	if (!scaled.contended) {
		line_verdict_release(&scaled);
		return;
	}
	line_verdict_release(v);
	*v = scaled;
}

static struct candidate *contended_lines(struct line_table *lines, uint64_t total,
					 const struct classify_config *cfg,
					 const struct classify_config *busy,
					 struct report *r, size_t *n_out,
					 struct candidate **minor, size_t *n_minor,
					 struct sorted_candidates *undecided)
{
	struct candidate *c = NULL, *m = NULL;
	struct line **shared = NULL;
	struct instance_group *groups;
	size_t n = 0, alloc = 0, n_shared = 0, n_groups, nm = 0, alloc_m = 0;

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
		c[n].instance_lines = NULL;
		if (c[n].owned) {
			c[n].instance_lines = xcalloc(groups[i].n, sizeof(*c[n].instance_lines));
			for (unsigned k = 0; k < groups[i].n; k++)
				c[n].instance_lines[k] = groups[i].lines[k]->addr;
		}
		judge_line(c[n].line, total, cfg, busy, &c[n].v);
		if (c[n].v.contended) {
			n++;
			continue;
		}
		if (line_verdict_minor(c[n].line, &c[n].v, cfg)) {
			ALLOC_GROW(m, nm + 1, alloc_m);
			m[nm++] = c[n];
			continue;
		}
		if (undecided_candidate(c[n].line, total, cfg)) {
			keep_candidate(undecided, &c[n]);
			continue;
		}
		line_verdict_release(&c[n].v);
		if (c[n].owned)
			instance_line_free(c[n].line);
		free(c[n].instance_lines);
	}
	instance_groups_free(groups, n_groups);
	free(shared);
	sort(c, n, sizeof(*c), cmp_candidate);
	sort(m, nm, sizeof(*m), cmp_candidate);
	sort(undecided->c, undecided->n, sizeof(*undecided->c), cmp_by_samples);
	*n_out = n;
	*minor = m;
	*n_minor = nm;
	return c;
}

/* The minor (or undecided) lines, built as contended ones are; the
 * header's type attribution stays that of the contended lines alone. */
static void build_minor(struct build *b, const struct candidate *minor, unsigned line_size,
			struct report_line *out, unsigned n, bool undecided)
{
	struct report *r = b->r;
	uint64_t typed = r->typed, untyped = r->untyped;
	unsigned n_why = r->n_untyped_why;
	uint64_t *why = xcalloc(n_why + 1, sizeof(*why));

	for (unsigned i = 0; i < n_why; i++)
		why[i] = r->untyped_why[i].n;
	for (unsigned i = 0; i < n; i++) {
		build_line(b, &minor[i], line_size, &out[i]);
		out[i].minor = !undecided;
		out[i].undecided = undecided;
	}
	r->typed = typed;
	r->untyped = untyped;
	for (unsigned i = 0; i < n_why; i++)
		r->untyped_why[i].n = why[i];
	for (unsigned i = n_why; i < r->n_untyped_why; i++)
		free(r->untyped_why[i].what);
	r->n_untyped_why = n_why;
	free(why);
}

static void candidates_free(struct candidate *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		line_verdict_release(&c[i].v);
		if (c[i].owned)
			instance_line_free(c[i].line);
		free(c[i].instance_lines);
	}
	free(c);
}

/* A busy machine kept the target's threads apart (overlap.h): a shared
 * line's accesses fall in one interleaving window as much less often as
 * the threads ran at once less, so the thresholds on concurrency are
 * scaled to that share, for the lines the watch saw shared (judge_line);
 * but not a --min-score the user set, a gate that must hold as set.
 * Elsewhere cfg as it is. */
static struct classify_config machine_config(struct report *r, const struct classify_config *cfg)
{
	struct classify_config c = *cfg;

	r->busy_scale = 1;
	if (!machine_busy(r->overlap, r->cpu_pressure))
		return c;
	r->busy = true;
	r->busy_scale = overlap_scale(r->overlap);
	c.min_concurrent_frac *= r->busy_scale;
	if (!c.min_score_fixed)
		c.min_score *= r->busy_scale;
	return c;
}

/* Nothing contended, and that proves nothing: why, or NULL.  A busy
 * machine kept the threads apart; or no instrument here could count the
 * stores the timer rarely samples, and lines two threads use heavily
 * were left to the samples alone. */
static char *inconclusive_why(const struct report *r)
{
	enum instrument by;
	bool tested = r->instruments.t[INSTRUMENT_WATCHPOINTS].state != INSTRUMENT_UNTESTED;
	struct strbuf sb = STRBUF_INIT;

	if (r->busy)
		strbuf_addf(&sb, "the target's threads ran at the same time only %.0f%% of the "
			    "sampled time (CPU pressure %.0f%%: this machine was busy), too little "
			    "to tell sharing from taking turns", 100 * r->overlap,
			    100 * r->cpu_pressure);
	if (tested && !instruments_for_confirmation(&r->instruments, &by))
		strbuf_addf(&sb, "%sthe timer rarely samples stores, and no instrument here can "
			    "count them (the instruments line says why): a line two threads read "
			    "may be written by them too", sb.len ? "; " : "");
	return sb.len ? strbuf_detach(&sb) : NULL;
}

/* A busy machine left the price unmeasured (transfer_price.h): the gains
 * would be the reference machine's, not this one's, so none is given. */
static void unknown_gains(struct report *r)
{
	static const char why[] = "unknown: the price probe's threads never ran at once on this "
				  "busy machine, so there is no price to scale the gain by";
	struct report_line *sets[] = { r->lines, r->minor, r->undecided };
	unsigned ns[] = { r->n_lines, r->n_minor, r->n_undecided };

	if (r->price.locked || !r->price.busy)
		return;
	for (unsigned k = 0; k < ARRAY_SIZE(sets); k++) {
		for (unsigned i = 0; i < ns[k]; i++) {
			struct report_line *l = &sets[k][i];

			l->gain_unknown = why;
			l->predicted_gain = l->predicted_gain_all = 0;
			l->gain_low = l->gain_high = l->gain_all_low = l->gain_all_high = 0;
			l->gain_note = l->gain_all_note = NULL;
			l->gain_range_unknown = l->gain_all_range_unknown = NULL;
		}
	}
}

struct report *report_build(const struct run_facts *hdr,
			    struct line_table *lines,
			    const struct classify_config *unscaled, unsigned top,
			    struct symbolizer *sym, struct data_types *dt)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct classify_config mcfg;
	const struct classify_config *cfg = unscaled;
	struct build b = {
		.r = r, .sym = sym, .dt = dt, .chains = hdr->chains, .cfg = cfg,
		.lines = lines, .cpu_nodes = hdr->cpu_nodes,
	};
	struct code_view *cv = NULL;
	uint64_t total = line_table_samples(lines);
	struct candidate *cand, *minor;
	struct sorted_candidates undecided = { NULL, 0, 0 };
	size_t n_contended, n, n_minor, nm, nu = 0;

	copy_header(r, hdr);
	mcfg = machine_config(r, unscaled);
	r->line_size = line_table_line_size(lines);
	/* score is a share of everything sampled, undecodable samples included */
	if (hdr->samples > total)
		total = hdr->samples;

	b.total = total;
	gain_prices_at(&b.prices, &hdr->price);
	cand = contended_lines(lines, total, cfg, r->busy ? &mcfg : NULL, r, &n_contended, &minor,
			       &n_minor, &undecided);
	n = top && n_contended > top ? top : n_contended;
	nm = top && n_minor > top ? top : n_minor;
	r->lines = xcalloc(n, sizeof(*r->lines));
	r->n_lines = n;
	r->minor = xcalloc(nm, sizeof(*r->minor));
	r->n_minor = nm;
	if (!n && undecided.n && (r->inconclusive = inconclusive_why(r)))
		nu = undecided.n < REPORT_MAX_UNDECIDED ? undecided.n : REPORT_MAX_UNDECIDED;
	r->undecided = xcalloc(nu ? nu : 1, sizeof(*r->undecided));
	r->n_undecided = (unsigned)nu;
	if (n + nm + nu && sym) {
		cv = code_view_new(sym, r->line_size);
		b.queue = code_view_gain_queue(cv, lines);
	}
	if (sym && dt)
		b.origins = pointer_origins_new(sym, dt);
	if (n + nm + nu && sym)
		b.jvm = jvm_names_new(sym);
	alloc_build_begin(&b, hdr->allocs, hdr->heap);
	for (size_t i = 0; i < n; i++)
		build_line(&b, &cand[i], r->line_size, &r->lines[i]);
	build_minor(&b, minor, r->line_size, r->minor, r->n_minor, false);
	build_minor(&b, undecided.c, r->line_size, r->undecided, r->n_undecided, true);
	report_latent_build(&b, lines);
	gain_queue_free(b.queue);
	code_view_free(cv);
	pointer_origins_free(b.origins);
	jvm_names_free(b.jvm);
	alloc_build_end(&b);

	unknown_gains(r);
	candidates_free(cand, n_contended);
	candidates_free(minor, n_minor);
	candidates_free(undecided.c, undecided.n);
	sort(r->untyped_why, r->n_untyped_why, sizeof(*r->untyped_why), cmp_count);
	/* reasons whose accesses were all named another way (the JVM's) */
	while (r->n_untyped_why && !r->untyped_why[r->n_untyped_why - 1].n)
		free(r->untyped_why[--r->n_untyped_why].what);
	return r;
}

/* ------------------------------------------------------------------ */

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
	free(s->build_id);
	for (unsigned i = 0; i < s->n_chains; i++) {
		for (unsigned k = 0; k < s->chains[i].n_frames; k++)
			free(s->chains[i].frames[k]);
		free(s->chains[i].frames);
	}
	free(s->chains);
}

static void free_sites(struct report_site *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free_site(&s[i]);
	free(s);
}

static void free_range(struct report_range *rr)
{
	free(rr->member);
	free_threads(rr->threads, rr->n_threads);
	free_sites(rr->sites, rr->n_sites);
}

static void free_watch_word(struct report_watch_word *ww)
{
	free(ww->member);
	free_threads(ww->threads, ww->n_threads);
	free_sites(ww->sites, ww->n_sites);
}

void report_site_release(struct report_site *s)
{
	free_site(s);
}

void report_pair_side_release(struct report_pair_side *side)
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
	report_decls_release(rl);
	free_threads(rl->threads, rl->n_threads);
	free(rl->pids);
	free(rl->instance_lines);
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
	advice_release(&rl->advice);
	for (unsigned i = 0; i < rl->n_pairs; i++) {
		report_pair_side_release(&rl->pairs[i].a);
		report_pair_side_release(&rl->pairs[i].b);
	}
	free(rl->pairs);
	report_alloc_free(rl->alloc);
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->command);
	free(r->backend);
	free(r->backend_note);
	free(r->jit_note);
	free(r->watch_note);
	free(r->price_note);
	named_counts_free(r->dropped, r->n_dropped);
	named_counts_free(r->untyped_why, r->n_untyped_why);
	report_patch_release(r);        /* the lines' fixes first */
	for (unsigned i = 0; i < r->n_lines; i++)
		free_line(&r->lines[i]);
	free(r->lines);
	for (unsigned i = 0; i < r->n_minor; i++)
		free_line(&r->minor[i]);
	free(r->minor);
	for (unsigned i = 0; i < r->n_undecided; i++)
		free_line(&r->undecided[i]);
	free(r->undecided);
	free(r->inconclusive);
	report_latent_free(r->latent, r->n_latent);
	free(r);
}
