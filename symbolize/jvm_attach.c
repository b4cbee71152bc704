/* jvm_attach.c - jcmd without jcmd: HotSpot's attach protocol version 1.
 *
 * Request: "1\0" "jcmd\0" then three arguments, each NUL-terminated (the
 * command line in the first, the others empty).  Reply: the status in
 * decimal and '\n', then the command's output, then EOF.
 */
#include "symbolize/jvm_attach.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/procfs.h"
#include "common/safe_file.h"
#include "symbolize/hotspot.h"

#define MAX_REPLY (1 << 20)   /* a perf map command answers a line or two */
#define MAX_ARG 1024          /* HotSpot's limit on one request argument */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1: maps libjvm.so, 0: does not, -1: maps unreadable (errno set). */
static int maps_libjvm(pid_t pid)
{
	char path[64], line[4096];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n'), *file = strchr(line, '/');

		if (nl)
			*nl = '\0';
		found = file && hotspot_is_libjvm_path(file);
	}
	fclose(f);
	return found;
}

bool jvm_is_hotspot(pid_t pid)
{
	return maps_libjvm(pid) == 1;
}

/* From /proc/PID/status: the pid in the innermost namespace (NSpid's last
 * field) and whether SIGQUIT is caught (SigCgt).  False if unreadable. */
static bool read_status(pid_t pid, pid_t *nspid, bool *catches_quit)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	*nspid = pid;
	*catches_quit = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long mask;

		if (!strncmp(line, "NSpid:", 6)) {
			char *last = strrchr(line, '\t');
			long v = last ? strtol(last + 1, NULL, 10) : 0;

			if (v > 0)
				*nspid = (pid_t)v;
		} else if (sscanf(line, "SigCgt: %llx", &mask) == 1) {
			*catches_quit = mask & (1ULL << (SIGQUIT - 1));
		}
	}
	fclose(f);
	return true;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * Create path exclusively (never through a link) with the target's file
 * system uid and gid when we are root: the kernel then lets us create it
 * only where the target itself could, and it is the target's own file, as
 * HotSpot wants it (owned by its euid; host root is not root in a user
 * namespace).  A root contend never creates a file for a process in a
 * directory that process could not write.
 */
static int create_as_target(const char *path, const struct proc_creds *c)
{
	int fd, e;

	if (geteuid() != 0 || !c)
		return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	setfsgid(c->gid);
	setfsuid(c->uid);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	e = errno;
	setfsuid(geteuid());
	setfsgid(getegid());
	errno = e;
	return fd;
}

/* Does the target own its current directory?  Only then does the trigger
 * file go there: the JVM also looks in its /tmp. */
static bool owns_cwd(pid_t pid, const struct proc_creds *c)
{
	char *cwd = xasprintf("/proc/%d/cwd/", (int)pid);
	struct stat st;
	bool yes = c && stat(cwd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == c->uid;

	free(cwd);
	return yes;
}

/* Creates the .attach_pid file the JVM looks for on SIGQUIT: in its cwd
 * when it owns it, else its /tmp, as the target (create_as_target).
 * *path set to the file created (NULL if it was already there: someone
 * else is attaching, and the file is theirs to remove).  False if neither
 * place takes it. */
static bool create_attach_file(pid_t pid, pid_t nspid, char **path)
{
	const char *dirs[] = { "cwd", "root/tmp" };
	struct proc_creds creds;
	const struct proc_creds *c = proc_creds(pid, &creds) == 0 ? &creds : NULL;
	bool done = false;

	*path = NULL;
	for (size_t i = !owns_cwd(pid, c); i < ARRAY_SIZE(dirs) && !done; i++) {
		char *p = xasprintf("/proc/%d/%s/.attach_pid%d", (int)pid, dirs[i], (int)nspid);
		int fd = create_as_target(p, c);

		if (fd >= 0) {
			close(fd);
			*path = p;
			done = true;
		} else {
			free(p);
			done = errno == EEXIST;
		}
	}
	if (c)
		proc_creds_release(&creds);
	return done;
}

/* A handle on pid taken before it is checked, so that the SIGQUIT cannot
 * reach another process that got the pid after the JVM exited: -1 where
 * the kernel has no pidfd (before 5.3), and then kill() is the fallback. */
static int pid_handle(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

static int send_quit(pid_t pid, int pidfd)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, pidfd, SIGQUIT, NULL, 0);
#endif
	return kill(pid, SIGQUIT);
}

/* Waits for the listener's socket; false on timeout or if pid dies. */
static bool wait_for_socket(pid_t pid, const char *sock, int64_t deadline)
{
	int delay = 10;

	while (!is_socket(sock)) {
		if (now_ms() >= deadline || !process_alive(pid))
			return false;
		poll(NULL, 0, delay);
		if (delay < 200)
			delay *= 2;
	}
	return true;
}

