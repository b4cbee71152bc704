/* test_locks.c - which accesses lie in a lock, and which lock (locks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/locks.h"
#include "tap.h"

#define G 0x1060ULL                 /* where the objects start */

static const struct type_layout mutex_data = { "struct __pthread_mutex_s", 40, 8 };
static const struct type_layout list_node = { "struct __pthread_internal_list", 16, 8 };
static const struct type_layout flag_layout = { "atomic_flag", 1, 1 };
static struct type_member spin_members[] = {
	{ "spin", "pthread_spinlock_t", 0, 4 },
	{ "n", "long", 8, 8 },
};
static const struct type_layout spin_struct = {
	"struct counted", 16, 8, spin_members, ARRAY_SIZE(spin_members),
};
static struct type_member flagged_members[] = {
	{ "flags", "int", 0, 4 },
	{ "spin", "pthread_spinlock_t", 4, 4 },
	{ "n", "long", 8, 8 },
};
static const struct type_layout flagged_struct = {
	"struct flagged", 16, 8, flagged_members, ARRAY_SIZE(flagged_members),
};
static struct type_member shared_members[] = {
	{ "lock", "pthread_mutex_t", 0, 40 },
	{ "done", "long", 40, 8 },
};
static const struct type_layout shared_struct = {
	"struct shared", 48, 8, shared_members, ARRAY_SIZE(shared_members),
};

/* lock_of_access on a; checks name, type, start and size (size 0: unknown). */
static void check_lock(const struct data_attribution *a, uint64_t addr,
		       const char *name, const char *type, uint64_t start,
		       uint64_t size, const char *what)
{
	struct lock_ref l;
	bool found = lock_of_access(a, addr, 4, &l);

	CHECK(found, "%s: a lock", what);
	CHECK_STR(l.name, name, what);
	if (type)
		CHECK_STR(l.type_name, type, what);
	else
		CHECK(!l.type_name, "%s: type unknown, got %s", what, l.type_name);
	CHECK_EQ_U64(l.start, start, what);
	CHECK_EQ_U64(l.size, size, what);
	lock_ref_release(&l);
}

static void check_none(const struct data_attribution *a, uint64_t addr,
		       const char *what)
{
	struct lock_ref l;

	CHECK(!lock_of_access(a, addr, 4, &l), "%s: no lock, got %s", what, l.name);
	CHECK(!l.name, "%s: nothing to release", what);
}

static void test_types(void)
{
	CHECK_STR(lock_type("pthread_mutex_t"), "pthread_mutex_t", "mutex");
	CHECK_STR(lock_type("struct __pthread_mutex_s"), "pthread_mutex_t",
		  "mutex internals");
	CHECK_STR(lock_type("volatile pthread_spinlock_t"), "pthread_spinlock_t",
		  "qualified spinlock");
	CHECK_STR(lock_type("std::mutex"), "std::mutex", "std::mutex");
	CHECK_STR(lock_type("__gthread_mutex_t"), "pthread_mutex_t", "gthread");
	CHECK_STR(lock_type("struct atomic_flag"), "atomic_flag", "atomic_flag");
	CHECK(!lock_type("pthread_cond_t"), "a condition variable is no lock");
	CHECK(!lock_type("struct shared"), "a struct is no lock");
	CHECK(!lock_type(NULL), "no type");
}

