/* safe_file.h - writing where the user points us, reading what the target
 * controls, when we may be running as root.
 *
 * Output files (-o PATH, record's data file).  out_file_open() refuses a
 * PATH whose last component is a symbolic link or exists as anything but a
 * regular file (a FIFO, a device, a directory).  It writes to a fresh
 * temporary file ".BASE.XXXXXX" created O_EXCL|O_NOFOLLOW in PATH's
 * directory, which is opened once and used through openat() so that it
 * cannot be swapped between the checks and the rename.  out_file_commit()
 * checks every write, fflush, fsync and close, checks again that PATH is
 * absent or a regular file, and renames the temporary file over it: PATH
 * is replaced (a new inode, as with mv), never written through, so a
 * symlink or hard link planted at PATH can never make us write into
 * another file.  The new file keeps the permission bits (not the set-id
 * bits) of the file it replaces when that one was ours; otherwise it gets
 * 0666 minus the umask, like a new file (a 0666 file planted in /tmp does
 * not make our report world-writable).  Its owner is us.
 * The null device (/dev/null, by device number, not through a link) is
 * written in place: output to it is discarded, as users mean it to be.
 * "-" means stdout: no temporary, but commit still reports write errors
 * (fflush, ferror and fclose of stdout: print nothing to stdout after it).
 * out_file_open_fd(fd) writes to an open descriptor (run's --log-fd):
 * stdout as "-"; stderr is flushed and checked at commit but stays open
 * (error messages follow); any other fd is closed at commit.
 * commit and abort free the out_file; on failure the temporary is removed
 * and PATH is untouched.
 *
 * out_file_check_early(): run before the target starts, so that a two-hour
 * run does not end in "Permission denied": PATH must be one we would not
 * refuse, the directory must let us create (and remove) a file now, and an
 * existing PATH in a sticky directory must be ours to replace.
 *
 * Reading files the target controls (its perf map, the sources its DWARF
 * names).  safe_open_read() looks first through an O_PATH|O_NOFOLLOW fd: a
 * symlink is refused and nothing but a regular file is ever opened (a DWARF
 * name "/dev/watchdog" gets no open() that acts).  It reopens that inode
 * O_NONBLOCK (were it swapped for a FIFO, it cannot hang us), checks it is
 * the same inode, then applies the policy:
 *   owner rule   the file must be owned by owner_uid or by root (what perf
 *                asks of /tmp/perf-PID.map, so that another user cannot
 *                plant a map for a pid it guessed);
 *   reader rule  the target's credentials could have read the file: the
 *                classic mode-bit check (owner, then group incl.
 *                supplementary groups, then other) for the target's
 *                filesystem uid/gid, on the file and as search permission
 *                on every directory above it (the path read back from the
 *                open fd, so symlinks in the middle are resolved).  A
 *                target with fs uid 0 may read anything.  POSIX ACLs are
 *                not consulted: a read granted only by an ACL is refused
 *                (we fail closed).  This stops a root contend from showing
 *                the target's DWARF-named "/root/.ssh/id_rsa" as source.
 * It returns a blocking O_RDONLY|O_CLOEXEC fd, or -1 and a reason.
 *
 * Every *why is a one-line reason ("PATH: is a symbolic link ...") the
 * caller prints and frees; why may be NULL.
 */
#ifndef CONTEND_SAFE_FILE_H
#define CONTEND_SAFE_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct stat;

struct out_file;

struct out_file *out_file_open(const char *path, char **why);
struct out_file *out_file_open_fd(int fd, char **why);
FILE *out_file_stream(struct out_file *of);
/* 0 when PATH now holds everything written; -1 and a reason otherwise. */
int out_file_commit(struct out_file *of, char **why);
void out_file_abort(struct out_file *of);
/* Unlink the temporary only: async-signal-safe, for an atexit() or signal
 * handler when die() or a signal cuts the run short.  The out_file stays
 * valid (abort still frees it); clear the handler's pointer before commit
 * or abort, which free it. */
void out_file_remove_temp(const struct out_file *of);
/* 0 when out_file_open(path) would be expected to work; -1 and a reason. */
int out_file_check_early(const char *path, char **why);

/* A process's filesystem credentials, as the kernel checks file access. */
struct proc_creds {
	uid_t uid;              /* fs uid (4th field of Uid:) */
	gid_t gid;              /* fs gid (4th field of Gid:) */
	gid_t *groups;          /* supplementary groups */
	unsigned ngroups;
};
/* Read Uid/Gid/Groups from /proc/PID/status: 0, or -1 and errno. */
int proc_creds(pid_t pid, struct proc_creds *creds);
void proc_creds_release(struct proc_creds *creds);

struct read_policy {
	bool check_owner;               /* owner rule: owned by owner_uid or root */
	uid_t owner_uid;
	const struct proc_creds *reader; /* reader rule when non-NULL */
};
/* p may be NULL: regular, not a symlink, no further rule. */
int safe_open_read(const char *path, const struct read_policy *p, char **why);
/* Would creds be allowed to read a file with this stat?  (mode bits only) */
bool creds_may_read(const struct proc_creds *creds, const struct stat *st);

#endif
