/* symbolizer_elf.c - the files mapped into a pid, reported lazily to its
 * libdwfl session at the bias their mapping implies; ELF symbols of code
 * and data; reading code bytes back.
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

#include "symbolize/symbolizer.h"
#include "symbolize/symbolizer_internal.h"
#include "common/hashmap.h"
#include "common/procfs.h"
#include "common/sorted.h"
#include "common/util.h"

/* Files kept open for symbolizer_read; past this many, all are closed
 * and reopened on demand.  libdwfl holds its own descriptors. */
#define FD_CACHE_MAX 64

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void file_close(struct symbolizer *s, struct elf_file *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
		s->nr_open_fds--;
	}
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
/* Whether a symbol table names what only Rust's standard library
 * defines: rustc before 1.65 or so (Debian 12's 1.63) leaves no mark in
 * .comment. */
static bool rust_symbols(Elf *elf, Elf_Scn *symtab, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(symtab, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		if (!strcmp(name, "rust_eh_personality") || !strcmp(name, "rust_begin_unwind"))
			return true;
	}
	return false;
}

/* What the sections say of the language (symbolizer_language()). */
static enum code_language elf_language(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL, *symtab = NULL;
	GElf_Shdr symtab_sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return CODE_LANG_UNKNOWN;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid"))
			return CODE_LANG_GO;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symtab_sh = sh;
		}
		if (strcmp(name, ".comment") || sh.sh_type != SHT_PROGBITS ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		/* NUL-separated strings, one per tool that touched the file */
		for (size_t at = 0; at < d->d_size; ) {
			const char *str = (const char *)d->d_buf + at;
			size_t len = strnlen(str, d->d_size - at);

			if (len >= 14 && !strncmp(str, "rustc version ", 14))
				return CODE_LANG_RUST;
			at += len + 1;
		}
	}
	return symtab && rust_symbols(elf, symtab, &symtab_sh) ? CODE_LANG_RUST :
	       CODE_LANG_UNKNOWN;
}

/* The language of f, worked out on the first question (a symbol table
 * may be long: not for every file decoded). */
static enum code_language file_language(struct symbolizer *s, struct elf_file *f)
{
	Elf *elf;
	int fd;

	if (f->language_known)
		return (enum code_language)f->language;
	f->language_known = true;
	fd = file_fd(s, f);
	if (fd < 0)
		return CODE_LANG_UNKNOWN;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		f->language = (uint8_t)elf_language(elf);
	elf_end(elf);
	return (enum code_language)f->language;
}

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
		if (f->nr_segs) {
			f->e_type = ehdr.e_type;
			f->e_machine = ehdr.e_machine;
		}
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

/*
 * Is the file at m's path still the one the process mapped?  A build
 * replaces a binary under a running program (the linker writes a new file
 * at the path); libelf maps the file it opens, and one still being
 * written raises SIGBUS when read past its end.  Same filesystem and
 * another inode: replaced, not ours to read.  Another device (overlayfs
 * shows the layer's in the maps) or an unknown inode: cannot tell.
 */
static bool mapped_file_unchanged(const struct mapping *m)
{
	struct stat st;

	if (!m->obj.ino)
		return true;
	if (stat(m->name, &st) < 0)
		return false;
	return st.st_dev != m->obj.dev || st.st_ino == m->obj.ino;
}

static bool deleted_name(const char *name)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(name);

	return n > sizeof(suffix) - 1 && !strcmp(name + n - (sizeof(suffix) - 1), suffix);
}

/* Is path a regular file, the very inode m maps?  Not ours otherwise (a
 * pid reused since a recording, another build at the path). */
static bool is_mapped_inode(const char *path, const struct mapping *m)
{
	struct stat st;

	return m->obj.ino && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_ino == m->obj.ino && st.st_dev == m->obj.dev;
}

/* Without map_files (not root): the path as the process sees it, through
 * its root (a container's files), when that is the inode it mapped. */
static const char *in_process_root(struct symbolizer *s, pid_t pid, const struct mapping *m)
{
	char *alt;
	const char *ret = NULL;

	if (s->offline || m->name[0] != '/' || deleted_name(m->name))
		return NULL;
	alt = xasprintf("/proc/%d/root%s", (int)pid, m->name);
	if (is_mapped_inode(alt, m))
		ret = intern_str(s, alt);
	free(alt);
	return ret;
}

/*
 * The file to read m's ELF headers, symbols and code from: its path while
 * that is still the file the process mapped; else (deleted, or replaced
 * by a package upgrade under a long-lived server, or a container's file
 * the host has not at that path) the process's own link to the mapped
 * inode, /proc/PID/map_files/START-END (root, or CAP_SYS_ADMIN), else the
 * path through its root, /proc/PID/root/PATH, while the process lives and
 * either names that inode.  NULL if none: then nothing is read from a
 * file for m.  A file already
 * open was checked when it was opened: its descriptor keeps that inode.
 */
static const char *mapping_path(struct symbolizer *s, pid_t pid, const struct mapping *m)
{
	char alt[96];

	if (file_get(s, m->name)->fd >= 0 ||
	    (!deleted_name(m->name) && mapped_file_unchanged(m)))
		return m->name;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		 m->start, m->end);
	if (is_mapped_inode(alt, m))
		return intern_str(s, alt);
	return in_process_root(s, pid, m);
}

