/* test_symbolizer.c - the symbolizer on synthetic tables, on this test
 * process itself (built with -g), and on a child that is gone by the time
 * its addresses are looked up. */
#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/lib-names.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"
#include "tap.h"
#include "common/util.h"

#define FAKE_PID 999999
#define FAKE_CHILD 999998
#define JIT_PID 9999997		/* above any pid_max: never a live process */
#define LANG_PID 9999900		/* test_language's, the same */
#define UNKNOWN_PID 123456789

#ifndef __has_feature
#define __has_feature(x) 0
#endif
/* clang's AddressSanitizer grows globals (and their symbols) by a redzone. */
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define GLOBALS_PADDED 1
#else
#define GLOBALS_PADDED 0
#endif

long test_counters[4];
long test_data[2] = { 1, 2 };

/* The address of the instruction the statement compiles to, and its line. */
#if defined(__x86_64__)
#define HERE(pc, line) do { *(line) = __LINE__; asm volatile("1: lea 1b(%%rip), %0" : "=r"(pc)); } while (0)
#elif defined(__aarch64__)
#define HERE(pc, line) do { *(line) = __LINE__; asm volatile("adr %0, ." : "=r"(pc)); } while (0)
#else
#define HERE(pc, line) do { *(line) = 0; (pc) = 0; } while (0)
#endif

enum { PROBE_DECL_LINE = __LINE__ + 1 };
static __attribute__((noinline)) uint64_t probe(int *line)
{
	uint64_t pc;

	HERE(pc, line);
	return pc;
}

static inline __attribute__((always_inline)) uint64_t inlined_leaf(int *line)
{
	uint64_t pc;

	HERE(pc, line);
	return pc;
}

static __attribute__((noinline)) uint64_t inline_host(int *line)
{
	return inlined_leaf(line);
}

/* Two levels of inlining: calls[0] and calls[1] are the lines of the
 * inlined calls, the innermost first. */
static inline __attribute__((always_inline)) uint64_t inlined_middle(int *line, int *calls)
{
	calls[0] = __LINE__ + 1;
	return inlined_leaf(line);
}

static __attribute__((noinline)) uint64_t inline_host2(int *line, int *calls)
{
	calls[1] = __LINE__ + 1;
	return inlined_middle(line, calls);
}

/* getppid in libc itself: &getppid is a PLT stub in a non-PIE executable. */
static uint64_t libc_getppid(void)
{
	void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "getppid") : NULL;

	if (libc)
		dlclose(libc);
	return (uintptr_t)fn;
}

static const char *base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static void test_demangle(void)
{
	char *a = demangle("_ZN5Klass12search_superEv");
	char *b = demangle("main");
	char *c = demangle("_ZN5Klass13search_superEv");	/* length off by one */
	char *d = demangle("_ZN4core3fmt5write17h0123456789abcdefE");

	CHECK_STR(a, "Klass::search_super()", "C++ method");
	CHECK_STR(b, "main", "C name copied");
	CHECK_STR(c, "_ZN5Klass13search_superEv", "bad mangling copied");
	CHECK_STR(d, "core::fmt::write", "Rust legacy, hash dropped");
	free(a);
	free(b);
	free(c);
	free(d);
}

static void check_mapping(struct symbolizer *s, pid_t pid, uint64_t addr,
			  uint64_t start, uint64_t end, uint64_t pgoff,
			  const char *name)
{
	const struct mapping *m = symbolizer_find_mapping(s, pid, addr);

	CHECK(m != NULL, "mapping at 0x%" PRIx64, addr);
	if (!m)
		return;
	CHECK_EQ_U64(m->start, start, "start");
	CHECK_EQ_U64(m->end, end, "end");
	CHECK_EQ_U64(m->pgoff, pgoff, "pgoff");
	CHECK_STR(m->name, name, "name");
}

