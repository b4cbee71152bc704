/* jvm_attach.h - HotSpot's dynamic attach protocol, as jcmd speaks it.
 *
 * A HotSpot JVM starts its attach listener when it gets SIGQUIT and finds
 * a file .attach_pid<PID> in its working directory (or /tmp); the listener
 * then serves requests on the UNIX socket /tmp/.java_pid<PID>.  Both paths
 * are in the JVM's mount namespace and use its pid as its namespace sees
 * it, so they are reached through /proc/PID/cwd and /proc/PID/root/tmp
 * with the innermost NSpid.
 *
 * Contract:
 *  - SIGQUIT is sent at most once per call, and only to a process that maps
 *    libjvm.so AND catches SIGQUIT (/proc/PID/status SigCgt): to anything
 *    else, a JVM still starting included, SIGQUIT is fatal.  (A JVM run
 *    with -Xrs does not catch it, but then starts its listener at once.)
 *    The signal goes through a pidfd taken before the checks, so a pid
 *    reused after the JVM exits is never hit.  No signal at all when the
 *    listener's socket is already there.
 *  - The .attach_pid file is removed if this call created it.
 *  - Credentials: HotSpot accepts a peer whose euid and egid are the JVM's,
 *    or whose uid is 0, and an attach file owned by the JVM's euid or by
 *    root.  So contend connects as itself, with no uid switch; as root it
 *    also gives the attach file to the JVM's user, which is what a JVM in a
 *    user namespace (where host root is not root) needs for the file.
 *  - Fails (-1) with a one-line reason in *err: not a HotSpot JVM, gone,
 *    permission, listener not answering within timeout_ms, or the JVM's
 *    non-zero status with its first line of output.
 */
#ifndef CONTEND_JVM_ATTACH_H
#define CONTEND_JVM_ATTACH_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/util.h"

#define JVM_ATTACH_TIMEOUT_MS 5000

/* Does pid map libjvm.so?  (maps unreadable: false) */
bool jvm_is_hotspot(pid_t pid);

/* Runs the diagnostic command line (e.g. "Compiler.perfmap") in the JVM,
 * as `jcmd PID command` does; appends its output to *out (may be NULL). */
int jvm_attach_jcmd(pid_t pid, const char *command, int timeout_ms,
		    struct strbuf *out, struct strbuf *err);

/* jcmd PID Compiler.perfmap: the JVM writes /tmp/perf-<its pid>.map in its
 * own /tmp.  On success *map_path (if not NULL) is that file as this
 * process reaches it (/proc/PID/root/tmp/...; caller frees) and the file
 * exists. */
int jvm_write_perf_map(pid_t pid, int timeout_ms, char **map_path,
		       struct strbuf *err);

#endif
