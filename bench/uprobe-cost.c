/* uprobe-cost - what tracking allocations with uprobes would cost a
 * process (bench/uprobe-overhead.sh): runs CMD with a counting uprobe on
 * each SYM of LIB (the kernel's uprobe PMU through perf_event_open, as
 * attach would use it: no tracefs), and with --ret a return probe too,
 * on every thread (each opened as it appears: an inherited uprobe event
 * makes the target's clone fail, the kernel reading the library's path
 * from the new thread's memory); then prints the hits and CMD's CPU time.
 * A thread's first calls, before its probes are open, go unprobed.
 * Counting is the cheapest a probe can be (no record written, nothing
 * read): every call still traps into the kernel and back.
 *
 * usage: uprobe-cost [--ret] LIB SYM[,SYM...] -- CMD [ARGS...]
 *        (SYM "-": no probe, the same run to compare with)
 * prints: "hits N user S sys S"
 */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detector/perf_event.h"

#define MAX_PROBES 16
#define MAX_TASKS 256
#define MAX_FDS 4096

static unsigned long sym_offset(const char *lib, const char *name)
{
	int fd = open(lib, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	unsigned long value = 0, off = 0;
	size_t n;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return 0;
	while ((scn = elf_nextscn(e, scn)) && !value) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *sn;

			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    s.st_value && (sn = elf_strptr(e, sh.sh_link, s.st_name)) &&
			    !strcmp(sn, name)) {
				value = s.st_value;
				break;
			}
		}
	}
	if (value && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    value >= ph.p_vaddr && value < ph.p_vaddr + ph.p_filesz)
				off = value - ph.p_vaddr + ph.p_offset;
		}
	elf_end(e);
	close(fd);
	return off;
}

/* One counting probe per symbol (and return) on task tid; returns how
 * many were opened, -1 on error. */
static int open_probes(int type, const char *lib, const unsigned long *off, int n_off,
		       int ret, pid_t tid, int on_exec, int *fds, int room)
{
	int n = 0;

	for (int i = 0; i < n_off; i++)
		for (int r = 0; r <= ret; r++) {
			struct perf_event_attr at;

			if (n == room)
				return n;
			memset(&at, 0, sizeof(at));
			at.size = sizeof(at);
			at.type = (unsigned)type;
			at.config = (unsigned)r;          /* format: retprobe is config:0 */
			at.config1 = (uintptr_t)lib;      /* uprobe_path */
			at.config2 = off[i];              /* probe_offset */
			at.disabled = on_exec;
			at.enable_on_exec = on_exec;
			fds[n] = perf_event_open_fd(&at, tid, -1, -1);
			if (fds[n] < 0)
				return on_exec ? -1 : n;  /* a thread gone already */
			n++;
		}
	return n;
}

static int seen(const pid_t *tids, int n, pid_t tid)
{
	for (int i = 0; i < n; i++)
		if (tids[i] == tid)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0, a = 1, type = perf_pmu_type("uprobe"), n = 0, n_off = 0, n_tids = 0, go[2], status;
	static int fds[MAX_FDS];
	static pid_t tids[MAX_TASKS];
	unsigned long off[MAX_PROBES];
	char *lib, *syms, *tok, *save = NULL, path[64];
	struct rusage ru;
	uint64_t hits = 0;
	pid_t child;

	if (a < argc && !strcmp(argv[a], "--ret")) {
		ret = 1;
		a++;
	}
	if (argc - a < 4 || strcmp(argv[a + 2], "--") || type < 0) {
		fprintf(stderr, "usage: uprobe-cost [--ret] LIB SYM[,SYM...] -- CMD [ARGS...]%s\n",
			type < 0 ? " (no uprobe PMU here)" : "");
		return 2;
	}
	lib = argv[a];
	syms = argv[a + 1];
	for (tok = strcmp(syms, "-") ? strtok_r(syms, ",", &save) : NULL; tok && n_off < MAX_PROBES;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!(off[n_off++] = sym_offset(lib, tok))) {
			fprintf(stderr, "uprobe-cost: no %s in %s\n", tok, lib);
			return 2;
		}
	}
	if (pipe(go) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[a + 3], argv + a + 3);
		_exit(127);
	}
	close(go[0]);
	/* not inherited: the kernel would read the path from each new
	 * thread's memory at its clone (clone3 fails with EFAULT); each
	 * thread is probed as it appears instead */
	n = open_probes(type, lib, off, n_off, ret, child, 1, fds, MAX_FDS);
	if (n < 0) {
		perror("uprobe-cost: perf_event_open");
		kill(child, SIGKILL);
		return 2;
	}
	tids[n_tids++] = child;
	if (write(go[1], "g", 1) != 1)
		return 2;
	close(go[1]);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	while (waitpid(child, &status, WNOHANG | __WALL) == 0) {
		DIR *d = n_off ? opendir(path) : NULL;
		struct dirent *e;

		while (d && (e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);

			if (tid <= 0 || seen(tids, n_tids, tid) || n_tids == MAX_TASKS)
				continue;
			tids[n_tids++] = tid;
			n += open_probes(type, lib, off, n_off, ret, tid, 0, fds + n, MAX_FDS - n);
		}
		if (d)
			closedir(d);
		usleep(100);
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	for (int i = 0; i < n; i++) {
		uint64_t v = 0;

		if (read(fds[i], &v, sizeof(v)) == sizeof(v))
			hits += v;
		close(fds[i]);
	}
	printf("hits %llu user %.3f sys %.3f\n", (unsigned long long)hits,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
