/* jvm_target.c - a session's dealings with a HotSpot JVM: its perf map,
 * its exit held.  See jvm_target.h. */
#include "engine/jvm_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/util.h"
#include "symbolize/jvm_attach.h"

/* The JVM's map as this process reaches it (/proc/PID/root/tmp/...) is
 * most often our own /tmp/perf-PID.map: say that, shorter.  Takes path. */
static char *same_file_in_tmp(char *path, pid_t pid)
{
	char tmp[64];
	struct stat a, b;

	snprintf(tmp, sizeof(tmp), "/tmp/perf-%d.map", (int)pid);
	if (stat(path, &a) || stat(tmp, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return path;
	free(path);
	return xstrdup(tmp);
}

/* Asks the JVM to write its perf map now; keeps the first reason it
 * refused until one is written. */
void jvm_ask_perf_map(struct jvm_target *j, pid_t pid)
{
	struct strbuf err = STRBUF_INIT;
	char *path = NULL;

	if (jvm_write_perf_map(pid, JVM_ATTACH_TIMEOUT_MS, &path, &err) == 0) {
		j->written++;
		free(j->path);
		j->path = same_file_in_tmp(path, pid);
		free(j->error);
		j->error = NULL;
	} else {
		j->refused++;
		if (!j->written && !j->error)
			j->error = strbuf_detach(&err);
	}
	strbuf_release(&err);
}

/* run: the JVM is a child that may not have started its VM yet and whose
 * end comes unannounced, so ask every second once it maps libjvm.so (and
 * catches SIGQUIT, which jvm_write_perf_map checks): the last map names
 * what was compiled up to a second before it exits.  A request can block
 * for the attach timeout, during which no records are read: after three
 * refusals, stop asking. */
void jvm_run_tick(struct jvm_target *j, pid_t pid, double sample_from)
{
	double t = monotonic_s();

	if (t < j->next_try || (sample_from && t < sample_from) ||
	    j->refused >= 3)
		return;
	j->next_try = t + 1.0;
	if (!j->is_jvm && !(j->is_jvm = jvm_is_hotspot(pid)))
		return;
	/* its data is named from its memory, gone once it exits */
	exit_hold_start(&j->hold, pid);
	jvm_ask_perf_map(j, pid);
}

/* The header's line on where JIT code names came from; NULL if no JVM. */
char *jvm_map_note(const struct jvm_target *j, pid_t pid)
{
	char path[64];
	struct stat st;

	if (!j->is_jvm)
		return NULL;
	if (j->written)
		return xasprintf("named from %s, written by the JVM at contend's request "
				 "(Compiler.perfmap through its attach mechanism) %s", j->path,
				 j->next_try ? "every second while sampling" :
				 j->written > 1 ? "at the start and at the end of sampling" :
				 "once");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	if (stat(path, &st) == 0)
		return xasprintf("the JVM did not write its perf map (%s): named from the "
				 "existing %s, which lacks methods compiled since it was written",
				 j->error ? j->error : "?", path);
	return xasprintf("unnamed: the JVM did not write its perf map (%s) and there is no %s",
			 j->error ? j->error : "?", path);
}

void jvm_target_release(struct jvm_target *j)
{
	free(j->error);
	free(j->path);
}
