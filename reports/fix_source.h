/* fix_source.h - the source files a fix patch edits, as lines.
 *
 * A file is read once (safe_open_read(): a regular file, no symlink, and,
 * with a reader, one the target's credentials could read: DWARF names it,
 * the target controls it), at most FIX_SOURCE_MAX bytes, into lines that
 * keep their '\n'.  Lines are numbered from 1 as DWARF numbers them.
 *
 * The scanner knows C's comments, strings and character literals, no more:
 * fix_source_uses() finds an identifier where code names it, not where a
 * comment or a string spells it.  The project root is the nearest
 * directory above the file that holds .git, unless the caller gave one.
 */
#ifndef CONTEND_FIX_SOURCE_H
#define CONTEND_FIX_SOURCE_H

#include <stdbool.h>

struct proc_creds;

#define FIX_SOURCE_MAX (16u << 20)

struct fix_source {
	char *path;                  /* as DWARF names it */
	char **lines;                /* lines[0] is line 1; each ends in '\n'
	                                but perhaps the last (no_newline) */
	unsigned n_lines;
	bool no_newline;             /* the file does not end in '\n' */
};

/* Read path: 0, or -1 and *why (caller frees). */
int fix_source_read(const char *path, const struct proc_creds *reader,
		    struct fix_source *out, char **why);
void fix_source_release(struct fix_source *s);
/* Line n (1-based), or "" past the end. */
const char *fix_source_line(const struct fix_source *s, unsigned n);

/* Does line hold name as a whole identifier outside comments and strings
 * (the line alone: a comment opened above is not seen)? */
bool fix_line_names(const char *line, const char *name);

/* The places code names `name` in s, outside comments and strings: per
 * use its line and the byte offset just past the name.  Returns the count;
 * *lines and *ends are the caller's to free. */
unsigned fix_source_uses(const struct fix_source *s, const char *name,
			 unsigned **lines, unsigned **ends);

/* The byte offset just past the ']' that closes the '[' at line[open],
 * on the same line; 0 when it does not close there. */
unsigned fix_bracket_end(const char *line, unsigned open);

/* The project root for path: root when given (made absolute), else the
 * nearest directory above path holding .git, else path's directory.
 * Caller frees. */
char *fix_project_root(const char *path, const char *root);
/* path relative to root ("src/x.c"), or NULL when it is not under it.
 * Caller frees. */
char *fix_relative_path(const char *path, const char *root);

#endif
