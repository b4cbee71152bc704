/* symbolizer.c - mapping tables per pid, and a libdwfl session per pid
 * built from that table (never from the live process, which may be gone).
 *
 * Modules are reported lazily: the first lookup that lands in a file
 * mapping reports that file at the bias the mapping implies.  Everything
 * handed out is interned in one string pool, so it outlives the table
 * entries, cache entries and Dwfl sessions it came from.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"
#include "common/hashmap.h"
#include "common/procfs.h"
#include "common/util.h"

/* Files kept open for symbolizer_read; past this many, all are closed
 * and reopened on demand.  libdwfl holds its own descriptors. */
#define FD_CACHE_MAX 64

/* Every string the symbolizer hands out, NULL passing through. */
static const char *intern_str(struct symbolizer *s, const char *str);

/* ---- state ------------------------------------------------------------- */

struct load_seg {
	uint64_t vaddr, offset, filesz;
	uint32_t flags;			/* PF_* */
};

struct sym {
	uint64_t start, size;		/* start: file address */
	const char *name;		/* in the module's ELF string table */
	uint8_t type, rank;		/* STT_*, binding preference */
	bool sizeless;			/* size: up to the next symbol */
	uint32_t seq;			/* symbol table index */
};

struct sym_table {
	struct sym *v;
	size_t nr, alloc;
	bool built;
};

/* Address ranges of a module's compile units, for modules whose DWARF has
 * no .debug_aranges (clang's default): libdwfl 0.188 finds no CU there. */
struct cu_range {
	uint64_t low, high;		/* DWARF addresses */
	Dwarf_Off die_off;		/* of the CU DIE */
};

struct cu_index {
	struct cu_range *ranges;
	size_t nr, alloc;
	bool built;
};

/* A file seen in some mapping: its descriptor for reads, and the PT_LOAD
 * segments that say which load bias a mapping of it implies. */
struct elf_file {
	const char *path;		/* interned: the map key */
	int fd;				/* -1: not open */
	bool unopenable;		/* not a regular file, or open failed */
	bool probed;			/* ELF headers read (or found missing) */
	uint16_t e_type;		/* ET_EXEC or ET_DYN; 0: not loadable */
	struct load_seg *segs;
	size_t nr_segs, alloc_segs;
	/* Built from the first module of this file, whichever pid's: both
	 * hold file (not run-time) addresses. */
	struct sym_table syms;
	struct cu_index cus;
};

/* One dwfl_report_elf() attempt in a pid's session. */
struct module_ref {
	const char *path;
	uint64_t bias;
	Dwfl_Module *mod;		/* NULL: reporting failed, do not retry */
	uint64_t low, high;		/* the module's address range */
};

/* /tmp/perf-PID.map, perf's convention for JIT code: "START SIZE name". */
struct jit_sym {
	uint64_t start, end;
	const char *name;
	size_t seq;			/* line number: later lines win */
};

struct jit_map {
	struct jit_sym *syms;
	size_t nr, alloc;
	off_t size;			/* of the file when loaded; -1: never */
	struct timespec mtime;
};

enum {
	DONE_FUNC = 1 << 0,
	DONE_SOURCE = 1 << 1,
	DONE_DATA = 1 << 2,
};

/* Cached answers for one (pid, addr). */
struct addr_info {
	unsigned done, found;		/* DONE_* bits */
	struct func_info func;
	struct source_loc src;
	struct data_symbol data;
};

struct maptable {
	struct mapping *v;		/* sorted by start, disjoint */
	size_t nr, alloc;
};

struct proc {
	pid_t pid;
	struct maptable maps;
	Dwfl *dwfl;			/* NULL until the first report */
	struct module_ref *mods;
	size_t nr_mods, alloc_mods;
	struct hashmap cache;		/* u64 addr -> struct addr_info */
	struct jit_map jit;
};

struct symbolizer {
	struct hashmap procs;		/* u64 pid -> struct proc */
	struct hashmap files;		/* interned path pointer -> struct elf_file */
	struct strset strings;
	/* Sessions replaced after exec or a remapping.  They live until
	 * symbolizer_free() because callers may hold their Dwfl_Module
	 * pointers (data_types caches by module). */
	Dwfl **retired;
	size_t nr_retired, alloc_retired;
	size_t nr_open_fds;
	uint64_t page_size;
};

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	long page = sysconf(_SC_PAGESIZE);

	s->page_size = page > 0 ? (uint64_t)page : 4096;
	hashmap_init(&s->procs, sizeof(uint64_t));
	hashmap_init(&s->files, sizeof(const char *));
	elf_version(EV_CURRENT);
	return s;
}

static void file_close(struct symbolizer *s, struct elf_file *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
		s->nr_open_fds--;
	}
}

