/* alloc_text.h - a heap block in words, for every printer and the advice.
 *
 * "calloc(2, 3072) = 6144 bytes at 0x5581a0e2a2a0 (2 x struct worker_arg,
 * kept in arg), allocated in main heap_struct_array.c:112 by thread 2104"
 * -- unescaped: the site's names come from the target, and each printer
 * escapes them its own way.  A block read from the heap (walked, under
 * attach) has no call or site, and says so: "6144 bytes at 0x... (2 x
 * struct worker_arg by its size, as pointers named arg go), 6152 usable,
 * read from the glibc heap: allocation site not recorded under attach".
 */
#ifndef CONTEND_ALLOC_TEXT_H
#define CONTEND_ALLOC_TEXT_H

#include "reports/report.h"

/* The layout advice's last word on a heap block: "calloc(2, 3072) in
 * main x.c:113 aligns to 16 bytes only: allocate with aligned_alloc(64,
 * 2 * sizeof(struct worker_arg)) and zero it"; NULL without a block, or
 * for operator new (the caller's generic text covers C++).  A line of a
 * layout's comment text: unlike the rest, its names (site, title) come
 * escaped (common/escape.h).  array: the block holds title's elements,
 * "n * sizeof" where the count is unknown.  Caller frees. */
char *alloc_align_advice(const struct report_alloc *a, uint64_t align, const char *title,
			 bool array);

#endif
