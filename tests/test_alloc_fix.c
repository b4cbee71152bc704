/* The allocation shim's fix mode (detector/alloc_fix.h): the spec, the
 * sites found in maps lines wherever the file is mapped, the rounding;
 * a site resolved from this process's own /proc/self/maps as the shim
 * does it; the shim with the mode on for a site the fixture does not
 * have moves nothing; and for the fixture's malloc(24) call, that block
 * alone is line-aligned, and the shim counts it. */
#include "detector/alloc_fix.h"
#include "detector/alloc_record.h"
#include "common/procfs.h"
#include "tests/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_parse(void)
{
	struct alloc_fix f;

	CHECK(alloc_fix_parse("align=64 fd=711 site=fd01:4d2:1a3b site=803:7:10", &f),
	      "a spec of two sites");
	CHECK_EQ_U64(f.align, 64, "align");
	CHECK_EQ_U64(f.report_fd, 711, "fd");
	CHECK_EQ_U64(f.n_sites, 2, "sites");
	CHECK_EQ_U64(f.sites[0].dev, 0xfd01, "dev");
	CHECK_EQ_U64(f.sites[0].ino, 0x4d2, "ino");
	CHECK_EQ_U64(f.sites[0].off, 0x1a3b, "off");
	CHECK_EQ_U64(f.sites[1].off, 0x10, "second site's off");
	CHECK_EQ_U64(f.sites[0].addr, 0, "not mapped until a maps line says so");
	CHECK(alloc_fix_parse("  site=1:2:3   align=128 ", &f) && f.align == 128 && f.report_fd == -1,
	      "any order, extra spaces, no fd");

	for (const char *const *bad = (const char *const[]){
		     "", "align=64", "site=1:2:3", "align=48 site=1:2:3", "align=8 site=1:2:3",
		     "align=8192 site=1:2:3", "align=64 site=1:2", "align=64 site=1:0:3",
		     "align=64 site=1:2:3x", "align=64 site=g:2:3", "align=64 size=1:2:3",
		     "align=64 site=1:2:3 fd=", "align=64 site=1:2:ffffffffffffffff0",
		     "align=64 site=1:1:1 site=1:1:2 site=1:1:3 site=1:1:4 site=1:1:5 "
		     "site=1:1:6 site=1:1:7 site=1:1:8 site=1:1:9", NULL }; *bad; bad++) {
		CHECK(!alloc_fix_parse(*bad, &f) && f.align == 0 && f.n_sites == 0,
		      "'%s' is refused and leaves the mode off", *bad);
	}
}

static void test_format(void)
{
	struct alloc_fix f = { .align = 128, .report_fd = 712, .n_sites = 2 }, g;
	char buf[256];

	f.sites[0] = (struct alloc_fix_site){ .dev = makedev(0xfd, 1), .ino = 123456, .off = 0x1189 };
	f.sites[1] = (struct alloc_fix_site){ .dev = makedev(259, 2), .ino = 7, .off = 0 };
	CHECK(alloc_fix_format(buf, sizeof(buf), &f) > 0, "formats");
	CHECK(alloc_fix_parse(buf, &g), "parses what it formats: %s", buf);
	CHECK(g.align == 128 && g.report_fd == 712 && g.n_sites == 2 &&
	      g.sites[0].dev == f.sites[0].dev && g.sites[0].ino == 123456 &&
	      g.sites[0].off == 0x1189 && g.sites[1].dev == makedev(259, 2), "round trip: %s", buf);
	CHECK(alloc_fix_format(buf, 20, &f) == -1, "too small a buffer says so");
}

#define MAP_LINE(f, text) alloc_fix_map_line((f), (text), strlen(text))

