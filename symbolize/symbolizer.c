/* symbolizer.c - the symbolizer object: its pids, its string pool, and the
 * per-(pid, address) answer cache behind the public lookups.
 *
 * The work is spread by job (symbolizer_internal.h): mapping tables
 * (symbolizer_maps.c), ELF files, libdwfl modules and symbols
 * (symbolizer_elf.c), DWARF lines and inlining (symbolizer_dwarf.c),
 * source file names (symbolizer_paths.c) and perf maps of JIT code
 * (symbolizer_jit.c).
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"
#include "symbolize/symbolizer_internal.h"
#include "common/hashmap.h"
#include "common/util.h"

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	long page = sysconf(_SC_PAGESIZE);

	s->page_size = page > 0 ? (uint64_t)page : 4096;
	s->map_owner = geteuid();
	hashmap_init(&s->procs, sizeof(uint64_t));
	hashmap_init(&s->files, sizeof(const char *));
	elf_version(EV_CURRENT);
	return s;
}

void symbolizer_set_map_owner(struct symbolizer *s, uid_t uid)
{
	s->map_owner = uid;
}

void symbolizer_set_offline(struct symbolizer *s)
{
	s->offline = true;
}

void proc_free(void *v)
{
	struct proc *p = v;

	for (size_t i = 0; i < p->n_past; i++)
		if (p->past[i])
			proc_free(p->past[i]);
	free(p->past);
	free(p->seen.v);
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

const char *intern_str(struct symbolizer *s, const char *str)
{
	return str ? strset_intern(&s->strings, str) : NULL;
}

struct proc *proc_get(struct symbolizer *s, pid_t pid)
{
	uint64_t key = (uint64_t)pid;

	return hashmap_get(&s->procs, &key);
}

struct proc *proc_get_or_new(struct symbolizer *s, pid_t pid)
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
void proc_retire_dwfl(struct symbolizer *s, struct proc *p)
{
	if (p->dwfl) {
		ALLOC_GROW(s->retired, s->nr_retired + 1, s->alloc_retired);
		s->retired[s->nr_retired++] = p->dwfl;
		p->dwfl = NULL;
	}
	p->nr_mods = 0;
}

const char *intern_demangled(struct symbolizer *s, const char *name)
{
	return name ? strset_own(&s->strings, demangle(name)) : NULL;
}

/* ---- cached entry points ----------------------------------------------- */

/* The answers for (pid, addr), with the one asked for (a DONE_* bit)
 * looked up if it was not yet.  NULL for a pid without mappings. */
static struct addr_info *answer(struct symbolizer *s, pid_t pid, uint64_t addr,
				unsigned what)
{
	struct proc *p = proc_at(s, pid, &addr);
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
	uint64_t pin = addr - symbolizer_plain(addr);

	*out = found ? ai->func : (struct func_info){ 0 };
	if (found && out->end) {
		out->start |= pin;
		out->end |= pin;
	}
	return found;
}

uint8_t *symbolizer_function_code(struct symbolizer *s, pid_t pid, uint64_t addr,
				  size_t max_bytes, struct func_info *fi, size_t *len)
{
	uint8_t *code;

	if (!symbolizer_function(s, pid, addr, fi) || fi->end <= fi->start ||
	    addr < fi->start || addr >= fi->end || fi->end - fi->start > max_bytes)
		return NULL;
	code = xmalloc(fi->end - fi->start);
	if (!(*len = symbolizer_read(s, pid, fi->start, code, fi->end - fi->start))) {
		free(code);
		return NULL;
	}
	return code;
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

unsigned symbolizer_inline_callers(struct symbolizer *s, pid_t pid, uint64_t addr,
				   struct source_loc *out, unsigned max)
{
	struct proc *p = proc_at(s, pid, &addr);
	Dwfl_Module *mod = p && p->maps.nr ? proc_module(s, p, addr) : NULL;

	return mod ? lookup_inline_callers(s, mod, addr, out, max) : 0;
}

bool symbolizer_data_symbol(struct symbolizer *s, pid_t pid, uint64_t addr,
			    struct data_symbol *out)
{
	struct addr_info *ai = answer(s, pid, addr, DONE_DATA);
	bool found = ai && (ai->found & DONE_DATA);

	*out = found ? ai->data : (struct data_symbol){ 0 };
	if (found && out->start)
		out->start |= addr - symbolizer_plain(addr);
	return found;
}

bool symbolizer_maps_file(struct symbolizer *s, pid_t pid, bool (*match)(const char *path))
{
	struct proc *p = proc_get(s, pid);

	for (size_t i = 0; p && i < p->maps.nr; i++)
		if (p->maps.v[i].name && match(p->maps.v[i].name))
			return true;
	return false;
}
