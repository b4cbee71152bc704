/* symbolizer.h - addresses of a sampled process to names.
 *
 * One symbolizer serves every address space (pid) seen in a session.  It
 * keeps a mapping table per pid, fed from perf MMAP2 records and/or
 * /proc/PID/maps, and reports file-backed mappings to a libdwfl session of
 * that pid, so that it keeps working after the process has exited (the
 * report is printed after the target is gone).  Lookups are cached; each
 * distinct address costs libdwfl work once.
 *
 * Strings returned in the info structs are owned by the symbolizer and live
 * until symbolizer_free().  Missing debug info degrades: file/line NULL,
 * then function NULL; lookups never abort.
 */
#ifndef CONTEND_SYMBOLIZER_H
#define CONTEND_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/procfs.h"

struct symbolizer;

enum mapping_kind {
	MAPPING_FILE,     /* file-backed (binary, library, mapped file) */
	MAPPING_HEAP,     /* [heap] */
	MAPPING_STACK,    /* [stack], or a thread stack we learnt of */
	MAPPING_ANON,     /* anonymous (malloc arenas, mmap, JIT code) */
	MAPPING_VDSO,     /* [vdso], [vsyscall], [vvar] */
};

struct mapping {
	uint64_t start, end;      /* [start, end) */
	uint64_t pgoff;
	uint32_t prot;            /* PROT_READ | PROT_WRITE | PROT_EXEC */
	enum mapping_kind kind;
	const char *name;         /* path, or "[heap]", "[anon]", ... */
	struct map_object obj;    /* the file (or shmem) mapped; ino 0: unknown */
	uint8_t version;          /* see "Versions" below */
};

struct func_info {
	const char *name;         /* demangled; NULL if no symbol */
	uint64_t start, end;      /* [start, end) of the symbol; 0,0 if unknown */
};

struct source_loc {
	const char *function;     /* innermost function (inline-aware), may be NULL */
	const char *file;         /* may be NULL */
	int line;                 /* 0 if unknown */
	const char *inlined_into; /* outer function when 'function' was inlined, else NULL */
	const char *via;          /* a system header's function (std::atomic's
	                             fetch_add) inlined at file:line, else NULL */
	const char *module;       /* binary or library basename */
	uint64_t module_off;      /* address relative to the module's load bias */
};

struct data_symbol {
	const char *name;         /* ELF symbol (object) or mapping name */
	uint64_t start, size;     /* of the symbol, or of the mapping */
	bool is_symbol;           /* false: name is a mapping */
	enum mapping_kind kind;
};

/* A header of the compiler or the C/C++ library (/usr/include, gcc's and
 * clang's own, libstdc++), or Rust's standard library (/rustc/<commit>/
 * library/...): code inlined from there (std::atomic's fetch_add,
 * AtomicU64::fetch_add) is the user's code that called it, for every
 * reader. */
bool symbolizer_system_source(const char *file);
/* A source file a CU names relative to its compilation directory (a
 * VPATH build's "../src/x.c"), made absolute and normalized: malloc'd, or
 * NULL when file is absolute already or comp_dir is not. */
char *symbolizer_source_under(const char *comp_dir, const char *file);
/* A library the system installed (/usr/lib/..., /lib/...: libc,
 * libstdc++), by its mapped path: its code is not the user's. */
bool symbolizer_system_module(const char *path);

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* JIT names come from /tmp/perf-PID.map only when it is a regular file
 * (not a symlink) owned by uid or root: anyone can plant that name for a
 * pid.  uid is the target's (its fs uid); until set, our own euid. */
void symbolizer_set_map_owner(struct symbolizer *s, uid_t uid);
/* The processes the mappings name are gone (a data file's, a perf.data's):
 * read no process's memory, for its pid may be another's now.  Code not
 * in a file (JIT) stays unread. */
void symbolizer_set_offline(struct symbolizer *s);

/* Versions.  A pid's mappings change while it is sampled: dlclose() then
 * dlopen() of another library at the same addresses, an exec.  As perf
 * names a sample by the MMAP records before it, each mapping has a
 * version: 0 for the first file mapped at its addresses, one more than
 * the last one seen there (even if since unmapped) for a different file
 * (up to 255); the same file, or anonymous memory (.bss), keeps it.  A
 * mapping replaced or gone stays, under its version, for lookups.
 *
 * symbolizer_versioned() pins a code address to the version of the
 * mapping that holds it now, in the address's top byte (user addresses
 * have 47 bits), when that version is not 0: call it as each sample is
 * taken.  A pinned address is answered from the mappings of its version;
 * an unpinned one from the live table while sampling goes on, and from
 * version 0 once symbolizer_sampling_done() says it is over (what was
 * sampled before any remapping).  Addresses given back for a pinned one
 * (function bounds, module bias, symbol start) carry the same pin, so
 * arithmetic between them holds; print symbolizer_plain(addr).
 * Data addresses, call chains and watchpoint hits are not pinned. */
