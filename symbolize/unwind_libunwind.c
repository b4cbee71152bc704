/* unwind_libunwind.c - the callers of sampled code, with libunwind's
 * remote mode (--call-graph=libunwind), as perf's unwind-libunwind-local.c.
 *
 * libunwind asks its accessors for everything: registers (the sample's),
 * memory (the stack copy, else the mapped files through the symbolizer),
 * and the unwind table of each address.  That table is the module's
 * .eh_frame_hdr binary-search table (PT_GNU_EH_FRAME), handed over as a
 * remote table for dwarf_search_unwind_table() to search.  Modules with
 * only .debug_frame (no .eh_frame_hdr) get no CFI here; libdw reads both.
 *
 * Each pid has its own address space, so that libunwind's cache of
 * parsed CFI serves every sample of that process; the cache is flushed
 * when the module the symbolizer has at an address is not the one seen
 * there before (dlclose then dlopen, exec).  File pages read for the
 * tables are kept in a small cache: libunwind reads a word at a time.
 */
#define UNW_REMOTE_ONLY
#include <libunwind.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer.h"
#include "symbolize/unwind_method.h"
#include "common/util.h"

/* Not in libunwind.h; exported by libunwind and declared so by perf. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define PAGE_CACHE_SLOTS 64
#define PAGE_BYTES 4096u

struct seen_module {
	uint64_t low, high;
	char *name;
};

struct lu_proc {
	pid_t pid;              /* first: unwind_proc_get() */
	unw_addr_space_t as;
	struct seen_module *modules;
	size_t n_modules, alloc_modules;
};

struct cached_page {
	pid_t pid;
	uint64_t addr;          /* page-aligned; 0: empty slot */
	size_t len;
	uint8_t bytes[PAGE_BYTES];
};

struct lu_unwinder {
	struct symbolizer *sym;
	const struct decode_arch *arch;
	struct lu_proc *procs;
	size_t n_procs, alloc_procs;
	struct cached_page *pages;      /* PAGE_CACHE_SLOTS, direct-mapped */
	/* the sample being unwound, for the accessors */
	struct lu_proc *proc;
	const struct regs *regs;
	const uint8_t *stack;
	size_t stack_size;
};

static void *lu_new(struct symbolizer *sym, const struct decode_arch *arch)
{
	struct lu_unwinder *u = xcalloc(1, sizeof(*u));

	u->sym = sym;
	u->arch = arch;
	u->pages = xcalloc(PAGE_CACHE_SLOTS, sizeof(*u->pages));
	return u;
}

static void forget_modules(struct lu_proc *p)
{
	for (size_t i = 0; i < p->n_modules; i++)
		free(p->modules[i].name);
	p->n_modules = 0;
}

static void lu_free(void *state)
{
	struct lu_unwinder *u = state;

	for (size_t i = 0; i < u->n_procs; i++) {
		if (u->procs[i].as)
			unw_destroy_addr_space(u->procs[i].as);
		forget_modules(&u->procs[i]);
		free(u->procs[i].modules);
	}
	free(u->procs);
	free(u->pages);
	free(u);
}

/* ------------------------------------------------------------------ */
/* memory */

/* Bytes of a mapped file at addr, through the page cache. */
static bool file_bytes(struct lu_unwinder *u, uint64_t addr, void *out, size_t len)
{
	uint64_t page = addr & ~(uint64_t)(PAGE_BYTES - 1);
	struct cached_page *c = &u->pages[(page / PAGE_BYTES) % PAGE_CACHE_SLOTS];
	pid_t pid = u->proc->pid;

	if (addr - page + len > PAGE_BYTES)     /* across pages: read directly */
		return symbolizer_read(u->sym, pid, addr, out, len) == len;
	if (c->addr != page || c->pid != pid || !c->addr) {
		const struct mapping *m = symbolizer_find_mapping(u->sym, pid, page);

		if (!m || m->kind != MAPPING_FILE)
			return false;
		c->addr = page;
		c->pid = pid;
		c->len = symbolizer_read(u->sym, pid, page, c->bytes, PAGE_BYTES);
	}
	if (addr - page + len > c->len)
		return false;
	memcpy(out, c->bytes + (addr - page), len);
	return true;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
		      int write, void *arg)
{
	struct lu_unwinder *u = arg;
	uint64_t sp = u->regs->val[u->arch->perf_sp];
	uint64_t word;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (addr >= sp && u->stack_size >= sizeof(word) &&
	    addr - sp <= u->stack_size - sizeof(word))
		memcpy(&word, u->stack + (addr - sp), sizeof(word));
	else if (!file_bytes(u, addr, &word, sizeof(word)))
		return -UNW_EINVAL;     /* not the stack, not a file: changed since */
	*valp = word;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp,
		      int write, void *arg)
{
	struct lu_unwinder *u = arg;
	int perf;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (regnum == UNW_REG_IP)
		perf = u->arch->perf_ip;
	else if (regnum == UNW_REG_SP)
		perf = u->arch->perf_sp;
	else if (regnum >= 0 && (unsigned)regnum < u->arch->n_dwarf_regs)
		perf = u->arch->perf_reg_of_dwarf[regnum];
	else
		return -UNW_EBADREG;
	if (!(u->regs->mask & 1ULL << perf))
		return -UNW_EBADREG;
	*valp = u->regs->val[perf];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as, (void)num, (void)val, (void)write, (void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as, (void)cu, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			 unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)bufp, (void)buf_len, (void)offp, (void)arg;
	return -UNW_EINVAL;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	(void)as, (void)dilap, (void)arg;
	return -UNW_ENOINFO;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

/* ------------------------------------------------------------------ */
/* unwind tables */

/* The size of a DW_EH_PE-encoded value, 0 for what we do not read. */
static unsigned encoded_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: return 8;
	case DW_EH_PE_absptr: return 8;
	default: return 0;
	}
}

