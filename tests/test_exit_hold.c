/* Unit tests for engine/exit_hold.c on a real child process: the thread held
 * is not the main one and blocks SIGQUIT; a signal sent to it reaches its
 * handler; a thread that ends alone is replaced; at the process's exit the
 * hold reports the exit status, the memory is still readable through
 * process_memory_task(), and after the release the parent reaps the very
 * status the child exited with. */
#include "engine/exit_hold.h"
#include "common/procfs.h"
#include "tests/tap.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARKER 0x5eed0fc0ffee1234ULL

static volatile uint64_t marker;
static int ack_fd;                     /* child -> parent: one byte per event */
static int cmd_main[2], cmd_thread[2][2];

static void on_usr1(int sig)
{
	(void)sig;
	if (write(ack_fd, "u", 1) < 0)
		_exit(99);
}

/* An idle worker: blocks SIGQUIT (as a JVM's threads do), waits for 'e'. */
static void *worker(void *arg)
{
	int fd = *(int *)arg;
	sigset_t set;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (write(ack_fd, "t", 1) < 0)
		_exit(99);
	while (read(fd, &c, 1) == 1)
		if (c == 'e')
			return NULL;
	return NULL;
}

static void child_main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	pthread_t t[2];
	char c;

	marker = MARKER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, worker, &cmd_thread[i][0]);
		/* one at a time: the first is the older, and the one chosen */
		struct timespec ms = { 0, 20 * 1000000 };
		nanosleep(&ms, NULL);
	}
	while (read(cmd_main[0], &c, 1) == 1)
		if (c == 'x')
			exit(3);
	_exit(98);
}

/* Waits up to 3 s for byte want from the child, passing the held thread's
 * stops on meanwhile (as the session's loop does). */
static bool wait_ack(int fd, char want, struct exit_hold *h)
{
	for (int i = 0; i < 300; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		char c;

		exit_hold_poll(h);
		if (poll(&p, 1, 10) == 1 && read(fd, &c, 1) == 1 && c == want)
			return true;
	}
	return false;
}

static pid_t thread_of_fd(pid_t pid, int nth)
{
	unsigned n;
	pid_t *tasks = process_tasks(pid, &n), tid = 0;
	int seen = 0;

	for (unsigned i = 0; i < n; i++)
		if (tasks[i] != pid && seen++ == nth)
			tid = tasks[i];
	free(tasks);
	return tid;
}

int main(void)
{
	struct exit_hold h = { 0 };
	int ack[2], st = 0;
	uint64_t seen = 0;
	pid_t child, first, second, task;
	bool at_exit = false;

	if (pipe(ack) || pipe(cmd_main) || pipe(cmd_thread[0]) || pipe(cmd_thread[1]))
		return 99;
	child = fork();
	if (child == 0) {
		ack_fd = ack[1];
		child_main();
	}
	CHECK(wait_ack(ack[0], 't', &h) && wait_ack(ack[0], 't', &h), "both workers started");
	first = thread_of_fd(child, 0);
	second = thread_of_fd(child, 1);

	if (!exit_hold_start(&h, child) && h.refused) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		return test_skip("PTRACE_SEIZE refused here (kernel.yama.ptrace_scope?)");
	}
	CHECK(h.tid != 0, "a thread is held");
	CHECK(h.tid == first, "the held thread is the older idle worker (%d), not the main "
	      "thread (%d): got %d", (int)first, (int)child, (int)h.tid);

	syscall(SYS_tgkill, child, h.tid, SIGUSR1);
	CHECK(wait_ack(ack[0], 'u', &h), "a signal to the held thread reached its handler");

	if (write(cmd_thread[0][1], "e", 1) != 1)
		return 99;
	for (int i = 0; i < 300 && h.tid != second; i++) {
		struct timespec ms = { 0, 10 * 1000000 };

		exit_hold_poll(&h);
		nanosleep(&ms, NULL);
	}
	CHECK(!h.at_exit, "a thread ending alone is not the process's exit");
	CHECK(h.tid == second, "the other worker (%d) is held after the first ended: got %d",
	      (int)second, (int)h.tid);

	if (write(cmd_main[1], "x", 1) != 1)
		return 99;
	for (int i = 0; i < 500 && !at_exit; i++) {
		struct timespec ms = { 0, 10 * 1000000 };

		at_exit = exit_hold_poll(&h);
		if (!at_exit)
			nanosleep(&ms, NULL);
	}
	CHECK(at_exit, "the process's exit is held");
	CHECK(WIFEXITED(h.exit_status) && WEXITSTATUS(h.exit_status) == 3,
	      "the held exit carries status 3: got %#x", (unsigned)h.exit_status);
	task = process_memory_task(child);
	CHECK(task == second, "memory is read through the held thread (%d): got %d",
	      (int)second, (int)task);
	{
		struct iovec local = { &seen, sizeof(seen) };
		struct iovec remote = { (void *)&marker, sizeof(seen) };

		CHECK(process_vm_readv(task, &local, 1, &remote, 1, 0) == sizeof(seen) &&
		      seen == MARKER, "the exiting process's memory is readable: got %#llx",
		      (unsigned long long)seen);
	}
	exit_hold_release(&h);
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 3,
	      "after the release the child is reaped with its own status 3: got %#x",
	      (unsigned)st);
	return test_done();
}
