/* fixture_globals.c - a small -O2 -g program whose DWARF the unit tests read.
 *
 * It is never run by the tests, only opened: its globals, statics and
 * pointer-taking functions give data_types and the symbolizer known answers.
 * Layouts are fixed on x86-64 (LP64) and spelled out beside each field.
 */
#include <stdio.h>
#include <stdlib.h>

/* An array of scalars: counters + 8 is counters[1]. */
long counters[4];

struct inner {
	int a[3];               /*  0 12 */
	short b;                /* 12  2 */
};                              /* size 16, align 4 */

struct outer {
	char tag;               /*  0  1 */
	struct inner in;        /*  4 16 */
	long tail;              /* 24  8 */
} outers[2];                    /* size 32 each */

/* An odd-sized object followed by padding before the next aligned one. */
char build_tag[5] = "fx01";

struct stats {
	long reads;             /*  0  8 */
	long writes;            /*  8  8 */
	long misses;            /* 16  8 */
	int id;                 /* 24  4 */
};                              /* size 32 */

struct stats per_thread[4];

/* Aligned by its declaration, not its type (DW_AT_alignment on the
 * variable): elements 0 and 2 start lines, [1].misses (48) and
 * [2].reads (64) lie on two. */
_Alignas(64) struct stats aligned_stats[4];

/* Storage that code carves struct stats out of through pointers (an
 * arena): its declaration aligns it, its own type is only bytes. */
_Alignas(64) unsigned char stats_arena[4 * sizeof(struct stats)];

struct klass_array {
	int length;
	const void *data[];
};

/* HotSpot's Klass, trimmed: the fields JDK-8180450 is about sit at the same
 * offsets.  Anonymous on purpose, so that only the typedef names it. */
typedef struct {
	const void *vptr;                       /*   0 8 */
	int layout_helper;                      /*   8 4 */
	int id;                                 /*  12 4 */
	int modifier_flags;                     /*  16 4 */
	unsigned super_check_offset;            /*  20 4 */
	const char *name;                       /*  24 8 */
	const void *secondary_super_cache;      /*  32 8 */
	struct klass_array *secondary_supers;   /*  40 8 */
	const void *primary_supers[8];          /*  48 64 */
	void *java_mirror;                      /* 112 8 */
	const void *super;                      /* 120 8 */
} Klass;                                        /* size 128 */

Klass klass_c1, klass_i1, klass_i2;

/* Overlapping members: which one an access means depends on its size. */
struct half {
	long packets;           /*  0  8 */
	long bytes;             /*  8  8 */
};

union tag {
	long raw;               /*  0  8 */
	struct {
		int lo, hi;     /*  0  4, 4  4 */
	} parts;
};

struct conn {
	int fd;                 /*  0  4 */
	union tag tag;          /*  8  8 */
	struct half rx;         /* 16 16 */
	struct half tx;         /* 32 16 */
};                              /* size 48 */

struct conn conn_global;

/* A library's type the user sees whole (std::atomic<long> holds _M_i):
 * its one member's name is reserved. */
typedef struct {
	long __value;           /*  0  8 */
} opaque_count_t;

/* Several reserved members: which one is hit matters (a lock word). */
typedef struct {
	int __lock;             /*  0  4 */
	int __owner;            /*  4  4 */
} opaque_lock_t;

struct counted {
	opaque_count_t hits;    /*  0  8 */
	long misses;            /*  8  8 */
	opaque_lock_t lk;       /* 16  8 */
} counted_global;

/* Heap objects no variable describes at the access: the pointer is
 * reloaded from a global, or from a member, in each iteration. */
static struct conn *conn_ptr;

struct stats_vec {
	struct stats *start;    /*  0  8, as std::vector's _M_start */
	struct stats *finish;   /*  8  8 */
};

struct stats_vec stats_vec;

__attribute__((noinline)) void conn_rx(long n)
{
	for (long i = 0; i < n; i++) {
		conn_ptr->rx.packets++;
		__asm__ volatile("" ::: "memory");
	}
}

/* Unoptimised, as in a debug build: the local pointer lives on the stack
 * and is reloaded from there for each access. */
#if defined(__clang__)
#define UNOPTIMISED __attribute__((noinline, optnone))
#else
#define UNOPTIMISED __attribute__((noinline, optimize("O0")))
#endif

UNOPTIMISED void conn_rx_debug(long n)
{
	struct conn *cc = conn_ptr;

	for (long i = 0; i < n; i++)
		cc->rx.packets++;
}

/* The loop walks a pointer (p++ at its end) that no variable names. */
__attribute__((noinline)) void vec_sweep(long n)
{
	for (long i = 0; i < n; i++)
		stats_vec.start[i].misses++;
}

__attribute__((noinline)) void vec_bump(long n, int id)
{
	for (long i = 0; i < n; i++) {
		stats_vec.start[id].writes++;
		__asm__ volatile("" ::: "memory");
	}
}

__attribute__((noinline)) void bump(struct stats *s)
{
	s->writes++;
}

__attribute__((noinline)) long sum_stats(struct stats *arr, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += arr[i].reads;
	return sum;
}

/* The HotSpot slow path: check the one-element cache, then scan. */
__attribute__((noinline)) int is_subtype(Klass *sub, Klass *super)
{
	struct klass_array *ss;

	if (sub->secondary_super_cache == super)
		return 1;
	ss = sub->secondary_supers;
	for (int i = 0; ss && i < ss->length; i++) {
		if (ss->data[i] == super) {
			sub->secondary_super_cache = super;
			return 1;
		}
	}
	return 0;
}

/* A pointer with nothing to resolve through. */
__attribute__((noinline)) void zero_word(void *p)
{
	*(volatile long *)p = 0;
}

__attribute__((noinline)) int count_hit(void)
{
	static int hits;

	return ++hits;
}

static inline void touch_outer(struct outer *o, int i)
{
	o->in.a[i % 3] += i;
	o->tail++;
}

int main(int argc, char **argv)
{
	struct klass_array *supers = malloc(sizeof(*supers) + 2 * sizeof(void *));
	long sum;
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	if (!supers)
		return 1;
	supers->length = 2;
	supers->data[0] = &klass_i1;
	supers->data[1] = &klass_i2;
	klass_c1.secondary_supers = supers;
	klass_c1.name = build_tag;
	conn_ptr = &conn_global;
	stats_vec.start = per_thread;
	stats_vec.finish = per_thread + 4;

	for (int i = 0; i < n; i++) {
		counters[i & 3]++;
		bump(&per_thread[i & 3]);
		bump((struct stats *)stats_arena + (i & 3));
		touch_outer(&outers[i & 1], i);
		is_subtype(&klass_c1, (i & 1) ? &klass_i1 : &klass_i2);
		count_hit();
	}
	conn_rx(n);
	conn_rx_debug(n);
	vec_bump(n, 1);
	vec_sweep(4);
	zero_word(&per_thread[0].misses);
	sum = sum_stats(per_thread, 4);
	printf("%ld %ld %d %d\n", sum, counters[1], outers[1].in.a[2], count_hit());
	free(supers);
	return 0;
}
