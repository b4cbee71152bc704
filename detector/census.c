/* census.c - which stores to probe, and what their hits say
 * (census.h).  The windows themselves are code_probe.c's.
 */
#include "detector/census.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/util.h"
#include "detector/code_probe.h"
#include "detector/perf_session.h"
#include "detector/watch.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

#define MAX_FUNC_BYTES (64 * 1024)   /* a larger function is not read */
#define STORES_PER_FUNC 6            /* so that one big caller leaves room */

enum census_state { NOTING, ENTRIES, STORES, DONE };

struct ip_key {
	uint32_t pid, pad;
	uint64_t ip;
};

struct hit_key {
	uint32_t tid, pad;
	uint64_t ip, addr;
};

struct func_count {
	uint64_t start, end;
	uint64_t n;
};

struct caller {
	uint64_t hot;                /* the hot function's entry */
	uint64_t ret;                /* a return address into its caller */
	uint64_t n;
};

struct census {
	struct symbolizer *sym;
	enum code_probe_kind kind;
	struct decoder_set decs;
	enum census_state state;
	pid_t pid;

	struct hashmap ips;          /* struct ip_key -> samples + 1 */
	uint64_t noted;

	struct code_site hot[CENSUS_HOT_FUNCS];
	unsigned n_hot;
	struct caller *callers;
	unsigned n_callers, alloc_callers;
	struct code_site stores[CENSUS_MAX_STORES];
	unsigned n_stores, next_store;

	struct hashmap seen;         /* struct hit_key -> struct seen_access */
	census_access_fn *fn;        /* during a window */
	void *ctx;
	unsigned hits, last_new;     /* the window's hits; the last that added */
	volatile sig_atomic_t settled;   /* ends the window (note_hit) */
	unsigned windows, accesses;
};

struct census *census_new(struct symbolizer *sym, enum code_probe_kind kind)
{
	struct census *c = xcalloc(1, sizeof(*c));

	c->sym = sym;
	c->kind = kind;
	hashmap_init(&c->ips, sizeof(struct ip_key));
	hashmap_init(&c->seen, sizeof(struct hit_key));
	return c;
}

void census_free(struct census *c)
{
	if (!c)
		return;
	hashmap_release(&c->ips, NULL);
	hashmap_release(&c->seen, free);
	decoder_set_release(&c->decs);
	free(c->callers);
	free(c);
}

unsigned census_windows(const struct census *c) { return c->windows; }
bool census_done(const struct census *c, double elapsed)
{
	return c->state == DONE || (c->state == NOTING && elapsed >= CENSUS_AT_S + 1);
}
unsigned census_accesses(const struct census *c) { return c->accesses; }

void census_note_sample(struct census *c, uint32_t pid, uint64_t ip)
{
	struct ip_key k = { .pid = pid, .ip = ip };
	uintptr_t n;

	if (c->state != NOTING)
		return;
	c->noted++;
	n = (uintptr_t)hashmap_get(&c->ips, &k);
	if (!n && hashmap_count(&c->ips) >= CENSUS_MAX_IPS)
		return;
	hashmap_put(&c->ips, &k, (void *)(n ? n + 1 : 2));
}

/* Code of the target's own files: a system library's hot loop (memcpy,
 * a lock) is reached from the user's code, whose own stores are the
 * ones to find; JIT code is left out (it moves). */
static bool own_code(struct census *c, pid_t pid, uint64_t ip)
{
	const struct mapping *m = symbolizer_find_mapping(c->sym, pid, ip);

	return m && m->name && m->name[0] == '/' && !symbolizer_system_module(m->name);
}

static bool function_of(struct census *c, pid_t pid, uint64_t ip, struct func_info *fi)
{
	return symbolizer_function(c->sym, pid, ip, fi) && fi->end > fi->start &&
	       ip >= fi->start && ip < fi->end && fi->end - fi->start <= MAX_FUNC_BYTES &&
	       own_code(c, pid, ip);
}