static void test_mapping_table(struct symbolizer *s)
{
	const struct mapping *m;
	struct func_info fi;
	struct data_symbol ds;
	uint8_t buf[8];

	symbolizer_add_mapping(s, FAKE_PID, 0x1000, 0x4000, 0, 5, "/nonexistent/a");
	symbolizer_add_mapping(s, FAKE_PID, 0x2000, 0x1000, 0x7000, 3, "/nonexistent/b");
	check_mapping(s, FAKE_PID, 0x1800, 0x1000, 0x2000, 0, "/nonexistent/a");
	check_mapping(s, FAKE_PID, 0x2800, 0x2000, 0x3000, 0x7000, "/nonexistent/b");
	check_mapping(s, FAKE_PID, 0x4000, 0x3000, 0x5000, 0x2000, "/nonexistent/a");
	CHECK(!symbolizer_find_mapping(s, FAKE_PID, 0x5000), "end is exclusive");
	CHECK(!symbolizer_find_mapping(s, FAKE_PID, 0xfff), "below the first");

	/* Covering two older mappings whole and a third in part. */
	symbolizer_add_mapping(s, FAKE_PID, 0x10000, 0x1000, 0, 3, "[heap]");
	symbolizer_add_mapping(s, FAKE_PID, 0x0, 0x4800, 0, 3, "//anon");
	check_mapping(s, FAKE_PID, 0x1000, 0x0, 0x4800, 0, "[anon]");
	check_mapping(s, FAKE_PID, 0x4900, 0x4800, 0x5000, 0x3800, "/nonexistent/a");
	check_mapping(s, FAKE_PID, 0x10000, 0x10000, 0x11000, 0, "[heap]");

	symbolizer_add_mapping(s, FAKE_PID, 0x20000, 0x1000, 0, 3, "[stack:42]");
	symbolizer_add_mapping(s, FAKE_PID, 0x21000, 0x1000, 0, 5, "[vdso]");
	symbolizer_add_mapping(s, FAKE_PID, 0x22000, 0x1000, 0, 3, "[anon:arena]");
	symbolizer_add_mapping(s, FAKE_PID, 0x23000, 0x1000, 0, 3, "");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x10010);
	CHECK(m && m->kind == MAPPING_HEAP, "[heap] is MAPPING_HEAP");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x20010);
	CHECK(m && m->kind == MAPPING_STACK, "[stack:tid] is MAPPING_STACK");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x21010);
	CHECK(m && m->kind == MAPPING_VDSO, "[vdso] is MAPPING_VDSO");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x22010);
	CHECK(m && m->kind == MAPPING_ANON, "[anon:...] is MAPPING_ANON");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x23010);
	CHECK(m && m->kind == MAPPING_ANON && !strcmp(m->name, "[anon]"), "no name is [anon]");
	m = symbolizer_find_mapping(s, FAKE_PID, 0x4900);
	CHECK(m && m->kind == MAPPING_FILE && m->prot == 5, "a path is MAPPING_FILE");

	/* A file that cannot be opened degrades to the mapping. */
	CHECK(!symbolizer_function(s, FAKE_PID, 0x4900, &fi), "no symbols in a missing file");
	CHECK(!fi.name && !fi.start && !fi.end, "func_info zeroed");
	CHECK(symbolizer_data_symbol(s, FAKE_PID, 0x4900, &ds), "data falls back to the mapping");
	CHECK_STR(ds.name, "/nonexistent/a", "mapping name");
	CHECK_EQ_U64(ds.start, 0x4800, "mapping start");
	CHECK_EQ_U64(ds.size, 0x800, "mapping size");
	CHECK(!ds.is_symbol && ds.kind == MAPPING_FILE, "not a symbol");
	CHECK(symbolizer_read(s, FAKE_PID, 0x4900, buf, sizeof(buf)) == 0, "nothing to read");

	/* Cached answers follow the table. */
	symbolizer_add_mapping(s, FAKE_PID, 0x30000, 0x4000, 0, 3, "[anon:x]");
	CHECK(symbolizer_data_symbol(s, FAKE_PID, 0x33000, &ds) && ds.size == 0x4000, "before");
	symbolizer_add_mapping(s, FAKE_PID, 0x30000, 0x4000, 0, 3, "[anon:x]");
	CHECK(symbolizer_data_symbol(s, FAKE_PID, 0x33000, &ds) && ds.size == 0x4000, "same again");
	symbolizer_add_mapping(s, FAKE_PID, 0x30000, 0x1000, 0, 3, "[heap]");
	CHECK(symbolizer_data_symbol(s, FAKE_PID, 0x33000, &ds), "after a split");
	CHECK_EQ_U64(ds.start, 0x31000, "split start, not the cached one");
	CHECK_EQ_U64(ds.size, 0x3000, "split size, not the cached one");

	symbolizer_fork(s, FAKE_PID, FAKE_CHILD);
	check_mapping(s, FAKE_CHILD, 0x4900, 0x4800, 0x5000, 0x3800, "/nonexistent/a");
	check_mapping(s, FAKE_CHILD, 0x10000, 0x10000, 0x11000, 0, "[heap]");
	symbolizer_exec(s, FAKE_PID);
	CHECK(!symbolizer_find_mapping(s, FAKE_PID, 0x4900), "exec forgets the table");
	CHECK(!symbolizer_data_symbol(s, FAKE_PID, 0x4900, &ds), "nothing after exec");
	check_mapping(s, FAKE_CHILD, 0x4900, 0x4800, 0x5000, 0x3800, "/nonexistent/a");
}

