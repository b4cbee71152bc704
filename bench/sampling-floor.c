/* sampling-floor - runs a command under the soft backend's sampling event
 * and nothing else: the event `contend run` opens (soft_event_attr(), one
 * per CPU on the command, inherited, enabled at its exec, each with a
 * ring), whose records nobody reads.  What it costs the command is the
 * kernel's price of the samples, which no reader of the rings can lower:
 * bench/defaults-overhead.sh prints it as the floor under contend's rows.
 * The rings are 8 MiB a CPU, so that a few seconds' samples are written,
 * not dropped, as contend's reader keeps its rings from filling.
 *
 * usage: sampling-floor HZ CMD [ARGS...]    (HZ 0: no event, the same start)
 * The command starts as contend starts it (engine/launch.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detector/perf_event.h"
#include "detector/perf_ring.h"
#include "detector/soft.h"
#include "engine/launch.h"

#define RING_PAGES 2048
#define MAX_CPUS 1024

static int open_event(pid_t pid, unsigned freq, struct perf_ring *rings, int *n_rings)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr a;

	soft_event_attr(&a, freq, false);
	a.enable_on_exec = 1;
	for (long cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		int fd = perf_event_open_fd(&a, pid, (int)cpu, -1), err;

		if (fd < 0) {
			fprintf(stderr, "sampling-floor: cpu %ld: %s\n", cpu, perf_open_hint(-fd));
			return -1;
		}
		if ((err = perf_ring_map(&rings[*n_rings], fd, RING_PAGES)) < 0) {
			fprintf(stderr, "sampling-floor: ring: %s\n", strerror(-err));
			close(fd);
			return -1;
		}
		(*n_rings)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct perf_ring rings[MAX_CPUS];
	int n_rings = 0, status = 0;
	unsigned long long written = 0;
	struct launched child;
	unsigned freq;

	if (argc < 3) {
		fprintf(stderr, "usage: sampling-floor HZ CMD [ARGS...]\n");
		return 2;
	}
	freq = (unsigned)strtoul(argv[1], NULL, 10);
	if (launch_prepare(argv + 2, environ, &child) < 0) {
		perror("sampling-floor");
		return 2;
	}
	if (freq && open_event(child.pid, freq, rings, &n_rings) < 0) {
		launch_abort(&child);
		return 2;
	}
	if (launch_go(&child) < 0) {   /* the child is reaped */
		fprintf(stderr, "sampling-floor: %s: %s\n", argv[2], strerror(errno));
		return 127;
	}
	while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < n_rings; i++) {
		const struct perf_event_mmap_page *meta = rings[i].base;
		int fd = rings[i].fd;

		written += meta->data_head;   /* what the kernel wrote: proof it sampled */
		perf_ring_unmap(&rings[i]);
		close(fd);
	}
	if (freq)
		fprintf(stderr, "sampling-floor: %llu KiB of records written\n",
			(unsigned long long)(written >> 10));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