static int cmp_func_count(const void *a, const void *b)
{
	const struct func_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The hot functions of pid, by samples, into c->hot. */
static void plan_hot(struct census *c, pid_t pid)
{
	struct func_count *f = NULL;
	size_t n = 0, alloc = 0, pos = 0;
	const void *key;
	void *val;

	while (hashmap_next(&c->ips, &pos, &key, &val)) {
		const struct ip_key *k = key;
		struct func_info fi;
		size_t i;

		if ((pid_t)k->pid != pid || !function_of(c, pid, k->ip, &fi))
			continue;
		for (i = 0; i < n && f[i].start != fi.start; i++)
			;
		if (i == n) {
			ALLOC_GROW(f, n + 1, alloc);
			f[n++] = (struct func_count){ fi.start, fi.end, 0 };
		}
		f[i].n += (uintptr_t)val - 1;
	}
	if (n > 1)
		sort_items(f, n, sizeof(*f), cmp_func_count);
	for (size_t i = 0; i < n && c->n_hot < CENSUS_HOT_FUNCS; i++)
		if ((double)f[i].n >= CENSUS_MIN_HOT_SHARE * (double)c->noted)
			c->hot[c->n_hot++] = (struct code_site){ .ip = f[i].start };
	free(f);
}

/* Did the timer see the store at ip often (its samples land on it or
 * on the instruction after it, at next)?  Then sampling finds its lines
 * by itself, and a breakpoint on it would trap on every pass of a hot
 * loop (about 13 us each in a VM) until the window's hit cap. */
static bool well_sampled(struct census *c, pid_t pid, uint64_t ip, uint64_t next)
{
	struct ip_key at = { .pid = (uint32_t)pid, .ip = ip };
	struct ip_key after = { .pid = (uint32_t)pid, .ip = next };
	uintptr_t n = (uintptr_t)hashmap_get(&c->ips, &at), m = (uintptr_t)hashmap_get(&c->ips, &after);

	return (n ? n - 1 : 0) + (m ? m - 1 : 0) >= CENSUS_SAMPLED;
}

unsigned census_function_stores(struct census *c, pid_t pid, uint64_t ip,
				struct code_site *out, unsigned max, uint64_t *calls,
				unsigned max_calls, unsigned *n_calls)
{
	struct func_info fi;
	struct decoder *dec;
	uint8_t *code;
	size_t len = 0, off = 0;
	unsigned n = 0;

	*n_calls = 0;
	if (!own_code(c, pid, ip) ||
	    !(code = symbolizer_function_code(c->sym, pid, ip, MAX_FUNC_BYTES, &fi, &len)))
		return 0;
	if (!(dec = decoder_set_get(&c->decs, symbolizer_machine(c->sym, pid, fi.start)))) {
		free(code);
		return 0;
	}
	while (off < len) {
		struct insn_info ii;
		struct insn_mem mem;
		size_t left = len - off;

		if (!decoder_insn(dec, code + off, left, fi.start + off, &ii) || !ii.length)
			break;
		if (ii.is_call && ii.has_target && *n_calls < max_calls)
			calls[(*n_calls)++] = ii.target;
		else if (n < max && decoder_memory(dec, code + off, left, fi.start + off, &mem) &&
			 mem.access && mem.writes && !mem.stack &&
			 !well_sampled(c, pid, fi.start + off, fi.start + off + ii.length))
			out[n++] = (struct code_site){ .ip = fi.start + off,
						       .alt = fi.start + off + ii.length };
		off += ii.length;
	}
	free(code);
	return n;
}

static void add_store(struct census *c, const struct code_site *s)
{
	for (unsigned i = 0; i < c->n_stores; i++)
		if (c->stores[i].ip == s->ip)
			return;
	if (c->n_stores < CENSUS_MAX_STORES)
		c->stores[c->n_stores++] = *s;
}

/* Is the function at start not looked at yet?  It is remembered as
 * looked at (while done has room). */
static bool first_visit(uint64_t start, uint64_t *done, unsigned *n_done, unsigned max_done)
{
	for (unsigned i = 0; i < *n_done; i++)
		if (done[i] == start)
			return false;
	if (*n_done < max_done)
		done[(*n_done)++] = start;
	return true;
}

/* The stores of the function at ip and of those it calls directly. */
static void add_function(struct census *c, uint64_t ip, uint64_t *done, unsigned *n_done,
			 unsigned max_done)
{
	struct code_site stores[STORES_PER_FUNC];
	uint64_t calls[32];
	unsigned n_calls, n, ignored;
	struct func_info fi;

	if (!function_of(c, c->pid, ip, &fi) || !first_visit(fi.start, done, n_done, max_done))
		return;
	n = census_function_stores(c, c->pid, ip, stores, STORES_PER_FUNC, calls, 32, &n_calls);
	for (unsigned i = 0; i < n; i++)
		add_store(c, &stores[i]);
	for (unsigned k = 0; k < n_calls && c->n_stores < CENSUS_MAX_STORES; k++) {
		struct func_info callee;

		if (!function_of(c, c->pid, calls[k], &callee) ||
		    !first_visit(callee.start, done, n_done, max_done))
			continue;
		n = census_function_stores(c, c->pid, calls[k], stores, STORES_PER_FUNC, NULL, 0,
					   &ignored);
		for (unsigned i = 0; i < n; i++)
			add_store(c, &stores[i]);
	}
}

static int cmp_caller(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->ret > y->ret) - (x->ret < y->ret);
}

