/* symbolizer_maps.c - the mapping table of each pid, fed by MMAP2 records
 * and /proc/PID/maps, and the cached answers a change of it makes stale.
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer.h"
#include <sys/mman.h>

#include "symbolize/symbolizer_internal.h"
#include "common/hashmap.h"
#include "common/procfs.h"
#include "common/sorted.h"
#include "common/util.h"

/* ---- mapping table ----------------------------------------------------- */

static enum mapping_kind classify(const char *name)
{
	static const char *const vdso[] = { "[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]" };
	/* Memory that only looks file-backed: shared anonymous and hugetlb. */
	static const char *const anon_files[] = { "/anon_hugepage", "/dev/zero", "/SYSV" };

	if (!*name || !strcmp(name, "//anon"))
		return MAPPING_ANON;
	if (!strcmp(name, "[heap]"))
		return MAPPING_HEAP;
	if (!strncmp(name, "[stack", 6))
		return MAPPING_STACK;
	for (size_t i = 0; i < ARRAY_SIZE(vdso); i++)
		if (!strcmp(name, vdso[i]))
			return MAPPING_VDSO;
	if (name[0] == '[')		/* [anon:...], [anon_shmem:...], [uprobes] */
		return MAPPING_ANON;
	for (size_t i = 0; i < ARRAY_SIZE(anon_files); i++)
		if (!strncmp(name, anon_files[i], strlen(anon_files[i])))
			return MAPPING_ANON;
	return MAPPING_FILE;
}

/* Index of the first mapping that ends after addr. */
static size_t maps_lower(const struct maptable *t, uint64_t addr)
{
	return FIRST_ABOVE(t->v, t->nr, end, addr);
}

/* Index of the mapping holding addr, or t->nr. */
size_t maps_index(const struct maptable *t, uint64_t addr)
{
	size_t i = maps_lower(t, addr);

	return i < t->nr && t->v[i].start <= addr ? i : t->nr;
}

const struct mapping *maps_find(const struct maptable *t, uint64_t addr)
{
	size_t i = maps_index(t, addr);

	return i < t->nr ? &t->v[i] : NULL;
}

static bool mapping_equal(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->prot == b->prot && a->kind == b->kind && a->name == b->name &&
	       a->obj.ino == b->obj.ino && a->obj.dev == b->obj.dev &&
	       a->obj.shared == b->obj.shared && a->version == b->version;
}

/* Put m into the table; older mappings it overlaps lose that part.
 * Returns the span of addresses whose mapping changed. */
static void maps_insert(struct maptable *t, const struct mapping *m,
			uint64_t *span_start, uint64_t *span_end)
{
	size_t lo = maps_lower(t, m->start), hi = lo, n = 0;
	struct mapping repl[3];

	while (hi < t->nr && t->v[hi].start < m->end)
		hi++;
	*span_start = lo < hi && t->v[lo].start < m->start ? t->v[lo].start : m->start;
	*span_end = lo < hi && t->v[hi - 1].end > m->end ? t->v[hi - 1].end : m->end;
	if (lo < hi && t->v[lo].start < m->start) {
		repl[n] = t->v[lo];
		repl[n++].end = m->start;
	}
	repl[n++] = *m;
	if (lo < hi && t->v[hi - 1].end > m->end) {
		repl[n] = t->v[hi - 1];
		repl[n].pgoff += m->end - repl[n].start;
		repl[n++].start = m->end;
	}

	ALLOC_GROW(t->v, t->nr - (hi - lo) + n, t->alloc);
	move_bytes(t->v + lo + n, t->v + hi, (t->nr - hi) * sizeof(*t->v));
	copy_bytes(t->v + lo, repl, n * sizeof(*repl));
	t->nr = t->nr - (hi - lo) + n;
}

