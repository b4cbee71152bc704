/* locks.c - lock objects in the data a line's threads touch (locks.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reports/locks.h"
#include "common/util.h"

/* Types that are locks, as DWARF may name them, and the name users know. */
static const struct {
	const char *type, *usual;
} lock_types[] = {
	{ "pthread_mutex_t", "pthread_mutex_t" },
	{ "__pthread_mutex_s", "pthread_mutex_t" },     /* its __data */
	{ "__gthread_mutex_t", "pthread_mutex_t" },     /* libstdc++'s */
	{ "__gthread_recursive_mutex_t", "pthread_mutex_t" },
	{ "pthread_rwlock_t", "pthread_rwlock_t" },
	{ "__pthread_rwlock_arch_t", "pthread_rwlock_t" },
	{ "pthread_spinlock_t", "pthread_spinlock_t" },
	{ "std::mutex", "std::mutex" },
	{ "std::recursive_mutex", "std::recursive_mutex" },
	{ "std::timed_mutex", "std::timed_mutex" },
	{ "std::recursive_timed_mutex", "std::recursive_timed_mutex" },
	{ "std::shared_mutex", "std::shared_mutex" },
	{ "std::shared_timed_mutex", "std::shared_timed_mutex" },
	{ "std::__mutex_base", "std::mutex" },
	{ "std::__recursive_mutex_base", "std::recursive_mutex" },
	{ "atomic_flag", "atomic_flag" },
	{ "std::atomic_flag", "std::atomic_flag" },
	{ "std::__atomic_flag_base", "std::atomic_flag" },
};

/* Members of __data that tell which pthread type holds it. */
static const struct {
	const char *member, *usual;   /* usual NULL: not a lock */
} internals[] = {
	{ "__lock", "pthread_mutex_t" }, { "__count", "pthread_mutex_t" },
	{ "__owner", "pthread_mutex_t" }, { "__nusers", "pthread_mutex_t" },
	{ "__kind", "pthread_mutex_t" }, { "__spins", "pthread_mutex_t" },
	{ "__elision", "pthread_mutex_t" }, { "__list", "pthread_mutex_t" },
	{ "__readers", "pthread_rwlock_t" }, { "__writers", "pthread_rwlock_t" },
	{ "__wrphase_futex", "pthread_rwlock_t" },
	{ "__writers_futex", "pthread_rwlock_t" },
	{ "__cur_writer", "pthread_rwlock_t" }, { "__rwelision", "pthread_rwlock_t" },
	{ "__wseq", NULL }, { "__g1_start", NULL }, { "__g_refs", NULL },
	{ "__g_size", NULL }, { "__g1_orig_size", NULL }, { "__wrefs", NULL },
	{ "__g_signals", NULL },     /* pthread_cond_t */
};

/* "volatile struct __pthread_mutex_s" -> "__pthread_mutex_s" */
static const char *bare_type(const char *type)
{
	static const char *const prefixes[] = {
		"const ", "volatile ", "struct ", "union ", "class ",
	};
	bool again = true;

	while (type && again) {
		again = false;
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
			size_t n = strlen(prefixes[i]);

			if (!strncmp(type, prefixes[i], n)) {
				type += n;
				again = true;
			}
		}
	}
	return type;
}

bool lock_type_sleeps(const char *usual)
{
	/* the futex-based ones; a spinlock and an atomic_flag spin */
	static const char *const sleeping[] = {
		"pthread_mutex_t", "pthread_rwlock_t", "std::mutex", "std::recursive_mutex",
		"std::timed_mutex", "std::recursive_timed_mutex", "std::shared_mutex",
		"std::shared_timed_mutex",
	};

	for (size_t i = 0; usual && i < ARRAY_SIZE(sleeping); i++)
		if (!strcmp(usual, sleeping[i]))
			return true;
	return false;
}

const char *lock_type(const char *type_name)
{
	const char *t = bare_type(type_name);

	for (size_t i = 0; t && i < ARRAY_SIZE(lock_types); i++)
		if (!strcmp(t, lock_types[i].type))
			return lock_types[i].usual;
	return NULL;
}

void lock_ref_release(struct lock_ref *l)
{
	free(l->name);
	memset(l, 0, sizeof(*l));
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the component at p (just after a '.') equal word? */
static bool component_is(const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) && !is_ident(p[n]);
}

/* The object's name for the first len bytes of its path, as report
 * ranges name members: "g.lock" for a global, "lock" or "*mutex" through
 * a pointer. */
static char *path_name(const struct data_attribution *a, const char *path,
		       size_t len)
{
	const char *var = a->variable ? a->variable : "";

	if (!a->via_pointer)
		return xasprintf("%s%.*s", var, (int)len, path);
	if (!len)
		return xasprintf("*%s", var);
	if (path[0] == '.')
		return xasprintf("%.*s", (int)len - 1, path + 1);
	return xasprintf("%.*s", (int)len, path);
}

/* Drops libstdc++'s wrapper members from the end of a lock's path:
 * "m._M_mutex" -> "m" (std::mutex holds a __gthread_mutex_t). */
static size_t strip_wrappers(const char *path, size_t len)
{
	for (;;) {
		size_t dot = len;

		while (dot && path[dot - 1] != '.')
			dot--;
		if (!dot || strncmp(path + dot, "_M_", 3))
			return len;
		len = dot - 1;
	}
}

/* The member after __data ("__lock" of ".lock.__data.__lock") says which
 * pthread type it is; *lock false for pthread_cond_t. */
