/* watch.h - the watch backend: exact per-thread counts from watchpoints.
 *
 * A hardware watchpoint (x86: a debug register) traps on every access to
 * its bytes, so its counter is exact where sampling only estimates.  The
 * watch backend arms 8-byte watchpoints on the hottest words of candidate
 * lines, in every thread of the target, for short windows, rotating over
 * words and lines; it counts hits per thread per word and samples the
 * code that made them.
 *
 * Reads and writes.  A debug register matches writes (W) or reads and
 * writes (RW), never reads alone.  Each watched word gets both, and
 * writes = W, reads = RW - W, straight from the kernel's counters: exact,
 * with no ring buffer record per hit and no instruction decoding (the trap
 * lands after the access, so decoding would first have to find the
 * previous instruction's start).  An instruction that reads and writes
 * the word (add %rax,(mem), lock xadd) traps once on both registers and
 * counts as one write.  The price: two of the four debug registers per
 * word, so a window watches two words per thread.
 *
 * Cost.  Every hit is a trap (about 13 us in a VM, ~1 us on bare metal),
 * whatever the sample period.  The cost is bounded by the window (default
 * 50 ms per word group), a duty cycle (confirmation arms at most half of
 * the time) and a cap on hits per second per thread: a window that
 * exceeds it ends early; its counts stay exact over the time it ran.  The
 * sample period only bounds the code-address records: it grows when an
 * event records more than max_samples_per_s, and site counts are scaled
 * by the period of each sample.
 *
 * Lifetime.  Watchpoints are perf events, file descriptors of contend:
 * they are closed when the window ends, on Ctrl-C and on error, and the
 * kernel removes them when contend dies, however it dies.  A thread that
 * exits during a window has its final counts read and its events closed
 * at the next rescan, so that a target churning threads costs
 * descriptors for its live threads only.  Threads are armed one by one
 * (per-thread events, no inherit, so that every thread's count is its
 * own); threads created during a window are found by rescanning
 * /proc/PID/task every 5 ms and armed then: their accesses before that
 * are missed (a thread that lives less than that may be missed
 * entirely), and the result says how many late threads there were.  Only
 * user-mode accesses are counted.
 *
 * Risk.  On a virtual machine a trap may reach the guest kernel with an
 * empty DR6, which it delivers to the target as SIGTRAP: measured about
 * once in 10^7 trapped accesses on this project's KVM guests
 * (bench/watch-safety.sh).  The hit cap keeps a session to a few thousand
 * traps; contend run says so when its target dies of it, and attach does
 * not confirm on a virtual machine unless asked (engine/session.c).
 *
 * By code, where watchpoints do not work (instruments.h: on some virtual
 * machines they arm and never fire).  A window is then one line: uprobes
 * on the code sites that sampling saw access it (code_probe.h; up to
 * CODE_PROBE_MAX_SITES, the most sampled first, writes weighing
 * WATCH_WRITE_WEIGHT), each hit decoded to the address its thread
 * touched, and counted per thread and word when it lies on the line.
 * The counts are exact for those sites; an access by code sampling never
 * saw is not in them (a store sampling missed is found by the census,
 * which runs first, and its site is then the line's; an access through
 * the same pointer as a sampled one, in its function, is probed too:
 * code_siblings.h).  The results have
 * by_code set, and the same shape as the watchpoints': the merge and the
 * report take them alike, and say which instrument counted.
 */
#ifndef CONTEND_WATCH_H
#define CONTEND_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "detector/classify.h"
#include "detector/code_probe.h"
#include "detector/line_table.h"

struct symbolizer;

#define WATCH_WORD 8                  /* bytes per watchpoint */
#define WATCH_SLOTS 4                 /* debug registers per thread (x86) */
#define WATCH_WORDS_PER_WINDOW (WATCH_SLOTS / 2)   /* a W and a RW each */
#define WATCH_MAX_LINE_WORDS 16       /* 128-byte lines */

struct watch_config {
	double window_s;              /* armed time per word group (0.05) */
	double duty;                  /* largest armed share of the time (0.5) */
	double max_hits_per_s;        /* per thread; above it a window ends early;
	                                 0 = no cap (20000) */
	double max_samples_per_s;     /* code-address records per event (2000) */
	unsigned max_lines;           /* confirmation: lines per plan (3) */
	unsigned max_words;           /* words per line (4) */
	double min_word_share;        /* a word with less of the line's
	                                 weighted samples is not watched (0.02) */
	volatile sig_atomic_t *stop;  /* set (Ctrl-C): end the window now */
	/* by code (above): uprobes on the lines' code sites, read through
	 * sym, instead of watchpoints */
	bool by_code;
	struct symbolizer *sym;
};
void watch_config_default(struct watch_config *c);

