/* uprobe_event.c - many uprobes as one trace event (uprobe_event.h). */
#include "detector/uprobe_event.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/perf_event.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static pthread_once_t found_once = PTHREAD_ONCE_INIT;
static const char *tracefs;          /* NULL: none */
static int tracefs_err;

static unsigned pending;             /* releases not done yet */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_done = PTHREAD_COND_INITIALIZER;

static bool has_uprobe_events(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	return access(path, F_OK) == 0;
}

static int write_events(const char *line)
{
	char path[128];
	size_t len = strlen(line);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, line, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Definitions a contend that died left behind: contend_PID groups whose
 * process is gone or is not a contend. */
static void delete_stale(void)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char group[64], name[64], comm_path[64], comm[32] = "", del[160];
		unsigned pid;
		FILE *c;

		if (sscanf(line, "p:%63[^/]/%63s", group, name) != 2 ||
		    sscanf(group, "contend_%u", &pid) != 1 || pid == (unsigned)getpid())
			continue;
		snprintf(comm_path, sizeof(comm_path), "/proc/%u/comm", pid);
		if ((c = fopen(comm_path, "re"))) {
			if (!fgets(comm, sizeof(comm), c))
				comm[0] = 0;
			fclose(c);
		}
		if (!strncmp(comm, "contend", 7))
			continue;
		snprintf(del, sizeof(del), "-:%s/%s\n", group, name);
		write_events(del);
	}
	fclose(f);
}

static void find_tracefs(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(tracefs_dirs); i++)
		if (has_uprobe_events(tracefs_dirs[i]))
			tracefs = tracefs_dirs[i];
	/* as perf does: root mounts it where it belongs */
	if (!tracefs && geteuid() == 0 &&
	    mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_uprobe_events(tracefs_dirs[0]))
		tracefs = tracefs_dirs[0];
	if (!tracefs) {
		tracefs_err = geteuid() == 0 ? -ENOENT : -EACCES;
		return;
	}
	if (access(tracefs, W_OK) != 0 && geteuid() != 0)
		tracefs_err = -EACCES;
	else
		delete_stale();
}

static int read_id(const struct uprobe_event *ev, uint64_t *id)
{
	char path[192];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, ev->group, ev->name);
	if (!(f = fopen(path, "re")))
		return -errno;
	ok = fscanf(f, "%" SCNu64, id) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

static void delete_event(const struct uprobe_event *ev)
{
	char line[80];

	snprintf(line, sizeof(line), "-:%s/%s\n", ev->group, ev->name);
	write_events(line);
}

int uprobe_event_define(struct uprobe_event *ev, const struct uprobe_place *places, unsigned n)
{
	static unsigned seq;
	int err = 0;

	if (perf_simulating("dead-uprobes"))
		return -EACCES;
	pthread_once(&found_once, find_tracefs);
	if (!tracefs || tracefs_err)
		return tracefs_err ? tracefs_err : -ENOENT;
	if (!n)
		return -EINVAL;
	snprintf(ev->group, sizeof(ev->group), "contend_%d", (int)getpid());
	snprintf(ev->name, sizeof(ev->name), "p%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	for (unsigned i = 0; i < n && !err; i++) {
		char line[256];

		if (strpbrk(places[i].path, " \t\n") || !places[i].path[0]) {
			err = -EINVAL;
			break;
		}
		snprintf(line, sizeof(line), "p:%s/%s %s:0x%" PRIx64 "\n", ev->group, ev->name,
			 places[i].path, places[i].offset);
		err = write_events(line);
	}
	if (!err)
		err = read_id(ev, &ev->id);
	if (err)
		delete_event(ev);
	return err;
}

struct release {
	struct uprobe_event ev;
	unsigned n;
	int fds[];
};

static void release_now(struct release *r)
{
	for (unsigned i = 0; i < r->n; i++)
		close(r->fds[i]);
	delete_event(&r->ev);
	free(r);
}

static void *release_thread(void *arg)
{
	release_now(arg);
	pthread_mutex_lock(&pending_lock);
	if (!--pending)
		pthread_cond_broadcast(&pending_done);
	pthread_mutex_unlock(&pending_lock);
	return NULL;
}

/* At exit: the releases under way end first, so that no definition is
 * left behind (a second at most: one grace period each). */
static void settle(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&pending_lock);
	while (pending && pthread_cond_timedwait(&pending_done, &pending_lock, &until) == 0)
		;
	pthread_mutex_unlock(&pending_lock);
}

static void register_settle(void)
{
	atexit(settle);
}

void uprobe_event_release(const struct uprobe_event *ev, const int *fds, unsigned n)
{
	static pthread_once_t at_exit = PTHREAD_ONCE_INIT;
	struct release *r = xmalloc(sizeof(*r) + n * sizeof(int));
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;
	int err;

	r->ev = *ev;
	r->n = n;
	if (n)
		memcpy(r->fds, fds, n * sizeof(int));
	pthread_once(&at_exit, register_settle);
	pthread_mutex_lock(&pending_lock);
	pending++;
	pthread_mutex_unlock(&pending_lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* the stop signals are the session's: not this thread's to take */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&th, &attr, release_thread, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		release_thread(r);
}

const char *uprobe_event_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "permission denied: uprobes are defined in tracefs's uprobe_events, "
		       "which only root may write";
	case ENOENT:
		return "no tracefs with uprobe_events (a kernel without CONFIG_UPROBE_EVENTS, "
		       "or tracefs cannot be mounted at /sys/kernel/tracing)";
	case EINVAL:
		return "the kernel refused the probe's place";
	}
	return strerror(err);
}
