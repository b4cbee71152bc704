/* test_hotspot.c - hotspot.h and jvm_attach.h on a live JVM.
 *
 * A small Java program (written and compiled into a temp dir) calls one
 * method, hotspotProbeWork, until the JIT has compiled it, prints "ready"
 * and sleeps.  On it:
 *  - the vmStructs tables give Klass::_secondary_super_cache, _secondary_supers
 *    and _name, and on JDK 17 (the tables' own _vm_major_version) at 32,
 *    40 and 24, as measured (PLATFORM-NOTES.md); reverse lookups and the
 *    sorted layout of InstanceKlass agree;
 *  - the Klass of java.lang.Object (vmClasses' static table) is named
 *    "java/lang/Object", its mirror's class is java.lang.Class through the
 *    compressed class pointer;
 *  - HotspotProbe.PAIR, found through HotspotProbe's mirror, is an object
 *    whose Klass is named HotspotProbe$Pair; its fields a and b, and those of
 *    HotspotProbe$Rich (generic and ConstantValue records), are named from
 *    the field info in the format the tables list (_fields on JDK 17,
 *    _fieldinfo_stream on 21+);
 *  - jvm_write_perf_map writes /tmp/perf-PID.map naming hotspotProbeWork,
 *    and leaves no .attach_pid file behind; VM.version answers "JDK", an
 *    unknown command fails with the JVM's message.
 * A JVM run with -Xrs listens from the start and is attached unsignalled;
 * with attach disabled too, SIGQUIT would kill it: refused unsignalled.
 * One with attach disabled times out, stays alive, loses the attach file.
 * As root, the JVM runs as uid 65534 (contend as root, the JVM as a service
 * user), and uid 65533 must be refused by both, with the ptrace advice.
 * Negative: this test's own pid is no JVM for hotspot_open nor for
 * jvm_attach_jcmd, which must not signal it; a reaped pid is "gone".
 * Skipped (77) without java and javac; $JAVA_HOME picks another JDK.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "common/procfs.h"
#include "common/util.h"
#include "symbolize/hotspot.h"
#include "symbolize/jvm_attach.h"

static const char probe_java[] =
	"public class HotspotProbe {\n"
	"	static final class Pair {\n"
	"		volatile long a, b;\n"
	"	}\n"
	"	static final Pair PAIR = new Pair();\n"
	"	static final class Rich<T> {\n"
	"		static final long K = 42L;\n"
	"		java.util.List<String> names;\n"
	"		T item;\n"
	"		int count;\n"
	"	}\n"
	"	static final Rich<String> RICH = new Rich<>();\n"
	"	static long hotspotProbeWork(long n) {\n"
	"		long s = 0;\n"
	"		for (long i = 0; i < n; i++)\n"
	"			s += i ^ (s >>> 3);\n"
	"		return s;\n"
	"	}\n"
	"	public static void main(String[] args) throws Exception {\n"
	"		long t = 0;\n"
	"		for (int i = 0; i < 100000; i++)\n"
	"			t += hotspotProbeWork(1000);\n"
	"		System.out.println(\"ready \" + t);\n"
	"		System.out.flush();\n"
	"		Thread.sleep(120000);\n"
	"	}\n"
	"}\n";

/* As root the JVM runs as another user, as in production: the attach
 * must work across users; a third user must be refused. */
#define JVM_UID 65534
#define STRANGER_UID 65533

static char tmpdir[] = "/tmp/test_hotspot.XXXXXX";
static char java[4096], javac[4096];
static pid_t jvm_pid;
static bool jvm_as_other_user;

