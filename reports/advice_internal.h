/* advice_internal.h - what the pieces of the advice share; not for other
 * floors (they use advice.h).
 *
 * The advice is made in three steps, one file each:
 *   advice_layout.c    the layout model: an advisor maps the line's ranges
 *                      onto the struct's members (who writes and reads
 *                      what, writer groups, line boundaries) and draws the
 *                      current layout as rows (struct report_layout);
 *   advice_proposal.c  the proposal: blocks of members moved and aligned,
 *                      padding and size, drawn as rows of the new layout;
 *   advice.c           the prose: which kind of advice, its sentences and
 *                      notes; advice_text.c writes any layout's rows as C.
 * Contract: advisor_init() fills every field of the advisor and never
 * changes the line; only line->advice is written, by advice.c and by the
 * layout builders into the layout it hands them.  A layout's rows hold
 * copies of what they print, so they outlive the advisor and the line's
 * members; advice_release() frees them.
 */
#ifndef CONTEND_ADVICE_INTERNAL_H
#define CONTEND_ADVICE_INTERNAL_H

#include "reports/advice.h"
#include "common/util.h"

#define ELIDE_MEMBERS 32   /* bigger structs show only the line's surroundings */

static inline uint64_t round_up(uint64_t x, uint64_t a)
{
	return a ? (x + a - 1) / a * a : x;
}

static inline uint64_t lowbit(uint64_t x)
{
	return x & -x;
}

struct tidset {
	uint32_t *tid;                /* sorted, unique */
	unsigned n, alloc;
};

/* What the line's ranges say about one member of the struct. */
struct member_info {
	bool on_line;                 /* some range of the line maps to it */
	bool true_shared, false_writer, false_victim;
	uint64_t samples;             /* reads + writes of those ranges */
	int group;                    /* writer group on the line, -1: none */
	bool hidden;                  /* elided from printed layouts */
};

struct advisor {
	struct report_line *line;
	bool heap;
	unsigned L;                   /* line size */
	const char *what;             /* the object, for sentences */
	/* The struct's members: line->members, or none when those are the
	 * elements of an array of scalars ("counters[1]"). */
	const struct report_member *members;
	unsigned n_members;
	struct report_member *owned_members;   /* members without padding holes */
	char *owned_what;            /* what, when built for the line */
	struct member_info *mi;       /* one per member */
	int *range_member;            /* one per line->ranges, -1: none */
	long *range_member_elem;      /* its element in an array member, -1 */
	int split_member;             /* array member whose elements threads
				       * contend on (counts[tid]), -1: none */
	struct tidset *groups;        /* distinct writer sets on the line */
	unsigned n_groups, alloc_groups;
	bool outside;                 /* a range lies outside the object */
	bool spans_elements;          /* contention across array elements */
	/* arrays: "long[8]" -> elem_type "long", n_elems 8 */
	bool is_array;
	char *elem_type;
	uint64_t n_elems;             /* 0 if unknown */
	uint64_t elem_size;           /* for a plain struct, its size */
	uint64_t stride;              /* elem_size in an array of structs, else 0 */
	/* members of a struct nested in the object: "g.in.a[2]" */
	bool nested;
	char *nested_title;           /* "struct <type of in>" */
	uint64_t base;                /* address of member offset 0, 0: unknown */
	uint64_t inst;                /* the instance drawn: base, or an element */
};

/* ---- advice_layout.c: the model ---------------------------------------- */

void tidset_add(struct tidset *s, uint32_t tid);
bool tidset_has(const struct tidset *s, uint32_t tid);
bool tidset_equal(const struct tidset *a, const struct tidset *b);
void tidset_release(struct tidset *s);

/* "long[8]" -> elem "long", n 8; false if not an array type. */
bool parse_array_type(const char *type, char **elem, uint64_t *n);
/* Element type (if elem_type), count and size of an array member. */
bool member_array(const struct report_member *m, char **elem_type,
		  uint64_t *n, uint64_t *elem_size);
/* Upper bound of a member's alignment (see advice_layout.c). */
uint64_t align_bound(uint64_t offset, uint64_t size, uint64_t struct_align);

void advisor_init(struct advisor *adv, struct report_line *line, bool heap);
void advisor_release(struct advisor *adv);

/* "struct Klass": the layout's title; *owned gets what to free. */
const char *layout_title(const struct advisor *adv, char **owned);
/* The struct as it is, as rows into *lay; note: a comment after it. */
void current_layout(struct advisor *adv, const char *note,
		    struct report_layout *lay);
