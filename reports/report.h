/* report.h - the report model: what every output format prints.
 *
 * report_build() (reports/report_finish.h) turns a line table into
 * ranked, symbolized, classified lines (with advice); the printers
 * (printers/) render it, reading this header and nothing else of the
 * analysis.  The model owns all its strings; report_free() releases
 * everything.
 * Nothing here knows which backend produced the samples, except the
 * header's backend name.
 *
 * Reads and writes, everywhere (threads, sites, ranges, members, watched
 * words): reads are accesses that only read, writes accesses that write.
 * A read-modify-write (add %rax,(mem); lock add, xadd, cmpxchg, xchg) is
 * one access, counted once, as a write: so reads + writes are the
 * accesses, and sampled and watched counts agree (a watchpoint sees an
 * RMW as one write: RW - W = 0 reads).  Classification still knows it
 * reads (sample.h access_kind_reads): its thread is among a member's
 * readers as well as its writers.
 */
#ifndef CONTEND_REPORT_H
#define CONTEND_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "detector/alloc_fix.h"
#include "detector/classify.h"
#include "detector/instruments.h"
#include "detector/line_table.h"
#include "detector/run_facts.h"

struct symbolizer;
struct data_types;
struct report_fix_run;
struct callchains;
struct proc_creds;

/* What a hardware backend said about the samples (data_src.h); all 0
 * with soft.  Printed when the report's mem_info is set. */
struct report_mem {
	uint64_t hitm_local, hitm_remote;   /* loads: line modified in another core */
	uint64_t peer;                /* loads: from a peer core's cache, not HITM */
	uint64_t latency;             /* sum of sample weights, cycles */
	uint64_t weighted;            /* samples with a weight: mean = latency/weighted */
};

struct report_thread {
	uint32_t tid;
	uint32_t pid;                 /* its process (0: unknown) */
	char *comm;                   /* thread name, may be NULL */
	uint64_t reads, writes;       /* samples on the line/range (above) */
	struct report_mem mem;
};

struct report_chain {              /* a call chain of a site (-g) */
	char **frames;               /* callers, innermost first: "worker f.c:80" */
	unsigned n_frames;           /* at most REPORT_CHAIN_FRAMES */
	uint64_t count;              /* samples (line_table.h: may overstate) */
};

#define REPORT_CHAIN_FRAMES 8
/* Sites' code addresses carry the analysis's mapping version in their top
 * byte (report_code_addr() below; symbolizer.h asserts they agree). */
#define REPORT_CODE_VERSION_SHIFT 56
#define REPORT_SITE_CHAINS 4        /* most sampled first */

struct report_site {
	uint64_t ip;
	uint32_t pid;                 /* the process whose code ip is */
	char *function;               /* NULL if unknown: print module+0xoff */
	char *file;                   /* NULL if unknown */
	int line;
	char *inlined_into;           /* NULL unless inlined */
	char *via;                    /* library function inlined here (source_loc) */
	char *module;
	uint64_t module_off;
	/* the mapping of ip's code, for pprof's Mapping: [map_start, map_end)
	 * at offset map_pgoff of the module's file, and the file's GNU
	 * build-id in hex (NULL if none); 0s where ip is in no mapping */
	uint64_t map_start, map_end, map_pgoff;
	char *build_id;
	uint64_t reads, writes;
	struct report_chain *chains; /* empty without -g */
	unsigned n_chains;
};

struct report_range {
	unsigned offset, size;        /* within the line */
	char *member;                 /* "counters[1]", "secondary_super_cache", NULL */
	bool true_shared, false_victim, false_writer;
	uint64_t reads, writes;       /* all samples on this range */
	struct report_mem mem;
	struct report_thread *threads;
	unsigned n_threads;
	struct report_site *sites;
	unsigned n_sites;
};

struct report_member {              /* a member of the contended struct */
	char *name;
	char *type_name;
	uint64_t offset, size;       /* in the struct */
	uint8_t access;              /* enum member_access (data_types.h) */
	bool base;                   /* a C++ base class (name NULL) */
	unsigned decl_line;          /* in the struct's decl.file, 0: unknown */
	uint64_t reads, writes;      /* samples */
	uint32_t *writers, *readers; /* tids */
	unsigned n_writers, n_readers;
};