static void test_maps(void)
{
	struct alloc_fix f, g;
	const char *text = "555555555000-555555556000 r-xp 00001000 fd:01 1234   /usr/bin/x";

	alloc_fix_parse("align=64 site=fd01:4d2:1189 site=fd01:4d2:3000", &f);
	MAP_LINE(&f, "555555554000-555555555000 r--p 00000000 fd:01 1234   /usr/bin/x");
	CHECK_EQ_U64(f.sites[0].addr, 0, "a mapping that does not execute holds no call");
	MAP_LINE(&f, text);
	CHECK_EQ_U64(f.sites[0].addr, 0x555555555189, "the call, where this run maps the file");
	CHECK_EQ_U64(f.sites[1].addr, 0, "an offset past the mapping stays unmapped");
	CHECK(alloc_fix_match(&f, 0x555555555189), "the call's return address matches");
	CHECK(!alloc_fix_match(&f, 0x55555555518a), "the next byte does not");
	CHECK(!alloc_fix_match(&f, 0x555555555000), "nor the mapping's start");

	/* another run, another start: the same file offset */
	alloc_fix_parse("align=64 site=fd01:4d2:1189", &g);
	MAP_LINE(&g, "7f0a12345000-7f0a12346000 r-xp 00001000 fd:01 1234 /usr/bin/x");
	CHECK_EQ_U64(g.sites[0].addr, 0x7f0a12345189, "randomized elsewhere, found there");
	alloc_fix_parse("align=64 site=fd01:4d2:1189", &g);
	MAP_LINE(&g, "7f0a12345000-7f0a12346000 r-xp 00001000 fd:01 1235 /usr/bin/y");
	CHECK_EQ_U64(g.sites[0].addr, 0, "another inode is another file");
	MAP_LINE(&g, "7f0a12345000-7f0a12346000 r-xp 00001000 fd:02 1234 /usr/bin/y");
	CHECK_EQ_U64(g.sites[0].addr, 0, "another device too");
	MAP_LINE(&g, "7f0a12345000-7f0a12346000 r-xp 00001000 fd:01");
	MAP_LINE(&g, "garbage");
	CHECK_EQ_U64(g.sites[0].addr, 0, "a cut or broken line resolves nothing");
	CHECK(!alloc_fix_match(&g, 0), "an unmapped site matches no address");
}

static void test_size(void)
{
	struct alloc_fix f = { .align = 64 };

	CHECK_EQ_U64(alloc_fix_size(&f, 40), 64, "40 -> 64");
	CHECK_EQ_U64(alloc_fix_size(&f, 64), 64, "64 stays");
	CHECK_EQ_U64(alloc_fix_size(&f, 65), 128, "65 -> 128");
	CHECK_EQ_U64(alloc_fix_size(&f, 0), 64, "0 -> one line");
	CHECK_EQ_U64(alloc_fix_size(&f, SIZE_MAX - 10), 0, "overflow -> 0");
	f.align = 128;
	CHECK_EQ_U64(alloc_fix_size(&f, 40), 128, "40 -> 128 on 128-byte lines");
	f.align = 0;
	CHECK_EQ_U64(alloc_fix_size(&f, 40), 40, "off: as asked");
}

static __attribute__((noinline)) void marker(void)
{
	__asm__ volatile("");
}

/* As contend names a site (the mapping's device, inode, offset, from
 * procfs.h) and as the shim finds it (alloc_fix_map_line on the kernel's
 * text): the same address. */
static void test_self(void)
{
	uint64_t here = (uintptr_t)&marker, off = 0, dev = 0, ino = 0;
	char line[4096], spec[256];
	struct alloc_fix f;
	FILE *maps = fopen("/proc/self/maps", "r");

	CHECK(maps != NULL, "/proc/self/maps");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;
		struct map_object obj;

		if (parse_maps_line_object(line, &start, &end, &pgoff, &prot, &name, &obj) &&
		    here >= start && here < end) {
			off = here - start + pgoff;
			dev = obj.dev;
			ino = obj.ino;
		}
	}
	CHECK(ino != 0, "this test's code is in a file");
	snprintf(spec, sizeof(spec), "align=64 site=%llx:%llx:%llx", (unsigned long long)dev,
		 (unsigned long long)ino, (unsigned long long)off);
	CHECK(alloc_fix_parse(spec, &f), "%s", spec);
	rewind(maps);
	while (fgets(line, sizeof(line), maps))
		alloc_fix_map_line(&f, line, strcspn(line, "\n"));
	fclose(maps);
	CHECK_EQ_U64(f.sites[0].addr, here, "found where it is");
}