static void proc_free(void *v)
{
	struct proc *p = v;

	free(p->maps.v);
	free(p->mods);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	hashmap_release(&p->cache, free);
	free(p->jit.syms);
	free(p);
}

static void elf_file_free(void *v)
{
	struct elf_file *f = v;

	if (f->fd >= 0)
		close(f->fd);
	free(f->segs);
	free(f->syms.v);
	free(f->cus.ranges);
	free(f);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	hashmap_release(&s->procs, proc_free);
	hashmap_release(&s->files, elf_file_free);
	for (size_t i = 0; i < s->nr_retired; i++)
		dwfl_end(s->retired[i]);
	free(s->retired);
	strset_release(&s->strings);
	free(s);
}

static const char *intern_str(struct symbolizer *s, const char *str)
{
	return str ? strset_intern(&s->strings, str) : NULL;
}

static struct proc *proc_get(struct symbolizer *s, pid_t pid)
{
	uint64_t key = (uint64_t)pid;

	return hashmap_get(&s->procs, &key);
}

static struct proc *proc_get_or_new(struct symbolizer *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->jit.size = -1;
		hashmap_init(&p->cache, sizeof(uint64_t));
		hashmap_put(&s->procs, &(uint64_t){ (uint64_t)pid }, p);
	}
	return p;
}

/* Forget the pid's libdwfl session; the next lookup builds a new one. */
static void proc_retire_dwfl(struct symbolizer *s, struct proc *p)
{
	if (p->dwfl) {
		ALLOC_GROW(s->retired, s->nr_retired + 1, s->alloc_retired);
		s->retired[s->nr_retired++] = p->dwfl;
		p->dwfl = NULL;
	}
	p->nr_mods = 0;
}

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
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the mapping holding addr, or t->nr. */
static size_t maps_index(const struct maptable *t, uint64_t addr)
{
	size_t i = maps_lower(t, addr);

	return i < t->nr && t->v[i].start <= addr ? i : t->nr;
}

static const struct mapping *maps_find(const struct maptable *t, uint64_t addr)
{
	size_t i = maps_index(t, addr);

	return i < t->nr ? &t->v[i] : NULL;
}

static bool mapping_equal(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->prot == b->prot && a->kind == b->kind && a->name == b->name;
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
	memmove(t->v + lo + n, t->v + hi, (t->nr - hi) * sizeof(*t->v));
	memcpy(t->v + lo, repl, n * sizeof(*repl));
	t->nr = t->nr - (hi - lo) + n;
}