/* Can uid run java on the class in tmpdir?  (A JDK under /root is not.) */
static bool can_run_as(uid_t uid)
{
	int st = -1;
	pid_t child = fork();

	if (child == 0) {
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(1);
		_exit(access(java, X_OK) == 0 && access(tmpdir, R_OK | X_OK) == 0 ? 0 : 1);
	}
	waitpid(child, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* java and javac from $JAVA_HOME/bin, else from $PATH. */
static bool find_jdk(void)
{
	const char *home = getenv("JAVA_HOME"), *path = getenv("PATH");
	char *dirs, *save = NULL;
	bool found = false;

	if (home && *home) {
		snprintf(java, sizeof(java), "%s/bin/java", home);
		snprintf(javac, sizeof(javac), "%s/bin/javac", home);
		return access(java, X_OK) == 0 && access(javac, X_OK) == 0;
	}
	dirs = xstrdup(path ? path : "");
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		snprintf(java, sizeof(java), "%s/java", d);
		snprintf(javac, sizeof(javac), "%s/javac", d);
		found = access(java, X_OK) == 0 && access(javac, X_OK) == 0;
	}
	free(dirs);
	return found;
}

/* Writes HotspotProbe.java into tmpdir and compiles it there. */
static bool compile_probe(void)
{
	char *src = xasprintf("%s/HotspotProbe.java", tmpdir), *cmd;
	FILE *f = fopen(src, "w");
	int st;

	if (!f || fputs(probe_java, f) == EOF || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", src);
		free(src);
		return false;
	}
	cmd = xasprintf("'%s' -d '%s' '%s'", javac, tmpdir, src);
	st = system(cmd);
	free(cmd);
	free(src);
	if (st != 0)
		fprintf(stderr, "javac failed\n");
	if (chmod(tmpdir, 0755))
		return false;
	jvm_as_other_user = geteuid() == 0 && can_run_as(JVM_UID);
	if (geteuid() == 0 && !jvm_as_other_user)
		printf("note: uid %d cannot run %s: the JVM runs as root\n", JVM_UID, java);
	return st == 0;
}

/* Starts HotspotProbe in tmpdir (its cwd), with options opt1 and opt2
 * (NULL: none); waits for "ready".  The JVM's pid, or -1. */
static pid_t start_jvm(const char *opt1, const char *opt2)
{
	char line[256];
	int pipefd[2];
	size_t got = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		if (jvm_as_other_user &&
		    (setgroups(0, NULL) || setgid(JVM_UID) || setuid(JVM_UID)))
			_exit(126);
		if (chdir(tmpdir) == 0)
			execl(java, java, opt1 ? opt1 : "-Xmx64m", opt2 ? opt2 : "-Xmx64m",
			      "-XX:TieredStopAtLevel=1", "-cp", tmpdir, "HotspotProbe", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* warm-up on a shared machine: allow a minute */
	while (got < sizeof(line) - 1) {
		struct pollfd pfd = { pipefd[0], POLLIN, 0 };
		ssize_t n;

		if (poll(&pfd, 1, 60000) <= 0)
			break;
		n = read(pipefd[0], line + got, sizeof(line) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		line[got] = '\0';
		if (strchr(line, '\n'))
			break;
	}
	close(pipefd[0]);
	line[got] = '\0';
	if (strncmp(line, "ready", 5)) {
		fprintf(stderr, "the JVM did not get ready: \"%s\"\n", line);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void check_tables(struct hotspot *h)
{
	const struct hotspot_field *f, **lay;
	uint64_t major = 0, size = 0, lock_mask = 0;
	int64_t cache, supers, name;
	int32_t oop_size;
	size_t n, pos_cache = 0;
	bool sorted = true;

	f = hotspot_fields(h, &n);
	printf("%zu vmStructs entries\n", n);
	CHECK(n > 100 && f, "too few entries: %zu", n);

	cache = hotspot_field_offset(h, "Klass", "_secondary_super_cache");
	supers = hotspot_field_offset(h, "Klass", "_secondary_supers");
	name = hotspot_field_offset(h, "Klass", "_name");
	f = hotspot_field(h, "Klass", "_secondary_super_cache");
	CHECK(f && !f->is_static && (int64_t)f->offset == cache, "field and offset disagree");
	CHECK(f && f->size == 8 && f->type_string && !strcmp(f->type_string, "Klass*"),
	      "_secondary_super_cache is a Klass* of 8 bytes");
	CHECK(hotspot_static_value(h, "Abstract_VM_Version", "_vm_major_version", &major),
	      "no _vm_major_version");
	printf("JDK %llu: Klass::_name %lld, _secondary_super_cache %lld, _secondary_supers %lld\n",
	       (unsigned long long)major, (long long)name, (long long)cache, (long long)supers);
	CHECK(cache > 0 && supers > 0 && name > 0, "Klass fields missing");
	if (major == 17) {
		CHECK_EQ_U64(cache, 32, "JDK 17 Klass::_secondary_super_cache");
		CHECK_EQ_U64(supers, 40, "JDK 17 Klass::_secondary_supers");
		CHECK_EQ_U64(name, 24, "JDK 17 Klass::_name");
		CHECK_EQ_U64(hotspot_field_offset(h, "Symbol", "_length"), 4, "JDK 17 Symbol::_length");
		CHECK_EQ_U64(hotspot_field_offset(h, "Symbol", "_body"), 6, "JDK 17 Symbol::_body");
	}
	/* inherited: InstanceKlass finds Klass's field */
	CHECK_EQ_U64(hotspot_field_offset(h, "InstanceKlass", "_secondary_super_cache"), cache,
		     "InstanceKlass inherits _secondary_super_cache");
	CHECK(hotspot_field_offset(h, "Klass", "_no_such_field") == -1, "unknown field found");

	f = hotspot_field_at(h, "Klass", (uint64_t)cache);
	CHECK(f && !strcmp(f->name, "_secondary_super_cache"), "Klass+%lld is %s", (long long)cache,
	      f ? f->name : "nothing");
	f = hotspot_field_at(h, "Klass", (uint64_t)cache + 4);
	CHECK(f && !strcmp(f->name, "_secondary_super_cache"), "Klass+%lld+4 is %s",
	      (long long)cache, f ? f->name : "nothing");
	f = hotspot_field_at(h, "Klass", (uint64_t)supers + 16);
	CHECK(f && !strcmp(f->name, "_primary_supers[0]"), "Klass+%lld+16 is %s",
	      (long long)supers, f ? f->name : "nothing");
	CHECK(hotspot_is_libjvm_path("/usr/lib/jvm/x/lib/server/libjvm.so (deleted)") &&
	      hotspot_is_libjvm_path("/a/libjvm.so") && !hotspot_is_libjvm_path("/a/libjvm.so.1") &&
	      !hotspot_is_libjvm_path("/a/xlibjvm.so") && !hotspot_is_libjvm_path("libjvm.so"),
	      "libjvm path matching");
	f = hotspot_field_at(h, "InstanceKlass", (uint64_t)supers);
	CHECK(f && !strcmp(f->name, "_secondary_supers"), "InstanceKlass+%lld is %s",
	      (long long)supers, f ? f->name : "nothing");
	CHECK(hotspot_field_at(h, "NoSuchType", 0) == NULL, "field in an unknown type");

	CHECK(hotspot_type_size(h, "Klass", &size) && size > (uint64_t)supers,
	      "sizeof(Klass) %llu", (unsigned long long)size);
	CHECK_STR(hotspot_type_super(h, "InstanceKlass"), "Klass", "InstanceKlass's superclass");
	CHECK(hotspot_int_constant(h, "oopSize", &oop_size) && oop_size == 8, "oopSize %d", oop_size);
	/* the mark word's two lock bits, the same in every HotSpot */
	CHECK(hotspot_long_constant(h, "markWord::lock_mask", &lock_mask) && lock_mask == 3,
	      "markWord::lock_mask %llu", (unsigned long long)lock_mask);
	CHECK(!hotspot_long_constant(h, "no_such_constant", &lock_mask), "unknown constant found");

	lay = hotspot_layout(h, "InstanceKlass", &n);
	for (size_t i = 0; i < n; i++) {
		if (i && lay[i]->offset < lay[i - 1]->offset)
			sorted = false;
		if (!strcmp(lay[i]->name, "_secondary_super_cache"))
			pos_cache = i;
	}
	CHECK(n > 20 && sorted, "InstanceKlass layout: %zu fields, sorted %d", n, sorted);
	CHECK(pos_cache + 1 < n && !strcmp(lay[pos_cache + 1]->name, "_secondary_supers"),
	      "_secondary_supers does not follow _secondary_super_cache");
	printf("InstanceKlass layout around the cache:");
	for (size_t i = pos_cache > 2 ? pos_cache - 2 : 0; i < n && i < pos_cache + 3; i++)
		printf(" %s@%llu(%llu)", lay[i]->name, (unsigned long long)lay[i]->offset,
		       (unsigned long long)lay[i]->size);
	printf("\n");
	free(lay);
}

/* The object of class want that one of mirror's fields points to (the
 * static fields live in the class's mirror); 0 if none. */
static uint64_t static_object_of(struct hotspot *h, uint64_t mirror, uint64_t want)
{
	uint64_t size_off = 0, words = 0, obj;

	if (!hotspot_static_value(h, "java_lang_Class", "_oop_size_offset", &size_off) ||
	    !hotspot_read(h, mirror + size_off, &words, 4) || words > 4096)
		return 0;
	/* narrow oops are 4-byte aligned: the step covers both encodings */
	for (uint64_t off = 8; off + 4 <= words * 8; off += 4)
		if (hotspot_read_oop(h, mirror + off, &obj) && hotspot_object_klass(h, obj) == want)
			return obj;
	return 0;
}

/* Pair's two volatile longs by name and offset, and the object found
 * from an address inside field b; Rich's fields, whose records carry
 * optional items (generic signatures; K a ConstantValue, static: not
 * listed), in whichever format the tables describe. */
static void check_java_fields(const struct hotspot *h, uint64_t pair, uint64_t pair_k,
			      uint64_t rich_k)
{
	struct hotspot_java_field *f;
	uint64_t k = 0, start;
	size_t n;

	int32_t slots;

	f = hotspot_java_fields(h, pair_k, &n);
	if (!hotspot_int_constant(h, "FieldInfo::field_slots", &slots) &&
	    !hotspot_field(h, "InstanceKlass", "_fieldinfo_stream")) {
		/* neither format listed: no names, never wrong ones */
		CHECK(!f && n == 0, "fields from tables without field info: %zu", n);
		printf("no field info in the tables: Java fields not named (as documented)\n");
		free(f);
		return;
	}
	printf("field info: %s\n", hotspot_field(h, "InstanceKlass", "_fieldinfo_stream") ?
	       "InstanceKlass::_fieldinfo_stream" : "InstanceKlass::_fields");
	CHECK(f && n == 2, "Pair's fields: %zu, want 2", n);
	if (f && n == 2) {
		CHECK(!strcmp(f[0].name, "a") && !strcmp(f[1].name, "b") &&
		      !strcmp(f[0].signature, "J") && f[0].size == 8 &&
		      f[1].offset == f[0].offset + 8 && f[0].offset >= 12,
		      "Pair's fields: %s %s +%llu, %s +%llu", f[0].signature, f[0].name,
		      (unsigned long long)f[0].offset, f[1].name, (unsigned long long)f[1].offset);
		start = hotspot_object_containing(h, pair + f[1].offset + 3, &k);
		CHECK(start == pair && k == pair_k,
		      "the object holding Pair.b: 0x%llx (class 0x%llx), want 0x%llx",
		      (unsigned long long)start, (unsigned long long)k, (unsigned long long)pair);
		printf("HotspotProbe$Pair fields: a +%llu, b +%llu\n",
		       (unsigned long long)f[0].offset, (unsigned long long)f[1].offset);
	}
	free(f);

	f = rich_k ? hotspot_java_fields(h, rich_k, &n) : NULL;
	CHECK(f && n == 3, "Rich's fields: %zu, want 3 (names, item, count)", f ? n : 0);
	if (f && n == 3) {
		const char *want[][2] = {
			{ "names", "Ljava/util/List;" }, { "item", "Ljava/lang/Object;" },
			{ "count", "I" },
		};
		unsigned found = 0;

		for (size_t i = 0; i < n; i++)
			for (size_t w = 0; w < 3; w++)
				found += !strcmp(f[i].name, want[w][0]) &&
					 !strcmp(f[i].signature, want[w][1]) &&
					 f[i].offset >= 8 && f[i].klass == rich_k;
		CHECK(found == 3, "Rich's fields: %s %s +%llu, %s %s +%llu, %s %s +%llu",
		      f[0].signature, f[0].name, (unsigned long long)f[0].offset,
		      f[1].signature, f[1].name, (unsigned long long)f[1].offset,
		      f[2].signature, f[2].name, (unsigned long long)f[2].offset);
		printf("HotspotProbe$Rich fields: %s +%llu, %s +%llu, %s +%llu\n",
		       f[0].name, (unsigned long long)f[0].offset, f[1].name,
		       (unsigned long long)f[1].offset, f[2].name, (unsigned long long)f[2].offset);
	}
	free(f);
}

/* What a report will do with a sampled address: name the Klass and field
 * it lies in, JDK-8180450's line being the cache at Klass+32. */
static void check_describe(struct hotspot *h, uint64_t pair_k, uint64_t object_k, uint64_t pair)
{
	int64_t cache = hotspot_field_offset(h, "Klass", "_secondary_super_cache");
	struct strbuf sb = STRBUF_INIT;

	CHECK_EQ_U64(hotspot_klass_containing(h, pair_k + (uint64_t)cache + 3), pair_k,
		     "Klass containing Pair's cache + 3");
	CHECK_EQ_U64(hotspot_klass_containing(h, pair_k), pair_k, "Klass containing its start");
	CHECK_EQ_U64(hotspot_klass_containing(h, object_k + 8), object_k, "Object's Klass + 8");
	CHECK_EQ_U64(hotspot_klass_containing(h, pair), 0, "a heap object taken for a Klass");
	CHECK(hotspot_describe(h, pair_k + (uint64_t)cache, &sb), "no description");
	printf("describe(Pair's Klass + %lld): %s\n", (long long)cache, strbuf_str(&sb));
	CHECK(strstr(strbuf_str(&sb), "HotspotProbe$Pair+") &&
	      strstr(strbuf_str(&sb), "Klass::_secondary_super_cache"), "description: %s",
	      strbuf_str(&sb));
	strbuf_reset(&sb);
	CHECK(!hotspot_describe(h, pair + 16, &sb) && !sb.len, "heap object described: %s",
	      strbuf_str(&sb));
	strbuf_release(&sb);
}

static void check_klasses(struct hotspot *h)
{
	uint64_t object_k = hotspot_vm_class(h, "Object_klass");
	uint64_t class_k = hotspot_vm_class(h, "Class_klass");
	uint64_t probe_k, pair_k, mirror, pair;
	bool compressed = false;
	char name[256];

	CHECK(object_k && class_k, "vmClasses: Object 0x%llx, Class 0x%llx",
	      (unsigned long long)object_k, (unsigned long long)class_k);
	CHECK(hotspot_klass_name(h, object_k, name, sizeof(name)), "no name at 0x%llx",
	      (unsigned long long)object_k);
	CHECK_STR(name, "java/lang/Object", "Object_klass's name");
	printf("Klass 0x%llx is %s\n", (unsigned long long)object_k, name);
	CHECK(hotspot_klass_name(h, class_k, name, sizeof(name)), "no name for Class_klass");
	CHECK_STR(name, "java/lang/Class", "Class_klass's name");
	CHECK(!hotspot_klass_name(h, object_k, name, 8), "a name longer than the buffer fit");
	CHECK(!hotspot_klass_name(h, 0x1000, name, sizeof(name)), "a name at 0x1000");
	CHECK(!hotspot_klass_name(h, 1ULL << 60, name, sizeof(name)), "a name at 1<<60");

	/* java.lang.Object's mirror is a java.lang.Class object on the heap */
	CHECK(hotspot_flag_bool(h, "UseCompressedClassPointers", &compressed),
	      "no UseCompressedClassPointers flag");
	printf("UseCompressedClassPointers %s\n", compressed ? "true" : "false");
	mirror = hotspot_klass_mirror(h, object_k);
	CHECK(mirror, "Object's mirror unreadable");
	CHECK_EQ_U64(hotspot_object_klass(h, mirror), class_k, "class of Object's mirror");
	CHECK_EQ_U64(hotspot_object_klass(h, object_k), 0, "a Klass taken for an object");

	/* a live object of the probe: HotspotProbe.PAIR, through the mirror */
	probe_k = hotspot_find_klass(h, "HotspotProbe");
	pair_k = hotspot_find_klass(h, "HotspotProbe$Pair");
	CHECK(probe_k && pair_k, "classes not found: HotspotProbe 0x%llx, Pair 0x%llx",
	      (unsigned long long)probe_k, (unsigned long long)pair_k);
	CHECK(hotspot_find_klass(h, "No/Such/Class") == 0, "found No/Such/Class");
	pair = probe_k && pair_k ? static_object_of(h, hotspot_klass_mirror(h, probe_k), pair_k) : 0;
	CHECK(pair, "HotspotProbe.PAIR not found in HotspotProbe's mirror");
	CHECK(hotspot_klass_name(h, hotspot_object_klass(h, pair), name, sizeof(name)) &&
	      !strcmp(name, "HotspotProbe$Pair"), "PAIR's class: %s", name);
	printf("HotspotProbe.PAIR at 0x%llx is a %s (Klass 0x%llx)\n", (unsigned long long)pair,
	       name, (unsigned long long)pair_k);
	check_describe(h, pair_k, object_k, pair);
	if (pair)
		check_java_fields(h, pair, pair_k, hotspot_find_klass(h, "HotspotProbe$Rich"));
}

/* Counts SIGQUITs delivered to this test. */
static volatile sig_atomic_t quits;
static void on_quit(int sig)
{
	quits++;
}

static void check_not_a_jvm(void)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct sigaction sa = { .sa_handler = on_quit };
	struct hotspot *h;
	pid_t child;

	h = hotspot_open(getpid(), &err);
	CHECK(!h, "the test opened as a JVM");
	CHECK(strstr(strbuf_str(&err), "not a HotSpot JVM"), "message: %s", strbuf_str(&err));
	printf("hotspot_open(self): %s\n", strbuf_str(&err));
	strbuf_reset(&err);

	sigaction(SIGQUIT, &sa, NULL);
	CHECK(jvm_attach_jcmd(getpid(), "Compiler.perfmap", 1000, &out, &err) == -1,
	      "attached to the test");
	CHECK(strstr(strbuf_str(&err), "not a HotSpot JVM"), "message: %s", strbuf_str(&err));
	printf("jvm_attach_jcmd(self): %s\n", strbuf_str(&err));
	usleep(50000);
	CHECK(quits == 0, "the test got %d SIGQUIT", (int)quits);
	strbuf_reset(&err);

	child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	h = hotspot_open(child, &err);
	CHECK(!h && strstr(strbuf_str(&err), "gone"), "reaped pid: %s", strbuf_str(&err));
	printf("hotspot_open(reaped): %s\n", strbuf_str(&err));
	strbuf_reset(&err);
	CHECK(jvm_attach_jcmd(child, "Compiler.perfmap", 1000, NULL, &err) == -1 &&
	      strstr(strbuf_str(&err), "gone"), "attach to reaped pid: %s", strbuf_str(&err));
	strbuf_release(&err);
	strbuf_release(&out);
}

/* As a user who is neither root nor the JVM's: both refuse, saying why. */
static void check_stranger(pid_t pid)
{
	int st = -1;
	pid_t child;

	if (geteuid() != 0)
		return;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		struct strbuf err = STRBUF_INIT;
		struct hotspot *h;
		int bad = 0;

		if (setgroups(0, NULL) || setgid(STRANGER_UID) || setuid(STRANGER_UID))
			_exit(2);
		h = hotspot_open(pid, &err);
		printf("hotspot_open(as uid %d): %s\n", STRANGER_UID, strbuf_str(&err));
		bad |= h || !strstr(strbuf_str(&err), "permission denied") ||
			!strstr(strbuf_str(&err), "CAP_SYS_PTRACE");
		strbuf_reset(&err);
		bad |= jvm_attach_jcmd(pid, "VM.version", 1000, NULL, &err) != -1;
		printf("jvm_attach_jcmd(as uid %d): %s\n", STRANGER_UID, strbuf_str(&err));
		bad |= !strstr(strbuf_str(&err), "CAP_SYS_PTRACE");
		fflush(stdout);
		_exit(bad);
	}
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a stranger was not refused clearly (%d)", st);
}

/* Does file contain s? */
static bool file_contains(const char *path, const char *s)
{
	char buf[65536];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(buf, sizeof(buf), f))
		found = strstr(buf, s) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void check_perf_map(pid_t pid)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	char map[64], attach_file[4096];
	char *path = NULL;
	int r;

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	snprintf(attach_file, sizeof(attach_file), "%s/.attach_pid%d", tmpdir, (int)pid);
	unlink(map);
	r = jvm_write_perf_map(pid, JVM_ATTACH_TIMEOUT_MS, &path, &err);
	CHECK(r == 0, "jvm_write_perf_map: %s", strbuf_str(&err));
	CHECK(access(map, R_OK) == 0, "%s not written", map);
	CHECK(file_contains(map, "hotspotProbeWork"), "%s does not name hotspotProbeWork", map);
	CHECK(access(attach_file, F_OK) < 0, "%s left behind", attach_file);
	printf("perf map %s (%s): hotspotProbeWork %s\n", map, path ? path : "-",
	       file_contains(map, "hotspotProbeWork") ? "found" : "MISSING");
	free(path);
	strbuf_reset(&err);

	/* the listener is up now: a second command needs no signal */
	r = jvm_attach_jcmd(pid, "VM.version", JVM_ATTACH_TIMEOUT_MS, &out, &err);
	CHECK(r == 0 && strstr(strbuf_str(&out), "JDK"), "VM.version: %s%s",
	      strbuf_str(&err), strbuf_str(&out));
	strbuf_reset(&err);
	r = jvm_attach_jcmd(pid, "No.such.command", JVM_ATTACH_TIMEOUT_MS, &out, &err);
	CHECK(r == -1 && err.len, "an unknown command succeeded");
	printf("unknown command: %s\n", strbuf_str(&err));
	CHECK(kill(pid, 0) == 0, "the JVM died");
	unlink(map);
	strbuf_release(&err);
	strbuf_release(&out);
}

/* Stops a JVM: SIGTERM lets it remove its attach socket; SIGKILL after
 * 5 s, and then the socket is ours to remove. */
static void stop_jvm(pid_t pid)
{
	char sock[64];
	int i;

	kill(pid, SIGTERM);
	for (i = 0; i < 100 && waitpid(pid, NULL, WNOHANG) == 0; i++)
		usleep(50000);
	if (i == 100) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	snprintf(sock, sizeof(sock), "/tmp/.java_pid%d", (int)pid);
	unlink(sock);
}

static void cleanup(void)
{
	char *cmd;

	if (jvm_pid > 0)
		stop_jvm(jvm_pid);
	jvm_pid = 0;
	cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
}

/* Is pid, our child, still running (not exited, not killed)? */
static bool child_running(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/* JVMs that cannot be attached: refused without a signal, or timed out
 * cleanly; either way the JVM runs on and no .attach_pid file is left. */
static void check_unattachable(void)
{
	struct strbuf err = STRBUF_INIT;
	char attach_file[4096];
	int64_t t0;
	pid_t pid;

	/* -Xrs: HotSpot leaves SIGQUIT to its default action, which kills,
	 * and starts its listener at once: the attach needs no signal */
	pid = start_jvm("-Xrs", NULL);
	CHECK(pid > 0, "cannot start a JVM with -Xrs");
	if (pid > 0) {
		CHECK(jvm_attach_jcmd(pid, "VM.version", 2000, NULL, &err) == 0,
		      "-Xrs: %s", strbuf_str(&err));
		usleep(100000);
		CHECK(child_running(pid), "the -Xrs JVM died");
		stop_jvm(pid);
		strbuf_reset(&err);
	}
	/* -Xrs without a listener: SIGQUIT would kill it, so no attach */
	pid = start_jvm("-Xrs", "-XX:+DisableAttachMechanism");
	CHECK(pid > 0, "cannot start a JVM with -Xrs -XX:+DisableAttachMechanism");
	if (pid > 0) {
		CHECK(jvm_attach_jcmd(pid, "VM.version", 2000, NULL, &err) == -1 &&
		      strstr(strbuf_str(&err), "does not handle SIGQUIT"), "-Xrs: %s",
		      strbuf_str(&err));
		printf("-Xrs, attach disabled: %s\n", strbuf_str(&err));
		usleep(100000);
		CHECK(child_running(pid), "the -Xrs JVM died");
		stop_jvm(pid);
		strbuf_reset(&err);
	}

	/* attach disabled: the JVM would never listen, and its flag table says
	 * so: no signal (which would print a thread dump) and no wait */
	pid = start_jvm("-XX:+DisableAttachMechanism", NULL);
	CHECK(pid > 0, "cannot start a JVM with -XX:+DisableAttachMechanism");
	if (pid > 0) {
		snprintf(attach_file, sizeof(attach_file), "%s/.attach_pid%d", tmpdir, (int)pid);
		t0 = (int64_t)time(NULL);
		CHECK(jvm_attach_jcmd(pid, "VM.version", 1500, NULL, &err) == -1 &&
		      strstr(strbuf_str(&err), "-XX:+DisableAttachMechanism; not signalled"),
		      "attach disabled: %s", strbuf_str(&err));
		printf("attach disabled: %s\n", strbuf_str(&err));
		CHECK((int64_t)time(NULL) - t0 <= 1, "refusing took %lld s, not the flag's read",
		      (long long)((int64_t)time(NULL) - t0));
		CHECK(access(attach_file, F_OK) < 0, "%s left behind", attach_file);
		usleep(100000);
		CHECK(child_running(pid), "the JVM with attach disabled died");
		stop_jvm(pid);
	}
	strbuf_release(&err);
}

int main(void)
{
	struct strbuf err = STRBUF_INIT;
	struct hotspot *h;

	check_not_a_jvm();
	if (!find_jdk())
		return test_skip("java or javac not found");
	if (!mkdtemp(tmpdir))
		return test_skip("no temp dir");
	if (!compile_probe()) {
		CHECK(false, "cannot compile the probe with %s", javac);
		cleanup();
		return test_done();
	}
	jvm_pid = start_jvm(NULL, NULL);
	CHECK(jvm_pid > 0, "cannot start the JVM (%s)", java);
	if (jvm_pid <= 0) {
		cleanup();
		return test_done();
	}
	printf("JVM %d runs as uid %d\n", (int)jvm_pid, (int)process_uid(jvm_pid));
	if (jvm_as_other_user)
		CHECK(process_uid(jvm_pid) == JVM_UID, "the JVM runs as uid %d",
		      (int)process_uid(jvm_pid));
	h = hotspot_open(jvm_pid, &err);
	CHECK(h, "hotspot_open: %s", strbuf_str(&err));
	if (h) {
		check_tables(h);
		check_klasses(h);
		hotspot_close(h);
	}
	check_perf_map(jvm_pid);
	check_stranger(jvm_pid);
	stop_jvm(jvm_pid);
	jvm_pid = 0;
	check_unattachable();
	cleanup();
	strbuf_release(&err);
	return test_done();
}
