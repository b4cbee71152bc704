#include "common/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570       /* not in every linux/magic.h */
#endif
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

struct out_file {
	char *path;             /* as the user gave it, for messages */
	int dirfd;              /* PATH's directory, -1 for stdout */
	char *base;             /* PATH's last component */
	char *tmp;              /* temporary name in dirfd */
	FILE *f;
	bool keep_open;         /* stderr: flushed at commit, never closed */
	int fd;                 /* the temporary file's, under f; -1 if none */
	int write_errno;        /* the first write(2) error under f, 0 if none */
};

/* A temporary file's stream writes through here: stdio forgets why a
 * write failed (ferror only), and "no space left on device" is worth
 * saying as such. */
static ssize_t errno_keeping_write(void *cookie, const char *buf, size_t n)
{
	struct out_file *of = cookie;
	ssize_t w;

	do
		w = write(of->fd, buf, n);
	while (w < 0 && errno == EINTR);
	if (w < 0 && !of->write_errno)
		of->write_errno = errno;
	return w;
}

/* The data file's writer seeks back to fill in its header. */
static int errno_keeping_seek(void *cookie, off64_t *offset, int whence)
{
	struct out_file *of = cookie;
	off64_t at = lseek64(of->fd, *offset, whence);

	if (at < 0)
		return -1;
	*offset = at;
	return 0;
}

static int errno_keeping_close(void *cookie)
{
	struct out_file *of = cookie;
	int ret = close(of->fd);

	of->fd = -1;
	return ret;
}

static FILE *errno_keeping_stream(struct out_file *of, int fd)
{
	static const cookie_io_functions_t io = {
		.write = errno_keeping_write, .seek = errno_keeping_seek,
		.close = errno_keeping_close,
	};

	of->fd = fd;
	return fopencookie(of, "w", io);
}

__attribute__((format(printf, 2, 3)))
static int fail(char **why, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	if (why) {
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		*why = strbuf_detach(&sb);
	}
	return -1;
}

static const char *file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Split path into its directory (opened O_DIRECTORY) and last component.
 * "a/b/" or "a/.." name a directory, never a file we could create. */
static int open_parent(const char *path, int *dirfd, char **base, char **why)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	char *dir;

	if (!*path)
		return fail(why, "empty output file name");
	if (!*b || !strcmp(b, ".") || !strcmp(b, ".."))
		return fail(why, "%s: is a directory, not a file name", path);
	if (!slash)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xasprintf("%.*s", (int)(slash - path), path);
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		int e = errno;
		free(dir);
		return fail(why, "%s: cannot open its directory: %s", path, strerror(e));
	}
	free(dir);
	*base = xstrdup(b);
	return 0;
}

/* The umask, read without changing it (umask() would, for a moment, under
 * the feet of other threads creating files); umask() only before Linux 4.7. */
static mode_t current_umask(void)
{
	char line[128];
	unsigned m;
	mode_t old;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1) {
			fclose(f);
			return (mode_t)m & 0777;
		}
	if (f)
		fclose(f);
	old = umask(022);
	umask(old);
	return old;
}

/* Is what is at base now something we may replace?  *exists and its
 * mode set when it is a regular file. */
static int check_target(int dirfd, const char *base, const char *path,
			bool *exists, mode_t *mode, char **why)
{
	struct stat st;

	*exists = false;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return fail(why, "%s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return fail(why, "%s: is %s; refusing to write to it", path,
			    file_kind(st.st_mode));
	*exists = true;
	/* Keep the mode of our own file (never its set-id bits); a file someone
	 * else left there, maybe 0666 in /tmp, gets the mode of a new file, or
	 * our report would be theirs to rewrite. */
	*mode = st.st_uid == geteuid() ? st.st_mode & 0777 : 0666 & ~current_umask();
	return 0;
}

/* Create ".BASE.XXXXXX" exclusively: never an existing file, never
 * through a symlink someone guessed the name of. */