static struct mapping make_mapping(struct symbolizer *s, uint64_t start,
				   uint64_t end, uint64_t pgoff, uint32_t prot,
				   const char *filename)
{
	struct mapping m = {
		.start = start, .end = end, .pgoff = pgoff, .prot = prot,
		.kind = classify(filename ? filename : ""),
	};

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

/* ---- answer cache ------------------------------------------------------ */

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
	struct mapping m;
	const struct mapping *old;
	uint64_t span[2];
	struct proc *p;

	if (!len || start + len < start)
		return;
	p = proc_get_or_new(s, pid);
	m = make_mapping(s, start, start + len, pgoff, prot, filename);
	old = maps_find(&p->maps, start);
	if (old && mapping_equal(old, &m))
		return;
	check_module_overlap(s, p, &m);
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
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (getline(&line, &alloc, fp) > 0) {
		uint64_t start, end, pgoff;
		const char *name;
		uint32_t prot;

		if (!parse_maps_line(line, &start, &end, &pgoff, &prot, &name))
			continue;
		m = make_mapping(s, start, end, pgoff, prot, name);
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

	/* The file is the whole truth about the address space: it replaces
	 * what the table had. */
	p = proc_get_or_new(s, pid);
	if (!maptable_equal(&p->maps, &fresh)) {
		for (size_t i = 0; i < fresh.nr; i++)
			check_module_overlap(s, p, &fresh.v[i]);
		tables[0] = &p->maps;
		tables[1] = &fresh;
		cache_forget(p, mapping_changed, tables);
		free(p->maps.v);
		p->maps = fresh;
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
	if (pp && pp->maps.nr) {
		ALLOC_GROW(c->maps.v, pp->maps.nr, c->maps.alloc);
		memcpy(c->maps.v, pp->maps.v, pp->maps.nr * sizeof(*c->maps.v));
		c->maps.nr = pp->maps.nr;
	}
	proc_retire_dwfl(s, c);
	hashmap_clear(&c->cache, free);
}

void symbolizer_exec(struct symbolizer *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid);

	if (!p)
		return;
	p->maps.nr = 0;
	proc_retire_dwfl(s, p);
	hashmap_clear(&p->cache, free);
	p->jit.nr = 0;
	p->jit.size = -1;
}

const struct mapping *symbolizer_find_mapping(struct symbolizer *s, pid_t pid,
					      uint64_t addr)
{
	struct proc *p = proc_get(s, pid);

	return p ? maps_find(&p->maps, addr) : NULL;
}

/* ---- files ------------------------------------------------------------- */

static struct elf_file *file_get(struct symbolizer *s, const char *path)
{
	struct elf_file *f = hashmap_get(&s->files, &path);

	if (!f) {
		f = xcalloc(1, sizeof(*f));
		f->path = path;
		f->fd = -1;
		hashmap_put(&s->files, &path, f);
	}
	return f;
}

static void close_all_files(struct symbolizer *s)
{
	size_t pos = 0;
	void *f;

	while (hashmap_next(&s->files, &pos, NULL, &f))
		file_close(s, f);
}

static int file_fd(struct symbolizer *s, struct elf_file *f)
{
	struct stat st;

	if (f->fd >= 0 || f->unopenable)
		return f->fd;
	/* Only regular files: opening a device node can have side effects. */
	if (stat(f->path, &st) || !S_ISREG(st.st_mode)) {
		f->unopenable = true;
		return -1;
	}
	if (s->nr_open_fds >= FD_CACHE_MAX)
		close_all_files(s);
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		f->unopenable = true;
	else
		s->nr_open_fds++;
	return f->fd;
}

/* Read the PT_LOAD segments once.  False if f is not a loadable ELF file. */
static bool file_probe(struct symbolizer *s, struct elf_file *f)
{
	GElf_Ehdr ehdr;
	size_t phnum;
	Elf *elf;
	int fd;

	if (f->probed)
		return f->e_type != 0;
	f->probed = true;
	fd = file_fd(s, f);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &ehdr) &&
	    (ehdr.e_type == ET_EXEC || ehdr.e_type == ET_DYN) &&
	    !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			ALLOC_GROW(f->segs, f->nr_segs + 1, f->alloc_segs);
			f->segs[f->nr_segs++] = (struct load_seg){
				.vaddr = ph.p_vaddr, .offset = ph.p_offset,
				.filesz = ph.p_filesz, .flags = ph.p_flags,
			};
		}
		if (f->nr_segs)
			f->e_type = ehdr.e_type;
	}
	elf_end(elf);
	return f->e_type != 0;
}

/* How well segment seg explains mapping m, 0 not at all.  The loader maps
 * a segment from the page holding its p_offset; later splits (mprotect)
 * start inside it.  In old layouts text and data share a file page: the
 * exec bit tells them apart. */
static int seg_match(const struct symbolizer *s, const struct load_seg *seg,
		     const struct mapping *m)
{
	uint64_t page = seg->offset & ~(s->page_size - 1);
	int score;

	if (page == m->pgoff)
		score = 2;
	else if (page < m->pgoff && m->pgoff < seg->offset + seg->filesz)
		score = 1;
	else
		return 0;
	return 2 * score + (!(seg->flags & PF_X) == !(m->prot & PROT_EXEC));
}

/* The load bias implied by mapping m of file f: the kernel mapped file
 * offset m->pgoff at m->start, so the segment m maps has its p_offset at
 * m->start + (p_offset - pgoff), which is p_vaddr + bias. */
static bool mapping_bias(const struct symbolizer *s, const struct elf_file *f,
			 const struct mapping *m, uint64_t *bias)
{
	const struct load_seg *seg = NULL;
	int best = 0;

	for (size_t i = 0; i < f->nr_segs; i++) {
		int score = seg_match(s, &f->segs[i], m);

		if (score > best) {
			best = score;
			seg = &f->segs[i];
		}
	}
	if (!seg)
		return false;
	*bias = m->start + seg->offset - m->pgoff - seg->vaddr;
	/* An executable is only ever loaded where it was linked. */
	return f->e_type != ET_EXEC || *bias == 0;
}

/* ---- libdwfl session --------------------------------------------------- */

static Dwfl_Module *report_mapping(struct symbolizer *s, struct proc *p,
				   const struct mapping *m)
{
	struct elf_file *f = file_get(s, m->name);
	struct module_ref *r;
	Dwfl_Module *mod;
	uint64_t bias;

	if (!file_probe(s, f) || !mapping_bias(s, f, m, &bias))
		return NULL;
	for (size_t i = 0; i < p->nr_mods; i++)
		if (p->mods[i].path == m->name && p->mods[i].bias == bias)
			return p->mods[i].mod;

	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&dwfl_callbacks);
		if (!p->dwfl)
			return NULL;
	}
	/* base is the bias with add_p_vaddr: the module starts at the first
	 * PT_LOAD's p_vaddr + bias (base is ignored for ET_EXEC). */
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, m->name, m->name, -1, bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);

	ALLOC_GROW(p->mods, p->nr_mods + 1, p->alloc_mods);
	r = &p->mods[p->nr_mods++];
	*r = (struct module_ref){ .path = m->name, .bias = bias, .mod = mod };
	if (mod) {
		void **userdata;

		dwfl_module_info(mod, &userdata, &r->low, &r->high, NULL, NULL, NULL, NULL);
		*userdata = f;
	}
	return mod;
}

