/* Unit tests for common/procfs.c's /proc/PID/maps line parser, which the
 * symbolizer and contend record share. */
#include "common/procfs.h"
#include "common/util.h"
#include "tests/tap.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_file_line(void)
{
	char line[] = "7f0c1a2b3000-7f0c1a2d5000 r-xp 00022000 08:01 1835    /usr/lib/libc.so.6  \n";
	uint64_t start, end, pgoff;
	const char *name;
	uint32_t prot;

	CHECK(parse_maps_line(line, &start, &end, &pgoff, &prot, &name), "a file mapping parses");
	CHECK_EQ_U64(start, 0x7f0c1a2b3000, "start");
	CHECK_EQ_U64(end, 0x7f0c1a2d5000, "end");
	CHECK_EQ_U64(pgoff, 0x22000, "file offset");
	CHECK_EQ_U64(prot, PROT_READ | PROT_EXEC, "r-x");
	CHECK_STR(name, "/usr/lib/libc.so.6", "name without padding or newline");
}

static void test_anon_line(void)
{
	char line[] = "00400000-00401000 rw-p 00000000 00:00 0 \n";
	char pseudo[] = "7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]";
	uint64_t start, end, pgoff;
	const char *name;
	uint32_t prot;

	CHECK(parse_maps_line(line, &start, &end, &pgoff, &prot, &name), "anonymous parses");
	CHECK_EQ_U64(prot, PROT_READ | PROT_WRITE, "rw-");
	CHECK_STR(name, "", "anonymous: empty name");
	CHECK(parse_maps_line(pseudo, &start, &end, &pgoff, &prot, &name), "[stack] parses");
	CHECK_STR(name, "[stack]", "pseudo file name");
}

static void test_bad_lines(void)
{
	char empty[] = "", reversed[] = "2000-1000 r--p 00000000 00:00 0 x\n";
	char cut[] = "1000-2000 r--p 00000000";
	uint64_t start, end, pgoff;
	const char *name;
	uint32_t prot;

	CHECK(!parse_maps_line(empty, &start, &end, &pgoff, &prot, &name), "empty line");
	CHECK(!parse_maps_line(reversed, &start, &end, &pgoff, &prot, &name), "end before start");
	CHECK(!parse_maps_line(cut, &start, &end, &pgoff, &prot, &name), "no device or inode");
}

/* The object of a mapping: device, inode, and whether it is MAP_SHARED. */
static void test_object(void)
{
	char shm[] = "7f00aa000000-7f00aa001000 rw-s 00002000 00:1a 4242 /dev/shm/x\n";
	char anon[] = "7f00aa000000-7f00aa001000 rw-s 00000000 00:01 12984 /dev/zero (deleted)\n";
	char priv[] = "55d0c0a00000-55d0c0a21000 r-xp 00001000 fd:01 1835 /usr/bin/prog\n";
	uint64_t start, end, pgoff;
	struct map_object obj;
	const char *name;
	uint32_t prot;

	CHECK(parse_maps_line_object(shm, &start, &end, &pgoff, &prot, &name, &obj), "shm parses");
	CHECK(obj.shared, "'s': shared");
	CHECK_EQ_U64(obj.dev, makedev(0, 0x1a), "device 00:1a");
	CHECK_EQ_U64(obj.ino, 4242, "inode");
	CHECK_EQ_U64(pgoff, 0x2000, "offset");
	CHECK_STR(name, "/dev/shm/x", "name");
	CHECK(parse_maps_line_object(anon, &start, &end, &pgoff, &prot, &name, &obj), "anon parses");
	CHECK(obj.shared && obj.ino == 12984 && obj.dev == (uint64_t)makedev(0, 1), "shared anonymous");
	CHECK_STR(name, "/dev/zero (deleted)", "its name");
	CHECK(parse_maps_line_object(priv, &start, &end, &pgoff, &prot, &name, &obj), "file parses");
	CHECK(!obj.shared, "'p': private");
	CHECK_EQ_U64(obj.dev, makedev(0xfd, 1), "device fd:01");
}

static int report_fd;

static void *linger(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	if (write(report_fd, &tid, sizeof(tid)) != sizeof(tid))
		_exit(3);
	pause();
	return NULL;
}

/* A child whose main thread called pthread_exit(): alive, its memory seen
 * through the live thread, and that thread's process is the child. */