/*
 * A struct layout as rows (advice.h): what a tool applying the fix reads.
 * Offsets are in the struct (or the array element) as laid out; a row's
 * padding_before is the hole between it and the end of the rows before
 * it.  Alignments are upper bounds where the compiler's are unknown (a
 * member's divides its offset, its size and the struct's), so a proposal
 * never claims less padding than it needs.
 */
struct report_layout_row {
	char *member;                /* "secondary_super_cache", NULL: anonymous */
	char *type_name;             /* as declared: "Klass *[8]", NULL: unknown */
	uint64_t offset, size, align;
	uint64_t padding_before;     /* hole before it, bytes */
	long line;                   /* its first byte's cache line, from the one
	                                the instance starts in; -1: unknown */
	bool line_aligned;           /* proposed: starts a line (_Alignas) */
	uint8_t access;              /* enum member_access: C++'s label */
	bool base;                   /* a C++ base class: a comment, never moved */
	bool hidden;                 /* elided from the printed layout */
	char *comment;               /* a comment printed before it, or NULL */
	uint32_t *writers, *readers; /* current: tids, as the member's */
	unsigned n_writers, n_readers;
	uint64_t accesses;           /* current: sampled reads + writes */
	double share;                /* accesses / all rows' accesses, 0..1 */
};

enum report_layout_style {
	LAYOUT_PAHOLE,               /* offsets, sizes, holes, line boundaries */
	LAYOUT_PLAIN,                /* bare C: a padded element or variable */
};

struct report_layout {
	enum report_layout_style style;
	char *title;                 /* "struct Klass", NULL: no layout */
	uint64_t size, align;
	uint64_t tail_padding;       /* bytes after the last row */
	unsigned line_size;
	bool placed;                 /* where it starts in a line is known */
	uint64_t line_offset;        /*   and this is that offset */
	bool annotated;              /* rows carry writers/readers/share */
	bool cxx;                    /* spell alignas, not _Alignas */
	bool rust;                   /* spell it as Rust (advice_text.c) */
	bool go;                     /* spell it as Go: no alignment, pad fields */
	bool pad_member;             /* plain: spell the tail as char pad[N] */
	uint64_t accesses;           /* all rows' accesses */
	char *before;                /* comment lines before the C, or NULL */
	char *declares;              /* plain: "} counter;", NULL: "};" */
	char *closing_comment;       /* plain: on the closing line, or NULL */
	char *after;                 /* comment lines after it (notes, cost) */
	struct report_layout_row *rows;
	unsigned n_rows;
};

struct report_advice {
	char *summary;               /* one sentence: what to do */
	struct report_layout current;    /* title NULL if no struct layout */
	struct report_layout proposed;   /* title NULL if none (true sharing) */
	/* Deprecated: the two layouts as text (advice_layout_text() of the
	 * above), kept for the JSON fields of the same name for one release. */
	char *layout_now;            /* pahole-style current layout, or NULL */
	char *layout_proposed;       /* C to write, or NULL (true sharing) */
	long cost_bytes;             /* size growth of the proposal, 0 if none */
	unsigned placements_sharing; /* start placements where the contending */
	unsigned placements_total;   /*   members share a line; 0/0 if n/a */
};

/*
 * The fix as a patch (reports/fix_patch.h): changes to the project's own
 * source where DWARF declares the struct, the global or the allocation.
 */
struct report_edit {
	char *path;                  /* relative to report_patch.root: the diff's */
	char *source;                /* the file as DWARF names it */
	unsigned line, n_old;        /* lines [line, line + n_old) are replaced;
	                                n_old 0: the text goes before line */
	char *old_text, *new_text;   /* whole lines, each ending in '\n' */
};

struct report_line_fix {
	char *summary;               /* what the patch does; NULL: no patch */
	char *caveat;                /* what to check before applying it, or NULL */
	char *none_why;              /* no patch: why */
	unsigned *edits;             /* indices into report.patch.edits */
	unsigned n_edits;
};

struct report_patch {
	bool built;                  /* fix_patch_build() ran */
	char *root;                  /* paths are relative to it: patch -p1 there */
	struct report_edit *edits;
	unsigned n_edits;
	char *diff;                  /* unified diff of all edits; NULL: none */
};