static void test_unknown_pid(struct symbolizer *s)
{
	struct func_info fi;
	struct source_loc sl;
	struct data_symbol ds;
	uint64_t bias = 1;
	uint8_t buf[4];

	CHECK(!symbolizer_find_mapping(s, UNKNOWN_PID, 0x1000), "no mapping");
	CHECK(!symbolizer_function(s, UNKNOWN_PID, 0x1000, &fi), "no function");
	CHECK(!symbolizer_source(s, UNKNOWN_PID, 0x1000, &sl), "no source");
	CHECK(!sl.file && !sl.function && !sl.module, "source_loc zeroed");
	CHECK(!symbolizer_data_symbol(s, UNKNOWN_PID, 0x1000, &ds), "no data");
	CHECK(!symbolizer_module(s, UNKNOWN_PID, 0x1000, &bias) && bias == 0, "no module");
	CHECK(symbolizer_read(s, UNKNOWN_PID, 0x1000, buf, sizeof(buf)) == 0, "no bytes");
	CHECK(symbolizer_load_proc_maps(s, UNKNOWN_PID) == -1, "no /proc entry");
	symbolizer_exec(s, UNKNOWN_PID);
}

/* Load biases as the dynamic loader knows them. */
struct biases {
	uint64_t exe, libc;
};

static int find_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	struct biases *b = data;

	if (!info->dlpi_name || !*info->dlpi_name) {
		if (!b->exe)
			b->exe = info->dlpi_addr;
	} else if (strstr(info->dlpi_name, "/" LIBC_SO)) {
		b->libc = info->dlpi_addr;
	}
	return 0;
}

static struct biases loader_biases(void)
{
	struct biases b = { 0, 0 };

	dl_iterate_phdr(find_bias, &b);
	return b;
}

