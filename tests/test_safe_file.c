/* Unit tests for common/safe_file.c, as root against an unprivileged
 * attacker (uid 65534, in forked children): symlinks planted at the output
 * path and at the temporary name, devices and FIFOs as outputs and as
 * "source files", write errors that only show at commit, files the target's
 * credentials could not read, perf maps owned by someone else.
 * Not root: the checks that need no second user run, then SKIP. */
#include "common/safe_file.h"
#include "common/util.h"
#include "tests/tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static char dir[64];
static bool root;

/* The temporary names come from getrandom(): this test's own definition
 * replaces libc's, so that it can predict the next name and plant a
 * symlink there first.  fake_random_seq[] is handed out in turn. */
static unsigned long fake_random_seq[4];
static unsigned fake_random_next;
static bool fake_random;

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	static unsigned long counter = 0x1000;
	unsigned long v = ++counter;

	(void)flags;
	if (fake_random && fake_random_next < ARRAY_SIZE(fake_random_seq))
		v = fake_random_seq[fake_random_next++];
	if (len > sizeof(v))
		len = sizeof(v);
	memcpy(buf, &v, len);
	return (ssize_t)len;
}

static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write %s", path);
	fchmod(fd, mode);
	close(fd);
}

static char *read_all(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return xstrdup("(missing)");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return strbuf_detach(&sb);
}