/*
 * Two code sites in different threads whose accesses to a line conflict:
 * one writes bytes the other touches (kind SHARING_TRUE), or bytes next to
 * them (SHARING_FALSE).  A site is a source line (or an address without
 * one); for a site paired with itself, side a holds the lower thread id of
 * each conflicting pair of threads.
 */
struct report_pair_side {
	struct report_site site;     /* reads/writes: its conflicting samples */
	uint32_t *tids;              /* sorted */
	unsigned n_tids;
	uint64_t concurrent;         /* its conflicting concurrent samples */
};

struct report_pair {
	struct report_pair_side a, b;
	enum sharing_kind kind;
	uint64_t weight;             /* min(a.concurrent, b.concurrent) */
};

#define REPORT_LINE_PAIRS 5         /* heaviest first */

/* A lock on the line (reports/locks.h): its accesses are one range named
 * after it, whatever internals of the lock they touched. */
struct report_lock {
	char *name;                  /* "g.lock"; NULL: no lock on the line */
	char *type_name;             /* "pthread_mutex_t", NULL if unknown */
	uint64_t addr, size;         /* its bytes, which may run past the line */
};

/* One watched 8-byte word (--confirm, contend watch): exact counts. */
struct report_watch_word {
	uint64_t offset;             /* in the line */
	unsigned size;
	char *member;                /* NULL if unknown */
	double window_s;             /* time armed, all its windows */
	unsigned windows;
	bool cut_short;              /* a window ended at the hit cap */
	unsigned threads_late;       /* created while armed: armed when found */
	unsigned threads_unarmed;    /* had no free debug register */
	uint64_t reads, writes;      /* every user-mode access of every thread */
	struct report_thread *threads;   /* exact reads/writes, by tid */
	unsigned n_threads;
	struct report_site *sites;   /* sampled code; reads/writes scaled */
	unsigned n_sites;
};

/* The heap block a line lies in, as allocation tracking saw it
 * (detector/alloc_table.h), and the type its allocating code kept it as. */
struct report_alloc {
	uint64_t start, size;        /* size as asked for */
	const char *call;            /* static: "calloc", "operator new[]"; NULL if walked */
	/* Read from the live target's glibc heap (attach: reports/
	 * report_heapwalk.c), not tracked: no call, tid or site; size is
	 * n x type_size where a type fits by size, else usable. */
	bool walked;
	uint64_t usable;             /* walked: malloc_usable_size() of it */
	uint64_t count, elem_size;   /* calloc's arguments; count 0 for the others */
	uint64_t align;              /* aligned_alloc, posix_memalign, memalign, aligned new */
	bool freed;                  /* freed before the report */
	uint32_t tid;                /* the allocating thread */
	char *site;                  /* "main heap_struct_array.c:112": the call */
	char *function, *file;       /* the call's, or NULL */
	unsigned line;
	uint64_t address;            /* the call's return address */
	char **callers;              /* frame names of the callers above, outward */
	unsigned n_callers;
	char *variable;              /* the pointer the caller kept it in, or NULL */
	char *type_name;             /* its element type: "struct worker_arg", or NULL */
	uint64_t type_size;          /* sizeof that type, 0 if unknown */
	/* The call as the file it is in knows it, the same in every run
	 * (detector/alloc_fix.h): ino 0 where unknown. */
	uint64_t site_dev, site_ino, site_off;
	unsigned blocks_on_line;     /* blocks the line's samples lie in, this one too */
	bool blocks_one_site;        /* ... all allocated by this call */
	bool blocks_private;         /* ... each touched by one thread alone */
};

/* A run-time fix's timed runs (contend run --measure-fix: engine/fix_run.c
 * runs them, reports/fix_sites.h picks the sites). */
struct report_fix_site {
	char *name;                  /* "main x.c:97": the call, unescaped */
	char *call;                  /* "malloc(40)", unescaped */
	uint64_t dev, ino, off;      /* the call's return address: file, offset */
};

