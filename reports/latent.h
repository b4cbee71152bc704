/* latent.h - latent false sharing's placements and advice (report.h's
 * struct report_latent), as report_latent.c builds them.
 *
 * The words every format shares about it (its site, its placements) are
 * the printers' (printers/printers.h).  Strings from the target are raw
 * here: each printer escapes them its way.
 */
#ifndef CONTEND_LATENT_H
#define CONTEND_LATENT_H

#include <stdbool.h>
#include <stdio.h>
#include "reports/report.h"

/* lt->placements from its sides, type_align, heap, alloc and decl_align:
 * for 64- and 128-byte lines, at the allocation's alignment
 * (latent_alloc_align) or the declaration's (latent_decl_align), at
 * malloc's 16 bytes (heap objects of a type aligned below it) and at the
 * type's, in that order. */
void latent_fill_placements(struct report_latent *lt);
/* The advice (lt->advice), from the filled placements: what keeps the two
 * apart today (an aligned allocation: keep it) and the padding or
 * alignment that removes the risk whatever allocates the object.  L: the
 * machine's line size; lang: the type's, whose spelling the advice takes
 * (_Alignas, alignas, #[repr(align)]).  Raw; caller frees. */
enum advice_lang { ADVICE_C, ADVICE_CXX, ADVICE_RUST };
char *latent_advice(const struct report_latent *lt, unsigned L, enum advice_lang lang);

#endif
