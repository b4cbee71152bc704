/* klass_secondary_supers - HotSpot's secondary super cache (JDK-8180450), in C.
 *
 * To check "is class S a subtype of interface I", HotSpot looks at S's
 * one-entry cache of the last interface it matched; on a miss it scans S's
 * list of interfaces and stores I into the cache.  When threads check the
 * same classes against two different interfaces, nearly every check misses
 * and writes the cache, so the line holding Klass::secondary_super_cache
 * bounces between cores (true sharing), and secondary_supers, read on every
 * miss and 8 bytes further on, suffers with it (false sharing): the
 * "mixed" line Netflix found in production.
 *
 * struct Klass is HotSpot's Klass of JDK 17 on LP64, field for field (the
 * offsets are asserted below), so contend's report reads as it would for
 * the JVM.  Klasses live on the heap, as in metaspace, each in its own
 * 64-byte-aligned block so that no two share a line.
 *
 * Klass is 8-byte aligned, so in metaspace it may start at any of 8 offsets
 * in a line.  The cache (bytes 32..39) and secondary_supers (40..47) share
 * a line in 7 of those 8 placements: only a Klass starting 24 bytes into a
 * line puts the cache at 56..63 and secondary_supers on the next line.
 *
 * usage: klass_secondary_supers [-t N] [--seconds S] [--pad | --klass-offset B]
 *                               [--no-cache-write] [--print-klasses]
 *   -t N              threads (default: online CPUs); even ones check
 *                     against interface IA, odd ones against IB
 *   --seconds S       how long to run (default 2)
 *   --pad             use struct KlassPadded: the cache alone on its line
 *   --klass-offset B  start each Klass B bytes into a line (0..56, step 8)
 *   --no-cache-write  never store the cache: the line is only read
 *   --print-klasses   print "klass NAME ADDRESS" for C1..C4 first (for
 *                     contend watch ADDRESS+32, its test)
 * Prints "checks/s: N", and a warning on stderr if the threads did not all
 * run at once (a busy machine), which makes the number meaningless.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define NCLASSES 4

typedef struct Klass Klass;

struct Array {				/* HotSpot's Array<Klass*> */
	int length;
	Klass *data[];
};

struct Klass {
	void *vptr;				/*   0  C++ vtable */
	int layout_helper;			/*   8 */
	int id;					/*  12 */
	int vtable_len;				/*  16 */
	unsigned super_check_offset;		/*  20 */
	const char *name;			/*  24  Symbol* */
	Klass *secondary_super_cache;		/*  32 */
	struct Array *secondary_supers;		/*  40 */
	Klass *primary_supers[8];		/*  48 */
	void *java_mirror;			/* 112  OopHandle */
	Klass *super;				/* 120 */
	Klass *subklass;			/* 128 */
	Klass *next_sibling;			/* 136 */
	Klass *next_link;			/* 144 */
	void *class_loader_data;		/* 152 */
	int modifier_flags;			/* 160 */
	unsigned access_flags;			/* 164 */
	unsigned long trace_id;			/* 168  JFR */
	long last_biased_lock_bulk_revocation_time;	/* 176 */
	unsigned long prototype_header;		/* 184  markWord */
	int biased_lock_revocation_count;	/* 192 */
	short shared_class_path_index;		/* 196 */
	unsigned short shared_class_flags;	/* 198 */
	int archived_mirror_index;		/* 200 */
};

_Static_assert(offsetof(Klass, super_check_offset) == 20, "JDK 17 layout");
_Static_assert(offsetof(Klass, secondary_super_cache) == 32, "JDK 17 layout");
_Static_assert(offsetof(Klass, secondary_supers) == 40, "JDK 17 layout");
_Static_assert(offsetof(Klass, primary_supers) == 48, "JDK 17 layout");
_Static_assert(offsetof(Klass, super) == 120, "JDK 17 layout");
_Static_assert(offsetof(Klass, archived_mirror_index) == 200, "JDK 17 layout");
_Static_assert(sizeof(Klass) == 208, "JDK 17 layout");

/* --pad: the layout fix.  The cache, the only field written after the
 * class is set up, moves to a line of its own, away from secondary_supers
 * and the other read-mostly fields.  That ends the false sharing; the true
 * sharing of the cache itself remains, and only fewer writes can end it. */