static void test_self_code(struct symbolizer *s)
{
	char exe[4096] = "";
	pid_t self = getpid();
	uint64_t fn = (uint64_t)(uintptr_t)probe, pc;
	struct func_info fi, again;
	struct source_loc sl;
	uint8_t buf[16];
	int line, probe_line, calls[2];
	struct source_loc in[4];
	unsigned n;

	if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		die("readlink /proc/self/exe failed");
	pc = probe(&line);
	probe_line = line ? line : PROBE_DECL_LINE + 2;
	CHECK(symbolizer_function(s, self, fn, &fi), "probe() has a symbol");
	CHECK_STR(fi.name, "probe", "function name");
	CHECK_EQ_U64(fi.start, fn, "function start");
	CHECK(fi.end > fi.start && fi.end - fi.start < 4096, "function end 0x%" PRIx64, fi.end);
	CHECK(symbolizer_function(s, self, fn, &again) && again.name == fi.name,
	      "cached: the same string");

	CHECK(symbolizer_source(s, self, fn, &sl), "probe() has a source line");
	CHECK_STR(base(sl.file), "test_symbolizer.c", "file");
	/* The entry is the declaration's line, or with optimization the
	 * first statement's. */
	CHECK(sl.line >= PROBE_DECL_LINE && sl.line <= probe_line,
	      "entry line %d, declared at %d", sl.line, PROBE_DECL_LINE);
	CHECK_STR(sl.function, "probe", "function");
	CHECK(!sl.inlined_into, "not inlined");
	CHECK_STR(sl.module, base(exe), "module: the executable's basename");
	CHECK_EQ_U64(sl.module_off, fn - loader_biases().exe, "module offset");

	if (line) {
		CHECK(symbolizer_source(s, self, pc, &sl), "statement in probe()");
		CHECK_EQ_U64(sl.line, line, "statement line");
		CHECK_STR(sl.function, "probe", "statement function");
		CHECK(symbolizer_function(s, self, pc, &fi) && fi.start == fn,
		      "statement inside probe()");

		pc = inline_host(&line);
		CHECK(symbolizer_source(s, self, pc, &sl), "statement in inlined_leaf()");
		CHECK_EQ_U64(sl.line, line, "inlined statement line");
		CHECK_STR(sl.function, "inlined_leaf", "innermost function");
		CHECK_STR(sl.inlined_into, "inline_host", "inlined into");
		CHECK(symbolizer_function(s, self, pc, &fi), "inline host symbol");
		CHECK_STR(fi.name, "inline_host", "symbol of the inlined code");

		pc = inline_host2(&line, calls);
		n = symbolizer_inline_callers(s, self, pc, in, 4);
		CHECK_EQ_U64(n, 2, "two inlined calls hold the statement");
		CHECK(n == 2 && in[0].function && !strcmp(in[0].function, "inlined_middle") &&
		      in[0].line == calls[0] && in[0].file &&
		      !strcmp(base(in[0].file), "test_symbolizer.c"),
		      "first: the call in inlined_middle, line %d", calls[0]);
		CHECK(n == 2 && in[1].function && !strcmp(in[1].function, "inline_host2") &&
		      in[1].line == calls[1], "then the call in inline_host2, line %d", calls[1]);
		CHECK_EQ_U64(symbolizer_inline_callers(s, self, pc, in, 1), 1, "at most max");
		CHECK_EQ_U64(symbolizer_inline_callers(s, self, fn, in, 4), 0,
			     "probe() was not inlined");
	}

	CHECK_EQ_U64(symbolizer_read(s, self, fn, buf, sizeof(buf)), sizeof(buf), "read length");
	CHECK(!memcmp(buf, (void *)(uintptr_t)fn, sizeof(buf)), "read the function's bytes");

	{
		struct func_info whole;
		size_t len = 0;
		uint8_t *code = symbolizer_function_code(s, self, fn + 1, 4096, &whole, &len);

		CHECK(code && whole.start == fn && len == whole.end - whole.start &&
		      !memcmp(code, (void *)(uintptr_t)fn, len),
		      "function_code: probe() whole, from an address inside it");
		free(code);
		CHECK(!symbolizer_function_code(s, self, fn, whole.end - whole.start - 1, &whole,
						&len), "function_code: over max_bytes, none");
		CHECK(!symbolizer_function_code(s, UNKNOWN_PID, 0x1000, 4096, &whole, &len),
		      "function_code: no function, none");
	}
}

static void test_self_data(struct symbolizer *s)
{
	pid_t self = getpid();
	uint64_t bias = 0, counters = (uint64_t)(uintptr_t)test_counters;
	struct biases loader = loader_biases();
	char *heap = xstrdup("contended");
	long local = 0;
	struct data_symbol ds;
	uint8_t buf[9];

	/* The heap grew since main() read the maps. */
	CHECK(symbolizer_load_proc_maps(s, self) == 0, "reread /proc/self/maps");

	CHECK(symbolizer_data_symbol(s, self, counters + 16, &ds), "test_counters[2]");
	CHECK_STR(ds.name, "test_counters", "bss symbol");
	CHECK_EQ_U64(ds.start, counters, "bss symbol start");
	if (GLOBALS_PADDED)
		CHECK(ds.size >= sizeof(test_counters), "bss symbol size %" PRIu64, ds.size);
	else
		CHECK_EQ_U64(ds.size, sizeof(test_counters), "bss symbol size");
	CHECK(ds.is_symbol, "is a symbol");

	CHECK(symbolizer_data_symbol(s, self, (uintptr_t)&test_data[1], &ds), "test_data[1]");
	CHECK_STR(ds.name, "test_data", "data symbol");
	CHECK_EQ_U64(ds.start, (uintptr_t)test_data, "data symbol start");

	CHECK(symbolizer_module(s, self, counters, &bias) != NULL, "module of a global");
	CHECK_EQ_U64(bias, loader.exe, "executable's bias");
	CHECK(symbolizer_module(s, self, (uintptr_t)probe, &bias) != NULL, "module of code");
	CHECK_EQ_U64(bias, loader.exe, "same module, same bias");
	if (loader.libc && libc_getppid()) {
		CHECK(symbolizer_module(s, self, libc_getppid(), &bias) != NULL, "libc module");
		CHECK_EQ_U64(bias, loader.libc, "libc's bias");
	}

	CHECK(symbolizer_data_symbol(s, self, (uintptr_t)heap, &ds), "malloc'd memory");
	CHECK(!ds.is_symbol && (ds.kind == MAPPING_HEAP || ds.kind == MAPPING_ANON),
	      "heap kind %d", ds.kind);
	CHECK(ds.start <= (uintptr_t)heap && (uintptr_t)heap < ds.start + ds.size,
	      "inside its mapping");
	CHECK_EQ_U64(symbolizer_read(s, self, (uintptr_t)heap, buf, sizeof(buf)), sizeof(buf),
		     "read anonymous memory");
	CHECK(!memcmp(buf, "contended", sizeof(buf)), "through /proc/PID/mem");

	CHECK(symbolizer_data_symbol(s, self, (uintptr_t)&local, &ds), "a local");
	CHECK(!ds.is_symbol && ds.kind == MAPPING_STACK, "stack kind %d", ds.kind);
	free(heap);
}

