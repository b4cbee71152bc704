/* report_build.h - private to the pieces of report_build(); not an API.
 *
 * report_build.c ranks the contended lines and builds each one; it calls
 * on report_objects.c (type attribution, the line's object and members),
 * report_pairs.c (who contends with whom), report_locks.c (a lock on the
 * line) and gain_code.c (the code the gain model decodes).  They share
 * one struct build per report and one struct cell_attr per line cell.
 * Everything returned is owned by the report model (report_free()).
 */
#ifndef CONTEND_REPORT_BUILD_H
#define CONTEND_REPORT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/gain.h"
#include "reports/locks.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "detector/classify.h"
#include "detector/line_table.h"
#include "symbolize/data_types.h"

struct alloc_block;
struct alloc_table;
struct alloc_types;
struct glibc_heap;
struct heapwalk;
struct callchains;
struct gain_queue;
struct pointer_origins;
struct jvm_names;
struct symbolizer;

/* The type attribution of one cell of a line, at the address it accessed. */
struct cell_attr {
	bool typed;
	enum data_types_miss why;        /* when !typed and !why_here */
	const char *why_here;            /* a reason no lookup could give */
	struct data_attribution a;       /* when typed */
	bool system_code;                /* made by a system library's code
	                                    (glibc's mutex code): typed as that
	                                    code sees it, not as the user does */
};

/* One report being built. */
struct build {
	struct report *r;
	struct symbolizer *sym;
	struct data_types *dt;
	struct pointer_origins *origins;  /* NULL without sym and dt */
	const struct callchains *chains;
	const struct classify_config *cfg;
	uint64_t total;          /* samples of the session, the scores' denominator */
	struct gain_queue *queue;
	struct gain_prices prices; /* the machine's, or the reference (gain.h) */
	struct jvm_names *jvm;   /* HotSpot tables per pid, opened on need */
	size_t alloc_why;
	struct alloc_table *allocs;           /* heap blocks, or NULL (report_alloc.c) */
	struct alloc_types *alloc_types;      /* their types; NULL without allocs */
	struct strset alloc_paths;            /* member paths made for blocks */
	struct heapwalk *walk;                /* attach: blocks read from the heap, or NULL */
	struct line_table *lines;             /* all sampled lines */
	const struct cpu_nodes *cpu_nodes;    /* run_facts': NULL if unknown */
};

/* Thread ids, grown here and handed to the model, which keeps no alloc
 * counts. */
struct tid_set {
	uint32_t *v;
	unsigned n, alloc;
};

static inline char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Accesses, counted once each (report.h): an RMW or atomic is a write,
 * as the watchpoints count it, though it also reads (and classification,
 * readers and writers lists treat it as both). */
static inline uint64_t cell_reads(const struct line_cell *c)
{
	return access_kind_writes(c->kind) ? 0 : c->count;
}

static inline uint64_t cell_writes(const struct line_cell *c)
{
	return access_kind_writes(c->kind) ? c->count : 0;
}

/* Arrays here may be NULL when empty: sort_items() (common/util.h). */
static inline void sort(void *base, size_t n, size_t size,
			int (*cmp)(const void *, const void *))
{
	sort_items(base, n, size, cmp);
}

static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static inline void tid_set_add(struct tid_set *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] == tid)
			return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = tid;
}

/* --- report_objects.c: what data the line's cells touched --------------- */

/* Types every cell (attrs[i] for cell i) and counts the line's typed and
 * untyped samples, with the reasons for the untyped. */
void attribute_line(struct build *b, const struct line *l, struct report_line *rl,
		    struct cell_attr *attrs);

/* After attribute_line(): the line's untyped samples were typed another
 * way (the JVM's own tables): they count as typed, and leave the header's
 * reasons for untyped accesses. */
void attribute_line_named_elsewhere(struct build *b, const struct line *l,
				    struct report_line *rl, const struct cell_attr *attrs);

typedef bool (*attr_eq_fn)(const struct data_attribution *, const struct data_attribution *);
/* Both name the same object: the line's variable/type_name/object_start. */
bool same_object(const struct data_attribution *x, const struct data_attribution *y);
/* Both name the same member of it: a range's member. */
bool same_member(const struct data_attribution *x, const struct data_attribution *y);
/* Among the typed cells selected by mask (all if NULL), the attribution
 * that the most samples share under eq; NULL if none is typed. */
const struct data_attribution *most_sampled(const struct line *l,
					    const struct cell_attr *attrs,
					    const bool *mask, attr_eq_fn eq);
/* "counters[1]", "klass_c1.secondary_super_cache", "*p"; caller frees. */
char *member_name(const struct data_attribution *a);
/* "[k].path" for element k of an array, path the member's within the
 * element (".count", "count", "[2]" or ""); caller frees. */
char *element_member(uint64_t k, const char *path);
/* A struct reached through a pointer (a, typed via_pointer) that starts a
 * whole number k of its sizes past base: the struct as element k of an
 * array of it at base, as if the array were the object -- path "[k]...",
 * type "T[n]" (n 0: "T[]", the count unknown), offsets from base, no
 * longer via a pointer.  False, and a unchanged, where it is no such
 * element.  Names are kept in b's alloc_paths. */
bool attribution_as_element(struct build *b, struct data_attribution *a, uint64_t base,
			    uint64_t n);
/* name, for an access of [addr, addr + size) that runs past a's member into
 * later members of its struct (one 16-byte store to two longs, as -O2
 * vectorises them): "[0].processed..bytes".  Takes name over. */