static Dwfl_Module *report_mapping(struct symbolizer *s, struct proc *p,
				   const struct mapping *m)
{
	const char *path = mapping_path(s, p->pid, m);
	struct elf_file *f;
	struct module_ref *r;
	Dwfl_Module *mod;
	uint64_t bias;

	if (!path)
		return NULL;
	f = file_get(s, path);
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
	/* named as mapped; read from where the mapped inode still is */
	mod = dwfl_report_elf(p->dwfl, m->name, path, -1, bias, true);
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
/* Whether lender maps the file at addr as p does: same range, offset and
 * object, and so the same module at the same bias. */
static bool lender_maps_alike(const struct proc *p, const struct proc *lender, uint64_t addr)
{
	const struct mapping *a = maps_find(&p->maps, addr), *b = maps_find(&lender->maps, addr);

	return a && b && a->kind == MAPPING_FILE && b->kind == MAPPING_FILE &&
	       a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->name == b->name && a->obj.dev == b->obj.dev && a->obj.ino == b->obj.ino;
}

Dwfl_Module *proc_module(struct symbolizer *s, struct proc *p, uint64_t addr)
{
	Dwfl_Module *mod;
	const struct mapping *m;
	size_t i;

	if (p->dwfl && (mod = dwfl_addrmodule(p->dwfl, addr)))
		return mod;
	if (p->lender && lender_maps_alike(p, p->lender, addr))
		return proc_module(s, p->lender, addr);
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
	sort_items(t->v, t->nr, sizeof(*t->v), sym_cmp);
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
	size_t lo = FIRST_ABOVE(t->v, t->nr, start, a);

	for (size_t k = lo; k-- > 0 && lo - k <= SYM_NESTING;)
		if (!t->v[k].sizeless && sym_contains(&t->v[k], a))
			return &t->v[k];
	if (lo && t->v[lo - 1].sizeless && sym_contains(&t->v[lo - 1], a))
		return &t->v[lo - 1];
	return NULL;
}

/* The file a module was reported from (report_mapping sets it). */
struct elf_file *module_file(Dwfl_Module *mod)
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

/* ---- function and data lookups ---------------------------------------- */

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

bool lookup_function(struct symbolizer *s, struct proc *p, uint64_t addr,
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

bool lookup_data(struct symbolizer *s, struct proc *p, uint64_t addr,
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
	uint64_t pin = addr - symbolizer_plain(addr);
	struct proc *p = proc_at(s, pid, &addr);
	Dwfl_Module *mod = p ? proc_module(s, p, addr) : NULL;
	Dwarf_Addr b = 0;

	/* The DWARF bias, which is what DWARF addresses need; a separate
	 * debug file may in principle be linked elsewhere than the binary.
	 * Pinned like addr: pinned address - bias is the DWARF address. */
	if (mod && !dwfl_module_getdwarf(mod, &b))
		dwfl_module_getelf(mod, &b);
	if (bias)
		*bias = mod ? b | pin : 0;
	return mod;
}

bool symbolizer_build_id(struct symbolizer *s, pid_t pid, uint64_t addr, char *hex,
			 size_t size)
{
	Dwfl_Module *mod = symbolizer_module(s, pid, addr, NULL);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = mod ? dwfl_module_build_id(mod, &bits, &vaddr) : -1;

	if (n <= 0 || n > SYMBOLIZER_BUILD_ID_MAX || size < 2 * (size_t)n + 1)
		return false;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	return true;
}

/* The loadable ELF file mapped at addr, headers read; NULL for anonymous
 * memory or no such file. */
static struct elf_file *elf_file_at(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct proc *p = proc_get(s, pid);
	const struct mapping *m = p ? maps_find(&p->maps, addr) : NULL;
	const char *path = m && m->kind == MAPPING_FILE ? mapping_path(s, pid, m) : NULL;
	struct elf_file *f = path ? file_get(s, path) : NULL;

	return f && file_probe(s, f) ? f : NULL;
}

unsigned symbolizer_machine(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct elf_file *f = elf_file_at(s, pid, addr);

	return f ? f->e_machine : EM_NONE;
}

enum code_language symbolizer_language(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct elf_file *f = elf_file_at(s, pid, addr);

	return f ? file_language(s, f) : CODE_LANG_UNKNOWN;
}

/* ---- bytes ------------------------------------------------------------- */

static size_t read_task(pid_t task, uint64_t addr, uint8_t *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)task);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* /proc/PID/mem of a process whose main thread has exited reads nothing:
 * then through a live thread, which shares the memory. */
static size_t read_process(pid_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t n = read_task(pid, addr, buf, len);
	pid_t task;

	if (n || !(task = process_memory_task(pid)) || task == pid)
		return n;
	return read_task(task, addr, buf, len);
}

size_t symbolizer_read(struct symbolizer *s, pid_t pid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	struct proc *p = proc_at(s, pid, &addr);
	const struct mapping *m = p ? maps_find(&p->maps, addr) : NULL;
	const char *path;

	if (!m || !len)
		return 0;
	if (len > m->end - addr)
		len = m->end - addr;
	path = m->kind == MAPPING_FILE ? mapping_path(s, pid, m) : NULL;
	if (path) {
		int fd = file_fd(s, file_get(s, path));
		ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, (off_t)(addr - m->start + m->pgoff));

		if (n > 0)
			return n;
	}
	/* JIT code, or a file we cannot open (deleted, other mount namespace). */
	return s->offline ? 0 : read_process(pid, addr, buf, len);
}