/* Connects, sends the request, reads the whole reply into *reply. */
static int talk(pid_t pid, const char *sock, const char *command,
		int64_t deadline, struct strbuf *reply, struct strbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct strbuf req = STRBUF_INIT;
	int fd, ret = -1;
	size_t sent = 0;

	if (strlen(sock) >= sizeof(sa.sun_path)) {
		strbuf_addf(err, "JVM %d: socket path too long: %s", (int)pid, sock);
		return -1;
	}
	strcpy(sa.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		strbuf_addf(err, "JVM %d: cannot connect to its attach listener %s: %s",
			    (int)pid, sock, strerror(errno));
		goto out;
	}
	strbuf_add(&req, "1\0jcmd\0", 7);
	strbuf_add(&req, command, strlen(command) + 1);
	strbuf_add(&req, "\0\0", 2);
	while (sent < req.len) {
		ssize_t n = send(fd, req.buf + sent, req.len - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			strbuf_addf(err, "JVM %d: sending to its attach listener: %s",
				    (int)pid, strerror(errno));
			goto out;
		}
		sent += (size_t)n;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int64_t left = deadline - now_ms();
		char buf[4096];
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			strbuf_addf(err, "JVM %d: no answer from its attach listener within the timeout",
				    (int)pid);
			goto out;
		}
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_addf(err, "JVM %d: reading its answer: %s", (int)pid, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (reply->len + (size_t)n > MAX_REPLY) {
			strbuf_addf(err, "JVM %d: answer longer than %d bytes", (int)pid, MAX_REPLY);
			goto out;
		}
		strbuf_add(reply, buf, (size_t)n);
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&req);
	return ret;
}

