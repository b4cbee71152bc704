/* symbolizer_internal.h - what the symbolizer's files share, and nothing
 * outside symbolize/symbolizer*.c may include.
 *
 * One struct symbolizer holds a struct proc per pid (its mapping table,
 * libdwfl session, answer cache and perf map) and a struct elf_file per
 * mapped path (descriptor, PT_LOAD segments, symbol and CU indexes, shared
 * by every pid).  Every string handed out is interned with intern_str()
 * or intern_demangled() and lives until symbolizer_free().  The lookup_*
 * functions fill one cached answer; symbolizer.c's answer() caches them.
 */
#ifndef CONTEND_SYMBOLIZER_INTERNAL_H
#define CONTEND_SYMBOLIZER_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "symbolize/symbolizer.h"
#include "common/hashmap.h"

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
	uint16_t e_machine;		/* EM_*: which decoder reads its code */
	bool language_known;		/* language worked out */
	uint8_t language;		/* enum code_language (symbolizer_language()) */
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
	pid_t ns_pid;			/* the pid it sees itself as; 0: not read, -1: unknown */
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
	struct maptable maps;		/* live: what is mapped now */
	/* Versions (symbolizer.h): the last mapping seen at each address,
	 * mapped or not, and per version the mappings that left the live
	 * table (procs of their own: maps, session, cache; NULL until one) */
	struct maptable seen;
	struct proc **past;
	size_t n_past;
	Dwfl *dwfl;			/* NULL until the first report */
	/* The process it was forked from (or that one's lender): its session
	 * serves every file mapped here as there, so that 200 forked children
	 * do not each load the same DWARF (proc_module()); NULL if none. */
	struct proc *lender;
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
	bool offline;			/* symbolizer_set_offline() */
	uid_t map_owner;		/* whose /tmp/perf-PID.map we trust (and root's) */
	bool sampling_done;		/* unpinned addresses mean version 0 */
};

/* symbolizer.c: strings and pids */
const char *intern_str(struct symbolizer *s, const char *str);   /* NULL passes */
const char *intern_demangled(struct symbolizer *s, const char *name);
struct proc *proc_get(struct symbolizer *s, pid_t pid);
struct proc *proc_get_or_new(struct symbolizer *s, pid_t pid);
/* Forget the pid's libdwfl session; the next lookup builds a new one. */
void proc_retire_dwfl(struct symbolizer *s, struct proc *p);

/* symbolizer_maps.c: the proc that answers for a (maybe pinned) address,
 * whose pin *addr loses; NULL for an unknown pid */
struct proc *proc_at(struct symbolizer *s, pid_t pid, uint64_t *addr);
void proc_free(void *v);
/* symbolizer_maps.c: the mapping holding addr (index t->nr / NULL if none) */
size_t maps_index(const struct maptable *t, uint64_t addr);
const struct mapping *maps_find(const struct maptable *t, uint64_t addr);

/* symbolizer_elf.c: modules and ELF symbols */
Dwfl_Module *proc_module(struct symbolizer *s, struct proc *p, uint64_t addr);
struct elf_file *module_file(Dwfl_Module *mod);
bool lookup_function(struct symbolizer *s, struct proc *p, uint64_t addr,
		     struct func_info *out);
bool lookup_data(struct symbolizer *s, struct proc *p, uint64_t addr,
		 struct data_symbol *out);

/* symbolizer_jit.c: the perf map's function around addr */
bool jit_lookup(struct symbolizer *s, struct proc *p, uint64_t addr,
		struct func_info *out);

/* symbolizer_dwarf.c: module, file, line and inlining of addr */
unsigned lookup_inline_callers(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			       struct source_loc *out, unsigned max);
bool lookup_source(struct symbolizer *s, struct proc *p, uint64_t addr,
		   struct source_loc *out);

/* symbolizer_paths.c: file named by a CU's DWARF, absolute and interned */
const char *absolute_source(struct symbolizer *s, Dwarf_Die *cudie, const char *file);

#endif