#define SYMBOLIZER_VERSION_SHIFT 56
uint64_t symbolizer_versioned(struct symbolizer *s, pid_t pid, uint64_t addr);
void symbolizer_sampling_done(struct symbolizer *s);
static inline uint64_t symbolizer_plain(uint64_t addr)
{
	return addr & ((UINT64_C(1) << SYMBOLIZER_VERSION_SHIFT) - 1);
}

/* Mapping table.  add_mapping replaces whatever overlapped the range. */
void symbolizer_add_mapping(struct symbolizer *s, pid_t pid, uint64_t start,
			    uint64_t len, uint64_t pgoff, uint32_t prot,
			    const char *filename);
/* The same, knowing the object mapped (perf's MMAP2 device and inode). */
void symbolizer_add_mapping_object(struct symbolizer *s, pid_t pid, uint64_t start,
				   uint64_t len, uint64_t pgoff, uint32_t prot,
				   const char *filename, const struct map_object *obj);
int symbolizer_load_proc_maps(struct symbolizer *s, pid_t pid);  /* -1 if unreadable or empty (zombie): table kept */
void symbolizer_fork(struct symbolizer *s, pid_t parent, pid_t child);
void symbolizer_exec(struct symbolizer *s, pid_t pid);   /* forget pid's mappings */
const struct mapping *symbolizer_find_mapping(struct symbolizer *s, pid_t pid,
					      uint64_t addr);

/* Code. */
bool symbolizer_function(struct symbolizer *s, pid_t pid, uint64_t addr,
			 struct func_info *out);
bool symbolizer_source(struct symbolizer *s, pid_t pid, uint64_t addr,
		       struct source_loc *out);
/* The call sites that inlined the code at addr, innermost first: out[i]
 * is the function and file:line where the inlined function of out[i-1]
 * (of addr's code for i = 0) was called, up to max.  What a stack walk
 * cannot show of -O2 code (a static malloc wrapper inlined into its
 * caller).  Only function, file and line are set; 0 without DWARF or
 * when addr's code was not inlined. */
unsigned symbolizer_inline_callers(struct symbolizer *s, pid_t pid, uint64_t addr,
				   struct source_loc *out, unsigned max);
/* The ELF machine (EM_*) of the file mapped at addr, which says how to
 * decode its code; EM_NONE (0) for anonymous memory or no ELF file. */
unsigned symbolizer_machine(struct symbolizer *s, pid_t pid, uint64_t addr);
/* The language the file mapped at addr was compiled from, told without
 * debug info: rustc signs .comment ("rustc version ...") or, before that,
 * its symbol table holds the standard library's rust_eh_personality; the
 * Go linker writes .go.buildinfo and .note.go.buildid.  CODE_LANG_UNKNOWN
 * for the rest (C and C++ alike: their DWARF, where there is some, tells;
 * and a stripped Rust binary). */
enum code_language { CODE_LANG_UNKNOWN, CODE_LANG_RUST, CODE_LANG_GO };
enum code_language symbolizer_language(struct symbolizer *s, pid_t pid, uint64_t addr);
/* Bytes of code (or data) at addr: from the backing file, else from the
 * live process (/proc/PID/mem).  Returns bytes read, 0 if none. */
size_t symbolizer_read(struct symbolizer *s, pid_t pid, uint64_t addr,
		       uint8_t *buf, size_t len);
/* The code of the function holding addr, read whole (symbolizer_read),
 * in a buffer the caller frees: *fi its bounds, *len the bytes read
 * (fewer where the rest could not be).  NULL where addr has no function,
 * or it is over max_bytes (decoding costs about 0.6 us an instruction:
 * each caller caps what it will pay), or none of it can be read. */
uint8_t *symbolizer_function_code(struct symbolizer *s, pid_t pid, uint64_t addr,
				  size_t max_bytes, struct func_info *fi, size_t *len);

/* Data: the ELF object symbol containing addr, else its mapping. */
bool symbolizer_data_symbol(struct symbolizer *s, pid_t pid, uint64_t addr,
			    struct data_symbol *out);

/* Does pid map a file whose path match() accepts (hotspot_is_libjvm_path,
 * say)?  Looks at the mapping table only: no file is opened. */
bool symbolizer_maps_file(struct symbolizer *s, pid_t pid, bool (*match)(const char *path));

/* The ELF symbol (code or data) called name in any file pid maps, as
 * written in the symbol table (not demangled); start is absolute. */
bool symbolizer_find_symbol(struct symbolizer *s, pid_t pid, const char *name,
			    struct data_symbol *out);

/* The libdwfl module for addr, and its load bias, for DWARF-level lookups
 * (data_types.h).  NULL if addr is not in a reported file. */
struct Dwfl_Module;
struct Dwfl_Module *symbolizer_module(struct symbolizer *s, pid_t pid,
				      uint64_t addr, uint64_t *bias);

/* The GNU build-id of the file mapped at addr, as lowercase hex into hex
 * (at least 2 * SYMBOLIZER_BUILD_ID_MAX + 1 bytes); false if it has none. */
#define SYMBOLIZER_BUILD_ID_MAX 64
bool symbolizer_build_id(struct symbolizer *s, pid_t pid, uint64_t addr, char *hex,
			 size_t size);

#endif