static void test_main_thread_exited(void)
{
	int p[2], status;
	pid_t child, tid = 0;
	char path[64];
	FILE *f;

	if (pipe(p) < 0)
		return;
	child = fork();
	if (child == 0) {
		pthread_t t;

		report_fd = p[1];
		pthread_create(&t, NULL, linger, NULL);
		pthread_exit(NULL);
	}
	close(p[1]);
	CHECK(read(p[0], &tid, sizeof(tid)) == sizeof(tid), "the child's thread started");
	close(p[0]);
	/* wait for the main thread to be a zombie: its maps go empty */
	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
		f = fopen(path, "r");
		if (f && fgetc(f) == EOF) {
			fclose(f);
			break;
		}
		if (f)
			fclose(f);
		usleep(10000);
	}
	CHECK(process_alive(child), "a process whose main thread exited is alive");
	CHECK_EQ_U64(process_memory_task(child), tid, "its memory task is the live thread");
	CHECK_EQ_U64(process_tgid(tid), child, "the thread's process");
	CHECK_EQ_U64(process_tgid(child), child, "the process's own");
	CHECK_EQ_U64(process_memory_task(getpid()), getpid(), "a live main thread is its own");
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	CHECK(!process_alive(child), "gone once reaped");
	CHECK_EQ_U64(process_memory_task(child), 0, "no memory task when gone");
}

static void test_open_fd_count(void)
{
	int before = open_fd_count(), fd = dup(1), after = open_fd_count();

	CHECK(before > 0 && after == before + 1, "fds: %d, then %d with one more", before, after);
	close(fd);
	CHECK(open_fd_count() == before, "fds: %d after closing it", open_fd_count());
}

/* A number of /proc/PID/status by its whole key: ours (0) and by pid. */
static void test_status_number(void)
{
	CHECK_EQ_U64(process_status_number(0, "Pid"), getpid(), "Pid: ours");
	CHECK_EQ_U64(process_status_number(getpid(), "Tgid"), getpid(), "Tgid: by pid");
	CHECK(process_status_number(0, "VmRSS") > 0, "VmRSS: %ld kB",
	      process_status_number(0, "VmRSS"));
	CHECK(process_status_number(0, "Pi") == -1, "a key's prefix is no key");
	CHECK(process_status_number(0, "Name") == -1, "no number after Name");
	CHECK(process_status_number(0x3ffffff0, "Pid") == -1, "no such process");
}

/* Our own status read in our own /proc: the pid we see.  A pid no process
 * has: 0.  (A child namespace's 1 is tests/e2e_container.sh's.) */
static void test_ns_pid(void)
{
	CHECK_EQ_U64(process_ns_pid(getpid()), getpid(), "our own pid");
	CHECK_EQ_U64(process_ns_pid(0x3ffffff0), 0, "no such process");
}

/* -G's cgroup paths, and our own membership as /proc/self/cgroup says */
static void test_cgroup(void)
{
	char line[4096] = "", *own = NULL, *p;
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f))
		if ((p = strchr(line, ':')) && (p = strchr(p + 1, ':'))) {
			p[1 + strcspn(p + 1, "\n")] = '\0';
			free(own);
			own = strdup(p + 1);   /* the last hierarchy's: v2 where there is one */
		}
	if (f)
		fclose(f);
	CHECK(cgroup_path_of("relative/path") == NULL, "a relative path");
	p = cgroup_path_of("/");
	CHECK_STR(p, "/", "the root");
	free(p);
	p = cgroup_path_of("/sys/fs/cgroup/");
	CHECK_STR(p, "/", "the root's directory");
	free(p);
	CHECK(cgroup_path_of("/no-such-cgroup-anywhere") == NULL, "no such cgroup");
	CHECK(process_in_cgroup(getpid(), "/"), "every process is under /");
	if (own) {
		char *sibling = xasprintf("%s-not", strcmp(own, "/") ? own : "/x");

		CHECK(process_in_cgroup(getpid(), own), "in our own cgroup %s", own);
		CHECK(!process_in_cgroup(getpid(), sibling), "not in %s", sibling);
		free(sibling);
	}
	CHECK(!process_in_cgroup(0x3ffffff0, "/a"), "no such process");
	free(own);
}

int main(void)
{
	test_cgroup();
	test_ns_pid();
	test_open_fd_count();
	test_status_number();
	test_object();
	test_file_line();
	test_anon_line();
	test_bad_lines();
	test_main_thread_exited();
	return test_done();
}