static void plan_stores(struct census *c)
{
	uint64_t done[64];
	unsigned n_done = 0;

	for (unsigned h = 0; h < c->n_hot; h++)
		add_function(c, c->hot[h].ip, done, &n_done, 64);
	if (c->n_callers > 1)
		sort_items(c->callers, c->n_callers, sizeof(*c->callers), cmp_caller);
	for (unsigned i = 0; i < c->n_callers; i++)
		add_function(c, c->callers[i].ret, done, &n_done, 64);
}

/* A window has learnt what it can once its hits stop adding: no new
 * caller, or no new (thread, store, address), in the last half of
 * CENSUS_SETTLED_HITS or more.  An entry or a store that traps on every
 * pass of a loop (some 17 us a trap in a VM, every thread) then ends its
 * window in a few milliseconds, not CENSUS_WINDOW_S: no_sharing's two
 * windows cost its threads 36 ms of a 1.2 s run. */
static void note_hit(struct census *c, bool added)
{
	c->hits++;
	if (added)
		c->last_new = c->hits;
	if (c->hits >= CENSUS_SETTLED_HITS && c->hits - c->last_new >= c->hits / 2)
		c->settled = 1;
}

/* An entry's hit: the return address, from the stack (x86-64) or the
 * link register (AArch64). */
static void entry_hit(void *ctx, const struct perf_sample *ps, const struct code_site *site)
{
	struct census *c = ctx;
	const struct decode_arch *arch = decode_arch_native();
	uint64_t ret = 0;
	unsigned per_hot = 0, i;

	if (arch->insn_width == 4) {
		if (ps->regs.mask & (1ULL << 30))
			ret = ps->regs.val[30];
	} else if (ps->stack && ps->stack_size >= sizeof(ret)) {
		memcpy(&ret, ps->stack, sizeof(ret));
	}
	(void)site;
	if (!ret || !own_code(c, (pid_t)ps->pid, ret))
		return;
	for (i = 0; i < c->n_callers; i++) {
		if (c->callers[i].hot != ps->ip)
			continue;
		if (c->callers[i].ret == ret)
			break;
		per_hot++;
	}
	if (i < c->n_callers) {
		c->callers[i].n++;
		note_hit(c, false);
		return;
	}
	note_hit(c, per_hot < CENSUS_MAX_CALLERS);
	if (per_hot >= CENSUS_MAX_CALLERS)
		return;
	ALLOC_GROW(c->callers, c->n_callers + 1, c->alloc_callers);
	c->callers[c->n_callers++] = (struct caller){ ps->ip, ret, 1 };
}

/* A store's hit: its access, handed on at the first hit of each thread
 * at each address; the last waits for the window's end (flush_last), so
 * that the thread's span on the line is the time it was seen there: two
 * threads writing all through a window met there (classify.h), where
 * their first hits alone, microseconds apart, would not. */
struct seen_access {
	struct access_sample last;
	bool has_last;
};

