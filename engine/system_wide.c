/* system_wide.c - the processes of a system-wide session, learnt as their
 * samples come (system_wide.h). */
#include "engine/system_wide.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/procfs.h"
#include "common/util.h"
#include "symbolize/symbolizer.h"

void system_wide_init(struct system_wide *sw)
{
	memset(sw, 0, sizeof(*sw));
	hashmap_init(&sw->seen, sizeof(uint32_t));
	hashmap_init(&sw->named, sizeof(uint32_t));
	sw->self = getpid();
	if (stat("/proc/self/exe", &sw->self_exe) != 0)
		memset(&sw->self_exe, 0, sizeof(sw->self_exe));
}

/* In -p's list, or no list. */
static bool listed(const struct system_wide *sw, pid_t pid)
{
	if (sw->cgroup)
		return process_in_cgroup(pid, sw->cgroup);
	for (unsigned i = 0; i < sw->n_only; i++)
		if (sw->only[i] == pid)
			return true;
	return !sw->n_only;
}

/* Another contend: this binary, or one named contend (another build, an
 * installed copy).  Its price probe false-shares on purpose, and a tool
 * that reports itself is not believed about anything else. */
static bool is_contend_process(const struct system_wide *sw, pid_t pid)
{
	char path[64], exe[4096];
	const char *base;
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) == 0 && sw->self_exe.st_ino &&
	    st.st_dev == sw->self_exe.st_dev && st.st_ino == sw->self_exe.st_ino)
		return true;
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		exe[n - 10] = 0;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	return !strcmp(base, "contend") || !strcmp(base, "lt-contend");
}

char *system_wide_label(const pid_t *pids, unsigned n, const char *cgroup)
{
	struct strbuf sb = STRBUF_INIT;

	if (cgroup)   /* the printers escape it */
		return xasprintf("every process in cgroup %s (-a -G)", cgroup);
	if (!n)
		return xstrdup("every process (-a)");
	strbuf_addf(&sb, "processes ");
	for (unsigned i = 0; i < n; i++) {
		if (!process_alive(pids[i]))
			die("no such process: %d", (int)pids[i]);
		strbuf_addf(&sb, "%s%d", i ? ", " : "", (int)pids[i]);
	}
	return strbuf_detach(&sb);
}

void system_wide_release(struct system_wide *sw)
{
	hashmap_release(&sw->seen, NULL);
	hashmap_release(&sw->named, NULL);
	free(sw->live);
}

/* Values in seen: a process's live[] index + 1, or one of these. */
#define DROPPED ((void *)UINTPTR_MAX)        /* kernel thread: never decoded */
#define EXITED ((void *)(UINTPTR_MAX - 1))   /* gone: a new one may take its pid */

bool system_wide_sample(struct system_wide *sw, struct symbolizer *sym,
			uint32_t pid, uint32_t tid, bool *new_thread)
{
	void *known;

	*new_thread = false;
	if (pid == sw->last_pid && tid == sw->last_tid)
		return sw->last_kept;
	sw->last_pid = pid;
	sw->last_tid = tid;
	sw->last_kept = false;
	if (pid == 0 || pid == (uint32_t)sw->self)
		return false;
	known = hashmap_get(&sw->seen, &pid);
	if (known == DROPPED)
		return false;
	if (!known || known == EXITED) {
		if (!listed(sw, (pid_t)pid) || process_is_kernel_thread((pid_t)pid)) {
			hashmap_put(&sw->seen, &pid, DROPPED);
			return false;
		}
		if (is_contend_process(sw, (pid_t)pid)) {
			hashmap_put(&sw->seen, &pid, DROPPED);
			sw->contend_processes++;
			return false;
		}
		symbolizer_load_proc_maps(sym, (pid_t)pid);
		ALLOC_GROW(sw->live, sw->n_live + 1, sw->alloc_live);
		sw->live[sw->n_live++] = (struct sw_process){ (pid_t)pid, false };
		known = (void *)(uintptr_t)sw->n_live;
		hashmap_put(&sw->seen, &pid, known);
		sw->processes++;
	} else {
		sw->live[(uintptr_t)known - 1].sampled = true;
	}
	if (!hashmap_get(&sw->named, &tid)) {
		hashmap_put(&sw->named, &tid, (void *)(uintptr_t)1);
		*new_thread = true;
	}
	sw->last_kept = true;
	return true;
}

void system_wide_refresh(struct system_wide *sw, struct symbolizer *sym)
{
	size_t kept = 0;

	/* an exited process (a zombie until reaped) has empty maps, which
	 * would replace every mapping the report still needs */
	for (size_t i = 0; i < sw->n_live; i++) {
		struct sw_process p = sw->live[i];
		uint32_t key = (uint32_t)p.pid;

		if (!process_alive(p.pid)) {
			hashmap_put(&sw->seen, &key, EXITED);
			continue;
		}
		if (p.sampled)
			symbolizer_load_proc_maps(sym, p.pid);
		p.sampled = false;
		sw->live[kept++] = p;
		hashmap_put(&sw->seen, &key, (void *)(uintptr_t)kept);
	}
	sw->n_live = kept;
	sw->last_pid = sw->last_tid = 0;   /* sampled marks start again */
}
