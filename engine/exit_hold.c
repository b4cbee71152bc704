/* exit_hold.c - keep a launched JVM's memory readable through its exit.
 * See exit_hold.h for the contract. */
#include "engine/exit_hold.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/procfs.h"
#include "common/util.h"

/* How long the other threads may take to die before an exit of the held
 * thread counts as its own (pthread_exit) rather than the process's. */
#define GROUP_EXIT_WAIT_MS 200

static struct sigaction old_sigchld;
static bool sigchld_caught;

/* Wakes the session's poll() (never restarted) when the held thread
 * stops; SA_RESTART keeps every other call as it was. */
static void on_sigchld(int sig)
{
	(void)sig;
}

static void catch_sigchld(bool catch)
{
	if (catch && !sigchld_caught) {
		struct sigaction sa = { .sa_handler = on_sigchld, .sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, &old_sigchld);
		sigchld_caught = true;
	} else if (!catch && sigchld_caught) {
		sigaction(SIGCHLD, &old_sigchld, NULL);
		sigchld_caught = false;
	}
}

/* The task's line "Name:\tvalue" of /proc/PID/task/TID/status, as a
 * number in base; false if absent. */
static bool task_status_field(pid_t pid, pid_t tid, const char *name, int base,
			      unsigned long long *out)
{
	char path[64], line[256];
	size_t len = strlen(name);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			char *end;

			errno = 0;
			*out = strtoull(line + len + 1, &end, base);
			found = errno == 0 && end != line + len + 1;
		}
	fclose(f);
	return found;
}

/* The task's state letter and user+system clock ticks; false if gone. */
static bool task_stat(pid_t pid, pid_t tid, char *state, unsigned long long *cpu)
{
	char path[64], buf[1024];
	unsigned long long utime, stime;
	const char *p;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* the name may hold anything, ')' included: the fields follow the last */
	if (!(p = strrchr(buf, ')')))
		return false;
	/* state is field 3; utime and stime are fields 14 and 15 */
	if (sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu",
		   state, &utime, &stime) != 3)
		return false;
	*cpu = utime + stime;
	return true;
}

/* The thread to hold: not the main one, blocking SIGQUIT, least CPU
 * used (then the oldest); 0 if there is none. */
static pid_t choose_thread(pid_t pid, pid_t except)
{
	unsigned long long best_cpu = 0, blocked, cpu;
	pid_t best = 0, *tasks;
	unsigned n;
	char state;

	tasks = process_tasks(pid, &n);
	for (unsigned i = 0; i < n; i++) {
		pid_t tid = tasks[i];

		if (tid == pid || tid == except)
			continue;
		if (!task_status_field(pid, tid, "SigBlk", 16, &blocked) ||
		    !(blocked & (1ULL << (SIGQUIT - 1))))
			continue;
		if (!task_stat(pid, tid, &state, &cpu) || state == 'Z' || state == 'X')
			continue;
		if (!best || cpu < best_cpu || (cpu == best_cpu && tid < best)) {
			best = tid;
			best_cpu = cpu;
		}
	}
	free(tasks);
	return best;
}

/* Hold a thread of pid other than except (one that is ending). */
static bool hold_thread(struct exit_hold *h, pid_t pid, pid_t except)
{
	pid_t tid;

	if (h->tid || h->refused)
		return h->tid != 0;
	h->pid = pid;
	if (!(tid = choose_thread(pid, except)))
		return false;
	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACEEXIT) < 0) {
		/* a thread ending now refuses too: only a live one's no is final */
		if (errno == EPERM && process_alive(tid))
			h->refused = true;
		return false;
	}
	h->tid = tid;
	catch_sigchld(true);
	return true;
}

bool exit_hold_start(struct exit_hold *h, pid_t pid)
{
	return hold_thread(h, pid, 0);
}

/* Is the task dying: SIGKILL pending, as exit_group() leaves it on every
 * other thread at once?  Then it counts as gone however long a loaded
 * machine takes to run it to its end. */
static bool task_killed(pid_t pid, pid_t tid)
{
	unsigned long long pending;
	const unsigned long long kill = 1ULL << (SIGKILL - 1);

	return (task_status_field(pid, tid, "SigPnd", 16, &pending) && (pending & kill)) ||
	       (task_status_field(pid, tid, "ShdPnd", 16, &pending) && (pending & kill));
}

/* Are all the process's threads but the held one dead or dying?  Then the
 * held thread's exit is the process's.  Waits a little for them. */
static bool process_exiting(const struct exit_hold *h)
{
	struct timespec pause = { 0, 10 * 1000000 };

	for (int waited = 0; waited <= GROUP_EXIT_WAIT_MS; waited += 10) {
		unsigned long long cpu;
		bool others_alive = false;
		unsigned n;
		pid_t *tasks = process_tasks(h->pid, &n);
		char state;

		for (unsigned i = 0; i < n && !others_alive; i++)
			others_alive = tasks[i] != h->tid &&
				       task_stat(h->pid, tasks[i], &state, &cpu) &&
				       state != 'Z' && state != 'X' &&
				       !task_killed(h->pid, tasks[i]);
		free(tasks);
		if (!others_alive)
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

bool exit_hold_poll(struct exit_hold *h)
{
	while (h->tid && !h->at_exit) {
		unsigned long msg = 0;
		pid_t ended;
		int st, sig;
		pid_t w = waitpid(h->tid, &st, __WALL | WNOHANG);

		if (w == 0)
			break;
		if (w < 0) {
			if (errno == EINTR)
				continue;
			h->tid = 0;             /* gone */
			break;
		}
		if (!WIFSTOPPED(st)) {
			h->tid = 0;             /* exited, reaped */
			break;
		}
		sig = WSTOPSIG(st);
		switch ((unsigned)st >> 16) {
		case PTRACE_EVENT_EXIT:
			ptrace(PTRACE_GETEVENTMSG, h->tid, 0, &msg);
			if (process_exiting(h)) {
				h->at_exit = true;
				h->exit_status = (int)msg;
				break;
			}
			/* the thread alone ends: let it, hold another */
			ended = h->tid;
			ptrace(PTRACE_DETACH, ended, 0, 0);
			h->tid = 0;
			hold_thread(h, h->pid, ended);
			break;
		case PTRACE_EVENT_STOP:
			/* a group stop (SIGSTOP and the like): stay stopped with the
			 * rest of the process, as untraced */
			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
				ptrace(PTRACE_LISTEN, h->tid, 0, 0);
			else
				ptrace(PTRACE_CONT, h->tid, 0, 0);
			break;
		default:
			/* a signal on its way to the thread: pass it on */
			ptrace(PTRACE_CONT, h->tid, 0, (void *)(long)sig);
			break;
		}
	}
	return h->at_exit;
}

void exit_hold_release(struct exit_hold *h)
{
	int st;

	/* a running tracee cannot be detached: stop it first (no signal,
	 * PTRACE_INTERRUPT), then let it go with whatever signal it stopped
	 * for; one at its exit is stopped already */
	if (h->tid && !h->at_exit && ptrace(PTRACE_INTERRUPT, h->tid, 0, 0) == 0) {
		while (waitpid(h->tid, &st, __WALL) < 0 && errno == EINTR)
			;
		if (WIFSTOPPED(st) && ((unsigned)st >> 16) == 0)
			ptrace(PTRACE_DETACH, h->tid, 0, (void *)(long)WSTOPSIG(st));
		else if (WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, h->tid, 0, 0);
	} else if (h->tid) {
		ptrace(PTRACE_DETACH, h->tid, 0, 0);
	}
	h->tid = 0;
	catch_sigchld(false);
}