static void store_hit(void *ctx, const struct perf_sample *ps, const struct code_site *site)
{
	struct census *c = ctx;
	struct hit_key k = { .tid = ps->tid, .ip = site->ip };
	uint8_t code[DECODE_MAX_INSN];
	struct decoded_access acc;
	struct access_sample a;
	struct seen_access *seen;
	struct decoder *dec;
	size_t len;

	dec = decoder_set_get(&c->decs, symbolizer_machine(c->sym, (pid_t)ps->pid, site->ip));
	len = dec ? symbolizer_read(c->sym, (pid_t)ps->pid, site->ip, code, sizeof(code)) : 0;
	if (!len ||
	    decoder_access(dec, code, len, site->ip, &ps->regs, site->at_alt, &acc) != DECODE_OK ||
	    !access_kind_writes(acc.kind) || !decode_user_address(decoder_arch(dec), acc.addr))
		return;
	access_sample_from_perf(&a, ps, site->ip, acc.addr);
	a.size = acc.size ? acc.size : 1;
	a.kind = acc.kind;
	a.base_reg = acc.base_reg;
	a.base_off = acc.base_off;
	k.addr = acc.addr;
	seen = hashmap_get(&c->seen, &k);
	note_hit(c, !seen);
	if (seen) {
		seen->last = a;
		seen->has_last = true;
		return;
	}
	if (hashmap_count(&c->seen) >= CENSUS_MAX_HITS)
		return;
	hashmap_put(&c->seen, &k, xcalloc(1, sizeof(*seen)));
	c->accesses++;
	c->fn(c->ctx, &a);
}

static void flush_last(struct census *c)
{
	size_t pos = 0;
	const void *key;
	void *val;

	while (hashmap_next(&c->seen, &pos, &key, &val)) {
		struct seen_access *seen = val;

		if (seen->has_last) {
			c->accesses++;
			c->fn(c->ctx, &seen->last);
		}
	}
	hashmap_clear(&c->seen, free);
}

/* Sites one window probes: the debug registers of a thread, or (uprobes)
 * every store at once. */
static unsigned census_sites_per_window(enum code_probe_kind kind)
{
	return kind == CODE_PROBE_UPROBE ? CENSUS_MAX_STORES : WATCH_SLOTS;
}

static int run_window(struct census *c, struct code_site *sites, unsigned n, bool stack,
		      void (*hit)(void *ctx, const struct perf_sample *ps,
				  const struct code_site *site))
{
	struct code_probe_window w = {
		.kind = c->kind, .sym = c->sym, .pid = c->pid, .sites = sites, .n_sites = n,
		.stack = stack, .max_s = CENSUS_WINDOW_S, .max_hits = CENSUS_MAX_HITS,
		.hit = hit, .ctx = c, .stop = &c->settled,
	};

	c->hits = c->last_new = 0;
	c->settled = 0;

	return code_probe_run(&w);
}

bool census_tick(struct census *c, pid_t pid, double elapsed, census_access_fn *fn, void *ctx)
{
	unsigned n;
	int ret;

	if (c->state == DONE || elapsed < CENSUS_AT_S)
		return false;
	if (c->state == NOTING) {
		if (c->noted < CENSUS_MIN_SAMPLES)
			return false;
		c->pid = pid;
		plan_hot(c, pid);
		c->state = c->n_hot ? ENTRIES : DONE;
		if (c->state == DONE) {
			hashmap_release(&c->ips, NULL);
			return false;
		}
	}
	if (pid != c->pid) {          /* the target execed into another */
		c->state = DONE;
		return false;
	}
	c->windows++;
	if (c->state == ENTRIES) {
		ret = run_window(c, c->hot, c->n_hot, true, entry_hit);
		plan_stores(c);
		hashmap_release(&c->ips, NULL);
		c->state = ret >= 0 && c->n_stores ? STORES : DONE;
		return true;
	}
	n = c->n_stores - c->next_store;
	if (n > census_sites_per_window(c->kind))
		n = census_sites_per_window(c->kind);
	c->fn = fn;
	c->ctx = ctx;
	ret = run_window(c, c->stores + c->next_store, n, false, store_hit);
	c->next_store += n;
	flush_last(c);
	if (ret < 0 || c->next_store >= c->n_stores)
		c->state = DONE;
	return true;
}
