#include "common/procfs.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/util.h"

/* 1: the task of this stat file runs, 0: a zombie or dead, -1: gone */
static int task_alive(const char *stat_path)
{
	char buf[512], *p;
	int alive = -1;
	FILE *f = fopen(stat_path, "re");

	if (!f)
		return -1;
	/* the state follows the command name, which may hold anything */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		alive = p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return alive;
}

pid_t process_memory_task(pid_t pid)
{
	char path[96];
	struct dirent *de;
	pid_t live = 0;
	DIR *d;
	int a;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	a = task_alive(path);
	if (a)
		return a > 0 ? pid : 0;
	/* the main thread is a zombie: the group lives while a thread does */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !live && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
		if (task_alive(path) > 0)
			live = tid;
	}
	if (d)
		closedir(d);
	return live;
}

bool process_alive(pid_t pid)
{
	return process_memory_task(pid) != 0;
}

/* The line of /proc/PID/status that starts with key, into line. */
static bool status_line(pid_t pid, const char *key, char *line, size_t size)
{
	char path[64];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, (int)size, f))
		found = !strncmp(line, key, strlen(key));
	fclose(f);
	return found;
}

long process_status_number(pid_t pid, const char *key)
{
	char line[256], *end;
	size_t len = strlen(key);
	long n;

	if (len > 64 || !status_line(pid ? pid : getpid(), key, line, sizeof(line)) ||
	    line[len] != ':')
		return -1;
	n = strtol(line + len + 1, &end, 10);
	return end == line + len + 1 ? -1 : n;
}

pid_t process_tgid(pid_t tid)
{
	char line[256];
	int tgid = 0;

	if (!status_line(tid, "Tgid:", line, sizeof(line)) || sscanf(line, "Tgid: %d", &tgid) != 1)
		return 0;
	return tgid > 0 ? (pid_t)tgid : 0;
}

pid_t process_ns_pid(pid_t pid)
{
	char line[256], *last;
	long nspid;

	if (!status_line(pid, "NSpid:", line, sizeof(line)))
		return 0;
	last = strrchr(line, '\t');   /* host first, innermost last */
	nspid = last ? strtol(last + 1, NULL, 10) : 0;
	return nspid > 0 ? (pid_t)nspid : 0;
}

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP2_MAGIC 0x63677270   /* CGROUP2_SUPER_MAGIC */

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Some hierarchy under /sys/fs/cgroup has cgroup ("/a/b"). */
static bool cgroup_exists(const char *cgroup)
{
	char *p = xasprintf(CGROUP_ROOT "%s", cgroup);
	bool found = is_dir(p);
	DIR *d;
	struct dirent *e;

	free(p);
	if (found || !(d = opendir(CGROUP_ROOT)))
		return found;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf(CGROUP_ROOT "/%s%s", e->d_name, cgroup);
		found = is_dir(p);
		free(p);
	}
	closedir(d);
	return found;
}

char *cgroup_path_of(const char *arg)
{
	size_t root = sizeof(CGROUP_ROOT) - 1, n;
	const char *rel = arg;
	struct statfs fs;
	char *path;

	if (!strncmp(arg, CGROUP_ROOT, root) && (arg[root] == '/' || !arg[root])) {
		if (!is_dir(arg))
			return NULL;
		rel = arg + root;
		/* a v1 or hybrid layout: the first component is the hierarchy */
		if (statfs(CGROUP_ROOT, &fs) == 0 && fs.f_type != CGROUP2_MAGIC && *rel)
			rel = strchr(rel + 1, '/') ? strchr(rel + 1, '/') : "";
		if (!*rel)
			rel = "/";
	} else if (arg[0] != '/') {
		return NULL;
	}
	path = xstrdup(rel);
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	if (strcmp(path, "/") && !cgroup_exists(path)) {
		free(path);
		return NULL;
	}
	return path;
}

bool process_in_cgroup(pid_t pid, const char *cgroup)
{
	char file[64], line[4096];
	size_t n = strlen(cgroup);
	bool in = false;
	FILE *f;

	if (!strcmp(cgroup, "/"))
		return true;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(file, "re")))
		return false;
	/* "ID:CONTROLLERS:PATH", one line per hierarchy */
	while (!in && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, ':');

		path = path ? strchr(path + 1, ':') : NULL;
		if (!path)
			continue;
		path++;
		path[strcspn(path, "\n")] = '\0';
		in = !strncmp(path, cgroup, n) && (path[n] == '\0' || path[n] == '/');
	}
	fclose(f);
	return in;
}

char *process_cmdline(pid_t pid)
{
	char path[64], buf[4096];
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	pid_t task = process_memory_task(pid);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)(task ? task : pid));
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	for (size_t i = 0; i < n; i++)
		strbuf_addch(&sb, buf[i] ? buf[i] : ' ');
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		sb.buf[--sb.len] = '\0';
	if (!sb.len)
		strbuf_addf(&sb, "pid %d", (int)pid);
	return strbuf_detach(&sb);
}

pid_t *process_tasks(pid_t pid, unsigned *n)
{
	char path[64];
	struct dirent *de;
	pid_t *tids = NULL;
	size_t alloc = 0;
	DIR *d;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		ALLOC_GROW(tids, *n + 1, alloc);
		tids[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return tids;
}

uid_t process_uid(pid_t pid)
{
	char path[64], line[256];
	unsigned long uid = (unsigned long)-1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*u %lu", &uid) == 1)
			break;
	fclose(f);
	return (uid_t)uid;
}

#define PF_KTHREAD 0x00200000u    /* include/linux/sched.h */

bool process_is_kernel_thread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned flags = 0;
	bool kthread = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	/* state ppid pgrp session tty_nr tpgid flags, after the command name */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) == 1)
		kthread = flags & PF_KTHREAD;
	fclose(f);
	return kthread;
}

bool process_has_capability(pid_t pid, unsigned cap)
{
	char path[64], line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return found && cap < 64 && (eff >> cap & 1);
}

bool parse_maps_line(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
		     uint32_t *prot, const char **name)
{
	struct map_object obj;

	return parse_maps_line_object(line, start, end, pgoff, prot, name, &obj);
}

bool parse_maps_line_object(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			    uint32_t *prot, const char **name, struct map_object *obj)
{
	unsigned major = 0, minor = 0;
	char perms[5];
	int name_at = 0;
	size_t len;

	memset(obj, 0, sizeof(*obj));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   start, end, perms, pgoff, &major, &minor, &obj->ino, &name_at) < 7 ||
	    !name_at || *end <= *start)
		return false;
	obj->dev = makedev(major, minor);
	obj->shared = perms[3] == 's';
	*prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		(perms[2] == 'x' ? PROT_EXEC : 0);
	len = strlen(line + name_at);
	while (len && (line[name_at + len - 1] == '\n' || line[name_at + len - 1] == ' '))
		line[name_at + --len] = '\0';
	*name = line + name_at;
	return true;
}

int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = -1;   /* the directory's own descriptor */

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

void debug_fd_count(const char *when)
{
	if (getenv("CONTEND_DEBUG_FDS"))
		fprintf(stderr, "contend: fds %s: %d\n", when, open_fd_count());
}

double load_average(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	double load = 0;

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = 0;
		fclose(f);
	}
	return load;
}

bool cpu_pressure_us(uint64_t *total)
{
	FILE *f = fopen("/proc/pressure/cpu", "re");
	char line[256];
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, " total=");

		if (!strncmp(line, "some ", 5) && t)
			ok = sscanf(t + 7, "%" SCNu64, total) == 1;
	}
	fclose(f);
	return ok;
}

void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}
