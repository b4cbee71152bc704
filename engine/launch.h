/* launch.h - start a command stopped just before exec.
 *
 * launch_prepare() forks; the child waits until launch_go() and then
 * execvpe()s the command with envp (common/env.h builds it).  Between the two the caller opens perf events on
 * the child with enable_on_exec, so sampling starts exactly at exec and
 * never covers contend's own code.  launch_go() reports an exec failure
 * (command not found, not executable) as -1 with errno set, after reaping
 * the child.
 */
#ifndef CONTEND_LAUNCH_H
#define CONTEND_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launched {
	pid_t pid;
	int go_fd;     /* write end: closing it lets the child exec */
	int err_fd;    /* read end: the child's errno if exec failed, EOF if it worked */
};

int launch_prepare(char *const argv[], char *const envp[], struct launched *l);
int launch_go(struct launched *l);
/* Kill and reap a prepared child that will never be released. */
void launch_abort(struct launched *l);

/* A stop signal (sig) while the target runs ends the run as it ends perf
 * record's workload.  Call on every beat after it came: sends the target
 * SIGTERM (after LAUNCH_STOP_GRACE_S for a terminal's SIGINT, which
 * reached the target too, to work); false once the target has had
 * LAUNCH_STOP_GRACE_S after that to exit. */
#define LAUNCH_STOP_GRACE_S 2.0
struct launch_stop {
	double since;          /* when the stop signal was seen; 0: not yet */
	bool sent;             /* SIGTERM sent to the target */
};
bool launch_stop(struct launch_stop *st, pid_t target, int sig, bool quiet);

#endif