/* ---- scheduling (pure) ------------------------------------------------ */

/* The words of one line to watch, hottest first, and the code sites
 * sampled on it, most sampled first (by code). */
struct watch_line_words {
	uint32_t pid;
	uint64_t line;                /* line address */
	unsigned line_size;
	uint64_t words[WATCH_MAX_LINE_WORDS];
	unsigned n_words;
	struct code_site sites[CODE_PROBE_MAX_SITES];
	unsigned n_sites;
	unsigned n_sampled_sites;     /* the first of sites, sampling's; the
	                                 rest are code siblings (watch_add_sibling) */
};

/* One window: up to WATCH_WORDS_PER_WINDOW words of one line; by code,
 * the line's words and sites. */
struct watch_window {
	uint32_t pid;
	uint64_t line;
	unsigned line_size;           /* by code: hits anywhere on it count */
	uint64_t words[WATCH_MAX_LINE_WORDS];
	unsigned n_words;
	struct code_site sites[CODE_PROBE_MAX_SITES];
	unsigned n_sites;
};

/*
 * The words of a sampled line worth watching, hottest first, into out
 * (n_words 0: none).  Heat is the samples of the cells that overlap the
 * word, a write sample weighing WATCH_WRITE_WEIGHT loads: stores retire
 * into the store buffer and are sampled ~100x less than the loads of the
 * same line, and the writer's word is the one that must not be missed.
 * Words below cfg->min_word_share of the line's heat are left out, except
 * that the first WATCH_WORDS_PER_WINDOW slots take any sampled word (they
 * cost no extra window); at most cfg->max_words are kept.  The order is
 * that of the windows (watch_plan): after the first word of a window,
 * the hottest word that a thread not yet in the window was sampled on
 * comes next, so that a window can see two threads at once (a thread's
 * 16-byte access heats its two words alike: by heat alone they would
 * fill a window by themselves, and nothing would be confirmed).  The
 * line's code sites go into out too, by the same heat.
 */
#define WATCH_WRITE_WEIGHT 50
void watch_hot_words(const struct line *l, unsigned line_size,
		     const struct watch_config *cfg, struct watch_line_words *out);
/* A word the line's code reaches beside its sampled one (code_siblings.h):
 * by watchpoints it takes a free slot of the first window, never a
 * window more; by code its instruction joins the sites (probed, it
 * counts the word).  False if there was no room, or it was there. */
bool watch_add_sibling(struct watch_line_words *lw, uint64_t addr, const struct code_site *site,
		       bool by_code);

/*
 * Cut each line's words into windows of per_window words
 * (WATCH_WORDS_PER_WINDOW for watchpoints; by code, WATCH_MAX_LINE_WORDS:
 * a line a window), in heat order, and interleave the lines round robin:
 * the first group of every line comes before the second group of any, so
 * that a target that exits early still had its hottest words of every
 * line watched.  Every window of a line carries its sites.  Returns the
 * number of windows; *out is malloc'd.
 */
unsigned watch_plan(const struct watch_line_words *lines, unsigned n, unsigned per_window,
		    struct watch_window **out);

/* The sample period that keeps an event near max_rate records per second,
 * having seen hits in dt seconds: at least 1, never below cur. */
uint64_t watch_sample_period(uint64_t cur, uint64_t hits, double dt, double max_rate);

/* The rest after a window armed for armed_s, that keeps the armed share
 * of the time under cfg->duty.  A window cut short by the cap rests as
 * long as a full one: hot words then cost less, not the same. */
double watch_rest_s(double armed_s, const struct watch_config *cfg);

/* Must a window armed for elapsed seconds end, a thread having hit its
 * words hits times?  Never before WATCH_MIN_WINDOW_S. */
#define WATCH_MIN_WINDOW_S 0.01
bool watch_over_cap(uint64_t hits, double elapsed, const struct watch_config *cfg);

/* ---- results ------------------------------------------------------------ */

struct watch_thread_count {
	uint32_t tid;
	uint64_t reads, writes;       /* exact: RW - W and W */
	uint64_t concurrent;          /* of which in windows where another
	                                 thread hit the line, one of the two
	                                 writing */
};

