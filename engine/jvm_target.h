/* jvm_target.h - what a session does for a HotSpot JVM it samples.
 *
 * A HotSpot JVM writes /tmp/perf-PID.map, the names of its JIT code, only
 * when asked (jcmd PID Compiler.perfmap): the session asks it through the
 * attach protocol (symbolize/jvm_attach.h), at the start and at the end of
 * an attach and every second under run, and the report's header says where
 * the names came from (jvm_map_note()).  Under run, its data would be gone
 * before the report: one of its threads is held at its exit
 * (engine/exit_hold.h) from the first tick that sees libjvm.so.
 */
#ifndef CONTEND_JVM_TARGET_H
#define CONTEND_JVM_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/exit_hold.h"

struct jvm_target {
	bool is_jvm;               /* the target maps libjvm.so */
	unsigned written;          /* maps the JVM wrote for us */
	unsigned refused;          /* requests that failed */
	char *error;               /* the last refusal, if none was written */
	char *path;                /* the map as we reach it */
	double next_try;           /* run: monotonic_s() of the next request */
	struct exit_hold hold;     /* run: its memory kept through its exit */
};

/* Ask the JVM pid to write its perf map now; the first refusal is kept
 * until a map is written. */
void jvm_ask_perf_map(struct jvm_target *j, pid_t pid);

/* run, on every beat: once a second (from sample_from, a monotonic_s(),
 * if set) see whether the child is a JVM yet; if so hold its exit and ask
 * for its map. */
void jvm_run_tick(struct jvm_target *j, pid_t pid, double sample_from);

/* The header's line on where JIT code names came from; NULL if no JVM.
 * Caller frees. */
char *jvm_map_note(const struct jvm_target *j, pid_t pid);

void jvm_target_release(struct jvm_target *j);

#endif
