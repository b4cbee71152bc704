/* symbolizer_jit.c - function names of JIT code from /tmp/perf-PID.map,
 * reread whenever the file changed, and only when the target's user
 * (symbolizer_set_map_owner) or root owns it.
 */
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/symbolizer.h"
#include "symbolize/symbolizer_internal.h"
#include "common/safe_file.h"
#include "common/sorted.h"
#include "common/util.h"

static int jit_sym_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A JIT writes /tmp/perf-PID.map in its own /tmp under the pid it sees:
 * in a container (another PID namespace), /proc/PID/root/tmp/perf-NSPID.map
 * as this process reaches it, while the process lives; else, and for a
 * replay, our /tmp's.  Into path, and its lstat() into st: false if none. */
static bool jit_map_path(struct symbolizer *s, struct proc *p, char *path, size_t size,
			 struct stat *st)
{
	struct jit_map *j = &p->jit;

	if (!s->offline && !j->ns_pid) {
		pid_t ns = process_ns_pid(p->pid);
		j->ns_pid = ns ? ns : -1;
	}
	if (!s->offline && j->ns_pid > 0 && j->ns_pid != p->pid) {
		snprintf(path, size, "/proc/%d/root/tmp/perf-%d.map", (int)p->pid, (int)j->ns_pid);
		if (lstat(path, st) == 0)
			return true;
	}
	snprintf(path, size, "/tmp/perf-%d.map", (int)p->pid);
	return lstat(path, st) == 0;
}

/* (Re)load /tmp/perf-PID.map when it changed since the last look: JITs
 * append to it while the program runs. */
static void jit_map_refresh(struct symbolizer *s, struct proc *p)
{
	struct jit_map *j = &p->jit;
	char path[96], *line = NULL;
	size_t alloc = 0, n = 0;
	struct stat st;
	FILE *fp;
	int fd;

	if (!jit_map_path(s, p, path, sizeof(path), &st) || !S_ISREG(st.st_mode)) {
		j->nr = 0;
		j->size = -1;
		return;
	}
	if (st.st_size == j->size && st.st_mtim.tv_sec == j->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == j->mtime.tv_nsec)
		return;
	/* Anyone can create /tmp/perf-PID.map for a pid they guessed: as perf
	 * does, only a regular file of the target's user or root, never
	 * through a symlink.  A refused file is not tried again until it
	 * changes. */
	j->nr = 0;
	j->size = st.st_size;
	j->mtime = st.st_mtim;
	fd = safe_open_read(path, &(struct read_policy){ .check_owner = true,
							 .owner_uid = s->map_owner }, NULL);
	if (fd < 0 || !(fp = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (getline(&line, &alloc, fp) > 0) {
		uint64_t start, size;
		int name_at = 0;
		size_t len;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) < 2 || !name_at || !size)
			continue;
		len = strcspn(line + name_at, "\n");
		line[name_at + len] = '\0';
		ALLOC_GROW(j->syms, j->nr + 1, j->alloc);
		j->syms[j->nr++] = (struct jit_sym){
			.start = start, .end = start + size, .seq = n++,
			.name = intern_demangled(s, line + name_at),
		};
	}
	free(line);
	fclose(fp);

	/* Code recompiled at the same address: keep the newest entry. */
	sort_items(j->syms, j->nr, sizeof(*j->syms), jit_sym_cmp);
	n = 0;
	for (size_t i = 0; i < j->nr; i++) {
		if (n && j->syms[n - 1].start == j->syms[i].start)
			n--;
		j->syms[n++] = j->syms[i];
	}
	j->nr = n;
}

bool jit_lookup(struct symbolizer *s, struct proc *p, uint64_t addr,
		       struct func_info *out)
{
	struct jit_map *j = &p->jit;
	size_t lo;

	jit_map_refresh(s, p);
	lo = FIRST_ABOVE(j->syms, j->nr, start, addr);
	if (!lo || addr >= j->syms[lo - 1].end)
		return false;
	out->name = j->syms[lo - 1].name;
	out->start = j->syms[lo - 1].start;
	out->end = j->syms[lo - 1].end;
	return true;
}