static struct mapping make_mapping(struct symbolizer *s, uint64_t start,
				   uint64_t end, uint64_t pgoff, uint32_t prot,
				   const char *filename, const struct map_object *obj)
{
	struct mapping m = {
		.start = start, .end = end, .pgoff = pgoff, .prot = prot,
		.kind = classify(filename ? filename : ""),
	};

	if (obj)
		m.obj = *obj;

	if (m.kind == MAPPING_ANON && (!filename || !*filename || !strcmp(filename, "//anon")))
		m.name = intern_str(s, "[anon]");
	else
		m.name = intern_str(s, filename);
	return m;
}

/* A different file mapped over a reported module makes the session stale
 * (dlclose + dlopen at the same place): start a new one.  Anonymous
 * mappings inside a module's range (.bss) do not. */
static void check_module_overlap(struct symbolizer *s, struct proc *p,
				 const struct mapping *m)
{
	if (m->kind != MAPPING_FILE)
		return;
	for (size_t i = 0; i < p->nr_mods; i++) {
		const struct module_ref *r = &p->mods[i];

		if (r->mod && r->path != m->name &&
		    m->start < r->high && r->low < m->end) {
			proc_retire_dwfl(s, p);
			return;
		}
	}
}

/* ---- versions (symbolizer.h) ------------------------------------------- */

#define VERSION_MAX 255

/* The version of a new mapping m of p: what was seen last at its
 * addresses keeps its version if it is the same file (or m is not a file:
 * .bss, the heap), else one more. */
static uint8_t mapping_version(const struct proc *p, const struct mapping *m)
{
	unsigned v = 0;

	for (size_t i = maps_lower(&p->seen, m->start);
	     i < p->seen.nr && p->seen.v[i].start < m->end; i++) {
		const struct mapping *e = &p->seen.v[i];
		unsigned ev = e->version + (m->kind == MAPPING_FILE &&
					    e->kind == MAPPING_FILE && e->name != m->name);
		if (ev > v)
			v = ev;
	}
	return v > VERSION_MAX ? VERSION_MAX : (uint8_t)v;
}

static void seen_insert(struct proc *p, const struct mapping *m)
{
	uint64_t span[2];

	maps_insert(&p->seen, m, &span[0], &span[1]);
}

static void check_module_overlap(struct symbolizer *s, struct proc *p,
				 const struct mapping *m);
static bool addr_in_span(uint64_t addr, const void *ctx);
static void cache_forget(struct proc *p, bool (*stale)(uint64_t, const void *),
			 const void *ctx);

/* m leaves p's live table: keep it for lookups of its version. */
static void retire(struct symbolizer *s, struct proc *p, const struct mapping *m)
{
	struct proc *past;
	uint64_t span[2];

	if (m->version >= p->n_past) {
		size_t n = (size_t)m->version + 1;

		p->past = xrealloc(p->past, n * sizeof(*p->past));
		for (size_t i = p->n_past; i < n; i++)
			p->past[i] = NULL;
		p->n_past = n;
	}
	past = p->past[m->version];
	if (!past) {
		past = xcalloc(1, sizeof(*past));
		past->pid = p->pid;
		past->jit.size = -1;
		hashmap_init(&past->cache, sizeof(uint64_t));
		p->past[m->version] = past;
	}
	check_module_overlap(s, past, m);
	maps_insert(&past->maps, m, &span[0], &span[1]);
	cache_forget(past, addr_in_span, span);
}

/* Mappings of t that p's live table no longer maps with the same version
 * (replaced or gone) are retired. */
static void retire_changed(struct symbolizer *s, struct proc *p, const struct maptable *old)
{
	for (size_t i = 0; i < old->nr; i++) {
		const struct mapping *now = maps_find(&p->maps, old->v[i].start);

		if (!now || now->version != old->v[i].version)
			retire(s, p, &old->v[i]);
	}
}

uint64_t symbolizer_versioned(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct proc *p = proc_get(s, pid);
	const struct mapping *m = p ? maps_find(&p->maps, symbolizer_plain(addr)) : NULL;

	if (!m || !m->version)
		return symbolizer_plain(addr);
	return symbolizer_plain(addr) | (uint64_t)m->version << SYMBOLIZER_VERSION_SHIFT;
}

