/* procfs.h - what /proc says about a target process.
 *
 * Every answer is a snapshot: a process or thread may be gone a moment
 * later, and callers treat a vanished one as a normal event.
 */
#ifndef CONTEND_PROCFS_H
#define CONTEND_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Is the process there, and not a zombie?  A process whose main thread
 * called pthread_exit() is alive while another thread runs. */
bool process_alive(pid_t pid);
/* A thread of process pid whose /proc entry shows the address space
 * (maps, mem, exe, cmdline, environ): pid itself, unless its main thread
 * has exited (pthread_exit(): /proc/PID shows a zombie with no memory
 * while the other threads run on; or the process exits and one thread is
 * held at its exit: engine/exit_hold.h), then a live thread; 0 if none.  Use
 * it as /proc/TASK/maps: /proc/TID/ works for any thread. */
pid_t process_memory_task(pid_t pid);
/* The process (thread group) thread tid belongs to; 0 if unknown. */
pid_t process_tgid(pid_t tid);
/* The number after "key:" in /proc/PID/status ("VmRSS", "FDSize"; 0 for
 * this process), -1 if there is none. */
long process_status_number(pid_t pid, const char *key);
/* Its pid in its own (innermost) PID namespace, from NSpid: 1 for a
 * container's first process, pid itself on the host; 0 if unreadable. */
pid_t process_ns_pid(pid_t pid);

/* A cgroup as /proc/PID/cgroup names it ("/a/b", "/" the root), from that
 * or from its directory under /sys/fs/cgroup (the v2 tree, or a v1 or
 * hybrid hierarchy's: /sys/fs/cgroup/memory/a/b); NULL unless a hierarchy
 * mounted there has it.  Caller frees. */
char *cgroup_path_of(const char *arg);
/* Is pid in cgroup (cgroup_path_of's form) or below it, in any hierarchy? */
bool process_in_cgroup(pid_t pid, const char *cgroup);
/* Its command line, arguments joined by spaces ("pid N" if unreadable);
 * caller frees. */
char *process_cmdline(pid_t pid);
/* Its threads (tids); *n set; NULL with *n = 0 if none or unreadable.
 * Caller frees. */
pid_t *process_tasks(pid_t pid, unsigned *n);
/* Effective uid of the owner, (uid_t)-1 if unknown. */
uid_t process_uid(pid_t pid);
/* A kernel thread (PF_KTHREAD in /proc/PID/stat): it has no user memory,
 * nothing of it can be sampled.  False if unknown. */
bool process_is_kernel_thread(pid_t pid);
/* Does the process hold capability cap (CAP_*) in its effective set?
 * False if unknown. */
bool process_has_capability(pid_t pid, unsigned cap);
/* How many descriptors this process has open (/proc/self/fd), -1 if
 * unreadable. */
int open_fd_count(void);
/* CONTEND_DEBUG_FDS set: print that count to stderr, "when" saying at
 * which point, for the test that checks attach and detach leave none. */
void debug_fd_count(const char *when);
/* Raise this process's soft limit of open descriptors to the hard one:
 * attaching opens an event, and a ring, per thread of the target. */
void raise_fd_limit(void);

/* The 1-minute load average (/proc/loadavg), 0 if unreadable. */
double load_average(void);
/* CPU pressure (/proc/pressure/cpu): microseconds in which some task
 * waited for a CPU, since boot.  False where the kernel has no PSI. */
bool cpu_pressure_us(uint64_t *total);

/* One line of /proc/PID/maps,
 * "7f0c1a2b3000-7f0c1a2d5000 r-xp 00022000 08:01 1835 /usr/lib/libc.so.6":
 * its range, file offset, PROT_* bits and name ("" for anonymous memory).
 * The name points into line, whose trailing newline and spaces are cut.
 * False for a line that is no mapping. */
bool parse_maps_line(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
		     uint32_t *prot, const char **name);

/* What a mapping maps: the file's device and inode (a shared anonymous
 * mapping is a file too, of the kernel's shmem: "/dev/zero (deleted)")
 * and whether it is MAP_SHARED, so that processes mapping the same object
 * share its memory.  ino 0: unknown or anonymous. */
struct map_object {
	uint64_t dev;             /* makedev(major, minor) */
	uint64_t ino;
	bool shared;
};

/* parse_maps_line(), and the line's object ('s' in the permissions, the
 * device and inode fields). */
bool parse_maps_line_object(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			    uint32_t *prot, const char **name, struct map_object *obj);

#endif