/* Names in dir starting with prefix: no temporary may be left behind. */
static unsigned count_entries(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

/* Run fn as uid/gid 65534 with no groups in a child; its exit status. */
static int as_nobody(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(99);
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void plant_symlink(void *arg)
{
	char **names = arg;   /* { target, link } */
	if (symlink(names[0], names[1]))
		_exit(1);
}

static void nobody_symlink(const char *target, const char *link)
{
	const char *names[2] = { target, link };
	CHECK(as_nobody(plant_symlink, names) == 0, "nobody plants %s -> %s", link, target);
}

/* --- output files ------------------------------------------------------ */

static void test_write_and_modes(void)
{
	char *out = in_dir("plain.txt"), *why = NULL, *got;
	struct out_file *of;
	struct stat st;
	mode_t old = umask(022);

	of = out_file_open(out, &why);
	CHECK(of != NULL, "open a new file: %s", why ? why : "");
	if (!of)
		goto out;
	fputs("hello\n", out_file_stream(of));
	CHECK(access(out, F_OK) != 0, "nothing at PATH before commit");
	CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
	got = read_all(out);
	CHECK_STR(got, "hello\n", "committed contents");
	free(got);
	CHECK(stat(out, &st) == 0 && (st.st_mode & 07777) == 0644,
	      "new file is 0666 minus umask 022: %o", st.st_mode & 07777);

	/* an existing file keeps its mode, and loses set-id bits */
	chmod(out, 04600);
	of = out_file_open(out, &why);
	CHECK(of != NULL, "reopen an existing regular file: %s", why ? why : "");
	if (of) {
		fputs("again\n", out_file_stream(of));
		CHECK(out_file_commit(of, &why) == 0, "commit over it: %s", why ? why : "");
	}
	CHECK(stat(out, &st) == 0 && (st.st_mode & 07777) == 0600,
	      "existing mode kept without set-uid: %o", st.st_mode & 07777);
	got = read_all(out);
	CHECK_STR(got, "again\n", "replaced contents");
	free(got);

	/* abort leaves the old file alone and no temporary behind */
	of = out_file_open(out, &why);
	if (of) {
		fputs("half a report", out_file_stream(of));
		out_file_abort(of);
	}
	got = read_all(out);
	CHECK_STR(got, "again\n", "abort leaves PATH as it was");
	free(got);
	CHECK_EQ_U64(count_entries(".plain.txt."), 0, "no temporary left after abort");

	/* what an atexit() handler does when die() cuts the run short */
	of = out_file_open(out, &why);
	if (of) {
		fputs("cut short", out_file_stream(of));
		fflush(out_file_stream(of));
		CHECK_EQ_U64(count_entries(".plain.txt."), 1, "the temporary is there while writing");
		out_file_remove_temp(of);
		CHECK_EQ_U64(count_entries(".plain.txt."), 0, "remove_temp unlinks it");
		out_file_abort(of);
	}
	got = read_all(out);
	CHECK_STR(got, "again\n", "PATH untouched by remove_temp");
	free(got);
out:
	umask(old);
	free(why);
	free(out);
}

/* The data file's writer goes back to fill its header in: an output
 * stream seeks and tells, as a plain file's does. */
static void test_seek_back(void)
{
	char *out = in_dir("seek.data"), *why = NULL, *got;
	struct out_file *of = out_file_open(out, &why);
	FILE *f;

	CHECK(of != NULL, "open: %s", why ? why : "");
	if (!of)
		return;
	f = out_file_stream(of);
	fputs("xxxx body", f);
	CHECK(ftell(f) == 9, "ftell after 9 bytes: %ld", ftell(f));
	CHECK(fseek(f, 0, SEEK_SET) == 0, "seek back to the header");
	fputs("HEAD", f);
	CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
	got = read_all(out);
	CHECK_STR(got, "HEAD body", "the header filled in after the body");
	free(got);
	free(out);
}

static void test_refuse_non_regular(void)
{
	char *fifo = in_dir("fifo"), *sub = in_dir("subdir"), *why = NULL;
	char *slash = xasprintf("%s/", dir);
	struct out_file *of;

	mkfifo(fifo, 0666);
	mkdir(sub, 0755);
	of = out_file_open(fifo, &why);
	CHECK(of == NULL && why && strstr(why, "a FIFO"), "-o FIFO refused: %s", why ? why : "");
	free(why), why = NULL;
	CHECK(out_file_check_early(fifo, &why) == -1 && why, "early check refuses a FIFO too");
	free(why), why = NULL;
	of = out_file_open(sub, &why);
	CHECK(of == NULL && why && strstr(why, "a directory"), "-o DIR refused: %s", why ? why : "");
	free(why), why = NULL;
	of = out_file_open(slash, &why);
	CHECK(of == NULL && why, "-o DIR/ refused: %s", why ? why : "");
	free(why), why = NULL;
	of = out_file_open("/nonexistent-dir-contend/x", &why);
	CHECK(of == NULL && why && strstr(why, "directory"), "missing directory: %s", why ? why : "");
	free(why), why = NULL;
	CHECK_EQ_U64(count_entries(".fifo."), 0, "no temporary left next to the FIFO");

	if (root) {
		/* a device like /dev/full, but our own: refused, untouched */
		char *dev = in_dir("full"), *null = in_dir("null"), *link = in_dir("null-link");
		struct stat st;

		CHECK(mknod(dev, S_IFCHR | 0666, makedev(1, 7)) == 0, "mknod: %s", strerror(errno));
		of = out_file_open(dev, &why);
		CHECK(of == NULL && why && strstr(why, "character device"),
		      "-o DEVICE refused: %s", why ? why : "");
		free(why), why = NULL;
		CHECK(out_file_check_early(dev, &why) == -1, "early check refuses a device");
		free(why), why = NULL;
		CHECK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7),
		      "device node still there, unchanged");

		/* the null device: written in place (discarded), never replaced */
		CHECK(mknod(null, S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod: %s", strerror(errno));
		CHECK(out_file_check_early(null, &why) == 0, "early check takes the null device: %s",
		      why ? why : "");
		free(why), why = NULL;
		of = out_file_open(null, &why);
		CHECK(of != NULL, "-o NULLDEV opens: %s", why ? why : "");
		free(why), why = NULL;
		if (of) {
			fputs("report\n", out_file_stream(of));
			CHECK(out_file_commit(of, &why) == 0, "commit to the null device: %s",
			      why ? why : "");
			free(why), why = NULL;
		}
		CHECK(lstat(null, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
		      "null device node still a device after the write");
		/* a link to it is a link: refused like any */
		CHECK(symlink(null, link) == 0, "symlink: %s", strerror(errno));
		of = out_file_open(link, &why);
		CHECK(of == NULL && why, "-o LINK-TO-NULL refused: %s", why ? why : "");
		free(why), why = NULL;
		free(null);
		free(link);
		free(dev);
	}
	free(fifo);
	free(sub);
	free(slash);
}

/* Root writes -o DIR/report where nobody planted report -> a root-only file. */
static void test_symlink_at_path(void)
{
	char *secret = in_dir("secret"), *out = in_dir("report"), *why = NULL, *got;
	struct out_file *of;

	write_file(secret, "SECRET\n", 0600);
	nobody_symlink(secret, out);
	CHECK(out_file_check_early(out, &why) == -1 && why && strstr(why, "symbolic link"),
	      "early check refuses the planted symlink: %s", why ? why : "");
	free(why), why = NULL;
	of = out_file_open(out, &why);
	CHECK(of == NULL && why && strstr(why, "symbolic link"),
	      "open refuses the planted symlink: %s", why ? why : "");
	if (of)
		out_file_commit(of, NULL);
	free(why), why = NULL;
	got = read_all(secret);
	CHECK_STR(got, "SECRET\n", "the root-only file is unchanged");
	free(got);
	unlink(out);

	/* PATH absent at open, a symlink by commit time: refused, temp removed */
	of = out_file_open(out, &why);
	CHECK(of != NULL, "open while PATH is absent: %s", why ? why : "");
	if (of) {
		fputs("report\n", out_file_stream(of));
		nobody_symlink(secret, out);
		CHECK(out_file_commit(of, &why) == -1 && why && strstr(why, "symbolic link"),
		      "commit refuses a symlink swapped in: %s", why ? why : "");
	}
	free(why), why = NULL;
	got = read_all(secret);
	CHECK_STR(got, "SECRET\n", "root-only file unchanged after the swap");
	free(got);
	CHECK_EQ_U64(count_entries(".report."), 0, "temporary removed after the refusal");
	unlink(out);
	free(secret);
	free(out);
}

static void plant_hardlink(void *arg)
{
	char **names = arg;   /* { target, link } */
	_exit(link(names[0], names[1]) ? 1 : 0);
}

static void create_0666(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL, 0666);
	_exit(fd < 0 || fchmod(fd, 0666) ? 1 : 0);
}

/* A hard link to a root-only file (fs.protected_hardlinks=0 lets nobody
 * make one), and a 0666 file nobody created at PATH: both are replaced,
 * never written into, and our report does not inherit the 0666. */
static void test_planted_files_replaced(void)
{
	char *secret = in_dir("secret3"), *out = in_dir("linked"), *why = NULL, *got;
	char *names[2] = { secret, out };
	struct out_file *of;
	struct stat st;

	write_file(secret, "SECRET3\n", 0600);
	/* with protected_hardlinks=1 nobody may not link it: root places the
	 * same trap, which is what the writer has to survive */
	if (as_nobody(plant_hardlink, names) == 0 || link(secret, out) == 0) {
		of = out_file_open(out, &why);
		CHECK(of != NULL, "open over a hard link: %s", why ? why : "");
		if (of) {
			fputs("report\n", out_file_stream(of));
			CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
		}
		free(why), why = NULL;
		got = read_all(secret);
		CHECK_STR(got, "SECRET3\n", "hard-linked root-only file unchanged");
		free(got);
		CHECK(stat(secret, &st) == 0 && st.st_nlink == 1, "link replaced, not written");
	}
	unlink(out);

	mode_t old = umask(022);
	CHECK(as_nobody(create_0666, out) == 0, "nobody creates a 0666 %s", out);
	of = out_file_open(out, &why);
	CHECK(of != NULL, "open over nobody's file: %s", why ? why : "");
	if (of) {
		fputs("report\n", out_file_stream(of));
		CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
	}
	free(why), why = NULL;
	CHECK(stat(out, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0777) == 0644,
	      "report is root's and 0644, not nobody's 0666: uid %u mode %o",
	      (unsigned)st.st_uid, st.st_mode & 0777);
	umask(old);
	free(secret);
	free(out);
}

/* nobody guesses the temporary name and plants a symlink there first */
static void test_symlink_at_temp_name(void)
{
	char *secret = in_dir("secret2"), *out = in_dir("data"), *why = NULL, *got;
	char *guess;
	struct out_file *of;
	struct stat st;

	write_file(secret, "SECRET2\n", 0600);
	fake_random_seq[0] = 0xabcdef;
	fake_random_seq[1] = 0x123456;
	fake_random_next = 0;
	guess = in_dir(".data.abcdef");
	nobody_symlink(secret, guess);
	fake_random = true;
	of = out_file_open(out, &why);
	fake_random = false;
	CHECK(fake_random_next == 2, "the planted name was tried, then another (%u)",
	      fake_random_next);
	CHECK(of != NULL, "open goes around the planted temp name: %s", why ? why : "");
	if (of) {
		fputs("samples\n", out_file_stream(of));
		CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
	}
	free(why), why = NULL;
	got = read_all(secret);
	CHECK_STR(got, "SECRET2\n", "root-only file not written through the temp symlink");
	free(got);
	got = read_all(out);
	CHECK_STR(got, "samples\n", "the data went to PATH");
	free(got);
	CHECK(lstat(out, &st) == 0 && S_ISREG(st.st_mode), "PATH is a regular file");
	CHECK(lstat(guess, &st) == 0 && S_ISLNK(st.st_mode), "the planted link is left alone");
	unlink(guess);
	free(guess);
	free(secret);
	free(out);
}

/* nobody cannot create in a root 0755 directory: said before the run */
static void early_check_as_nobody(void *arg)
{
	char *why = NULL;
	int r = out_file_check_early(arg, &why);
	_exit(r == -1 && why && strstr(why, "Permission denied") ? 0 : 1);
}

/* nobody's -o names root's file in a sticky directory: rename would fail */
static void early_check_sticky(void *arg)
{
	char *why = NULL;
	int r = out_file_check_early(arg, &why);
	_exit(r == -1 && why && strstr(why, "sticky") ? 0 : 1);
}

static void test_check_early(void)
{
	char *out = in_dir("early"), *locked = in_dir("locked"), *why = NULL;
	char *locked_out = xasprintf("%s/out", locked);

	CHECK(out_file_check_early(out, &why) == 0, "early check passes: %s", why ? why : "");
	CHECK(access(out, F_OK) != 0, "early check leaves no file");
	CHECK_EQ_U64(count_entries(".early."), 0, "nor a temporary");
	free(why), why = NULL;
	CHECK(out_file_check_early("-", &why) == 0, "stdout is writable");
	free(why), why = NULL;
	if (root) {
		mkdir(locked, 0755);
		CHECK(as_nobody(early_check_as_nobody, locked_out) == 0,
		      "nobody told early that it cannot create %s", locked_out);
		char *roots = in_dir("roots-file");
		write_file(roots, "x", 0644);
		CHECK(as_nobody(early_check_sticky, roots) == 0,
		      "nobody told early that root's file in a sticky dir is not its to replace");
		free(roots);
	}
	free(out);
	free(locked);
	free(locked_out);
}

/* "-" on a full device: the error shows at commit, not silently lost */
static void test_stdout_full(void)
{
	int status, fd;
	pid_t pid;

	fd = open("/dev/full", O_WRONLY);
	if (fd < 0) {
		printf("# no /dev/full: stdout write-error check skipped\n");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *why = NULL;
		struct out_file *of;

		dup2(fd, STDOUT_FILENO);
		of = out_file_open("-", &why);
		if (!of)
			_exit(3);
		for (int i = 0; i < 1000; i++)
			fprintf(out_file_stream(of), "line %d of a report\n", i);
		if (out_file_commit(of, &why) == 0)
			_exit(1);
		_exit(why && strstr(why, "standard output") &&
		      (strstr(why, "No space") || strstr(why, "earlier write")) ? 0 : 2);
	}
	close(fd);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "write error on stdout reported at commit (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* out_file_open_fd: a descriptor (--log-fd) gets everything and is closed
 * at commit; stderr stays open for the messages after it; a descriptor
 * that is closed or read-only is refused; a full device is an error. */
static void test_open_fd(void)
{
	char buf[64] = "", *why = NULL;
	struct out_file *of;
	int p[2], full;
	ssize_t n;

	CHECK(pipe(p) == 0, "pipe");
	of = out_file_open_fd(p[1], &why);
	CHECK(of != NULL, "a pipe's write end: %s", why ? why : "");
	if (of) {
		fputs("the report\n", out_file_stream(of));
		CHECK(out_file_commit(of, &why) == 0, "commit: %s", why ? why : "");
		n = read(p[0], buf, sizeof(buf) - 1);
		CHECK(n == 11 && !strcmp(buf, "the report\n"), "read back %zd bytes: '%s'", n, buf);
		CHECK(read(p[0], buf, 1) == 0, "the write end was closed at commit");
	}
	close(p[0]);
	of = out_file_open_fd(p[0], &why);    /* closed now */
	CHECK(!of && why && strstr(why, "file descriptor") && strstr(why, "not open for writing"),
	      "a closed fd refused: %s", why ? why : "(opened)");
	free(why);
	why = NULL;
	CHECK(pipe(p) == 0, "pipe");
	of = out_file_open_fd(p[0], &why);
	CHECK(!of && why && strstr(why, "not open for writing"), "a read end refused: %s",
	      why ? why : "(opened)");
	free(why);
	why = NULL;
	close(p[0]);
	close(p[1]);
	of = out_file_open_fd(STDERR_FILENO, &why);
	CHECK(of != NULL && out_file_stream(of) == stderr, "fd 2 is stderr");
	if (of) {
		CHECK(out_file_commit(of, &why) == 0, "stderr commit: %s", why ? why : "");
		CHECK(fcntl(STDERR_FILENO, F_GETFD) >= 0 && fprintf(stderr, "# stderr still open\n") > 0,
		      "stderr stays open after commit");
	}
	full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		of = out_file_open_fd(full, &why);
		if (of) {
			for (int i = 0; i < 1000; i++)
				fprintf(out_file_stream(of), "line %d of a report\n", i);
			CHECK(out_file_commit(of, &why) < 0 && why &&
			      strstr(why, "file descriptor") && strstr(why, "write failed"),
			      "a full device: %s", why ? why : "(no error)");
		}
		free(why);
	}
}

/* --- reading what the target controls ----------------------------------- */

static void test_read_fifo_and_links(void)
{
	char *fifo = in_dir("src-fifo"), *link = in_dir("src-link"), *file = in_dir("src.c");
	char *why = NULL;
	int fd;

	mkfifo(fifo, 0666);
	write_file(file, "int x;\n", 0644);
	symlink(file, link);
	alarm(5);   /* a blocking open of the FIFO would hang here: fail instead */
	fd = safe_open_read(fifo, NULL, &why);
	alarm(0);
	CHECK(fd == -1 && why && strstr(why, "a FIFO"), "FIFO source refused at once: %s",
	      why ? why : "");
	free(why), why = NULL;
	fd = safe_open_read(link, NULL, &why);
	CHECK(fd == -1 && why && strstr(why, "symbolic link"), "symlink refused: %s",
	      why ? why : "");
	free(why), why = NULL;
	fd = safe_open_read("/dev/null", NULL, &why);
	CHECK(fd == -1 && why && strstr(why, "character device"), "device refused: %s",
	      why ? why : "");
	free(why), why = NULL;
	fd = safe_open_read(file, NULL, &why);
	CHECK(fd >= 0, "regular file opened: %s", why ? why : "");
	if (fd >= 0) {
		char buf[16] = "";
		CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK), "O_NONBLOCK cleared");
		CHECK(read(fd, buf, sizeof(buf) - 1) == 7 && !strcmp(buf, "int x;\n"), "reads");
		close(fd);
	}
	free(why);
	free(fifo);
	free(link);
	free(file);
}