void symbolizer_sampling_done(struct symbolizer *s)
{
	s->sampling_done = true;
}

struct proc *proc_at(struct symbolizer *s, pid_t pid, uint64_t *addr)
{
	struct proc *p = proc_get(s, pid), *past;
	unsigned want = (unsigned)(*addr >> SYMBOLIZER_VERSION_SHIFT);
	const struct mapping *m;

	*addr = symbolizer_plain(*addr);
	if (!p || (!want && !s->sampling_done))
		return p;
	m = maps_find(&p->maps, *addr);
	if (m && m->version == want)
		return p;
	/* Data addresses are never pinned: one in a live mapping that holds
	 * no code is named by that mapping, not by the first one ever seen
	 * there (ld.so.cache, mapped and gone before a shm_open object took
	 * its place, named the object). */
	if (!want && m && !(m->prot & PROT_EXEC))
		return p;
	past = want < p->n_past ? p->past[want] : NULL;
	return past && maps_find(&past->maps, *addr) ? past : p;
}

/* ---- answers a mapping change makes stale ----------------------------- */

static bool addr_in_span(uint64_t addr, const void *ctx)
{
	const uint64_t *span = ctx;

	return addr >= span[0] && addr < span[1];
}

/* The answers for addr may change when its mapping did. */
static bool mapping_changed(uint64_t addr, const void *ctx)
{
	const struct maptable *const *tables = ctx;
	const struct mapping *a = maps_find(tables[0], addr);
	const struct mapping *b = maps_find(tables[1], addr);

	return a || b ? !a || !b || !mapping_equal(a, b) : false;
}

/* Drop the cached answers for the addresses stale() says changed.  The
 * soft backend looks up every sample while the tables keep changing
 * (MMAP2 records, periodic /proc rereads): keep what still holds. */
static void cache_forget(struct proc *p, bool (*stale)(uint64_t, const void *),
			 const void *ctx)
{
	struct hashmap kept = HASHMAP_INIT(sizeof(uint64_t));
	const void *key;
	size_t pos = 0;
	void *ai;

	if (!hashmap_count(&p->cache))
		return;
	while (hashmap_next(&p->cache, &pos, &key, &ai)) {
		uint64_t addr;

		memcpy(&addr, key, sizeof(addr));
		if (stale(addr, ctx))
			free(ai);
		else
			hashmap_put(&kept, &addr, ai);
	}
	hashmap_release(&p->cache, NULL);
	p->cache = kept;
}

/* ---- mapping table entry points ---------------------------------------- */

void symbolizer_add_mapping(struct symbolizer *s, pid_t pid, uint64_t start,
			    uint64_t len, uint64_t pgoff, uint32_t prot,
			    const char *filename)
{
	symbolizer_add_mapping_object(s, pid, start, len, pgoff, prot, filename, NULL);
}

void symbolizer_add_mapping_object(struct symbolizer *s, pid_t pid, uint64_t start,
				   uint64_t len, uint64_t pgoff, uint32_t prot,
				   const char *filename, const struct map_object *obj)
{
	struct mapping m;
	const struct mapping *old;
	uint64_t span[2];
	struct proc *p;

	if (!len || start + len < start)
		return;
	p = proc_get_or_new(s, pid);
	m = make_mapping(s, start, start + len, pgoff, prot, filename, obj);
	m.version = mapping_version(p, &m);
	seen_insert(p, &m);
	old = maps_find(&p->maps, start);
	if (old && mapping_equal(old, &m))
		return;
	check_module_overlap(s, p, &m);
	/* what m covers of another version stays for lookups of that one */
	for (size_t i = maps_lower(&p->maps, m.start);
	     i < p->maps.nr && p->maps.v[i].start < m.end; i++)
		if (p->maps.v[i].version != m.version)
			retire(s, p, &p->maps.v[i]);
	maps_insert(&p->maps, &m, &span[0], &span[1]);
	cache_forget(p, addr_in_span, span);
}