char *member_span_name(char *name, const struct data_attribution *a, uint64_t addr,
		       uint64_t size);
/* The member of inst's layout that holds [addr, addr + size), by name;
 * NULL if none (or the layout is not the object itself). */
char *member_from_layout(const struct data_attribution *inst, uint64_t addr,
			 unsigned size);
/* Fills the layout of the line's object obj; returns the instance used,
 * or NULL.  in_lock[i]: cell i lies in a lock, whose insides are left out.
 * The members' readers and writers are the whole instance's: where it
 * spans other lines of lines (NULL: none), their accesses count too. */
const struct data_attribution *build_members(struct line_table *lines,
					     const struct line *l,
					     const struct cell_attr *attrs,
					     const bool *in_lock,
					     const struct data_attribution *obj,
					     struct report_line *rl);
/* Frees rl's struct_decl and variable_decl (set by build_members). */
void report_decls_release(struct report_line *rl);

/* The attribution of one cell alone (as attribute_line() does for each),
 * counting nothing in the report. */
void attribute_cell(struct build *b, const struct line *l, const struct line_cell *c,
		    struct cell_attr *out);

/* --- report_latent.c: latent false sharing ------------------------------ */

/* b->r->latent from every line of the table, once the contended and minor
 * lines are built (their ranges are theirs). */
void report_latent_build(struct build *b, struct line_table *lines);
void report_latent_free_one(struct report_latent *lt);
void report_latent_free(struct report_latent *v, unsigned n);
/* Frees what a site owns (report_build.c). */
void report_site_release(struct report_site *s);
/* --- report_alloc.c: heap blocks by allocation ----------------------------- */

/* The allocation tracking's view of heap data (none without b->allocs):
 * a cell in a block whose allocating code kept it in a typed pointer is
 * typed by that (element index, member path: "arg[1].red[0]") unless the
 * access already named a struct of another type; a line in a block gets
 * rl->alloc.  alloc_build_begin/end set up and release b's part. */
void alloc_build_begin(struct build *b, struct alloc_table *allocs, struct glibc_heap *heap);
void alloc_build_end(struct build *b);
void alloc_attribute_cell(struct build *b, const struct line *l,
			  const struct line_cell *c, struct cell_attr *ca);
void alloc_describe_line(struct build *b, const struct line *l, struct report_line *rl);
/* The tracked block holding addr in pid's heap, described as a line's
 * is; NULL if none. */
struct report_alloc *alloc_describe_address(struct build *b, uint32_t pid, uint64_t addr);
void report_alloc_free(struct report_alloc *a);

/* --- report_heapwalk.c: heap blocks read from a live glibc heap ---------- */

/* Without allocs, a live target's heap (attach) gives blocks, with no
 * call or site, typed by size (report_heapwalk.c); begin does nothing
 * without a heap. */
void heapwalk_begin(struct build *b, struct glibc_heap *heap);
void heapwalk_end(struct build *b);
/* The block holding addr, read from the heap, or NULL; owned by b. */
const struct alloc_block *heapwalk_block(struct build *b, uint32_t pid, uint64_t addr);
bool heapwalk_owns(struct build *b, const struct alloc_block *blk);
/* Types a walked block by its size at the access of cell c, unless typed. */
void heapwalk_type(struct build *b, const struct alloc_block *blk, const struct line *l,
		   const struct line_cell *c, const struct cell_attr *ca);
/* Its type as a pointer, *elem its size; NULL, *elem 0, if none. */
const struct dt_pointer *heapwalk_pointer(struct build *b, const struct alloc_block *blk,
					  uint64_t *elem);
/* glibc's usable size of a walked block; 0 for others. */
uint64_t heapwalk_usable(struct build *b, const struct alloc_block *blk);

/* --- report_pairs.c: who contends with whom ----------------------------- */

/* rl->pairs from the line's cells and their verdict v. */
void build_pairs(struct build *b, const struct line *l, const struct line_verdict *v,
		 struct report_line *rl);

/* --- report_locks.c: a lock on the line --------------------------------- */

/* The lock that most of the line's samples touch (locks.h); false if none. */
bool find_lock(const struct line *l, const struct cell_attr *attrs, struct lock_ref *lock);
/* A copy of l on which every access to the lock covers all of its bytes
 * on the line; in_lock[i] says which cells.  free_folded() frees it. */
struct line *fold_lock(const struct line *l, unsigned line_size,
		       const struct lock_ref *lock, bool *in_lock);
void free_folded(struct line *f);
/* Names the folded range and rl->lock after the lock. */
void name_lock(const struct line *l, const struct lock_ref *lock, struct report_line *rl);

/* --- gain_code.c: the code the gain model looks at ---------------------- */

struct code_view;
/* Reads and decodes sym's code; NULL without a symbolizer. */
struct code_view *code_view_new(struct symbolizer *sym, unsigned line_size);
void code_view_free(struct code_view *cv);
/* gain_queue_new() over lines, with cv answering its questions about code. */
struct gain_queue *code_view_gain_queue(struct code_view *cv, struct line_table *lines);

/* report_pairs.c: rows that print alike -- same kind, the same threads
 * and the same function, file and line on each side (or the same address
 * where there is no function), either way round -- merged into the
 * first, heaviest first again.  JIT code without line numbers makes
 * many such rows of one method.  Returns the new count. */
unsigned report_pairs_merge(struct report_pair *p, unsigned n);
/* Frees what a pair's side owns (report_build.c). */
void report_pair_side_release(struct report_pair_side *side);

#endif