/* Find the executable mapping of libc in /proc/PID/maps. */
static bool libc_text(pid_t pid, uint64_t *start)
{
	char path[64], line[512];
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp))
		found = strstr(line, " r-xp ") && strstr(line, "/libc.so") &&
			sscanf(line, "%" SCNx64, start) == 1;
	fclose(fp);
	return found;
}

/* Symbolize a child's libc after the child is dead and reaped. */
static void test_exited_child(struct symbolizer *s)
{
	const struct mapping *mine, *theirs;
	uint64_t fn = libc_getppid(), text = 0, addr;
	struct func_info my_fi, their_fi;
	struct source_loc sl;
	uint8_t a[16], b[16];
	int pipefd[2], i;
	char c;
	pid_t pid;

	mine = symbolizer_find_mapping(s, getpid(), fn);
	if (!fn || !mine || !strstr(mine->name, "/libc.so") ||
	    !symbolizer_function(s, getpid(), fn, &my_fi)) {
		CHECK(0, "getppid() is not in a libc with symbols here");
		return;
	}
	if (pipe2(pipefd, O_CLOEXEC))
		die("pipe2 failed");
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (pid == 0) {
		execlp("sleep", "sleep", "2", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	CHECK(read(pipefd[0], &c, 1) == 0, "child exec'd");	/* EOF: exec closed it */
	close(pipefd[0]);
	for (i = 0; i < 2000 && !libc_text(pid, &text); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	CHECK(text != 0, "child mapped libc");
	CHECK(symbolizer_load_proc_maps(s, pid) == 0, "child's maps");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(symbolizer_load_proc_maps(s, pid) == -1, "child is gone");

	theirs = symbolizer_find_mapping(s, pid, text);
	if (!text || !theirs)
		return;
	CHECK(theirs->name == mine->name, "same libc: %s", theirs->name);
	/* The same file offset as getppid in this process. */
	addr = theirs->start + (fn - mine->start + mine->pgoff) - theirs->pgoff;
	CHECK(symbolizer_function(s, pid, addr, &their_fi), "dead child's libc symbol");
	CHECK_STR(their_fi.name, my_fi.name, "same function");
	CHECK_EQ_U64(addr - their_fi.start, fn - my_fi.start, "same offset in it");
	CHECK(symbolizer_source(s, pid, addr, &sl), "dead child's source_loc");
	CHECK(sl.module && strstr(sl.module, "libc.so"), "module %s", sl.module);
	CHECK_EQ_U64(symbolizer_read(s, pid, addr, a, sizeof(a)), sizeof(a), "read dead child's code");
	memcpy(b, (void *)(uintptr_t)fn, sizeof(b));
	CHECK(!memcmp(a, b, sizeof(a)), "from the file");
}

static void test_jit_map(struct symbolizer *s)
{
	char path[64];
	struct func_info fi;
	struct source_loc sl;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", JIT_PID);
	fp = fopen(path, "w");
	if (!fp) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	fputs("7f0000001000 100 Interpreter\n"
	      "7f0000001100 80 LKlass;::search_super (a, b)\n"
	      "7f0000001000 40 stub replaced below\n", fp);
	fclose(fp);
	symbolizer_add_mapping(s, JIT_PID, 0x7f0000000000, 0x10000, 0, 7, "//anon");

	CHECK(symbolizer_function(s, JIT_PID, 0x7f0000001120, &fi), "JIT method");
	CHECK_STR(fi.name, "LKlass;::search_super (a, b)", "JIT name with spaces");
	CHECK_EQ_U64(fi.start, 0x7f0000001100, "JIT start");
	CHECK_EQ_U64(fi.end, 0x7f0000001180, "JIT end");
	CHECK(symbolizer_function(s, JIT_PID, 0x7f0000001010, &fi), "recompiled");
	CHECK_STR(fi.name, "stub replaced below", "the later line wins");
	CHECK(!symbolizer_function(s, JIT_PID, 0x7f0000001190, &fi), "past the end");
	CHECK(symbolizer_source(s, JIT_PID, 0x7f0000001120, &sl), "JIT source_loc");
	CHECK(!sl.file && !sl.line, "no source for JIT code");
	CHECK_STR(sl.function, "LKlass;::search_super (a, b)", "JIT function");
	CHECK_STR(sl.module, "[anon]", "JIT module");
	unlink(path);
}

/* issue 14 item 5: a map planted by another user, or a symlink named
 * like a map, gives no names.  The planter is "nobody" (chown needs root). */
static void test_jit_map_planted(struct symbolizer *s)
{
	char path[64], real[64];
	struct func_info fi;
	FILE *fp;

	if (geteuid() != 0) {
		printf("# not root: planted perf maps skipped\n");
		return;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", JIT_PID + 1);
	fp = fopen(path, "w");
	if (!fp) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	fputs("7f0000001000 100 planted_by_nobody\n", fp);
	fclose(fp);
	CHECK(chown(path, 65534, 65534) == 0, "chown %s", path);
	symbolizer_add_mapping(s, JIT_PID + 1, 0x7f0000000000, 0x10000, 0, 7, "//anon");
	CHECK(!symbolizer_function(s, JIT_PID + 1, 0x7f0000001010, &fi) ||
	      strcmp(fi.name, "planted_by_nobody"), "a map owned by nobody is ignored");
	/* the target's own user may write it */
	symbolizer_set_map_owner(s, 65534);
	fp = fopen(path, "a");
	if (fp) {
		fputs("7f0000002000 100 nobodys_own\n", fp);
		fclose(fp);
	}
	CHECK(symbolizer_function(s, JIT_PID + 1, 0x7f0000002010, &fi) &&
	      !strcmp(fi.name, "nobodys_own"), "the target user's map is read");
	symbolizer_set_map_owner(s, geteuid());
	unlink(path);

	/* a symlink: never followed, even to a root-owned file */
	snprintf(real, sizeof(real), "/tmp/perf-%d.real", JIT_PID + 2);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", JIT_PID + 2);
	fp = fopen(real, "w");
	if (fp) {
		fputs("7f0000001000 100 through_a_symlink\n", fp);
		fclose(fp);
	}
	unlink(path);
	CHECK(symlink(real, path) == 0, "symlink %s", path);
	symbolizer_add_mapping(s, JIT_PID + 2, 0x7f0000000000, 0x10000, 0, 7, "//anon");
	CHECK(!symbolizer_function(s, JIT_PID + 2, 0x7f0000001010, &fi) ||
	      strcmp(fi.name, "through_a_symlink"), "a symlinked map is not followed");
	unlink(path);
	unlink(real);
}

/* Versions: dlclose(a), dlopen(b) at the same place, then a again; the
 * same file mapped again, or anonymous memory over it, keeps its version;
 * an exec keeps the old program for what was sampled in it. */
static const char *name_at(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	const struct mapping *m = symbolizer_find_mapping(s, pid, addr);

	return m ? m->name : "(none)";
}

static void test_versions(void)
{
	struct symbolizer *s = symbolizer_new();
	const pid_t pid = 4242;
	const uint64_t at = 0x7f0000010000, in = at + 0x123;
	const uint64_t v1 = in | UINT64_C(1) << SYMBOLIZER_VERSION_SHIFT;
	const uint64_t v2 = in | UINT64_C(2) << SYMBOLIZER_VERSION_SHIFT;
	uint64_t a0, b1, a2;

	symbolizer_add_mapping(s, pid, at, 0x2000, 0, PROT_READ | PROT_EXEC, "/lib/liba.so");
	a0 = symbolizer_versioned(s, pid, in);
	CHECK_EQ_U64(a0, in, "the first file is version 0: not pinned");
	/* the loader maps a segment again, and .bss after it */
	symbolizer_add_mapping(s, pid, at, 0x1000, 0, PROT_READ, "/lib/liba.so");
	symbolizer_add_mapping(s, pid, at + 0x1000, 0x1000, 0, PROT_READ | PROT_WRITE, "");
	CHECK_EQ_U64(symbolizer_versioned(s, pid, in), in, "the same file again: still 0");
	CHECK_EQ_U64(symbolizer_versioned(s, pid, at + 0x1100), at + 0x1100, ".bss: still 0");

	symbolizer_add_mapping(s, pid, at, 0x2000, 0, PROT_READ | PROT_EXEC, "/lib/libb.so");
	b1 = symbolizer_versioned(s, pid, in);
	CHECK_EQ_U64(b1, v1, "another file over it: version 1");
	CHECK_STR(name_at(s, pid, in), "/lib/libb.so", "while sampling, unpinned is live");

	/* gone from /proc (dlclose) before the next one comes */
	symbolizer_exec(s, pid);
	symbolizer_add_mapping(s, pid, at, 0x2000, 0, PROT_READ | PROT_EXEC, "/lib/liba.so");
	a2 = symbolizer_versioned(s, pid, in);
	CHECK_EQ_U64(a2, v2, "a again, after b: version 2 (b was seen there last)");

	symbolizer_sampling_done(s);
	CHECK_STR(name_at(s, pid, a0), "/lib/liba.so", "version 0: a");
	CHECK_STR(name_at(s, pid, b1), "/lib/libb.so", "version 1: b");
	CHECK_STR(name_at(s, pid, a2), "/lib/liba.so", "version 2: a");
	CHECK_STR(name_at(s, pid, in | UINT64_C(9) << SYMBOLIZER_VERSION_SHIFT), "/lib/liba.so",
		  "a version never mapped there: the live one");
	CHECK_EQ_U64(symbolizer_plain(b1), in, "plain drops the pin");
	symbolizer_free(s);
}

/* The language of a binary without debug info: fixture_lang built as
 * rustc and the Go linker sign theirs, and a plain C fixture. */
static void test_language(struct symbolizer *s)
{
	static const struct { const char *name; enum code_language want; } cases[] = {
		{ "fixture_lang_rust", CODE_LANG_RUST },
		{ "fixture_lang_rust_old", CODE_LANG_RUST },
		{ "fixture_lang_go", CODE_LANG_GO },
		{ "fixture_globals", CODE_LANG_UNKNOWN },
	};
	const char *top = getenv("top_builddir");

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		char *path = xasprintf("%s/tests/%s", top ? top : ".", cases[i].name);
		pid_t pid = (pid_t)(LANG_PID + i);

		CHECK(access(path, R_OK) == 0, "%s is built (a check program)", path);
		symbolizer_add_mapping(s, pid, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC, path);
		CHECK_EQ_U64(symbolizer_language(s, pid, 0x400010), cases[i].want, cases[i].name);
		free(path);
	}
	CHECK_EQ_U64(symbolizer_language(s, LANG_PID + 99, 0x400010), CODE_LANG_UNKNOWN,
		     "no mapping: unknown");
}

int main(void)
{
	struct symbolizer *s = symbolizer_new();

	test_versions();

	test_demangle();
	test_mapping_table(s);
	test_unknown_pid(s);
	test_language(s);
	if (symbolizer_load_proc_maps(s, getpid()) != 0)
		die("cannot read /proc/self/maps");
	test_self_code(s);
	test_self_data(s);
	test_exited_child(s);
	test_jit_map(s);
	test_jit_map_planted(s);
	symbolizer_free(s);
	return test_done();
}