/* The module whose address range holds addr, reporting the file mapped
 * there first if needed.  The .bss of a file may lie in an anonymous
 * mapping right after the file's last mapping: report that file too. */
static Dwfl_Module *proc_module(struct symbolizer *s, struct proc *p, uint64_t addr)
{
	Dwfl_Module *mod;
	const struct mapping *m;
	size_t i;

	if (p->dwfl && (mod = dwfl_addrmodule(p->dwfl, addr)))
		return mod;
	i = maps_index(&p->maps, addr);
	if (i == p->maps.nr)
		return NULL;
	m = &p->maps.v[i];
	if (m->kind == MAPPING_FILE)
		report_mapping(s, p, m);
	else if (m->kind == MAPPING_ANON && i > 0 && m[-1].kind == MAPPING_FILE &&
		 m[-1].end == m->start)
		report_mapping(s, p, &m[-1]);
	else
		return NULL;
	return p->dwfl ? dwfl_addrmodule(p->dwfl, addr) : NULL;
}

static bool is_code_type(int type)
{
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

static bool is_data_type(int type)
{
	return type == STT_OBJECT || type == STT_COMMON;
}

static int binding_rank(int bind)
{
	return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL;
}

/* By address; at one address the symbol to keep first: sized, then by
 * binding (an alias's global name over its local one), then as listed. */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->sizeless != y->sizeless)
		return x->sizeless ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* End of the section holding a symbol without a size (assembly labels):
 * it extends no further. */
static uint64_t section_end(Elf *elf, GElf_Word shndx)
{
	GElf_Shdr shdr;

	if (!elf || !gelf_getshdr(elf_getscn(elf, shndx), &shdr))
		return UINT64_MAX;
	return shdr.sh_addr + shdr.sh_size;
}

/* The code and data symbols of a module, at file addresses (less the
 * bias), so that every pid mapping the file shares them.  libdwfl's own
 * address lookup walks the whole symbol table on each call. */
static void sym_table_build(struct sym_table *t, Dwfl_Module *mod, uint64_t bias,
			    uint64_t limit)
{
	int n = dwfl_module_getsymtab(mod);
	size_t kept = 0;

	t->built = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value,
							   &shndx, &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    !(is_code_type(type) || is_data_type(type)))
			continue;
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		t->v[t->nr++] = (struct sym){
			.start = value - bias, .name = name, .type = type,
			.rank = binding_rank(GELF_ST_BIND(sym.st_info)),
			.sizeless = !sym.st_size, .seq = i,
			/* for now, the limit of a sizeless symbol */
			.size = sym.st_size ? sym.st_size : section_end(elf, shndx),
		};
	}
	qsort(t->v, t->nr, sizeof(*t->v), sym_cmp);
	for (size_t i = 0; i < t->nr; i++)
		if (!kept || t->v[kept - 1].start != t->v[i].start)
			t->v[kept++] = t->v[i];
	t->nr = kept;

	for (size_t i = 0; i < t->nr; i++) {
		struct sym *e = &t->v[i];
		uint64_t end = i + 1 < t->nr ? t->v[i + 1].start : limit;

		if (e->sizeless) {
			end = e->size < end ? e->size : end;
			e->size = end > e->start ? end - e->start : 0;
		}
	}
}

/* How far back to look for a sized symbol that encloses smaller ones. */
#define SYM_NESTING 8

static bool sym_contains(const struct sym *e, uint64_t a)
{
	return a - e->start < e->size;
}

/* The symbol holding file address a: a sized symbol containing it, else
 * the closest sizeless one below it. */
static const struct sym *sym_lookup(const struct sym_table *t, uint64_t a)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {		/* first symbol starting above a */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && lo - k <= SYM_NESTING;)
		if (!t->v[k].sizeless && sym_contains(&t->v[k], a))
			return &t->v[k];
	if (lo && t->v[lo - 1].sizeless && sym_contains(&t->v[lo - 1], a))
		return &t->v[lo - 1];
	return NULL;
}

/* The file a module was reported from (report_mapping sets it). */
static struct elf_file *module_file(Dwfl_Module *mod)
{
	void **userdata;

	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	return *userdata;
}