/* Fills each row's padding_before, line and share, and the tail. */
void layout_measure(struct report_layout *lay);
/* Appends a line of text after the layout.  A name from the target in it
 * goes through escape_text() first: a newline in it would start a line. */
void layout_add_after(struct report_layout *lay, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The hottest written member and the hottest member it victimizes. */
bool contending_pair(const struct advisor *adv, int *a, int *b);
int hottest_written(const struct advisor *adv);
/* The member just across the line boundary member a starts or ends. */
int across_boundary(const struct advisor *adv, int a, bool *ends);

/* ---- advice_proposal.c: the padded layout ------------------------------ */

/* Rust's allocations (Box, Arc, Vec) take the type's alignment: a heap
 * object needs no other call, unlike C's malloc. */
/* Go has no alignment attribute: the pad fields do the work, and the
 * allocator rounds a block up to a size class. */
#define GO_HEAP_ALIGN_NOTE \
	"/* Go cannot align a type: the _ pad fields keep each hot field a line apart */\n"
#define RUST_HEAP_ALIGN_NOTE \
	"/* Box, Arc and Vec allocate it at the type's alignment: no other change */\n"
/* C++17's new does too: where new allocated it, nothing else to change. */
#define CXX_NEW_ALIGN_NOTE \
	"/* new allocates it at the type's alignment from C++17 on: no other change */\n"
/* Under attach the call is not known: a C++ block may be new's. */
#define CXX_WALKED_ALIGN_NOTE \
	"/* new and std::vector allocate it at the type's alignment from C++17 on: " \
	"no other change; a block from malloc (attach does not record the call) " \
	"needs aligned_alloc */\n"
/* The note a heap object of line's type needs to start a line where its
 * language's allocation does that by itself, else NULL. */
const char *heap_align_note(const struct report_line *line);

/* Runs of overlapping members (unions, bitfields) move as one block. */
struct block {
	unsigned first, n;            /* members[first, first + n) */
	uint64_t start, size, align;
	int group;                    /* writer group on the line, -1: none */
	uint64_t new_start;
	bool line_aligned;
};

struct proposal {
	const struct report_member *members;   /* adv->members or a copy */
	struct block *blk;
	unsigned *order, n;
	uint64_t size, align;
};

/* Writer groups last, each starting a line of its own. */
void propose_groups(struct advisor *adv, struct proposal *p);
/* Same order, the whole instance on lines of its own. */
void propose_aligned(struct advisor *adv, struct proposal *p);
/* The struct as it is but for the split member, whose elements are padded
 * to lines of their own: members is a copy with that one changed. */
void propose_split_member(struct advisor *adv,
			  const struct report_member *members,
			  struct proposal *p);
/* "long" -> "struct { _Alignas(64) long v; }[4]" */
char *padded_array_type(const char *elem_type, uint64_t n, unsigned L);
void proposal_release(struct proposal *p);
/* The proposal as rows (with notes a heap object needs) into *lay. */
void proposal_layout(struct advisor *adv, const struct proposal *p,
		     struct report_layout *lay);
/* A padded element for an array of scalars; returns its padded size. */
uint64_t padded_element_layout(struct advisor *adv, struct report_layout *lay);
/* A scalar variable on a line of its own; returns the bytes added. */
uint64_t padded_scalar_layout(struct advisor *adv, struct report_layout *lay);

/* ---- advice.c: prose ---------------------------------------------------- */

/* "thread 101" / "threads 101, 102" */
void add_threads(struct strbuf *sb, const struct tidset *s);
/* The comment over a writer group's line in a proposal. */
char *group_comment(const struct advisor *adv, int g);

/* ---- advice_text.c: C text --------------------------------------------- */

/* "Klass *[8]", "name" -> type "Klass *", declarator "name[8]" */
void split_declaration(const char *type, const char *name,
		       char **type_out, char **decl_out);
/* A type name from the DWARF as Rust spells it: "u64[2][3]" ->
 * "[[u64; 3]; 2]", "Node *" -> "*mut Node"; others as they are ("&[u8]",
 * "[u8; 4]", "AtomicU64").  Caller frees. */
char *rust_type_name(const char *c_type);
/* The C in a layout's strings spelled for C++ (alignas, new). */
char *respell_for_cxx(char *s);
void layout_respell_for_cxx(struct report_layout *lay);

#endif
