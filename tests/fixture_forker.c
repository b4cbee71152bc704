/* fixture_forker.c - a target that forks 200 children, two at a time,
 * each computing for a few milliseconds: tests/e2e_forked_children.sh
 * runs it under contend run -g, whose memory must not grow with the
 * number of processes (symbolizer.h: a forked child shares the session
 * of the process it was forked from). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 200;

	for (int i = 0; i < children; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			for (long k = 0; k < 20000000; k++)
				sink += k;
			_exit(0);
		}
		if (i % 2)
			while (wait(NULL) > 0)
				;
	}
	while (wait(NULL) > 0)
		;
	printf("%d children\n", children);
	return 0;
}
