/* alloc_shim_pipe.c - the allocation shim's pipe to contend
 * (alloc_shim_pipe.h).  Nothing here may call malloc.
 */
#include "detector/alloc_shim_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int shim_channel = -1;
static dev_t channel_dev;
static ino_t channel_ino;

/* first: remember the pipe; later: is the descriptor still that pipe? */
static int still_ours(int first)
{
	struct stat st;

	if (fstat(shim_channel, &st) < 0 || !S_ISFIFO(st.st_mode))
		return 0;
	if (first) {
		channel_dev = st.st_dev;
		channel_ino = st.st_ino;
	}
	return st.st_dev == channel_dev && st.st_ino == channel_ino;
}


/*
 * A write that cannot harm the target, whatever became of contend.  A
 * write to a pipe whose reader is gone (contend killed) raises SIGPIPE,
 * whose default action kills the process: the signal is held back for
 * the write and the one it raised taken back, unless the target had one
 * pending of its own.  The pipe is non-blocking (shim_init): a full one
 * (contend stopped, or far behind) is waited on PIPE_WAIT_MS at most,
 * then the batch is dropped, and until a write gets through again the
 * next batches are dropped without waiting: a stopped contend costs the
 * target one wait, not one per batch.  False: the channel is dead for
 * good.
 */
#define PIPE_WAIT_MS 20
static int pipe_stalled;            /* a wait timed out; none until a write passes */

bool shim_write_quietly(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	sigset_t pipe_sig, old, pending;
	bool had_pipe, alive = true;

	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
	had_pipe = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			int wait = __atomic_load_n(&pipe_stalled, __ATOMIC_RELAXED) ? 0 :
				   PIPE_WAIT_MS;

			if (poll(&pfd, 1, wait) > 0 && !(pfd.revents & (POLLERR | POLLHUP)))
				continue;
			alive = !(pfd.revents & (POLLERR | POLLHUP));
			__atomic_store_n(&pipe_stalled, 1, __ATOMIC_RELAXED);
			break;        /* stuck: this batch is lost, the target goes on */
		}
		if (w <= 0) {
			alive = false;   /* EPIPE: contend went away */
			break;
		}
		__atomic_store_n(&pipe_stalled, 0, __ATOMIC_RELAXED);
		p += w;
		len -= (size_t)w;
	}
	if (!had_pipe && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
		struct timespec now = { 0, 0 };

		sigtimedwait(&pipe_sig, NULL, &now);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return alive;
}

void shim_pipe_send(const void *p, size_t len)
{
	int saved = errno;

	if (shim_channel >= 0 && len && !still_ours(0))
		shim_channel = -1;
	/* a dead channel: a pass-through from here on */
	if (shim_channel >= 0 && len && !shim_write_quietly(shim_channel, p, len))
		shim_channel = -1;
	errno = saved;
}

void shim_pipe_open(int fd)
{
	shim_channel = fd;
	if (shim_channel >= 0 && !still_ours(1))
		shim_channel = -1;
	/* never block the target on contend: shim_write_quietly() */
	if (shim_channel >= 0)
		fcntl(shim_channel, F_SETFL, fcntl(shim_channel, F_GETFL) | O_NONBLOCK);
}
