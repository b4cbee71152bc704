/* fix_patch.h - the fix as a patch to the project's own source.
 *
 * For each contended line whose advice proposes a layout (report_line.
 * advice.proposed), fix_patch_build() writes the change where DWARF
 * declares what the layout changes, in the program's language (C's
 * _Alignas, C++'s alignas):
 *   - a struct's members: the proposal's members each start a line, in
 *     the proposal's order (a member's block is its declaration and the
 *     comment lines above it, and moves whole);
 *   - an array of per-thread structs: the element aligned, so its size
 *     rounds up to the line (the cost in bytes is said);
 *   - a global array of scalars: a padded element struct in its
 *     declaration, and each `name[i]` in the file becomes `name[i].v`;
 *   - a malloc() of such elements: aligned_alloc(line, ...), since malloc
 *     aligns to 16 only;
 *   - a Java object's fields: @jdk.internal.vm.annotation.Contended on
 *     each, in the class's source found by its name under the root (the
 *     JVM flag it needs is said);
 *   - a Go struct: the proposal's `_ [N]byte` pads, in the declaration
 *     found by name in the Go files of its code (Go's DWARF gives a type
 *     no source line);
 *   - a Rust struct, found the same way: #[repr(C, align(64))], _padN
 *     fields, and the pads in its struct literals.
 * Each change carries a comment naming the line, the threads and the
 * predicted gain.  True sharing gets no patch (padding cannot part
 * threads writing the same bytes: report_line.fix.none_why says what to
 * do instead), nor does a Rust binary without debug info (no struct is
 * named), nor anything the patch could not place exactly: a member
 * sharing its source line with another, a packed struct, a file contend
 * may not read (fix_source.h), or a type DWARF gives no line.
 * A layout other code may rely on (a header, a static assertion on its
 * size) is patched with a caveat naming it.
 *
 * The result is the model's: report.patch (edits and their unified diff,
 * paths relative to the project root: `patch -p1` there) and each line's
 * report_line.fix.  root: the project root, NULL: found (fix_source.h).
 */
#ifndef CONTEND_FIX_PATCH_H
#define CONTEND_FIX_PATCH_H

#include "reports/report.h"

void fix_patch_build(struct report *r, const char *root);

/* The unified diff of the edits of one file (sorted by line, none
 * overlapping) against its lines; "--- a/PATH" / "+++ b/PATH" headers,
 * three lines of context.  Caller frees.  (fix_diff.c) */
struct fix_source;
char *fix_unified_diff(const struct fix_source *src, const char *path,
		       const struct report_edit *const *edits, unsigned n);

#endif