struct report_fix_run {
	unsigned align;              /* blocks aligned to it, padded to multiples of it */
	struct report_fix_site sites[ALLOC_FIX_SITES];
	unsigned n_sites;
	char *not_fixable;           /* lines the shim cannot fix, and why; or NULL */
	char *not_measured;          /* why there is no gain, or NULL when measured */
	unsigned runs;               /* timed runs of each, alternating */
	double wall_plain, wall_fixed;   /* medians, seconds */
	double cpu_plain, cpu_fixed;     /* medians of user + system time, seconds */
	double gain, cpu_gain;       /* plain / fixed */
	double gain_min, gain_max;   /* over the pairs of runs (runs > 1) */
	uint64_t blocks_fixed;       /* blocks the shim placed, per fixed run (median) */
	bool noisy;
	char *noise;                 /* why the numbers may mislead, or NULL */
};

#define REPORT_CPUS_MAX 256

struct report_line {
	uint32_t pid;                /* shared memory: the first process sampled */
	uint64_t addr;               /*   and the line's address there */
	/* Memory shared between processes (detector/shared_mem.h): the
	 * object (device, inode; ino 0: private memory) and the line's
	 * offset in it, and the processes whose accesses are on the line
	 * (sorted; n_pids > 1: a line processes fight over). */
	uint64_t obj_dev, obj_ino, obj_off;
	uint32_t *pids;
	unsigned n_pids;
	unsigned line_size;
	enum sharing_kind kind;
	double score, share, concurrent_frac;
	uint64_t samples, concurrent;
	unsigned n_instances;        /* lines of one structure pooled here (instances.h); 1 = this line */
	uint64_t *instance_lines;    /* their line addresses, hottest first
	                                (n_instances of them; NULL when 1) */
	bool minor;                  /* real sharing below the thresholds (r->minor) */
	bool undecided;              /* shared, and nothing decided it (r->undecided) */
	struct report_mem mem;
	/* The CPUs its samples ran on (bit n of cpus[n / 64]: CPU n, below
	 * REPORT_CPUS_MAX; cpus_beyond: a higher one too; none: unknown), and
	 * their NUMA nodes (bit n: node n) when the topology of the machine
	 * that sampled is known (nodes_known: every CPU's node) */
	uint64_t cpus[REPORT_CPUS_MAX / 64];
	bool cpus_beyond, nodes_known;
	uint64_t nodes;
	char *object;                /* "counters+8", "[heap]+0x2a0", ... */
	char *variable;              /* DWARF variable or pointer name, NULL */
	char *type_name;             /* "struct Klass", NULL */
	uint64_t object_start;       /* address of the object/struct instance */
	uint64_t typed, untyped;     /* accesses with/without a DWARF type */
	const char *untyped_why;     /* why most untyped accesses are (static
	                                string: "no debug info", "no variable or
	                                load found for the base register"); NULL
	                                when all are typed */
	struct report_thread *threads;
	unsigned n_threads;
	struct report_range *ranges;
	unsigned n_ranges;
	struct report_member *members;   /* layout of the struct, if typed */
	unsigned n_members;
	uint64_t struct_size, struct_align;
	struct report_lock lock;
	char *struct_name;           /* of the struct the members are, which may
	                                be nested in the object: "struct half" */
	/* Where DWARF says the struct (or the element type), and the
	 * variable when the object is a global, are declared: the file as
	 * the compiler named it, NULL: unknown (the fix's patch edits these) */
	struct report_decl { char *file; unsigned line; } struct_decl, variable_decl;
	bool cxx;                    /* the type is C++'s: advice spells alignas */
	bool rust;                   /* the type is Rust's: advice spells Rust; for
	                                untyped data, the code writing it is */
	bool go;                     /* untyped data that Go code writes */
	bool java;                   /* a Java object (jvm_names.h): type_name is
	                                its class, the ranges' members its fields */
	bool cxx_class;              /* a C++ class: its layouts say class */
	struct report_advice advice;
	double predicted_gain;       /* speedup of the proposed fix (gain.h), 0 if n/a */
	double predicted_gain_all;   /* ... if every contended range were fixed */
	const char *gain_note;       /* static: why predicted_gain is a lower
	                                bound (what the model cannot see), or NULL */
	double gain_low, gain_high;  /* the range of predicted_gain (gain.h);
	                                gain_high 0: no upper bound stated */
	double gain_all_low, gain_all_high;   /* ... of predicted_gain_all */
	/* static: why no 2x range holds (the queued stores decide: gain.h),
	 * or NULL; the gain is then its floor (gain_low, gain_high 0, the
	 * same reason as gain_note) or unknown (0, gain_unknown) */
	const char *gain_range_unknown, *gain_all_range_unknown;
	const char *gain_all_note;   /* static: gain_note for predicted_gain_all */
	/* static: why no gain is predicted at all (a busy machine left the
	 * price unmeasured, or no floor above 1x), or NULL; predicted_gain
	 * is then 0 */
	const char *gain_unknown;
	struct report_pair *pairs;   /* who contends with whom */
	unsigned n_pairs;
	bool confirmed_checked;      /* its words were watched (watch backend) */
	bool watch_by_code;          /* counted by uprobes on its code sites */
	bool confirmed;              /* exact counts: >= 2 threads, one writing */
	enum sharing_kind watch_kind;    /* the kind by the exact counts */
	double watch_window_s;       /* armed time of its longest-watched word */
	uint64_t watched_line;       /* the line the words are on: addr, or
	                                the pooled instance that was watched */
	struct report_watch_word *words;
	unsigned n_words;
	struct report_alloc *alloc;  /* the heap block it lies in, or NULL */
	/* The run that applied a fix to this line's allocation site and timed
	 * it (contend run --measure-fix, printers/fix_report.h), or NULL. */
	const struct report_fix_run *measured;
	struct report_line_fix fix;  /* the patch's part for it (fix_patch.h) */
};