/* A value of size bytes, unsigned, relative to nothing: fde_count. */
static bool read_count(struct lu_unwinder *u, uint64_t addr, uint8_t enc, uint64_t *out)
{
	unsigned size = encoded_size(enc);
	uint32_t v4;

	if (size == 4 && file_bytes(u, addr, &v4, 4)) {
		*out = v4;
		return true;
	}
	return size == 8 && file_bytes(u, addr, out, 8);
}

/*
 * The .eh_frame_hdr search table of the module at ip, as a remote table
 * for dwarf_search_unwind_table().  The table must be what every linker
 * writes: 4-byte entries relative to the header (datarel | sdata4).
 */
static bool eh_frame_table(struct lu_unwinder *u, Dwfl_Module *mod, unw_dyn_info_t *di)
{
	Dwarf_Addr bias, low, high;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n_phdrs;
	uint8_t hdr[4];
	uint64_t at = 0, count;

	if (!elf || elf_getphdrnum(elf, &n_phdrs))
		return false;
	for (size_t i = 0; i < n_phdrs && !at; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			at = ph.p_vaddr + bias;
	}
	/* version 1; eh_frame_ptr, fde_count and table encodings */
	if (!at || !file_bytes(u, at, hdr, sizeof(hdr)) || hdr[0] != 1 ||
	    !encoded_size(hdr[1]) || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    !read_count(u, at + 4 + encoded_size(hdr[1]), hdr[2], &count))
		return false;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	memset(di, 0, sizeof(*di));
	di->format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di->start_ip = low;
	di->end_ip = high;
	di->u.rti.segbase = at;
	di->u.rti.table_data = at + 4 + encoded_size(hdr[1]) + encoded_size(hdr[2]);
	di->u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return true;
}

/*
 * Has the module at [low, high) changed since this process's cache saw
 * it?  Then the cached CFI is another file's: flush it.
 */
static void check_module(struct lu_proc *p, Dwfl_Module *mod)
{
	Dwarf_Addr low, high;
	const char *name = dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	struct seen_module *m;

	name = name ? name : "";
	for (size_t i = 0; i < p->n_modules; i++) {
		m = &p->modules[i];
		if (m->low == low && m->high == high && !strcmp(m->name, name))
			return;
		if (m->low < high && low < m->high) {
			unw_flush_cache(p->as, 0, 0);
			forget_modules(p);
			break;
		}
	}
	ALLOC_GROW(p->modules, p->n_modules + 1, p->alloc_modules);
	p->modules[p->n_modules++] = (struct seen_module){ low, high, xstrdup(name) };
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct lu_unwinder *u = arg;
	Dwfl_Module *mod = symbolizer_module(u->sym, u->proc->pid, ip, NULL);
	unw_dyn_info_t di;

	if (!mod)
		return -UNW_ENOINFO;    /* JIT code: the frame-pointer fallback */
	check_module(u->proc, mod);
	if (!eh_frame_table(u, mod, &di))
		return -UNW_ENOINFO;
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* ------------------------------------------------------------------ */

static struct lu_proc *proc_get(struct lu_unwinder *u, pid_t pid)
{
	struct lu_proc *p = unwind_proc_get(&u->procs, &u->n_procs, &u->alloc_procs,
					    sizeof(*u->procs), pid);

	if (!p->as && (p->as = unw_create_addr_space(&accessors, 0)))
		unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	return p;
}

static unsigned lu_callers(void *state, pid_t pid, const struct regs *regs,
			   const uint8_t *stack, size_t stack_size,
			   uint64_t *pcs, unsigned max)
{
	struct lu_unwinder *u = state;
	unw_cursor_t c;
	unsigned n = 0;
	bool interrupted = false;       /* the frame below was a signal frame */

	/* code in no file (JIT): the frame-pointer walk, as with libdw,
	 * rather than libunwind's own guess from rbp */
	if (!symbolizer_module(u->sym, pid, regs->val[u->arch->perf_ip], NULL))
		return 0;
	u->proc = proc_get(u, pid);
	if (!u->proc->as)
		return 0;
	u->regs = regs;
	u->stack = stack;
	u->stack_size = stack_size;
	if (unw_init_remote(&c, u->proc->as, u) < 0)
		return 0;
	do {
		unw_word_t ip;

		interrupted = unw_is_signal_frame(&c) > 0;
		if (unw_step(&c) <= 0 || unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		/* a return address is one past its call; an interrupted
		 * frame stopped at the pc itself */
		pcs[n++] = interrupted ? ip : ip - 1;
	} while (n < max);
	return n;
}

const struct unwind_method unwind_libunwind = {
	.name = "libunwind",
	.library = "libunwind",
	.new = lu_new,
	.free = lu_free,
	.callers = lu_callers,
};
