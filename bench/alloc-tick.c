/* alloc-tick - runs a command with the allocation shim's time published
 * as `contend run` publishes it (detector/alloc_tick.h), so that
 * bench/alloc-overhead.sh times the shim alone as it runs under contend.
 * The publishing thread is this process's, its time counted with the
 * command's by time(1).
 *
 * usage: alloc-tick CMD [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detector/alloc_record.h"
#include "detector/alloc_tick.h"

int main(int argc, char **argv)
{
	struct alloc_tick *tick;
	char fd[16];
	int status = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: alloc-tick CMD [ARGS...]\n");
		return 2;
	}
	if (!(tick = alloc_tick_start())) {
		fprintf(stderr, "alloc-tick: cannot publish the tick\n");
		return 2;
	}
	snprintf(fd, sizeof(fd), "%d", alloc_tick_fd(tick));
	setenv(ALLOC_TICK_ENV, fd, 1);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		perror("alloc-tick");
		return 2;
	}
	alloc_tick_stop(tick);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