static void test_reader_rule(void)
{
	struct proc_creds nobody = { .uid = NOBODY, .gid = NOBODY };
	struct proc_creds rootc = { .uid = 0, .gid = 0 };
	struct read_policy as_nobody_p = { .reader = &nobody };
	struct read_policy as_root_p = { .reader = &rootc };
	char *secret = in_dir("root-only.c"), *pub = in_dir("public.c");
	char *hidden_dir = in_dir("root-dir"), *hidden = in_dir("root-dir/public.c");
	char *why = NULL;
	gid_t grp[1] = { 4242 };
	int fd;

	write_file(secret, "secret\n", 0600);
	write_file(pub, "public\n", 0644);
	mkdir(hidden_dir, 0700);
	write_file(hidden, "hidden\n", 0644);

	fd = safe_open_read(secret, &as_nobody_p, &why);
	CHECK(fd == -1 && why && strstr(why, "could not read"),
	      "root-only file refused for a uid 65534 target: %s", why ? why : "");
	free(why), why = NULL;
	fd = safe_open_read(secret, &as_root_p, &why);
	CHECK(fd >= 0, "root-only file read for a root target: %s", why ? why : "");
	if (fd >= 0)
		close(fd);
	free(why), why = NULL;
	fd = safe_open_read(pub, &as_nobody_p, &why);
	CHECK(fd >= 0, "world-readable file read for uid 65534: %s", why ? why : "");
	if (fd >= 0)
		close(fd);
	free(why), why = NULL;
	fd = safe_open_read(hidden, &as_nobody_p, &why);
	CHECK(fd == -1 && why && strstr(why, "could not reach"),
	      "0644 file in a 0700 root directory refused for 65534: %s", why ? why : "");
	free(why), why = NULL;

	/* the mode-bit rule itself, class by class */
	struct stat st = { .st_uid = 1000, .st_gid = 4242, .st_mode = S_IFREG | 0640 };
	struct proc_creds u1000 = { .uid = 1000, .gid = 1000 };
	struct proc_creds in_grp = { .uid = 2000, .gid = 2000, .groups = grp, .ngroups = 1 };
	struct proc_creds other = { .uid = 3000, .gid = 3000 };
	CHECK(creds_may_read(&u1000, &st), "owner reads 0640");
	CHECK(creds_may_read(&in_grp, &st), "supplementary group reads 0640");
	CHECK(!creds_may_read(&other, &st), "other cannot read 0640");
	st.st_mode = S_IFREG | 0044;
	CHECK(!creds_may_read(&u1000, &st), "owner class decides: 0044 denies the owner");
	st.st_mode = S_IFREG | 0600;
	CHECK(creds_may_read(&rootc, &st), "a root target reads another user's 0600 file");
	free(secret);
	free(pub);
	free(hidden_dir);
	free(hidden);
}

