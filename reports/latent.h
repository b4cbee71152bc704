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

#include <stdio.h>
#include "reports/report.h"

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