static const char *internals_type(const char *after, bool *lock)
{
	*lock = true;
	if (*after != '.')
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(internals); i++) {
		if (component_is(after + 1, internals[i].member)) {
			*lock = internals[i].usual != NULL;
			return internals[i].usual;
		}
	}
	return NULL;
}

/* The access went through __align or __size (an 8-byte word at the
 * mutex's start picks __align), which say nothing of the lock's type:
 * the union holding them is the lock when its __data is a lock's
 * internals ("struct __pthread_mutex_s"); its typedef name is gone. */
static void lock_from_union(const struct data_attribution *a, struct lock_ref *out)
{
	const struct type_layout *lay = a->layout;
	const char *usual;

	for (unsigned i = 0; lay && i < lay->n_members; i++) {
		const struct type_member *m = &lay->members[i];

		if (!m->name || strcmp(m->name, "__data") || !(usual = lock_type(m->type_name)))
			continue;
		out->type_name = usual;
		out->start = a->layout_start;
		out->size = lay->size;
		return;
	}
}

/* The path enters a pthread type's internals: the lock is what holds
 * __data (or __size, __align: the other members of the same unions). */
static bool lock_by_internals(const struct data_attribution *a,
			      struct lock_ref *out)
{
	static const char *const unions[] = { "__data", "__size", "__align" };
	const char *path = a->path ? a->path : "";

	for (const char *p = strchr(path, '.'); p; p = strchr(p + 1, '.')) {
		for (size_t i = 0; i < ARRAY_SIZE(unions); i++) {
			const char *after = p + 1 + strlen(unions[i]);
			const char *by_layout = lock_type(a->layout ? a->layout->name : NULL);
			size_t len;
			bool lock;

			if (!component_is(p + 1, unions[i]))
				continue;
			out->type_name = internals_type(after, &lock);
			if (!lock)
				return false;
			if (by_layout) {
				/* the layout is __data's struct, at the union's start */
				out->type_name = by_layout;
				out->start = a->layout_start;
				out->size = a->layout->size;
			}
			len = strip_wrappers(path, (size_t)(p - path));
			/* a C++ wrapper (std::mutex, std::recursive_mutex, ...)
			 * is not the pthread type inside it, nor is it named */
			if (len != (size_t)(p - path))
				out->type_name = NULL;
			else if (!out->type_name || !out->size)
				lock_from_union(a, out);
			out->name = path_name(a, path, len);
			return true;
		}
	}
	return false;
}

/* The innermost struct holding the access is a lock (atomic_flag's
 * _Value): the lock is that struct, its path the access's less one member. */
static bool lock_by_layout(const struct data_attribution *a,
			   struct lock_ref *out)
{
	const char *path = a->path ? a->path : "";
	const char *last = strrchr(path, '.');

	out->type_name = lock_type(a->layout ? a->layout->name : NULL);
	if (!out->type_name || !last)
		return false;
	out->start = a->layout_start;
	out->size = a->layout->size;
	out->name = path_name(a, path, (size_t)(last - path));
	return true;
}

/* "pthread_spinlock_t[8]" -> is pthread_spinlock_t a lock? */
static const char *element_lock_type(const char *type)
{
	const char *b = type ? strchr(type, '[') : NULL;
	char *elem;
	const char *usual;

	if (!b)
		return lock_type(type);
	elem = xasprintf("%.*s", (int)(b - type), type);
	while (*elem && elem[strlen(elem) - 1] == ' ')
		elem[strlen(elem) - 1] = '\0';
	usual = lock_type(elem);
	free(elem);
	return usual;
}

/* The whole object, or its element, is of a lock type (a global
 * pthread_spinlock_t, an int underneath, or an array of them). */
static bool lock_by_object(const struct data_attribution *a,
			   struct lock_ref *out)
{
	const char *path = a->path ? a->path : "";

	if (strchr(path, '.'))          /* "" or "[3]": the object's */
		return false;
	out->type_name = element_lock_type(a->type_name);
	if (!out->type_name)
		return false;
	out->start = a->object_start + a->member_offset;
	out->size = a->member_size;
	out->name = path_name(a, path, strlen(path));
	return true;
}

/* A member of the innermost struct that the access's bytes touch is of a
 * lock type (a pthread_spinlock_t member).  The access may begin at a
 * neighbour: watched words are 8 bytes, a 4-byte lock shares one. */
static bool lock_by_member(const struct data_attribution *a, uint64_t addr,
			   unsigned size, struct lock_ref *out)
{
	const struct type_layout *lay = a->layout;
	const char *path = a->path ? a->path : "";
	const char *last = strrchr(path, '.');

	for (unsigned i = 0; lay && last && i < lay->n_members; i++) {
		const struct type_member *m = &lay->members[i];
		uint64_t start = a->layout_start + m->offset;
		size_t prefix = (size_t)(last - path);
		char *member_path;

		if (!m->name || addr >= start + m->size || start >= addr + size ||
		    !(out->type_name = element_lock_type(m->type_name)))
			continue;
		out->start = start;
		out->size = m->size;
		member_path = xasprintf("%.*s.%s", (int)prefix, path, m->name);
		out->name = path_name(a, member_path, strlen(member_path));
		free(member_path);
		return true;
	}
	return false;
}

bool lock_of_access(const struct data_attribution *a, uint64_t addr,
		    unsigned size, struct lock_ref *out)
{
	memset(out, 0, sizeof(*out));
	if (lock_by_internals(a, out) || lock_by_layout(a, out) ||
	    lock_by_object(a, out) || lock_by_member(a, addr, size ? size : 1, out))
		return true;
	memset(out, 0, sizeof(*out));
	return false;
}