/*
 * Latent false sharing (report_latent.c): two byte ranges of one object,
 * written by one thread and touched by another, less than a line apart
 * but on different lines where the object lies now.  Another start
 * address (another heap, another build) would put them on one line.
 * Side a is the lower range; a or b writes.
 */
struct report_latent_side {
	uint32_t tid;
	uint64_t addr;               /* first byte */
	unsigned size;
	uint64_t offset;             /* from the object's start (element 0) */
	char *member;                /* "[0].sum"; NULL: unknown */
	uint64_t reads, writes;      /* samples */
	struct report_site site;     /* the code touching it most */
};

/* In how many start placements of the object (multiples of align within
 * a line of line_size bytes) the two ranges share a line.  basis: whose
 * alignment that is (reports/latent.h). */
enum placement_basis {
	PLACEMENT_TYPE,              /* the type's (DWARF) */
	PLACEMENT_MALLOC,            /* malloc's and new's 16 bytes */
	PLACEMENT_ALLOCATION,        /* what the recorded allocation asked for */
	PLACEMENT_DECLARATION,       /* a global's own: _Alignas(64) on the variable */
};

struct report_placement {
	unsigned line_size;
	uint64_t align;
	unsigned sharing, total;
	enum placement_basis basis;
};

/* 64 and 128 bytes; the allocation's, malloc's and the type's alignment */
#define REPORT_LATENT_PLACEMENTS 6

struct report_latent {
	uint32_t pid;
	char *object;                /* "workers", "struct worker[] at 0x..." */
	char *type_name;             /* of the object or its elements, NULL */
	uint64_t object_start;       /* what offsets count from */
	uint64_t type_size, type_align;  /* of the element when an array */
	bool heap;                   /* not a global: malloc's alignment applies */
	uint64_t decl_align;         /* a global's declared alignment (on the variable), 0 */
	struct report_latent_side a, b;
	uint64_t gap;                /* bytes between a's end and b's start */
	struct report_placement placements[REPORT_LATENT_PLACEMENTS];
	unsigned n_placements;
	char *advice;                /* the padding that removes the risk */
	double share;                /* samples of both ranges / all samples */
	/* The heap block holding both ranges, where allocations were
	 * tracked; NULL otherwise. */
	struct report_alloc *alloc;
};

/* How the session saw its target: launched by contend (its exit status is
 * known) or attached to (contend detaches; it may have exited meanwhile,
 * with a status only its parent can know). */

