/* stat_report.h - `contend stat`: triage metrics, a verdict, and output.
 *
 * The caller (cli/cmd_stat.c) fills the counts: a counter_reading per
 * process and per thread (detector/counters.h), what could not be read
 * and why, and what the soft sampler saw (access samples, and those on
 * lines the contention report calls contended).  stat_report_finish()
 * derives the per-1000-instruction metrics and the verdict; the printers
 * (printers/stat_text.c) render them, never recompute.
 *
 * The verdict, and the thresholds it uses (stat_report.c says where each
 * comes from; the output lists them):
 *  - with hardware counters: contention likely when the estimated cycles
 *    on contested accesses (HITM loads x STAT_HITM_COST_CYCLES / cycles)
 *    reach STAT_CONTESTED_MIN, or memory-ordering machine clears reach
 *    STAT_MO_CLEARS_PKI_MIN per 1000 instructions;
 *  - without them (no PMU, a VM): when the soft sampler's accesses on
 *    contended lines reach STAT_SAMPLE_SHARE_MIN of its accesses.
 * Both read "contention likely: ...; run `contend run` to find the lines"
 * or "contention unlikely: ...".
 */
#ifndef CONTEND_STAT_REPORT_H
#define CONTEND_STAT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "detector/counters.h"

#define STAT_HITM_COST_CYCLES 60.0
#define STAT_CONTESTED_MIN 0.05
#define STAT_MO_CLEARS_PKI_MIN 1.0
#define STAT_SAMPLE_SHARE_MIN 0.05

struct stat_metrics {
	struct counter_reading c;
	/* derived; NAN where the counts were not read */
	double cpi, mo_clears_pki, hitm_pki, l3_miss_pki, dtlb_walks_pki;
	double contested;             /* share of cycles, HITM x cost / cycles */
	/* the soft sampler: access samples, and those on contended lines */
	uint64_t samples, on_contended;
};

struct stat_thread {
	uint32_t tid;
	char *comm;                   /* may be NULL */
	struct stat_metrics m;
};

struct stat_unread {
	enum counter_metric metric;
	char *event;                  /* what would have counted it, NULL if none */
	char *why;
};

struct stat_threshold {
	const char *what;             /* "contested-access cycles >= 5%" */
	const char *source;
};

struct stat_report {
	char *command;
	uint32_t pid;
	double duration;
	bool launched;
	int target_status;            /* launched: exit status, or -signal */
	char *model;                  /* the CPU as the plan named it */
	char *event[CM__COUNT];       /* what counted each metric, NULL if none */
	const char *caveat[CM__COUNT];
	char *fit_note;               /* the group cannot fit, or NULL */
	char *multiplex_note;         /* the hardware group shared counters, or NULL */
	char *threads_note;           /* threads not counted one by one, or NULL */
	struct stat_unread *unread;
	unsigned n_unread;
	struct stat_metrics process;
	struct stat_thread *threads;
	unsigned n_threads;
	char *sampler;                /* backend that sampled ("soft"), NULL if none */
	unsigned contended_lines;
	/* the verdict */
	bool counters_judged;         /* from hardware counters, else from samples */
	bool likely;
	bool judged;                  /* false: nothing to judge from */
	char *verdict;
	struct stat_threshold thresholds[4];
	unsigned n_thresholds;
};

/* Derive metrics for the process and every thread, then the verdict. */
void stat_report_finish(struct stat_report *r);
/* The metrics of one reading (NAN where unread or never scheduled). */
void stat_metrics_derive(struct stat_metrics *m);
void stat_report_free(struct stat_report *r);


/* One line for the header of `run`/`attach` from a process reading:
 * "CPI 1.20, 3.1 machine clears and 2.0 HITM per 1k instructions:
 * contention likely"; NULL when the hardware counters were not read. */
char *stat_triage_line(const struct counter_reading *c);

#endif
