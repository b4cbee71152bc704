/* fix_internal.h - the pieces of the fix patch (fix_patch.h) that its
 * files share: fix_patch.c reads the sources, words the comments, keeps
 * the edits and puts them in the report; each shape is its own file:
 * fix_struct.c (a struct's members, and assertions on its layout),
 * fix_array.c (a global array of scalars, a malloc of aligned elements),
 * fix_java.c (a Java class's fields), fix_go.c (a Go struct's pads),
 * fix_rust.c (a Rust struct's repr, pads and literals).  A shape returns NULL when it added
 * its edits to ps, else why it could not (caller frees).
 */
#ifndef CONTEND_FIX_INTERNAL_H
#define CONTEND_FIX_INTERNAL_H

#include <stdbool.h>

#include "common/util.h"
#include "reports/report.h"

struct fix_source;

/* An edit not yet in the report (all line numbers are the file's own). */
struct pending {
	const struct fix_source *src;
	unsigned line, n_old;
	char *new_text;
};

struct pending_set {
	struct pending *e;
	unsigned n, alloc;
	struct strbuf caveat;
};

struct fix_ctx {
	struct report *r;
	char *root_opt;                 /* --root, or NULL */
	struct fix_source *files;       /* read so far; path NULL: unreadable */
	char **why;                     /* ... and why */
	unsigned n_files, alloc_files, alloc_why, alloc_edits;
	size_t bytes;                   /* of the files read */
};

/* path read once per report (fix_source.h), or NULL and *why */
const struct fix_source *fix_source_of(struct fix_ctx *c, const char *path, char **why);
/* "/ * contend: WHAT; KIND on OBJECT by threads ...; predicted gain * /\n",
 * indented as like is; names from the target made safe for a comment */
void fix_comment_line(struct strbuf *sb, const char *like, const char *what,
		      const struct report_line *rl);
/* "_Alignas" or "alignas", as the line's language spells it */
const char *fix_align_word(const struct report_line *rl);
/* lines [line, line + n_old) of src become text (n_old 0: before line);
 * takes text */
void fix_pending_add(struct pending_set *ps, const struct fix_source *src, unsigned line,
		     unsigned n_old, char *text);
/* lines [first, last] of src become text, as the smallest edits */
void fix_pending_replace(struct pending_set *ps, const struct fix_source *src,
			 unsigned first, unsigned last, const char *text);
/* "Klass" of "struct Klass": the name code spells in sizeof() */
const char *fix_type_tag(const char *name);
/* Is name one to write into code as it is ("volatile long", "Klass *",
 * "ns::T<int>")?  DWARF's names are the target's: no newline may forge a
 * line of the patch. */
bool fix_code_name(const char *name);
/* Where a language whose DWARF gives a type no line declares it: the
 * files of the line's code sites ending in ext (".go"), then the other
 * such files of their directories; at most max, each malloc'd. */
unsigned fix_candidate_files(const struct report_line *rl, const char *ext, char **files,
			     unsigned max);
/* The first of those files' lines that declares(line, name): its number,
 * *src its file and *close the line of the body's closing brace (the
 * first line after it that starts with '}'); 0 if none declares it. */
unsigned fix_find_type(struct fix_ctx *c, const struct report_line *rl, const char *ext,
		       bool (*declares)(const char *line, const char *name), const char *name,
		       const struct fix_source **src, unsigned *close);
/* a proposal's row that only pads ("char pad[56]") */
bool fix_pad_row(const struct report_layout_row *row);

char *fix_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps);
char *fix_scalar_array(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps);
/* a malloc of line-aligned elements: aligned_alloc, or a caveat */
void fix_allocation(struct fix_ctx *c, const struct report_line *rl, struct pending_set *ps);
char *fix_java_fields(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps);
char *fix_go_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps);
char *fix_rust_struct(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps);

#endif
