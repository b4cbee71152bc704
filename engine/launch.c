#include "engine/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

int launch_prepare(char *const argv[], char *const envp[], struct launched *l)
{
	int go[2], err[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	l->pid = fork();
	if (l->pid < 0) {
		int e = errno;
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		errno = e;
		return -1;
	}
	if (l->pid == 0) {
		char c;
		int e;
		close(go[1]);
		close(err[0]);
		/* contend ignores SIGINT while the target runs; the target must not */
		signal(SIGINT, SIG_DFL);
		if (read(go[0], &c, 1) < 0) {
			/* EOF (0) is the go signal; an error means the parent died */
			_exit(127);
		}
		execvpe(argv[0], argv, envp);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0) {
			/* nothing left to tell anyone */
		}
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

int launch_go(struct launched *l)
{
	int e = 0;
	ssize_t n;

	close(l->go_fd);
	l->go_fd = -1;
	do {
		n = read(l->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(l->pid, NULL, 0);
		errno = e;
		return -1;
	}
	return 0;
}

void launch_abort(struct launched *l)
{
	if (l->pid > 0) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
	}
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
}

bool launch_stop(struct launch_stop *st, pid_t target, int sig, bool quiet)
{
	double now = monotonic_s();

	if (!st->since) {
		st->since = now;
		if (!quiet)
			fprintf(stderr, "contend: SIG%s: stopping the target and reporting\n",
				sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	}
	if (!st->sent && (sig != SIGINT || now - st->since >= LAUNCH_STOP_GRACE_S)) {
		kill(target, SIGTERM);
		st->sent = true;
		st->since = now;
	}
	return !st->sent || now - st->since < LAUNCH_STOP_GRACE_S;
}