struct watch_site {
	uint64_t ip;                  /* the instruction after the access */
	uint64_t reads, writes;       /* the word's exact ones, shared by
	                                 samples (watch_sites_fit) */
};

struct watch_word_result {
	uint32_t pid;
	uint64_t addr;                /* 8-byte aligned */
	bool by_code;                 /* counted by uprobes on the line's code
	                                 sites, not by watchpoints (above) */
	double window_s;              /* armed time, all windows */
	unsigned windows;
	bool cut_short;               /* a window ended at the hit cap */
	unsigned threads_late;        /* armed after their window began */
	unsigned threads_unarmed;     /* no free debug register */
	uint64_t reads, writes;       /* all threads */
	struct watch_thread_count *threads;  /* by tid */
	unsigned n_threads, alloc_threads;
	struct watch_site *sites;     /* most hits first (after watch_sort) */
	unsigned n_sites, alloc_sites;
};

/*
 * The word's exact reads and writes shared among its code sites in
 * proportion to their sampled ones (largest remainders), so that the sites
 * add up to the counts beside them: samples come every period-th hit and
 * fall short by up to a period.  A kind no site was sampled for keeps 0.
 */
void watch_sites_fit(struct watch_site *sites, unsigned n, uint64_t reads, uint64_t writes);

/* ---- runtime -------------------------------------------------------------- */

struct watch;

struct watch *watch_new(const struct watch_config *cfg);
void watch_free(struct watch *w);     /* disarms first */

/*
 * By code (watch.h), watch_run_window() returns -ENOENT for a window none
 * of whose sites a uprobe can take (code in no file: JIT), and says
 * nothing.
 *
 * Arm the window's words in every thread of its pid; then watch_poll()
 * until it returns false, and watch_disarm().  Returns 0; -ESRCH if the
 * process is gone (nothing printed); other -errno after printing a
 * one-line error (permissions, no debug register free in any thread).
 */
int watch_arm(struct watch *w, const struct watch_window *win);
/* Wait up to timeout_ms; drain code samples, arm new threads, grow sample
 * periods, check the cap.  False when the window is over: its time is
 * up, the cap was hit, *stop was set or the process is gone. */
bool watch_poll(struct watch *w, int timeout_ms);
/* Read the counts into the results, close every event. */
void watch_disarm(struct watch *w);
/* All of it: arm, poll, disarm.  Returns watch_arm's status. */
int watch_run_window(struct watch *w, const struct watch_window *win);


/* Number of threads armed in the current window (for progress messages). */
unsigned watch_armed_threads(const struct watch *w);

/* Results, sorted (threads by tid, sites by hits); valid until the next
 * window or watch_free(). */
unsigned watch_results(struct watch *w, const struct watch_word_result **out);
const struct watch_word_result *watch_result(struct watch *w, uint32_t pid, uint64_t addr);
/* The results of the words of the line at addr that were watched in a
 * window, by address, into out (WATCH_MAX_LINE_WORDS slots); their number. */
unsigned watch_line_results(struct watch *w, uint32_t pid, uint64_t addr, unsigned line_size,
			    const struct watch_word_result **out);
unsigned watch_windows_run(const struct watch *w);
/* Were its counts taken by code (watch.h, "By code"), not watchpoints? */
bool watch_counts_by_code(const struct watch *w);
/* A recorded confirmation (datafile.h) back in a watch that arms
 * nothing, for confirm_merge_evidence() and the report as if its windows
 * had run here: a copy of r (false if that word has a result already),
 * and the windows' totals. */
bool watch_restore(struct watch *w, const struct watch_word_result *r);
void watch_restore_totals(struct watch *w, unsigned windows, double armed_s);
double watch_armed_s(const struct watch *w);

/* ---- classification from exact counts (pure) ------------------------------ */

/*
 * The watched words of one line as line-table evidence: one cell per
 * (thread, word, kind), reads as loads and writes as stores, count = hits,
 * concurrent as counted per window; line count/concurrent their sums.  An
 * 8-byte word is the finest range: two threads writing different halves
 * of one word look like true sharing.  Returns false if no word of the
 * line was watched.  Release with watch_line_evidence_release().
 */
bool watch_line_evidence(const struct watch_word_result *const *words, unsigned n,
			 uint64_t line_addr, unsigned line_size, struct line *out);
void watch_line_evidence_release(struct line *l);

/* classify_line() over that evidence, thresholds for exact data: score is
 * the concurrent share of the watched hits. */
void watch_classify(const struct line *evidence, struct line_verdict *out);