struct report {
	char *command;
	char *backend;               /* "soft" */
	char *backend_note;          /* why this backend, or NULL */
	char *jit_note;              /* a JVM: where its JIT code's names came from, or NULL */
	char *watch_note;            /* why watchpoints did not confirm, or NULL */
	/* the instruments' self-test of the run (instruments.h); untested
	 * (a data file from before it): every state INSTRUMENT_UNTESTED */
	struct instruments instruments;
	double overlap, cpu_pressure, load;   /* how busy the machine was (run_facts.h) */
	struct transfer_price price; /* the machine's, priced by (run_facts.h) */
	char *price_note;            /* why it was not measured, or NULL */
	bool mem_info;               /* the backend reports data sources and latency */
	unsigned freq;
	double duration;             /* seconds */
	unsigned line_size;
	enum target_state target;
	int target_status;           /* exit status, or -signal, of a launched target */
	uint64_t samples;            /* all samples taken */
	uint64_t decoded;            /* access samples that reached the line table */
	struct named_count *dropped;
	unsigned n_dropped;
	uint64_t typed, untyped;     /* over accesses on reported lines */
	struct named_count *untyped_why;
	unsigned n_untyped_why;
	struct report_line *lines;   /* ranked, contended only, at most top */
	unsigned n_lines;
	unsigned n_candidates;       /* lines touched by >= 2 threads */
	/* Lines with real sharing that cost too little to be contended
	 * (classify.h's thresholds), ranked the same way, at most top;
	 * and latent false sharing, most sampled first. */
	struct report_line *minor;
	unsigned n_minor;
	struct report_latent *latent;
	unsigned n_latent;
	/* The machine was busy (overlap.h: machine_busy()): the target's
	 * threads ran at once only r->overlap of the time, and the
	 * concurrency thresholds were scaled by busy_scale to that. */
	bool busy;
	double busy_scale;
	/* No line is contended, and that proves nothing: why, in words (a
	 * busy machine; no instrument to count the stores the timer misses),
	 * and the lines two threads used that no threshold decided, at most
	 * REPORT_MAX_UNDECIDED, most sampled first.  NULL: the verdict
	 * stands. */
	char *inconclusive;
	struct report_line *undecided;
	unsigned n_undecided;
	unsigned watch_windows;      /* watchpoint windows run, 0 if none */
	uint64_t traps_absorbed;     /* spurious debug traps the target survived
	                                (detector/trap_guard.c) */
	double watch_armed_s;        /* their armed time, all together */
	bool watch_by_code;          /* the windows were uprobes on the lines'
	                                code, not watchpoints (watch.h) */
	/* Whose read permission a source file needs before --annotate or
	 * HTML shows it (the target's credentials; set by the caller after
	 * report_build, not owned).  NULL: any regular file, no symlink. */
	const struct proc_creds *source_reader;
	/* run --measure-fix: the timed runs with allocations spaced apart
	 * (printers/fix_report.h); set by the caller, not owned.  NULL: none. */
	const struct report_fix_run *fix_run;
	struct report_patch patch;   /* fix_patch_build(); empty until then */
};


#define REPORT_MAX_UNDECIDED 3

void report_free(struct report *r);
/* Frees r->patch and the lines' fixes (reports/fix_patch.c). */
void report_patch_release(struct report *r);
/* tid's entry in a growing array of threads (*n of them, room for
 * *alloc), appended zeroed if new: for builders of lines, ranges and
 * words that sum counts per thread.  Valid until the next call. */
struct report_thread *report_thread_of(struct report_thread **threads, unsigned *n,
				       size_t *alloc, uint32_t tid);

/*
 * Views of the model: what a printer may ask of it beyond its fields,
 * worded once so that every format says the same.  They read the model
 * only.  Strings are raw (names from the target unescaped) unless said
 * otherwise, and the caller frees them.
 */

/* What a gain is prefixed with where the model says it is a floor (note:
 * a line's gain_note or gain_all_note): "at least ", else "". */
static inline const char *report_gain_floor_word(const char *note)
{
	return note ? "at least " : "";
}

/* A code address as printed: without the mapping version the analysis
 * pins to it (symbolize/symbolizer.h, symbolizer_versioned()). */