/* The first line of s, made printable, for an error message. */
static void add_first_line(struct strbuf *sb, const char *s, size_t len)
{
	for (size_t i = 0; i < len && i < 200 && s[i] != '\n'; i++)
		strbuf_addch(sb, s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
}

/* "0\n<output>": the status, and the output into *out. */
static int parse_reply(pid_t pid, const struct strbuf *reply, struct strbuf *out,
		       struct strbuf *err)
{
	const char *s = strbuf_str(reply), *nl;
	char *end;
	long status;

	nl = memchr(s, '\n', reply->len);
	status = strtol(s, &end, 10);
	if (!reply->len || !nl || end != nl || end == s) {
		strbuf_addf(err, "JVM %d: the attach listener closed without a status "
			    "(did it refuse our credentials? it accepts root or its own euid/egid)",
			    (int)pid);
		return -1;
	}
	if (status != 0) {
		strbuf_addf(err, "JVM %d: jcmd failed with status %ld: ", (int)pid, status);
		add_first_line(err, nl + 1, reply->len - (size_t)(nl + 1 - s));
		return -1;
	}
	if (out)
		strbuf_add(out, nl + 1, reply->len - (size_t)(nl + 1 - s));
	return 0;
}

/* Does pid's libjvm hold HotSpot's tables (gHotSpotVMStructs resolved,
 * read)?  What makes it a HotSpot JVM, not the name of a file it maps. */
static bool hotspot_verified(pid_t pid)
{
	struct strbuf e = STRBUF_INIT;
	struct hotspot *h = hotspot_open(pid, &e);

	hotspot_close(h);
	strbuf_release(&e);
	return h != NULL;
}

/* Root signalling another user's JVM: the tables are proof only in a
 * libjvm.so that user could not have written (a JDK root installed); a
 * JDK of the user's own is their claim.  As that user, nothing is gained:
 * they may signal their own processes.  True (err said) to refuse. */
static bool libjvm_unproven(pid_t pid, struct strbuf *err)
{
	uid_t owner = process_uid(pid);

	if (geteuid() != 0 || owner == 0 || owner == (uid_t)-1 ||
	    !hotspot_libjvm_writable_by(pid, owner))
		return false;
	strbuf_addf(err, "JVM %d runs a libjvm.so its user (uid %u) can write, so its tables "
		    "prove nothing to root; not signalled (run contend as that user, or run "
		    "'jcmd %d Compiler.perfmap' first)", (int)pid, (unsigned)owner, (int)pid);
	return true;
}

/* -XX:+DisableAttachMechanism, as the JVM's own flag table says: then a
 * SIGQUIT would only print a thread dump on the JVM's stdout and leave us
 * waiting out the timeout.  False when the tables cannot be read (then
 * the timeout says it). */
static bool attach_disabled(pid_t pid)
{
	struct strbuf e = STRBUF_INIT;
	struct hotspot *h = hotspot_open(pid, &e);
	bool disabled = false;

	if (h && !hotspot_flag_bool(h, "DisableAttachMechanism", &disabled))
		disabled = false;
	hotspot_close(h);
	strbuf_release(&e);
	return disabled;
}

/* Refuses anything that is not a HotSpot JVM ready for SIGQUIT. */
static int check_target(pid_t pid, pid_t *nspid, bool *catches_quit, struct strbuf *err)
{
	int r = maps_libjvm(pid);

	if (r < 0) {
		if (errno == ENOENT || errno == ESRCH || !process_alive(pid))
			strbuf_addf(err, "process %d is gone", (int)pid);
		else
			strbuf_addf(err, "cannot read process %d's maps: %s (need its user or CAP_SYS_PTRACE)",
				    (int)pid, strerror(errno));
		return -1;
	}
	if (r == 0) {
		strbuf_addf(err, "process %d is not a HotSpot JVM (no libjvm.so in its maps); not signalled",
			    (int)pid);
		return -1;
	}
	if (!read_status(pid, nspid, catches_quit)) {
		strbuf_addf(err, "process %d is gone", (int)pid);
		return -1;
	}
	return 0;
}

int jvm_attach_jcmd(pid_t pid, const char *command, int timeout_ms,
		    struct strbuf *out, struct strbuf *err)
{
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : JVM_ATTACH_TIMEOUT_MS);
	struct strbuf reply = STRBUF_INIT;
	char *sock, *attach_file = NULL;
	bool catches_quit;
	pid_t nspid;
	int ret = -1, pidfd;

	if (strlen(command) >= MAX_ARG) {
		strbuf_addf(err, "JVM %d: command longer than %d bytes", (int)pid, MAX_ARG - 1);
		return -1;
	}
	if (pid <= 0) {
		strbuf_addf(err, "no such process %d", (int)pid);
		return -1;
	}
	pidfd = pid_handle(pid);
	if (check_target(pid, &nspid, &catches_quit, err)) {
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	sock = xasprintf("/proc/%d/root/tmp/.java_pid%d", (int)pid, (int)nspid);
	if (!is_socket(sock)) {
		if (!catches_quit) {
			strbuf_addf(err, "JVM %d does not handle SIGQUIT (still starting, or run "
				    "with -Xrs); not signalled", (int)pid);
			goto out;
		}
		if (!hotspot_verified(pid)) {
			/* a file called libjvm.so and a SIGQUIT handler are a
			 * claim: HotSpot's own tables are the proof */
			strbuf_addf(err, "process %d maps a libjvm.so without HotSpot's vmStructs "
				    "tables; not signalled", (int)pid);
			goto out;
		}
		if (libjvm_unproven(pid, err))
			goto out;
		if (attach_disabled(pid)) {
			strbuf_addf(err, "JVM %d runs with -XX:+DisableAttachMechanism; not signalled",
				    (int)pid);
			goto out;
		}
		if (!create_attach_file(pid, nspid, &attach_file)) {
			strbuf_addf(err, "JVM %d: cannot create .attach_pid%d in its cwd or /tmp: %s",
				    (int)pid, (int)nspid, strerror(errno));
			goto out;
		}
		if (send_quit(pid, pidfd) < 0) {
			strbuf_addf(err, "JVM %d: cannot send SIGQUIT: %s", (int)pid, strerror(errno));
			goto out;
		}
		if (!wait_for_socket(pid, sock, deadline)) {
			if (!process_alive(pid))
				strbuf_addf(err, "JVM %d is gone", (int)pid);
			else
				strbuf_addf(err, "JVM %d: no attach listener after %d ms (attach "
					    "disabled with -XX:+DisableAttachMechanism?)", (int)pid,
					    timeout_ms > 0 ? timeout_ms : JVM_ATTACH_TIMEOUT_MS);
			goto out;
		}
	}
	if (talk(pid, sock, command, deadline, &reply, err) == 0)
		ret = parse_reply(pid, &reply, out, err);
out:
	if (pidfd >= 0)
		close(pidfd);
	if (attach_file) {
		unlink(attach_file);
		free(attach_file);
	}
	free(sock);
	strbuf_release(&reply);
	return ret;
}

int jvm_write_perf_map(pid_t pid, int timeout_ms, char **map_path, struct strbuf *err)
{
	struct stat st;
	bool catches_quit;
	pid_t nspid;
	char *path;

	if (jvm_attach_jcmd(pid, "Compiler.perfmap", timeout_ms, NULL, err))
		return -1;
	if (!read_status(pid, &nspid, &catches_quit)) {
		strbuf_addf(err, "JVM %d is gone", (int)pid);
		return -1;
	}
	path = xasprintf("/proc/%d/root/tmp/perf-%d.map", (int)pid, (int)nspid);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "JVM %d: Compiler.perfmap succeeded but %s is missing",
			    (int)pid, path);
		free(path);
		return -1;
	}
	if (map_path)
		*map_path = path;
	else
		free(path);
	return 0;
}
