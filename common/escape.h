/* escape.h - names from the target are data: make them safe to print as text.
 *
 * Thread names, symbol names, DWARF file names and perf-map names are chosen
 * by the (possibly hostile) target.  Printed raw, a name holding "\n" forges
 * a whole output line ("real.c:99: note: all good"), one holding ESC[2J
 * clears the user's terminal.  escape_text() makes every such byte visible:
 *
 *   \n \r \t          for newline, carriage return, tab
 *   \\                for a backslash, so that an escape in the output always
 *                     means an escaped byte and never a literal "\n" in a name
 *   \xNN              for other C0 controls, DEL, and every byte that is not
 *                     part of valid UTF-8 (overlong, surrogate, > U+10FFFF,
 *                     truncated)
 *   \uXXXX            for C1 controls U+0080..U+009F encoded in UTF-8 and for
 *                     the bidirectional overrides U+202A..U+202E and
 *                     U+2066..U+2069, which reorder what a terminal shows
 *
 * Valid UTF-8 otherwise stays as it is ("/tmp/fresh clone ✓/x.c" prints as
 * is).  Escaping "\n" is what stops a forged line: with no newline a name can
 * only ever fill its own field on its own line.  escape_location_path() also
 * writes ':' as \x3a, for the path of a "file:line: message" line, so that an
 * editor's error parser cannot read "x.c:99: note" inside a file name as a
 * location of its own.
 *
 * escape_source_line() is for a line of a source file shown by annotate
 * (its text is the target's too: a comment can hold ESC[2J): it keeps tabs
 * and backslashes as they are, since there an escape would only garble the
 * code ("\n" in a string literal) and nothing parses it back; the caller
 * strips the line's own trailing newline first.
 *
 * For text outputs only: JSON and HTML have their escapers in reports/.
 * Each function resets sb, fills it and returns its string (never NULL); the
 * result lives until sb is next used, so use one strbuf per name in a printf.
 * A NULL s reads as "".
 */
#ifndef CONTEND_ESCAPE_H
#define CONTEND_ESCAPE_H

#include "common/util.h"

const char *escape_text(struct strbuf *sb, const char *s);
const char *escape_location_path(struct strbuf *sb, const char *s);
const char *escape_source_line(struct strbuf *sb, const char *s);

#endif
