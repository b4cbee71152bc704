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

#endif