typedef struct KlassPadded KlassPadded;

struct ArrayPadded {
	int length;
	KlassPadded *data[];
};

struct KlassPadded {
	void *vptr;				/*   0 */
	int layout_helper;			/*   8 */
	int id;					/*  12 */
	int vtable_len;				/*  16 */
	unsigned super_check_offset;		/*  20 */
	const char *name;			/*  24 */
	struct ArrayPadded *secondary_supers;	/*  32 */
	KlassPadded *primary_supers[8];		/*  40 */
	void *java_mirror;			/* 104 */
	KlassPadded *super;			/* 112 */
	/* ... the rest of Klass, as above ... */
	_Alignas(64) KlassPadded *secondary_super_cache;	/* 128 */
	char pad[56];
};

_Static_assert(offsetof(KlassPadded, secondary_super_cache) % 64 == 0, "own line");
_Static_assert(sizeof(KlassPadded) % 64 == 0, "own line");

static bool cache_writes = true;
static bool use_pad;
static int stop;

static Klass *interfaces[2], *classes[NCLASSES];
static KlassPadded *padded_interfaces[2], *padded_classes[NCLASSES];

static const char *interface_names[2] = { "IA", "IB" };
static const char *class_names[NCLASSES] = { "C1", "C2", "C3", "C4" };

/* Klass::is_subtype_of() and search_secondary_supers() of JDK 17. */
static __attribute__((noinline)) bool is_subtype_of(Klass *sub, Klass *super)
{
	unsigned off = super->super_check_offset;

	if (*(Klass **)((char *)sub + off) == super)
		return true;	/* primary display or cache hit */
	if (off != offsetof(Klass, secondary_super_cache))
		return false;
	if (sub == super)
		return true;
	for (int i = 0; i < sub->secondary_supers->length; i++) {
		if (sub->secondary_supers->data[i] == super) {
			if (cache_writes)
				sub->secondary_super_cache = super;
			return true;
		}
	}
	return false;
}

static __attribute__((noinline)) bool is_subtype_of_padded(KlassPadded *sub,
							   KlassPadded *super)
{
	unsigned off = super->super_check_offset;

	if (*(KlassPadded **)((char *)sub + off) == super)
		return true;
	if (off != offsetof(KlassPadded, secondary_super_cache))
		return false;
	if (sub == super)
		return true;
	for (int i = 0; i < sub->secondary_supers->length; i++) {
		if (sub->secondary_supers->data[i] == super) {
			if (cache_writes)
				sub->secondary_super_cache = super;
			return true;
		}
	}
	return false;
}

/* A Klass in its own block of whole lines, starting offset bytes in. */
static void *alloc_klass(size_t size, size_t offset)
{
	size_t block = (offset + size + 63) & ~(size_t)63;
	char *p = aligned_alloc(64, block);

	if (!p) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(p, 0, block);
	return p + offset;
}

/* Object, interfaces IA and IB, and classes C1..C4 implementing both. */
static void setup(size_t offset)
{
	Klass *object = alloc_klass(sizeof(Klass), offset);
	struct Array *none = calloc(1, sizeof(struct Array));
	struct Array *both = calloc(1, sizeof(struct Array) + 2 * sizeof(Klass *));

	object->name = "java/lang/Object";
	object->super_check_offset = offsetof(Klass, primary_supers[0]);
	object->primary_supers[0] = object;
	object->secondary_supers = none;
	for (int i = 0; i < 2; i++) {
		Klass *k = interfaces[i] = alloc_klass(sizeof(Klass), offset);

		k->name = interface_names[i];
		k->super_check_offset = offsetof(Klass, secondary_super_cache);
		k->primary_supers[0] = object;
		k->super = object;
		k->secondary_supers = none;
		both->data[both->length++] = k;
	}
	for (int i = 0; i < NCLASSES; i++) {
		Klass *k = classes[i] = alloc_klass(sizeof(Klass), offset);

		k->name = class_names[i];
		k->super_check_offset = offsetof(Klass, primary_supers[1]);
		k->primary_supers[0] = object;
		k->primary_supers[1] = k;
		k->super = object;
		k->secondary_supers = both;
	}
}