/* p3_mutex: g.lock's internals, from the global g. */
static void test_mutex_internals(void)
{
	struct data_attribution a = {
		.variable = "g", .type_name = "struct shared",
		.path = ".lock.__data.__lock", .object_start = G,
		.member_size = 4, .layout = &mutex_data, .layout_start = G,
	};

	check_lock(&a, G, "g.lock", "pthread_mutex_t", G, 40, "__lock");
	a.path = ".lock.__data.__kind";
	a.member_offset = 16;
	check_lock(&a, G + 16, "g.lock", "pthread_mutex_t", G, 40, "__kind");

	/* deeper in: the layout is the list node's, the extent unknown */
	a.path = ".lock.__data.__list.__next";
	a.member_offset = 24;
	a.member_size = 8;
	a.layout = &list_node;
	a.layout_start = G + 24;
	check_lock(&a, G + 24, "g.lock", "pthread_mutex_t", 0, 0, "__list");

	/* the union's other members */
	a.path = ".lock.__size[3]";
	a.layout = NULL;
	check_lock(&a, G + 3, "g.lock", NULL, 0, 0, "__size");

	/* std::mutex wraps a __gthread_mutex_t: the lock is m */
	a.path = ".m._M_mutex.__data.__owner";
	a.layout = &mutex_data;
	a.layout_start = G;
	check_lock(&a, G + 8, "g.m", NULL, G, 40, "std::mutex");

	/* through a pointer: glibc's own parameter, or a struct's member */
	a.variable = "mutex";
	a.via_pointer = true;
	a.path = ".__data.__lock";
	check_lock(&a, G, "*mutex", "pthread_mutex_t", G, 40, "*mutex");
	a.variable = "s";
	a.path = ".lock.__data.__lock";
	check_lock(&a, G, "lock", "pthread_mutex_t", G, 40, "s->lock");

	/* a condition variable's internals are not a lock */
	a.path = ".cv.__data.__wseq";
	a.layout = NULL;
	check_none(&a, G, "pthread_cond_t");
}

static void test_lock_types(void)
{
	struct data_attribution a = {
		.variable = "g", .type_name = "struct counted", .path = ".spin",
		.object_start = G, .member_size = 4, .layout = &spin_struct,
		.layout_start = G,
	};

	check_lock(&a, G, "g.spin", "pthread_spinlock_t", G, 4, "spin member");
	a.path = ".n";
	a.member_offset = 8;
	a.member_size = 8;
	check_none(&a, G + 8, "the counter beside it");

	/* a watched 8-byte word holds flags and the spinlock after it */
	a = (struct data_attribution){
		.variable = "s", .type_name = "struct flagged", .path = ".flags",
		.object_start = G, .member_size = 4, .layout = &flagged_struct,
		.layout_start = G,
	};
	{
		struct lock_ref l;

		CHECK(lock_of_access(&a, G, 8, &l), "word over flags and spin");
		CHECK_STR(l.name, "s.spin", "the word's lock");
		CHECK_EQ_U64(l.start, G + 4, "the word's lock start");
		CHECK_EQ_U64(l.size, 4, "the word's lock size");
		lock_ref_release(&l);
		CHECK(!lock_of_access(&a, G, 4, &l), "flags alone: no lock");
	}

	/* a global spinlock, and an array of them */
	a = (struct data_attribution){
		.variable = "sl", .type_name = "pthread_spinlock_t", .path = "",
		.object_start = G, .member_size = 4,
	};
	check_lock(&a, G, "sl", "pthread_spinlock_t", G, 4, "spinlock object");
	a.variable = "locks";
	a.type_name = "pthread_spinlock_t[8]";
	a.path = "[3]";
	a.member_offset = 12;
	check_lock(&a, G + 12, "locks[3]", "pthread_spinlock_t", G + 12, 4,
		   "spinlock element");

	/* atomic_flag: the access is its _Value, the lock the flag */
	a = (struct data_attribution){
		.variable = "g", .type_name = "struct s", .path = ".flag._Value",
		.object_start = G, .member_offset = 8, .member_size = 1,
		.layout = &flag_layout, .layout_start = G + 8,
	};
	check_lock(&a, G + 8, "g.flag", "atomic_flag", G + 8, 1, "atomic_flag");

	/* the data a lock guards is no lock */
	a = (struct data_attribution){
		.variable = "g", .type_name = "struct shared", .path = ".done",
		.object_start = G, .member_offset = 40, .member_size = 8,
		.layout = &shared_struct, .layout_start = G,
	};
	check_none(&a, G + 40, "guarded data");
}

int main(void)
{
	test_types();
	test_mutex_internals();
	test_lock_types();
	return test_done();
}