static int create_temp(int dirfd, const char *base, char **tmp)
{
	static unsigned counter;

	for (int tries = 0; tries < 100; tries++) {
		unsigned long r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (unsigned long)getpid() * 2654435761u ^
			    (unsigned long)time(NULL) ^ ++counter * 40503u;
		*tmp = xasprintf(".%.200s.%06lx", base, r & 0xffffff);
		fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		free(*tmp);
		*tmp = NULL;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* -o /dev/null discards, as every tool's does: the one device written
 * to (in place, never replaced), because writing to it does nothing.  By
 * what it is, not its name: a link named /dev/null is no null device. */
static bool is_null_device(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

static void out_file_free(struct out_file *of)
{
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->path);
	free(of->base);
	free(of->tmp);
	free(of);
}

struct out_file *out_file_open(const char *path, char **why)
{
	struct out_file *of = xcalloc(1, sizeof(*of));
	bool exists;
	mode_t mode = 0;
	int fd;

	of->fd = -1;
	of->dirfd = -1;
	of->path = xstrdup(path);
	if (!strcmp(path, "-")) {
		free(of->path);
		of->path = xstrdup("standard output");
		of->f = stdout;
		return of;
	}
	if (is_null_device(path)) {
		if (!(of->f = fopen(path, "we"))) {
			fail(why, "%s: %s", path, strerror(errno));
			goto fail;
		}
		return of;
	}
	if (open_parent(path, &of->dirfd, &of->base, why) ||
	    check_target(of->dirfd, of->base, path, &exists, &mode, why))
		goto fail;
	if (!exists)
		mode = 0666 & ~current_umask();
	fd = create_temp(of->dirfd, of->base, &of->tmp);
	if (fd < 0) {
		fail(why, "%s: cannot create a file in its directory: %s", path,
		     strerror(errno));
		goto fail;
	}
	if (fchmod(fd, mode) < 0 || !(of->f = errno_keeping_stream(of, fd))) {
		fail(why, "%s: %s", path, strerror(errno));
		close(fd);
		unlinkat(of->dirfd, of->tmp, 0);
		goto fail;
	}
	return of;
fail:
	out_file_free(of);
	return NULL;
}

FILE *out_file_stream(struct out_file *of)
{
	return of->f;
}

struct out_file *out_file_open_fd(int fd, char **why)
{
	struct out_file *of;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		fail(why, "file descriptor %d is not open for writing", fd);
		return NULL;
	}
	if (fd == STDOUT_FILENO)
		return out_file_open("-", why);
	of = xcalloc(1, sizeof(*of));
	of->fd = -1;
	of->dirfd = -1;
	if (fd == STDERR_FILENO) {
		of->path = xstrdup("standard error");
		of->f = stderr;
		of->keep_open = true;
		return of;
	}
	of->path = xasprintf("file descriptor %d", fd);
	of->f = fdopen(fd, "w");
	if (!of->f) {
		fail(why, "%s: %s", of->path, strerror(errno));
		out_file_free(of);
		return NULL;
	}
	return of;
}

/* Flush and close f, reporting the first error: a write that failed
 * earlier (ferror), the flush, fsync (a full disk or NFS may only say so
 * now), the close (not of a stream kept open). */
/* Why an earlier write to f failed, where only ferror says it did: the
 * errno kept under it, else a full file system seen now, else EIO. */
static int earlier_write_errno(FILE *f, int kept)
{
	struct statvfs sv;

	if (kept)
		return kept;
	if (fileno(f) >= 0 && fstatvfs(fileno(f), &sv) == 0 && sv.f_blocks && !sv.f_bfree)
		return ENOSPC;
	return EIO;
}

static int finish_stream(FILE *f, int sync_fd, bool keep_open, const char *path,
			 int kept_errno, char **why)
{
	bool had_error = ferror(f);
	int e = 0;

	if (fflush(f) == EOF)
		e = kept_errno ? kept_errno : errno;
	if (!e && had_error)
		e = earlier_write_errno(f, kept_errno);
	if (!e && sync_fd >= 0 && fsync(sync_fd) < 0 && errno != EINVAL)
		e = errno;
	if (keep_open)
		clearerr(f);
	else if (fclose(f) == EOF && !e)
		e = errno;
	if (e)
		return fail(why, "%s: write failed: %s", path,
			    had_error && e == EIO ? "an earlier write failed" :
			    strerror(e));
	return 0;
}

int out_file_commit(struct out_file *of, char **why)
{
	bool exists;
	mode_t mode;
	int ret = -1;

	if (of->dirfd < 0) {
		ret = finish_stream(of->f, -1, of->keep_open, of->f == stdout ?
				    "standard output" : of->path, 0, why);
		out_file_free(of);
		return ret;
	}
	if (finish_stream(of->f, of->fd, false, of->path, of->write_errno, why))
		goto out;
	/* PATH may have changed while we wrote: refuse if it turned into
	 * something other than a regular file.  A symlink swapped in after
	 * this check is harmless: rename replaces it, never follows it. */
	if (check_target(of->dirfd, of->base, of->path, &exists, &mode, why))
		goto out;
	if (renameat(of->dirfd, of->tmp, of->dirfd, of->base) < 0) {
		fail(why, "%s: cannot rename the finished file into place: %s",
		     of->path, strerror(errno));
		goto out;
	}
	free(of->tmp);
	of->tmp = NULL;
	fsync(of->dirfd);   /* best effort: the data is already safe */
	ret = 0;
out:
	if (of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	out_file_free(of);
	return ret;
}

void out_file_abort(struct out_file *of)
{
	if (!of)
		return;
	if (of->dirfd >= 0) {
		fclose(of->f);
		unlinkat(of->dirfd, of->tmp, 0);
	} else if (of->f == stdout || of->keep_open) {
		fflush(of->f);
	} else {
		fclose(of->f);
	}
	out_file_free(of);
}

void out_file_remove_temp(const struct out_file *of)
{
	/* only unlinkat(): callable from atexit() and signal handlers */
	if (of && of->dirfd >= 0 && of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
}

/* In a sticky directory (/tmp) only the file's owner, the directory's
 * owner or root may replace a file: the rename at the end would fail. */
static int check_replaceable(int dirfd, const char *base, const char *path, char **why)
{
	struct stat dst, fst;
	uid_t me = geteuid();

	if (me == 0 || fstat(dirfd, &dst) < 0 || !(dst.st_mode & S_ISVTX) ||
	    fstatat(dirfd, base, &fst, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (fst.st_uid != me && dst.st_uid != me)
		return fail(why, "%s: belongs to uid %u in a sticky directory; "
			    "it could not be replaced", path, (unsigned)fst.st_uid);
	return 0;
}

int out_file_check_early(const char *path, char **why)
{
	bool exists;
	mode_t mode;
	char *base = NULL, *tmp = NULL;
	int dirfd = -1, fd, ret = -1;

	if (!strcmp(path, "-")) {
		int fl = fcntl(STDOUT_FILENO, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
			return fail(why, "standard output is not open for writing");
		return 0;
	}
	if (is_null_device(path))
		return 0;
	if (open_parent(path, &dirfd, &base, why) ||
	    check_target(dirfd, base, path, &exists, &mode, why) ||
	    (exists && check_replaceable(dirfd, base, path, why)))
		goto out;
	fd = create_temp(dirfd, base, &tmp);
	if (fd < 0) {
		fail(why, "%s: cannot create a file in its directory: %s", path,
		     strerror(errno));
		goto out;
	}
	close(fd);
	unlinkat(dirfd, tmp, 0);
	ret = 0;
out:
	if (dirfd >= 0)
		close(dirfd);
	free(base);
	free(tmp);
	return ret;
}

/* --- reading what the target controls ----------------------------------- */

/* "Uid:\treal\teffective\tsaved\tfs": the fs one is what file access uses. */
static bool parse_id_line(const char *line, const char *key, unsigned long *fs)
{
	unsigned long r, e, s;
	size_t n = strlen(key);

	return !strncmp(line, key, n) &&
	       sscanf(line + n, "%lu %lu %lu %lu", &r, &e, &s, fs) == 4;
}

static void parse_groups(const char *p, struct proc_creds *c)
{
	size_t alloc = 0;
	char *end;

	for (;;) {
		unsigned long g;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		g = strtoul(p, &end, 10);
		ALLOC_GROW(c->groups, c->ngroups + 1, alloc);
		c->groups[c->ngroups++] = (gid_t)g;
		p = end;
	}
}

int proc_creds(pid_t pid, struct proc_creds *c)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	unsigned long uid, gid;
	bool have_uid = false, have_gid = false;
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* Groups: can be long (up to 65536 groups): getline, not a fixed line */
	while (getline(&line, &cap, f) > 0) {
		if (parse_id_line(line, "Uid:", &uid))
			have_uid = true;
		else if (parse_id_line(line, "Gid:", &gid))
			have_gid = true;
		else if (!strncmp(line, "Groups:", 7))
			parse_groups(line + 7, c);
	}
	free(line);
	fclose(f);
	if (!have_uid || !have_gid) {
		proc_creds_release(c);
		errno = EINVAL;
		return -1;
	}
	c->uid = (uid_t)uid;
	c->gid = (gid_t)gid;
	return 0;
}

void proc_creds_release(struct proc_creds *c)
{
	free(c->groups);
	c->groups = NULL;
	c->ngroups = 0;
}

static bool creds_in_group(const struct proc_creds *c, gid_t g)
{
	if (c->gid == g)
		return true;
	for (unsigned i = 0; i < c->ngroups; i++)
		if (c->groups[i] == g)
			return true;
	return false;
}

/* The kernel's order: the owner class decides for the owner even when
 * group or other would allow more; likewise group before other. */
static bool creds_have(const struct proc_creds *c, const struct stat *st,
		       mode_t usr, mode_t grp, mode_t oth)
{
	if (c->uid == 0)
		return true;
	if (st->st_uid == c->uid)
		return st->st_mode & usr;
	if (creds_in_group(c, st->st_gid))
		return st->st_mode & grp;
	return st->st_mode & oth;
}

bool creds_may_read(const struct proc_creds *c, const struct stat *st)
{
	return creds_have(c, st, S_IRUSR, S_IRGRP, S_IROTH);
}

/* Could c reach the file open at fd: search permission on every directory
 * above it, by the real path the kernel gives for the fd. */
static int check_dirs_searchable(int fd, const struct proc_creds *c,
				 const char *path, char **why)
{
	char link[64], real[PATH_MAX];
	ssize_t n;
	char *slash;
	struct stat st;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/')
		return fail(why, "%s: cannot tell which directories hold it", path);
	real[n] = '\0';
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';   /* "/a/b" -> "/a" -> "/" */
		if (stat(real, &st) < 0)
			return fail(why, "%s: %s: %s", path, real, strerror(errno));
		if (!creds_have(c, &st, S_IXUSR, S_IXGRP, S_IXOTH))
			return fail(why, "%s: the target (uid %u) could not reach it "
				    "through %s; not reading it for the target",
				    path, (unsigned)c->uid, real);
		if (!strcmp(real, "/"))
			break;
	}
	return 0;
}

/*
 * Is fd on one of the kernel's own file systems?  Their "regular files"
 * (/proc/kallsyms, /proc/PID/environ, /sys/..., debugfs, tracefs) show
 * the reader's view of the kernel and of other processes: what a target
 * names as a source file is never read there, whoever may read it.
 */
static bool on_kernel_fs(int fd)
{
	static const unsigned long kernel_fs[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC,
		DEVPTS_SUPER_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC, CONFIGFS_MAGIC,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;    /* cannot tell: not a source */
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if ((unsigned long)sf.f_type == kernel_fs[i])
			return true;
	return false;
}

static int check_read_policy(int fd, const struct stat *st, const char *path,
			     const struct read_policy *p, char **why)
{
	if (!p)
		return 0;
	if (p->reader && on_kernel_fs(fd))
		return fail(why, "%s: on a kernel file system (proc, sysfs, debugfs, ...); "
			    "never read as a source", path);
	if (p->check_owner && st->st_uid != p->owner_uid && st->st_uid != 0)
		return fail(why, "%s: owned by uid %u, not by uid %u or root; ignoring it",
			    path, (unsigned)st->st_uid, (unsigned)p->owner_uid);
	if (p->reader) {
		if (!creds_may_read(p->reader, st))
			return fail(why, "%s: the target (uid %u) could not read it; "
				    "not reading it for the target",
				    path, (unsigned)p->reader->uid);
		if (p->reader->uid != 0 &&
		    check_dirs_searchable(fd, p->reader, path, why))
			return -1;
	}
	return 0;
}

/* Open path for reading without opening anything but a regular file: an
 * O_PATH descriptor is looked at first, so a DWARF file name pointing at
 * /dev/watchdog or a tape device never gets an open() that acts. */
static int open_regular(const char *path, struct stat *st, char **why)
{
	char link[64];
	struct stat st2;
	int pfd, fd;

	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return fail(why, "%s: %s", path, strerror(errno));
	if (fstat(pfd, st) < 0) {
		fail(why, "%s: %s", path, strerror(errno));
		close(pfd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		fail(why, "%s: is %s; reading regular files only", path,
		     file_kind(st->st_mode));
		close(pfd);
		return -1;
	}
	/* The same inode, reopened for reading; without /proc, by name again
	 * (O_NONBLOCK: should it have become a FIFO, it cannot hang us). */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
	fd = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	close(pfd);
	if (fd < 0)
		return fail(why, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st2) < 0 || st2.st_dev != st->st_dev || st2.st_ino != st->st_ino) {
		close(fd);
		return fail(why, "%s: changed while we opened it", path);
	}
	*st = st2;
	return fd;
}

int safe_open_read(const char *path, const struct read_policy *p, char **why)
{
	struct stat st;
	int fd, fl;

	fd = open_regular(path, &st, why);
	if (fd < 0)
		return -1;
	if (check_read_policy(fd, &st, path, p, why))
		goto fail;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		fail(why, "%s: %s", path, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}