/* The symbol at addr in mod, and its absolute start. */
static const struct sym *module_sym(Dwfl_Module *mod, uint64_t addr,
				    uint64_t *start)
{
	struct elf_file *f = module_file(mod);
	Dwarf_Addr bias = 0, high;
	const struct sym *e;

	dwfl_module_info(mod, NULL, NULL, &high, NULL, NULL, NULL, NULL);
	if (!f || !dwfl_module_getelf(mod, &bias))
		return NULL;
	if (!f->syms.built)
		sym_table_build(&f->syms, mod, bias, high - bias);
	e = sym_lookup(&f->syms, addr - bias);
	if (e)
		*start = e->start + bias;
	return e;
}

static const char *intern_demangled(struct symbolizer *s, const char *name)
{
	return name ? strset_own(&s->strings, demangle(name)) : NULL;
}

/* ---- JIT symbols ------------------------------------------------------- */

static int jit_sym_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* (Re)load /tmp/perf-PID.map when it changed since the last look: JITs
 * append to it while the program runs. */
static void jit_map_refresh(struct symbolizer *s, struct proc *p)
{
	struct jit_map *j = &p->jit;
	char path[64], *line = NULL;
	size_t alloc = 0, n = 0;
	struct stat st;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		j->nr = 0;
		j->size = -1;
		return;
	}
	if (st.st_size == j->size && st.st_mtim.tv_sec == j->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == j->mtime.tv_nsec)
		return;
	fp = fopen(path, "re");
	if (!fp)
		return;
	j->nr = 0;
	while (getline(&line, &alloc, fp) > 0) {
		uint64_t start, size;
		int name_at = 0;
		size_t len;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) < 2 || !name_at || !size)
			continue;
		len = strcspn(line + name_at, "\n");
		line[name_at + len] = '\0';
		ALLOC_GROW(j->syms, j->nr + 1, j->alloc);
		j->syms[j->nr++] = (struct jit_sym){
			.start = start, .end = start + size, .seq = n++,
			.name = intern_demangled(s, line + name_at),
		};
	}
	free(line);
	fclose(fp);
	j->size = st.st_size;
	j->mtime = st.st_mtim;

	/* Code recompiled at the same address: keep the newest entry. */
	qsort(j->syms, j->nr, sizeof(*j->syms), jit_sym_cmp);
	n = 0;
	for (size_t i = 0; i < j->nr; i++) {
		if (n && j->syms[n - 1].start == j->syms[i].start)
			n--;
		j->syms[n++] = j->syms[i];
	}
	j->nr = n;
}

static bool jit_lookup(struct symbolizer *s, struct proc *p, uint64_t addr,
		       struct func_info *out)
{
	struct jit_map *j = &p->jit;
	size_t lo = 0, hi;