static void test_owner_rule(void)
{
	char *map = in_dir("perf-4242.map"), *why = NULL;
	struct read_policy root_target = { .check_owner = true, .owner_uid = 0 };
	struct read_policy nobody_target = { .check_owner = true, .owner_uid = NOBODY };
	int fd;

	write_file(map, "401000 10 main\n", 0644);
	/* a root-owned map is fine for any target */
	fd = safe_open_read(map, &nobody_target, &why);
	CHECK(fd >= 0, "root-owned map accepted for a 65534 target: %s", why ? why : "");
	if (fd >= 0)
		close(fd);
	free(why), why = NULL;
	if (!root)
		goto out;
	CHECK(chown(map, NOBODY, NOBODY) == 0, "chown map to 65534");
	fd = safe_open_read(map, &root_target, &why);
	CHECK(fd == -1 && why && strstr(why, "owned by uid 65534"),
	      "map owned by 65534 refused for a root target: %s", why ? why : "");
	free(why), why = NULL;
	fd = safe_open_read(map, &nobody_target, &why);
	CHECK(fd >= 0, "map owned by 65534 accepted for a 65534 target: %s", why ? why : "");
	if (fd >= 0)
		close(fd);
out:
	free(why);
	free(map);
}

static void test_proc_creds(void)
{
	struct proc_creds c;
	int sync[2], status;
	char byte;
	pid_t pid;

	CHECK(proc_creds(getpid(), &c) == 0, "own creds");
	CHECK(c.uid == geteuid() && c.gid == getegid(), "own uid %u gid %u", c.uid, c.gid);
	proc_creds_release(&c);
	CHECK(proc_creds(-5, &c) == -1, "no such process");
	if (!root || pipe(sync))
		return;
	pid = fork();
	if (pid == 0) {
		gid_t g[2] = { 4242, 4343 };
		close(sync[0]);
		if (setgroups(2, g) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(99);
		if (write(sync[1], "x", 1) != 1)
			_exit(98);
		pause();
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &byte, 1) == 1) {
		CHECK(proc_creds(pid, &c) == 0, "creds of a uid 65534 child");
		CHECK(c.uid == NOBODY && c.gid == NOBODY, "child uid %u gid %u", c.uid, c.gid);
		CHECK(c.ngroups == 2 && c.groups[0] == 4242 && c.groups[1] == 4343,
		      "child's supplementary groups (%u)", c.ngroups);
		proc_creds_release(&c);
	}
	close(sync[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static void remove_tree(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
}

int main(void)
{
	root = geteuid() == 0;
	snprintf(dir, sizeof(dir), "/tmp/test_safe_file.XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp: %s", strerror(errno));
	chmod(dir, 01777);   /* like /tmp: anyone may plant, sticky */

	test_write_and_modes();
	test_seek_back();
	test_refuse_non_regular();
	test_check_early();
	test_stdout_full();
	test_open_fd();
	test_read_fifo_and_links();
	test_owner_rule();
	test_proc_creds();
	if (root) {
		test_symlink_at_path();
		test_symlink_at_temp_name();
		test_planted_files_replaced();
		test_reader_rule();
	}
	remove_tree();
	if (!root && !tap_failed) {
		test_done();
		return test_skip("not root: the attacker/target-uid checks need a second user");
	}
	return test_done();
}
