/* advice.h - how to fix a contended line.
 *
 * Input: a report line whose members (struct layout) and ranges are filled.
 * Output: line->advice.  For a struct: the pahole-style layout with
 * cacheline boundaries and per-member writer/reader threads, then a
 * proposed layout that puts members with different writer sets on
 * different lines and read-mostly members away from written ones, as C
 * (_Alignas(64) / char pad[N]) with its size cost.  For arrays of
 * per-thread elements: pad/align the element.  For true sharing: padding
 * cannot help; per-thread copies, check-before-write, batching can.
 * Placement note: over the start offsets the type's alignment allows
 * (16 for malloc'd memory), in how many do the contending members share a
 * line of line_size bytes.
 *
 * Both layouts are data first (line->advice.current and .proposed: rows
 * of member, offset, size, alignment, padding, writers and readers);
 * every format prints them with advice_layout_text(), and the text fields
 * layout_now/layout_proposed are that text, kept for one release.
 */
#ifndef CONTEND_ADVICE_H
#define CONTEND_ADVICE_H

#include "reports/report.h"

void advice_for_line(struct report_line *line, bool heap_object);

/* Frees what the advice owns and zeroes it. */
void advice_release(struct report_advice *a);
void advice_layout_release(struct report_layout *lay);

/* Count start placements (multiples of align within one line) where bytes
 * [a_off, a_off+a_size) and [b_off, b_off+b_size) of an object land on the
 * same line.  Returns the count; *total gets the number of placements. */
unsigned advice_shared_placements(uint64_t align, unsigned line_size,
				  uint64_t a_off, uint64_t a_size,
				  uint64_t b_off, uint64_t b_size,
				  unsigned *total);

#endif