	jit_map_refresh(s, p);
	hi = j->nr;
	while (lo < hi) {		/* first symbol starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (j->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= j->syms[lo - 1].end)
		return false;
	out->name = j->syms[lo - 1].name;
	out->start = j->syms[lo - 1].start;
	out->end = j->syms[lo - 1].end;
	return true;
}

/* ---- lookups ----------------------------------------------------------- */

/* A stripped binary still has .eh_frame for unwinding: its FDE gives the
 * bounds of the function around addr, though not its name. */
static bool cfi_function(Dwfl_Module *mod, uint64_t addr, struct func_info *out)
{
	Dwarf_Addr bias = 0, start, end;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *frame = NULL;
	bool ok = false;

	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
		return false;
	if (dwarf_frame_info(frame, &start, &end, NULL) >= 0 && end > start) {
		out->name = NULL;
		out->start = start + bias;
		out->end = end + bias;
		ok = true;
	}
	free(frame);
	return ok;
}

static bool lookup_function(struct symbolizer *s, struct proc *p, uint64_t addr,
			    struct func_info *out)
{
	Dwfl_Module *mod = proc_module(s, p, addr);
	const struct sym *e;

	if (!mod)
		return jit_lookup(s, p, addr, out);
	e = module_sym(mod, addr, &out->start);
	if (!e || !is_code_type(e->type))
		return cfi_function(mod, addr, out);
	out->name = intern_demangled(s, e->name);
	out->end = out->start + e->size;
	return true;
}

/* The name a function DIE (subprogram or inlined instance) goes by: the
 * demangled linkage name, which qualifies C++ methods, else DW_AT_name. */
static const char *die_function_name(struct symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return intern_demangled(s, name);
	return intern_str(s, dwarf_diename(die));
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static void cu_index_build(struct cu_index *ci, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;

	while (dw && !dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		Dwarf_Addr base, low, high;
		ptrdiff_t it = 0;

		if (unit_type != DW_UT_compile)
			continue;
		while ((it = dwarf_ranges(&cudie, it, &base, &low, &high)) > 0) {
			ALLOC_GROW(ci->ranges, ci->nr + 1, ci->alloc);
			ci->ranges[ci->nr++] = (struct cu_range){
				.low = low, .high = high,
				.die_off = dwarf_dieoffset(&cudie),
			};
		}
	}
	qsort(ci->ranges, ci->nr, sizeof(*ci->ranges), cu_range_cmp);
	ci->built = true;
}

/* The CU DIE holding addr, and the module's DWARF bias. */
static Dwarf_Die *module_cu(Dwfl_Module *mod,
			    uint64_t addr, Dwarf_Die *mem, Dwarf_Addr *bias)
{
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, bias);
	struct elf_file *f = module_file(mod);
	struct cu_index *ci;
	size_t lo = 0, hi;
	Dwarf *dw;

	if (cudie || !f)
		return cudie;
	dw = dwfl_module_getdwarf(mod, bias);
	if (!dw)
		return NULL;
	ci = &f->cus;
	if (!ci->built)
		cu_index_build(ci, dw);
	hi = ci->nr;
	while (lo < hi) {		/* first range starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ci->ranges[mid].low <= addr - *bias)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - *bias >= ci->ranges[lo - 1].high)
		return NULL;
	return dwarf_offdie(dw, ci->ranges[lo - 1].die_off, mem);
}

static const char *absolute_source(struct symbolizer *s, Dwarf_Die *cudie, const char *file);

bool symbolizer_system_source(const char *file)
{
	static const char *const prefixes[] = {
		"/usr/include/", "/usr/local/include/", "/usr/lib/gcc/", "/usr/lib/llvm",
	};

	if (!file)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(file, prefixes[i], strlen(prefixes[i])))
			return true;
	return strstr(file, "/include/c++/") != NULL;
}

/* The file of an inlined instance's call site (DW_AT_call_file), absolute. */
static const char *call_site_file(struct symbolizer *s, Dwarf_Die *cudie, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t n;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &idx) ||
	    dwarf_getsrcfiles(cudie, &files, &n) || idx >= n)
		return NULL;
	return absolute_source(s, cudie, dwarf_filesrc(files, idx, NULL, NULL));
}

/* chain[0..n): the concrete scopes of an inlined instance, innermost
 * first.  When the access's line is in a system header, the site becomes
 * the innermost call site outside them: function and file:line of the
 * user's code, via = the library function inlined there. */
static void hoist_out_of_system_headers(struct symbolizer *s, Dwarf_Die *cudie,
					Dwarf_Die *chain, int n, struct source_loc *out)
{
	for (int j = 0; j < n; j++) {
		Dwarf_Attribute attr;
		Dwarf_Word line;
		const char *file;
		int k, m;

		if (dwarf_tag(&chain[j]) != DW_TAG_inlined_subroutine)
			continue;
		file = call_site_file(s, cudie, &chain[j]);
		if (!file || symbolizer_system_source(file) ||
		    dwarf_formudata(dwarf_attr(&chain[j], DW_AT_call_line, &attr), &line))
			continue;
		for (k = j + 1; k < n && !is_function_scope(&chain[k]); k++)
			;
		if (k == n)
			return;
		out->via = out->function;
		out->file = file;
		out->line = (int)line;
		out->function = die_function_name(s, &chain[k]);
		out->inlined_into = NULL;
		for (m = k + 1; m < n && !is_function_scope(&chain[m]); m++)
			;
		if (m < n && dwarf_tag(&chain[k]) == DW_TAG_inlined_subroutine)
			out->inlined_into = die_function_name(s, &chain[m]);
		return;
	}
}

/* function = the innermost subprogram or inlined instance at pc;
 * inlined_into = the function it was inlined into.  dwarf_getscopes()
 * continues past an inlined instance with the scopes of its abstract
 * definition, so the caller is found in the concrete tree instead. */
static void lookup_inline_chain(struct symbolizer *s, Dwarf_Die *cudie,
				Dwarf_Addr pc, struct source_loc *out)
{
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int n, i;

	n = dwarf_getscopes(cudie, pc, &scopes);
	for (i = 0; i < n && !is_function_scope(&scopes[i]); i++)
		;
	if (i < n) {
		out->function = die_function_name(s, &scopes[i]);
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			int nc = dwarf_getscopes_die(&scopes[i], &chain);

			for (int j = 1; j < nc; j++) {
				if (is_function_scope(&chain[j])) {
					out->inlined_into = die_function_name(s, &chain[j]);
					break;
				}
			}
			if (symbolizer_system_source(out->file))
				hoist_out_of_system_headers(s, cudie, chain, nc, out);
			free(chain);
		}
	}
	free(scopes);
}

/* "dir/../x.c" -> "x.c", "a/./b" -> "a/b", in place; no file system. */
static void normalize_path(char *path)
{
	char *out = path, *p = path;
	bool abs = *path == '/';

	while (*p) {
		char *seg = p, *end = strchrnul(p, '/');
		size_t len = (size_t)(end - seg);

		p = *end ? end + 1 : end;
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *prev = out > path ? memrchr(path, '/', (size_t)(out - path - 1)) : NULL;
			if (out > path + abs && !(out - path >= 3 && !strncmp(out - 3, "../", 3))) {
				out = prev ? prev + 1 : path + abs;
				continue;
			}
		}
		if (out == path && abs)
			*out++ = '/';
		memmove(out, seg, len);
		out += len;
		*out++ = '/';
	}
	if (out > path + 1 && out[-1] == '/')
		out--;
	else if (out == path && abs)
		out++;
	*out = '\0';
}