/* The fixture's output, with the shim (and spec) or without; recs: the
 * shim's records too (room for *n_recs, set to how many came); count:
 * the fix's count of placed blocks (-1: none said). */
static int run_fixture(const char *fixture, const char *shim, const char *spec, char *out,
		       size_t cap, struct alloc_record *recs, size_t *n_recs, long *count)
{
	int p[2], ch[2], cnt[2], status = 0;
	size_t len = 0, rlen = 0;
	char full[512];
	uint64_t n;
	ssize_t k;
	pid_t pid;

	if (pipe(p) < 0 || pipe(ch) < 0 || pipe(cnt) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		char fd[16];

		personality(ADDR_NO_RANDOMIZE);
		dup2(p[1], 1);
		close(p[0]);
		close(ch[0]);
		close(cnt[0]);
		if (shim && !strpbrk(shim, " :\t"))
			setenv("LD_PRELOAD", shim, 1);
		if (recs) {
			snprintf(fd, sizeof(fd), "%d", ch[1]);
			setenv(ALLOC_FD_ENV, fd, 1);
		}
		if (spec) {
			snprintf(full, sizeof(full), "%s fd=%d", spec, cnt[1]);
			setenv(ALLOC_FIX_ENV, full, 1);
		}
		execl(fixture, fixture, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(ch[1]);
	close(cnt[1]);
	while (len < cap - 1 && ((k = read(p[0], out + len, cap - 1 - len)) > 0 ||
				 (k < 0 && errno == EINTR)))
		if (k > 0)
			len += (size_t)k;
	out[len] = '\0';
	while (recs && rlen < *n_recs * sizeof(*recs) &&
	       (k = read(ch[0], (char *)recs + rlen, *n_recs * sizeof(*recs) - rlen)) > 0)
		rlen += (size_t)k;
	if (recs)
		*n_recs = rlen / sizeof(*recs);
	if (count) {
		*count = -1;
		while (read(cnt[0], &n, sizeof(n)) == (ssize_t)sizeof(n))
			*count = (*count < 0 ? 0 : *count) + (long)n;
	}
	close(p[0]);
	close(ch[0]);
	close(cnt[0]);
	waitpid(pid, &status, 0);
	return status;
}

/* The address the fixture printed after "name 0x", 0 if none. */
static uint64_t printed(const char *out, const char *name)
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "%s 0x", name);
	for (at = strstr(out, key); at && at != out && at[-1] != '\n'; at = strstr(at + 1, key))
		;
	return at ? strtoull(at + strlen(key), NULL, 16) : 0;
}

/* Where the fixture's code at ret is, as a file and offset: from its maps
 * while it is stopped at its exec (ptrace), address randomization off as
 * in the runs.  False when it cannot be traced (a sandbox). */