static void setup_padded(void)
{
	KlassPadded *object = alloc_klass(sizeof(KlassPadded), 0);
	struct ArrayPadded *none = calloc(1, sizeof(struct ArrayPadded));
	struct ArrayPadded *both = calloc(1, sizeof(struct ArrayPadded) +
					  2 * sizeof(KlassPadded *));

	object->name = "java/lang/Object";
	object->super_check_offset = offsetof(KlassPadded, primary_supers[0]);
	object->primary_supers[0] = object;
	object->secondary_supers = none;
	for (int i = 0; i < 2; i++) {
		KlassPadded *k = padded_interfaces[i] = alloc_klass(sizeof(KlassPadded), 0);

		k->name = interface_names[i];
		k->super_check_offset = offsetof(KlassPadded, secondary_super_cache);
		k->primary_supers[0] = object;
		k->super = object;
		k->secondary_supers = none;
		both->data[both->length++] = k;
	}
	for (int i = 0; i < NCLASSES; i++) {
		KlassPadded *k = padded_classes[i] = alloc_klass(sizeof(KlassPadded), 0);

		k->name = class_names[i];
		k->super_check_offset = offsetof(KlassPadded, primary_supers[1]);
		k->primary_supers[0] = object;
		k->primary_supers[1] = k;
		k->super = object;
		k->secondary_supers = both;
	}
}

struct worker {
	pthread_t thread;
	int interface;		/* 0: IA, 1: IB */
	long checks, failed;	/* results, written once at the end */
	double cpu_seconds;
};

static double seconds_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	long checks = 0, failed = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < NCLASSES; i++) {
			bool ok = use_pad ?
				is_subtype_of_padded(padded_classes[i],
						     padded_interfaces[w->interface]) :
				is_subtype_of(classes[i], interfaces[w->interface]);
			failed += !ok;
		}
		checks += NCLASSES;
	}
	w->checks = checks;
	w->failed = failed;
	w->cpu_seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: klass_secondary_supers [-t N] [--seconds S] "
		"[--pad | --klass-offset B] [--no-cache-write] [--print-klasses]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int nthreads = sysconf(_SC_NPROCESSORS_ONLN);
	long offset = 0, checks = 0, failed = 0;
	double seconds = 2, start, elapsed, least_cpu = 1e9;
	bool print_klasses = false;
	struct timespec nap;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--pad"))
			use_pad = true;
		else if (!strcmp(argv[i], "--klass-offset") && i + 1 < argc)
			offset = atol(argv[++i]);
		else if (!strcmp(argv[i], "--no-cache-write"))
			cache_writes = false;
		else if (!strcmp(argv[i], "--print-klasses"))
			print_klasses = true;
		else
			usage();
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds <= 0 ||
	    offset < 0 || offset > 56 || offset % 8 || (use_pad && offset))
		usage();

	if (use_pad)
		setup_padded();
	else
		setup(offset);
	for (int i = 0; print_klasses && i < NCLASSES; i++)
		printf("klass %s %p\n", class_names[i],
		       use_pad ? (void *)padded_classes[i] : (void *)classes[i]);
	fflush(stdout);

	start = seconds_of(CLOCK_MONOTONIC);
	for (int i = 0; i < nthreads; i++) {
		w[i].interface = i % 2;
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	nap.tv_sec = (time_t)seconds;
	nap.tv_nsec = (long)((seconds - nap.tv_sec) * 1e9);
	nanosleep(&nap, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		checks += w[i].checks;
		failed += w[i].failed;
	}
	elapsed = seconds_of(CLOCK_MONOTONIC) - start;

	printf("checks/s: %.0f\n", checks / elapsed);
	/* While a thread waits for a CPU, the others check uncontended and
	 * many times faster: such a run says little about contention. */
	for (int i = 0; i < nthreads; i++)
		if (w[i].cpu_seconds < least_cpu)
			least_cpu = w[i].cpu_seconds;
	if (least_cpu < 0.95 * elapsed)
		fprintf(stderr, "warning: a thread ran only %.0f%% of the time: "
			"the threads did not all run at once\n",
			100 * least_cpu / elapsed);
	if (failed) {
		fprintf(stderr, "%ld of %ld subtype checks failed\n", failed, checks);
		return 1;
	}
	return 0;
}