/* Source files named relative to the compilation directory (a VPATH
 * build's "../src/x.c") become absolute, so that editors, CI annotations
 * and --annotate find them from anywhere. */
static const char *absolute_source(struct symbolizer *s, Dwarf_Die *cudie, const char *file)
{
	Dwarf_Attribute attr;
	const char *dir;
	char *joined;
	const char *ret;

	if (!file || file[0] == '/')
		return intern_str(s, file);
	dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	if (!dir || dir[0] != '/')
		return intern_str(s, file);
	joined = xasprintf("%s/%s", dir, file);
	normalize_path(joined);
	ret = intern_str(s, joined);
	free(joined);
	return ret;
}

static void lookup_dwarf_source(struct symbolizer *s, Dwfl_Module *mod,
				uint64_t addr, struct source_loc *out)
{
	Dwarf_Die mem, *cudie;
	Dwarf_Line *line;
	Dwarf_Addr bias;

	cudie = module_cu(mod, addr, &mem, &bias);
	if (!cudie)
		return;
	line = dwarf_getsrc_die(cudie, addr - bias);
	if (line) {
		out->file = absolute_source(s, cudie, dwarf_linesrc(line, NULL, NULL));
		if (!out->file || dwarf_lineno(line, &out->line))
			out->line = 0;
	}
	lookup_inline_chain(s, cudie, addr - bias, out);
}

static const char *module_basename(struct symbolizer *s, const char *path)
{
	const char *slash = strrchr(path, '/');

	return intern_str(s, slash ? slash + 1 : path);
}

static bool lookup_source(struct symbolizer *s, struct proc *p, uint64_t addr,
			  struct source_loc *out)
{
	Dwfl_Module *mod = proc_module(s, p, addr);
	struct func_info fi;

	if (mod) {
		const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL,
						    NULL, NULL, NULL);
		Dwarf_Addr bias = 0;

		dwfl_module_getelf(mod, &bias);
		out->module = module_basename(s, name ? name : "");
		out->module_off = addr - bias;
		lookup_dwarf_source(s, mod, addr, out);
	} else {
		const struct mapping *m = maps_find(&p->maps, addr);

		if (!m)
			return false;
		out->module = m->kind == MAPPING_FILE ? module_basename(s, m->name) : m->name;
		out->module_off = addr - m->start + (m->kind == MAPPING_FILE ? m->pgoff : 0);
	}
	if (!out->function && symbolizer_function(s, p->pid, addr, &fi))
		out->function = fi.name;
	return out->function || out->file;
}

static bool lookup_data(struct symbolizer *s, struct proc *p, uint64_t addr,
			struct data_symbol *out)
{
	Dwfl_Module *mod = proc_module(s, p, addr);
	const struct mapping *m;

	if (mod) {
		uint64_t start;
		const struct sym *e = module_sym(mod, addr, &start);

		if (e && is_data_type(e->type) && !e->sizeless) {
			out->name = intern_demangled(s, e->name);
			out->start = start;
			out->size = e->size;
			out->is_symbol = true;
			out->kind = MAPPING_FILE;	/* the file's image, even in .bss */
			return true;
		}
	}
	m = maps_find(&p->maps, addr);
	if (!m)
		return false;
	out->name = m->name;
	out->start = m->start;
	out->size = m->end - m->start;
	out->is_symbol = false;
	out->kind = m->kind;
	return true;
}

/* ---- cached entry points ----------------------------------------------- */

/* The answers for (pid, addr), with the one asked for (a DONE_* bit)
 * looked up if it was not yet.  NULL for a pid without mappings. */
