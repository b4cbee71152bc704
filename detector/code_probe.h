/* code_probe.h - one window of probes on instructions, in every thread
 * of a process.
 *
 * Two instruments stop a thread at an instruction before it runs, with
 * its user registers (and, on request, the 8 bytes at its stack pointer:
 * at a function's entry, the return address):
 *  - an execute breakpoint: a debug register, at most WATCH_SLOTS per
 *    thread; on some virtual machines it arms and never fires
 *    (instruments.h tells);
 *  - a uprobe: an int3 the kernel writes into the file's page, for the
 *    events' tasks only (per-thread events, never inherited: an
 *    inherited uprobe breaks the new thread); any number of them, about
 *    8.5 us a hit in a VM (bench/RESULTS.md).  Every site of a window is
 *    one trace event (uprobe_event.h), one perf event per thread.  The
 *    file is named to the kernel by the mapping's own /proc/PID/map_files
 *    link, and only if it is the very file (device, inode) the target
 *    maps: code of another file is never patched.  The kernel refuses
 *    some instructions (x86: LOCK-prefixed; decode_uprobe_refuses()):
 *    such a site is probed at its alt (the next instruction), where the
 *    registers are those after it ran (decode with 'after' set).
 *
 * Events start disabled and are enabled once every thread is armed, so
 * that no thread runs with half its probes.  Threads created during the
 * window are not armed, nor those past CODE_PROBE_MAX_THREADS (a ring of
 * 128 KiB each).  The window ends after max_s seconds, max_hits
 * hits (lost records count as hits) or *stop.  Each hit's sample reaches
 * hit() in the order its thread's ring holds them.
 */
#ifndef CONTEND_CODE_PROBE_H
#define CONTEND_CODE_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_sample;
struct symbolizer;

enum code_probe_kind {
	CODE_PROBE_BREAKPOINT,
	CODE_PROBE_UPROBE,
};

#define CODE_PROBE_MAX_SITES 16      /* uprobes; breakpoints: WATCH_SLOTS */
#define CODE_PROBE_MAX_THREADS 256

struct code_site {
	uint64_t ip;                 /* the instruction (plain: unversioned) */
	uint64_t alt;                /* the next one, or 0: probed instead when
	                                ip is refused (uprobes only) */
	/* set by the window */
	bool at_alt;                 /* hits come after ip ran */
	bool refused;                /* probed at neither */
};

struct code_probe_window {
	enum code_probe_kind kind;
	struct symbolizer *sym;      /* uprobes: the file and offset of a site */
	pid_t pid;
	struct code_site *sites;
	unsigned n_sites;
	bool stack;                  /* the 8 bytes at the stack pointer too */
	double max_s;
	unsigned max_hits;
	volatile sig_atomic_t *stop; /* or NULL */
	void (*hit)(void *ctx, const struct perf_sample *ps, const struct code_site *site);
	/* Or NULL: at the end, each armed thread's hits as its events counted
	 * them, and how many of them reached hit() (fewer: its ring
	 * overflowed, and its records stand for more hits each). */
	void (*thread_done)(void *ctx, pid_t tid, uint64_t counted, uint64_t seen);
	void *ctx;
};

/* Breakpoint length the kernel wants for an instruction: AArch64 4,
 * x86-64 sizeof(long). */
unsigned code_probe_bp_len(void);

/* Run the window.  Returns the hits, or -errno: -ESRCH if the process is
 * gone, -ENOSPC if no thread had a free debug register, -ENOENT if no
 * site could be probed, else the first thread's error. */
int code_probe_run(struct code_probe_window *w);

/* The kernel's name of its own kind ("execute breakpoints", "uprobes"). */
const char *code_probe_kind_name(enum code_probe_kind kind);

#endif