static bool maptable_equal(const struct maptable *a, const struct maptable *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++)
		if (!mapping_equal(&a->v[i], &b->v[i]))
			return false;
	return true;
}

int symbolizer_load_proc_maps(struct symbolizer *s, pid_t pid)
{
	struct maptable fresh = { 0 };
	const struct maptable *tables[2];
	char path[64], *line = NULL;
	size_t alloc = 0;
	struct mapping m;
	uint64_t span[2];
	struct proc *p;
	pid_t task = process_memory_task(pid);
	FILE *fp;

	/* a live thread's view when the main thread has exited */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)(task ? task : pid));
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (getline(&line, &alloc, fp) > 0) {
		uint64_t start, end, pgoff;
		struct map_object obj;
		const char *name;
		uint32_t prot;

		if (!parse_maps_line_object(line, &start, &end, &pgoff, &prot, &name, &obj))
			continue;
		m = make_mapping(s, start, end, pgoff, prot, name, &obj);
		maps_insert(&fresh, &m, &span[0], &span[1]);
	}

	free(line);
	fclose(fp);
	/* A process that has exited but is not reaped yet (a zombie) has an
	 * empty maps file: that says nothing about the address space the
	 * samples came from, so keep what we know. */
	if (!fresh.nr) {
		free(fresh.v);
		return -1;
	}
	p = proc_get_or_new(s, pid);
	/* versions after the whole file is read: its lines do not overlap */
	for (size_t i = 0; i < fresh.nr; i++) {
		fresh.v[i].version = mapping_version(p, &fresh.v[i]);
		seen_insert(p, &fresh.v[i]);
	}

	/* The file is the whole truth about the address space: it replaces
	 * what the table had (which stays for lookups of its versions). */
	if (!maptable_equal(&p->maps, &fresh)) {
		struct maptable old = p->maps;

		for (size_t i = 0; i < fresh.nr; i++)
			check_module_overlap(s, p, &fresh.v[i]);
		tables[0] = &p->maps;
		tables[1] = &fresh;
		cache_forget(p, mapping_changed, tables);
		p->maps = fresh;
		retire_changed(s, p, &old);
		free(old.v);
	} else {
		free(fresh.v);
	}
	return 0;
}

void symbolizer_fork(struct symbolizer *s, pid_t parent, pid_t child)
{
	struct proc *pp, *c;

	if (parent == child)
		return;
	pp = proc_get(s, parent);
	c = proc_get_or_new(s, child);
	c->maps.nr = 0;
	c->seen.nr = 0;
	if (pp && pp->maps.nr) {
		ALLOC_GROW(c->maps.v, pp->maps.nr, c->maps.alloc);
		copy_bytes(c->maps.v, pp->maps.v, pp->maps.nr * sizeof(*c->maps.v));
		c->maps.nr = pp->maps.nr;
	}
	if (pp && pp->seen.nr) {   /* versions go on from the parent's */
		ALLOC_GROW(c->seen.v, pp->seen.nr, c->seen.alloc);
		copy_bytes(c->seen.v, pp->seen.v, pp->seen.nr * sizeof(*c->seen.v));
		c->seen.nr = pp->seen.nr;
	}
	proc_retire_dwfl(s, c);
	hashmap_clear(&c->cache, free);
	c->lender = pp ? (pp->lender ? pp->lender : pp) : NULL;
	if (c->lender == c)
		c->lender = NULL;
}

void symbolizer_exec(struct symbolizer *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid);

	if (!p)
		return;
	/* the old program stays for lookups of what was sampled in it */
	for (size_t i = 0; i < p->maps.nr; i++)
		retire(s, p, &p->maps.v[i]);
	p->maps.nr = 0;
	proc_retire_dwfl(s, p);
	hashmap_clear(&p->cache, free);
	p->jit.nr = 0;
	p->jit.size = -1;
}

const struct mapping *symbolizer_find_mapping(struct symbolizer *s, pid_t pid,
					      uint64_t addr)
{
	struct proc *p = proc_at(s, pid, &addr);

	return p ? maps_find(&p->maps, addr) : NULL;
}
