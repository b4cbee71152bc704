/* report.h - the report model: what every output format prints.
 *
 * report_build() turns a line table into ranked, symbolized, classified
 * lines (with advice); report_print_text()/report_print_json() render it.
 * The model owns all its strings; report_free() releases everything.
 * Nothing here knows which backend produced the samples, except the
 * header's backend name.
 */
#ifndef CONTEND_REPORT_H
#define CONTEND_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "../detector/classify.h"
#include "../detector/line_table.h"

struct symbolizer;
struct data_types;

struct report_count {
	char *what;                   /* "prev is branch target", "stack", ... */
	uint64_t n;
};

struct report_thread {
	uint32_t tid;
	char *comm;                   /* thread name, may be NULL */
	uint64_t reads, writes;       /* samples on the line/range */
};

struct report_site {
	uint64_t ip;
	char *function;               /* NULL if unknown: print module+0xoff */
	char *file;                   /* NULL if unknown */
	int line;
	char *inlined_into;           /* NULL unless inlined */
	char *module;
	uint64_t module_off;
	uint64_t reads, writes;
};

struct report_range {
	unsigned offset, size;        /* within the line */
	char *member;                 /* "counters[1]", "secondary_super_cache", NULL */
	bool true_shared, false_victim, false_writer;
	uint64_t reads, writes;       /* all samples on this range */
	struct report_thread *threads;
	unsigned n_threads;
	struct report_site *sites;
	unsigned n_sites;
};

struct report_member {              /* a member of the contended struct */
	char *name;
	char *type_name;
	uint64_t offset, size;       /* in the struct */
	uint64_t reads, writes;      /* samples */
	uint32_t *writers, *readers; /* tids */
	unsigned n_writers, n_readers;
};

struct report_advice {
	char *summary;               /* one sentence: what to do */
	char *layout_now;            /* pahole-style current layout, or NULL */
	char *layout_proposed;       /* C to write, or NULL (true sharing) */
	long cost_bytes;             /* size growth of the proposal, 0 if none */
	unsigned placements_sharing; /* start placements where the contending */
	unsigned placements_total;   /*   members share a line; 0/0 if n/a */
};

struct report_line {
	uint32_t pid;
	uint64_t addr;
	unsigned line_size;
	enum sharing_kind kind;
	double score, share, concurrent_frac;
	uint64_t samples, concurrent;
	char *object;                /* "counters+8", "[heap]+0x2a0", ... */
	char *variable;              /* DWARF variable or pointer name, NULL */
	char *type_name;             /* "struct Klass", NULL */
	uint64_t object_start;       /* address of the object/struct instance */
	uint64_t typed, untyped;     /* accesses with/without a DWARF type */
	struct report_thread *threads;
	unsigned n_threads;
	struct report_range *ranges;
	unsigned n_ranges;
	struct report_member *members;   /* layout of the struct, if typed */
	unsigned n_members;
	uint64_t struct_size, struct_align;
	struct report_advice advice;
	double predicted_gain;       /* estimated speedup of fixing it, 0 if n/a */
};

struct report {
	char *command;
	char *backend;               /* "soft" */
	char *backend_note;          /* why this backend, or NULL */
	unsigned freq;
	double duration;             /* seconds */
	unsigned line_size;
	int target_status;           /* exit status, or -signal, of a launched target */
	uint64_t samples;            /* all samples taken */
	uint64_t decoded;            /* access samples that reached the line table */
	struct report_count *dropped;
	unsigned n_dropped;
	uint64_t typed, untyped;     /* over accesses on reported lines */
	struct report_count *untyped_why;
	unsigned n_untyped_why;
	struct report_line *lines;   /* ranked, contended only, at most top */
	unsigned n_lines;
	unsigned n_candidates;       /* lines touched by >= 2 threads */
};

struct report_header {               /* filled by the session */
	const char *command;
	const char *backend;
	const char *backend_note;
	unsigned freq;
	double duration;
	int target_status;
	uint64_t samples, decoded;
	const struct report_count *dropped;
	unsigned n_dropped;
};

struct report *report_build(const struct report_header *hdr,
			    struct line_table *lines,
			    const struct classify_config *cfg, unsigned top,
			    struct symbolizer *sym, struct data_types *dt);
void report_free(struct report *r);

void report_print_text(const struct report *r, FILE *out);
void report_print_json(const struct report *r, FILE *out);

#endif