static struct addr_info *answer(struct symbolizer *s, pid_t pid, uint64_t addr,
				unsigned what)
{
	struct proc *p = proc_get(s, pid);
	struct addr_info *ai;
	bool found = false;

	if (!p || !p->maps.nr)
		return NULL;
	ai = hashmap_get(&p->cache, &addr);
	if (!ai) {
		ai = xcalloc(1, sizeof(*ai));
		hashmap_put(&p->cache, &addr, ai);
	}
	if (ai->done & what)
		return ai;
	ai->done |= what;
	switch (what) {
	case DONE_FUNC:
		found = lookup_function(s, p, addr, &ai->func);
		break;
	case DONE_SOURCE:
		found = lookup_source(s, p, addr, &ai->src);
		break;
	case DONE_DATA:
		found = lookup_data(s, p, addr, &ai->data);
		break;
	}
	if (found) {
		ai->found |= what;
	} else {
		/* JIT code: a JVM writes its perf map at exit
		 * (-XX:+DumpPerfMapAtExit), after sites were first looked up
		 * during the run; ask again next time */
		const struct mapping *m = maps_find(&p->maps, addr);

		if (m && m->kind == MAPPING_ANON)
			ai->done &= ~what;
	}
	return ai;
}

bool symbolizer_function(struct symbolizer *s, pid_t pid, uint64_t addr,
			 struct func_info *out)
{
	struct addr_info *ai = answer(s, pid, addr, DONE_FUNC);
	bool found = ai && (ai->found & DONE_FUNC);

	*out = found ? ai->func : (struct func_info){ 0 };
	return found;
}

/* True when a function or a file is known; module and module_off are
 * filled in for any mapped address. */
bool symbolizer_source(struct symbolizer *s, pid_t pid, uint64_t addr,
		       struct source_loc *out)
{
	struct addr_info *ai = answer(s, pid, addr, DONE_SOURCE);

	*out = ai ? ai->src : (struct source_loc){ 0 };
	return ai && (ai->found & DONE_SOURCE);
}

bool symbolizer_data_symbol(struct symbolizer *s, pid_t pid, uint64_t addr,
			    struct data_symbol *out)
{
	struct addr_info *ai = answer(s, pid, addr, DONE_DATA);
	bool found = ai && (ai->found & DONE_DATA);

	*out = found ? ai->data : (struct data_symbol){ 0 };
	return found;
}

bool symbolizer_find_symbol(struct symbolizer *s, pid_t pid, const char *name,
			    struct data_symbol *out)
{
	struct proc *p = proc_get(s, pid);

	for (size_t i = 0; p && i < p->maps.nr; i++) {
		const struct mapping *m = &p->maps.v[i];
		Dwfl_Module *mod = m->kind == MAPPING_FILE ? report_mapping(s, p, m) : NULL;
		struct elf_file *f = mod ? module_file(mod) : NULL;
		Dwarf_Addr bias = 0, high;

		if (!f || !dwfl_module_getelf(mod, &bias))
			continue;
		dwfl_module_info(mod, NULL, NULL, &high, NULL, NULL, NULL, NULL);
		if (!f->syms.built)
			sym_table_build(&f->syms, mod, bias, high - bias);
		for (size_t k = 0; k < f->syms.nr; k++) {
			const struct sym *e = &f->syms.v[k];

			if (strcmp(e->name, name))
				continue;
			*out = (struct data_symbol){ .name = e->name, .start = e->start + bias,
						     .size = e->size, .is_symbol = true,
						     .kind = MAPPING_FILE };
			return true;
		}
	}
	return false;
}

struct Dwfl_Module *symbolizer_module(struct symbolizer *s, pid_t pid,
				      uint64_t addr, uint64_t *bias)
{
	struct proc *p = proc_get(s, pid);
	Dwfl_Module *mod = p ? proc_module(s, p, addr) : NULL;
	Dwarf_Addr b = 0;

	/* The DWARF bias, which is what DWARF addresses need; a separate
	 * debug file may in principle be linked elsewhere than the binary. */
	if (mod && !dwfl_module_getdwarf(mod, &b))
		dwfl_module_getelf(mod, &b);
	if (bias)
		*bias = mod ? b : 0;
	return mod;
}

/* ---- bytes ------------------------------------------------------------- */

static size_t read_process(pid_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

size_t symbolizer_read(struct symbolizer *s, pid_t pid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	struct proc *p = proc_get(s, pid);
	const struct mapping *m = p ? maps_find(&p->maps, addr) : NULL;

	if (!m || !len)
		return 0;
	if (len > m->end - addr)
		len = m->end - addr;
	if (m->kind == MAPPING_FILE) {
		int fd = file_fd(s, file_get(s, m->name));
		ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, (off_t)(addr - m->start + m->pgoff));

		if (n > 0)
			return n;
	}
	/* JIT code, or a file we cannot open (deleted, other mount namespace). */
	return read_process(pid, addr, buf, len);
}