static bool fixture_site(const char *fixture, uint64_t ret, char *spec, size_t cap)
{
	char path[64], line[4096];
	bool found = false;
	int status;
	FILE *maps;
	pid_t pid = fork();

	if (pid == 0) {
		personality(ADDR_NO_RANDOMIZE);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(126);
		execl(fixture, fixture, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((maps = fopen(path, "r"))) {
		while (!found && fgets(line, sizeof(line), maps)) {
			uint64_t start, end, pgoff;
			uint32_t prot;
			const char *name;
			struct map_object obj;

			if (parse_maps_line_object(line, &start, &end, &pgoff, &prot, &name, &obj) &&
			    ret >= start && ret < end && obj.ino) {
				snprintf(spec, cap, "align=64 site=%llx:%llx:%llx",
					 (unsigned long long)obj.dev, (unsigned long long)obj.ino,
					 (unsigned long long)(ret - start + pgoff));
				found = true;
			}
		}
		fclose(maps);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return found;
}

/* out without its line that starts with prefix */
static void drop_line(char *out, const char *prefix)
{
	char *at = strstr(out, prefix), *end;

	if (!at)
		return;
	end = strchr(at, '\n');
	memmove(at, end ? end + 1 : at + strlen(at), strlen(end ? end + 1 : at + strlen(at)) + 1);
}

static void test_shim(void)
{
	const char *top = getenv("top_builddir");
	char fixture[4096], shim[4096], plain[4096], fixed[4096], spec[256];
	static struct alloc_record recs[4096];
	size_t n_recs = 4096;
	uint64_t ret = 0, at;
	long count;

	snprintf(fixture, sizeof(fixture), "%s/tests/fixture_alloc", top ? top : ".");
	snprintf(shim, sizeof(shim), "%s/libcontend-alloc.so", top ? top : ".");
	if (access(fixture, X_OK) || access(shim, R_OK) || strpbrk(shim, " :\t")) {
		printf("# skip the shim: %s or %s not built (or a path LD_PRELOAD splits)\n",
		       fixture, shim);
		return;
	}
	CHECK(run_fixture(fixture, NULL, NULL, plain, sizeof(plain), NULL, NULL, NULL) == 0,
	      "the fixture runs");
	/* a site of a file the fixture does not map: the mode is on, nothing matches */
	CHECK(run_fixture(fixture, shim, "align=64 site=1:2:3", fixed, sizeof(fixed), NULL, NULL,
			  &count) == 0, "... and with the fix mode on");
	CHECK(printed(plain, "malloc") != 0, "it printed its addresses: %s", plain);
	CHECK(count == 0, "the shim placed no block, and said so: %ld", count);
	drop_line(plain, "big ");     /* mmap'd: moved by the shim's own pages */
	drop_line(fixed, "big ");
	CHECK(!strcmp(plain, fixed), "fix mode for another site moves nothing:\n%s---\n%s",
	      plain, fixed);

	/* the site of the fixture's first malloc(24), from the shim's records */
	CHECK(run_fixture(fixture, shim, NULL, plain, sizeof(plain), recs, &n_recs, NULL) == 0,
	      "the fixture runs with records");
	at = printed(plain, "malloc");
	/* the first record: the fixture's "again" malloc(24) reuses the freed
	 * block at another call, and its record reaches the pipe too when the
	 * shim's coarse clock ticks before its free (1 run in 12 here) */
	for (size_t i = 0; i < n_recs && !ret; i++)
		if (recs[i].call == ALLOC_MALLOC && recs[i].addr == at && recs[i].size == 24)
			ret = recs[i].frames[0];
	CHECK(ret != 0 && at % 64 != 0, "malloc(24)'s call, at 0x%llx, not line-aligned",
	      (unsigned long long)at);
	if (!ret || !fixture_site(fixture, ret, spec, sizeof(spec))) {
		printf("# skip the fixed site: the fixture cannot be traced here\n");
		return;
	}
	CHECK(run_fixture(fixture, shim, spec, fixed, sizeof(fixed), NULL, NULL, &count) == 0,
	      "the fixture runs with its malloc(24) fixed (%s)", spec);
	CHECK(printed(fixed, "malloc") % 64 == 0, "that block is line-aligned: %s", fixed);
	CHECK(count == 1, "the shim counted the one block it placed: %ld", count);
}

int main(void)
{
	test_parse();
	test_format();
	test_maps();
	test_size();
	test_self();
	test_shim();
	return test_done();
}