/*
 * A sampled line with the evidence of its watched words replaced by the
 * exact counts, for classify_line() and report_build() like any line.  A
 * sampled cell is replaced when a watched word it overlaps saw its thread
 * (a window is short: threads outside it keep their samples).  Each
 * replaced cell keeps its bytes, kind and code and takes the exact hits
 * of its thread on its words, reads for a load, writes for a store or RMW
 * (the watch counts an RMW once, as a write), shared among the thread's
 * cells of that kind on the word by their samples.  An access wider than
 * a word (a 16-byte vector load, a straddling one) hits each of its words
 * once: its count is the mean of its words' shares, not their sum.  Hits
 * no replaced cell of that thread and kind takes (stores the timer
 * missed) become a cell in the shape and code of the thread's sampled
 * access to those bytes, else of the word with the code of any sampled
 * access to it.  Counts are accesses times one factor for the whole line,
 * the replaced samples per exact access, so the line keeps its weight
 * (and its score) while each access keeps its exact share: a cheap but
 * frequent victim read is not lost under the noise floor.  A cell's
 * concurrent share is the larger of the word's sampled one and the
 * thread's exact one (hits in windows where another thread hit the line,
 * one of the two writing).  A thread that wrote keeps at least one write,
 * so a writer that sampling missed counts as one.  Returns false if no
 * word of the line was watched; release the result with
 * watch_line_evidence_release().
 */
bool watch_merge_line(const struct line *sampled, const struct watch_word_result *const *words,
		      unsigned n, unsigned line_size, struct line *out);

/* ---- confirmation of a sampling session ----------------------------------- */

struct confirm;

struct confirm *confirm_new(const struct watch_config *wcfg,
			    const struct classify_config *ccfg, unsigned line_size);
/* Confirmation with what the self-test found working here
 * (instruments.h): watchpoints, else uprobes on the lines' code (wcfg's
 * by_code is set to say which); NULL where neither works.  With census
 * not NULL, *census: the census of stores by execute breakpoints, else
 * uprobes, or NULL. */
struct instruments;
struct census;
struct confirm *confirm_by_instruments(const struct instruments *in, struct watch_config *wcfg,
				       const struct classify_config *ccfg, unsigned line_size,
				       struct census **census);
void confirm_free(struct confirm *c);
/*
 * Call about every 100 ms while the target runs.  From CONFIRM_START_S of
 * sampling on, picks the top contended (and suspect) lines not yet watched and runs
 * their windows, one per call, keeping the armed share under cfg->duty.
 */
#define CONFIRM_START_S 0.2     /* 2 x 200 samples at 1 kHz: enough to pick */
void confirm_tick(struct confirm *c, struct line_table *lines, double elapsed);
/* Attach the watch results to the report's lines. */
/* Once sampling is over, before the report is built: every line that was
 * watched takes the exact evidence (watch_merge_line), so the report's
 * classification knows the writers that sampling missed. */
void confirm_merge_evidence(struct confirm *c, struct line_table *lines);
/*
 * On demand (contend top's w): confirm_tick() picks no line by itself and
 * runs only the windows confirm_line() plans, at the same window, cap and
 * duty cycle.  confirm_line() plans the words of one sampled line (pid,
 * addr in lines) now.  Returns 0; -EBUSY while windows of an earlier
 * plan remain; -ENOENT if lines has no such line or no word of it was
 * sampled; -EXDEV if other processes share it (a watch sees one
 * process); -EIO once a window failed (confirm_failed()).
 */
void confirm_on_demand(struct confirm *c);
int confirm_line(struct confirm *c, struct line_table *lines, uint32_t pid, uint64_t addr);
/* Windows planned and not run yet: a confirmation is under way. */
bool confirm_busy(const struct confirm *c);
/* A window failed to arm (said why on stderr): no more windows run. */
bool confirm_failed(const struct confirm *c);
/* The watch a confirmation runs its windows with (NULL for NULL). */
struct watch *confirm_watch(const struct confirm *c);
/* Does it count by code (watch.h, "By code")?  False for NULL. */
bool confirm_by_code(const struct confirm *c);
/* Windows run so far (0 for NULL): were watchpoints ever armed? */
unsigned confirm_windows_run(const struct confirm *c);
/* Why no window ran when sampling (duration seconds) ended before the
 * first could open: the lines' kinds are then the samples' alone, which
 * the report's header says.  NULL when windows ran, or could have, or
 * for c NULL or on demand; caller frees. */
char *confirm_missed_note(const struct confirm *c, double duration);

#endif
