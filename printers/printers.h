/* printers.h - the printers of the report model, and the words they share.
 *
 * A printer reads the model (reports/report.h) and nothing else of the
 * analysis: it never recomputes, names or advises, it words what the
 * model holds.  Commands reach a printer through the format table
 * (format.h) or, for top's screen and check's verdicts, the entry points
 * below.  print functions must not fail: write errors show when the
 * caller closes the stream.  Strings returned are raw (names from the
 * target unescaped: each format escapes them its way); the caller frees.
 */
#ifndef CONTEND_PRINTERS_H
#define CONTEND_PRINTERS_H

#include <stdbool.h>
#include <stdio.h>

struct report;
struct report_latent;
struct report_line;

void report_print_text(const struct report *r, FILE *out);
/* line i alone, as report_print_text() prints it (contend top) */
void report_print_text_line(const struct report *r, unsigned i, FILE *out);
void report_print_json(const struct report *r, FILE *out);
/* the fix as a unified diff after "# " lines (reports/fix_patch.h) */
void report_print_patch(const struct report *r, FILE *out);
/* source files with the contended lines marked; full: whole files */
void report_print_annotate(const struct report *r, FILE *out, bool full);
/* one self-contained HTML page: no network, inline CSS and SVG */
void report_print_html(const struct report *r, FILE *out);

/* Latent false sharing (report.h's struct report_latent), in the words
 * every format uses (text, annotate, check, SARIF, HTML). */
/* "2 of 4 placements at 16-byte alignment (malloc's), 4 of 8 at 8-byte
 * alignment (the type's) on 64-byte lines; 6 of 8 ... on 128-byte lines" */
char *latent_placements_text(const struct report_latent *lt);
/* "[0].sum (T1234, writes) and [1].count (T1235, writes) of struct
 * worker[] at [heap]+0x2a0, 25 bytes apart" */
char *latent_summary(const struct report_latent *lt);
/* The one-line finding: "latent false sharing: SUMMARY; they share a
 * line in PLACEMENTS: ADVICE" */
char *latent_message(const struct report_latent *lt);
/* --annotate's tail: one compiler-style line per minor line and per
 * latent pair ("f.c:60: latent false sharing: ..."), at the code that
 * writes it; nothing if there are none. */
void report_print_latent_annotate(const struct report *r, FILE *out);
/* The text report's section, after the minor lines; nothing if none. */
void report_print_latent_text(const struct report *r, FILE *out);

/* The watch's results (words.c).  Why a watched line's exact counts
 * do not confirm it: "only thread 12 accessed the watched words", "no
 * thread wrote ...".  A thread with less than 1% of the accesses is not
 * taking part, as classification has it. */
char *watch_not_confirmed_why(const struct report_line *l);
/* What counted the watched words: "watchpoints", or "uprobes on the
 * lines' code" (detector/watch.h, "By code"). */
const char *report_watch_instrument(const struct report *r);
/* The instruments the run's self-test found not working, in words, for
 * every format's header: "watchpoints unavailable on this machine:
 * armed, never fired on self-test stores and loads (0 of 200)"; NULL
 * when all work or none was tested. */
char *report_instruments_note(const struct report *r);

/* `contend stat`'s triage (reports/stat_report.h), rendered. */
struct stat_report;
void stat_report_print_text(const struct stat_report *r, FILE *out);
void stat_report_print_json(const struct stat_report *r, FILE *out);

/* What the report's gains were priced at, one sentence for its header
 * (text and HTML). */
char *report_price_text(const struct report *r);
/* "cpus 0-3, NUMA nodes 0-1": where l's samples ran (the nodes where the
 * topology is known); "" if no sample said its CPU.  Caller frees. */
char *report_cpus_text(const struct report_line *l);

#endif
