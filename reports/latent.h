/* latent.h - printing latent false sharing (report.h's struct
 * report_latent) where a printer shares one wording.
 *
 * latent_site_text() and latent_placements_text() are the words every
 * format uses (text, annotate, check, SARIF, HTML): "[0].sum (thread 12
 * writes) and [1].count (thread 13 writes) of struct slot[] at ...",
 * "2 of 4 placements at 16-byte alignment (malloc's) on 64-byte lines".
 * Strings from the target are raw here: each printer escapes them its way.
 */
#ifndef CONTEND_LATENT_H
#define CONTEND_LATENT_H

#include <stdbool.h>
#include <stdio.h>
#include "reports/report.h"

/* The alignment the pair's heap block was allocated with, where its
 * record says one (aligned_alloc, posix_memalign, memalign, C++17's
 * aligned new) above both
 * malloc's and the type's; else 0.  Where a block starts proves nothing:
 * one read from the heap (attach) has no record, so 0. */
uint64_t latent_alloc_align(const struct report_latent *lt);
/* A global's declared alignment (_Alignas(64) on the variable, not its
 * type: lt->decl_align) where it exceeds the type's; else 0.  It keeps the
 * object where it starts as an aligned allocation keeps a heap block. */
uint64_t latent_decl_align(const struct report_latent *lt);
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
/* " (the type's)", " (malloc's)", " (aligned_alloc's)", " (the
 * declaration's)": whose alignment
 * placement p counts at. */
const char *latent_placement_whose(const struct report_latent *lt,
				   const struct report_placement *p);

/* "increment (latent_slots.c:63)"; caller frees. */
char *latent_site_text(const struct report_site *s);
/* "2 of 4 placements at 16-byte alignment (malloc's), 4 of 8 at 8-byte
 * alignment (the type's) on 64-byte lines; 6 of 8 ... on 128-byte lines";
 * caller frees. */
char *latent_placements_text(const struct report_latent *lt);
/* "[0].sum (T1234, writes) and [1].count (T1235, writes) of struct
 * worker[] at [heap]+0x2a0, 25 bytes apart"; caller frees. */
char *latent_summary(const struct report_latent *lt);

/* --annotate's tail: one compiler-style line per minor line and per
 * latent pair ("f.c:60: latent false sharing: ..."), at the code that
 * writes it; nothing if there are none. */
void report_print_latent_annotate(const struct report *r, FILE *out);

/* The one-line finding: "latent false sharing: SUMMARY; they share a
 * line in PLACEMENTS: ADVICE"; caller frees. */
char *latent_message(const struct report_latent *lt);

/* The text report's section, after the minor lines; nothing if none. */
void report_print_latent_text(const struct report *r, FILE *out);

#endif