static inline uint64_t report_code_addr(uint64_t ip)
{
	return ip & ((UINT64_C(1) << REPORT_CODE_VERSION_SHIFT) - 1);
}

/* A layout row's C++ access (its access field): "public", "protected",
 * "private"; NULL for none (a C or Rust member, a hole). */
const char *report_member_access(unsigned access);

/* A layout's title as its language names the type: "struct Klass",
 * "class kv::Shard", but "main.stats" (Go) and "Stats" (Rust), which
 * have no "struct " before a type's name; NULL without a layout. */
const char *report_layout_title(const struct report_layout *lay);

/* A line's data as its title names it: "counters (long[2])",
 * "[heap]+0x2a0 (stats: struct stats)", or "". */
char *report_line_title(const struct report_line *l);

/* A layout as C: pahole-style with offsets, holes and line boundaries,
 * or the bare C of a padded element; NULL if there is no layout (no
 * title). */
char *advice_layout_text(const struct report_layout *lay);

/* What the gains were priced at: the contended price of a locked add and
 * of a plain store loop, each the machine's (r->price) or, where it was
 * not measured, the model's reference; and that reference (gain.h). */
struct report_pricing {
	double locked, store, fenced;
	double reference_locked, reference_store, reference_fenced;
};
struct report_pricing report_pricing(const struct report *r);

/* "calloc(2, 3072)", "malloc(64)", "aligned_alloc(64, 128)". */
char *alloc_call_text(const struct report_alloc *a);
/* The heap block as every printer shows it, after ALLOC_SENTENCE_TITLE:
 * "aligned_alloc(64, 192) = 192 bytes at 0x..., allocated in
 * gs_alloc gs.h:52 <- setup x.c:79 <- main x.c:103 by thread 12, freed
 * before the end": the call's site, then its callers outward (stack
 * frames and the calls that inlined them). */
#define ALLOC_SENTENCE_TITLE "heap block: "
char *alloc_sentence(const struct report_alloc *a);

/* True if member ends in an index "[i]" or an index range "[a..b]"
 * (a <= b): *prefix_len is the length of what comes before the "[". */
bool member_range_parse(const char *member, size_t *prefix_len,
			unsigned long *first, unsigned long *last);

/* The alignment the pair's heap block was allocated with, where its
 * record says one (aligned_alloc, posix_memalign, memalign, C++17's
 * aligned new) above both malloc's and the type's; else 0.  Where a
 * block starts proves nothing: one read from the heap (attach) has no
 * record, so 0. */
uint64_t latent_alloc_align(const struct report_latent *lt);
/* A global's declared alignment (_Alignas(64) on the variable, not its
 * type: lt->decl_align) where it exceeds the type's; else 0.  It keeps the
 * object where it starts as an aligned allocation keeps a heap block. */
uint64_t latent_decl_align(const struct report_latent *lt);
/* " (the type's)", " (malloc's)", " (aligned_alloc's)", " (the
 * declaration's)": whose alignment placement p counts at. */
const char *latent_placement_whose(const struct report_latent *lt,
				   const struct report_placement *p);
/* "increment (latent_slots.c:63)". */
char *latent_site_text(const struct report_site *s);

/* A contended line that breaks `contend check`'s rules, told the same way
 * in every output that carries it.  cli/cmd_check.c decides which lines
 * break the rules; printers that show a verdict (the compiler-style line
 * of check, SARIF) point at the same code and say the same words.  The
 * site is the one that writes the line most (ties: the one reading it
 * most), among the contended ranges; the message names the range it
 * writes, the others it contends with, score, threads, function, why
 * (baseline) and advice.  why: what the baseline says, or NULL. */
struct report_violation {
	const struct report_line *line;
	const char *why;
};
/* Is range g contended (true-shared, false victim or writer)? */
bool report_range_contended(const struct report_range *g);
/* The code site writing line l most, and its range (*range); NULL if the
 * line has no site on a contended range (*range untouched). */
const struct report_site *report_violation_site(const struct report_line *l,
						const struct report_range **range);
/* "false sharing on counters[0] with counters[1] (score 0.943, 2 threads,
 * written in increment): advice...": the violation without its location. */
char *report_violation_message(const struct report_line *l, const char *why);

#endif
