/* util.h - error reporting, checked allocation, a growable string buffer.
 *
 * Contract: die() prints "contend: <msg>" on stderr and exits with status 2
 * (environment or usage error) unless die_status was changed; error() and
 * warning() print and return.  x*alloc never return NULL (they die).
 * strbuf owns a NUL-terminated heap string; strbuf_release frees it.
 * basename_of() names a file by its last path component.
 */
#ifndef CONTEND_UTIL_H
#define CONTEND_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>

extern int die_status;   /* exit status of die(); default 2 */

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);   /* returns -1 */
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
extern bool warnings_quiet;  /* tests silence warnings */
/* Called before die(), error() and warning() print, if set: a status line
 * drawn on stderr (engine/progress.h) erases itself first. */
extern void (*before_message)(void);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Levenshtein distance of a and b (each at most 63 bytes counted), for
 * "did you mean" hints. */
unsigned edit_distance(const char *a, const char *b);
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);

/* Grow *arr (of element size elsz) so that it can hold at least need elements. */
#define ALLOC_GROW(arr, need, alloc)                                          \
	do {                                                                  \
		if ((size_t)(need) > (size_t)(alloc)) {                       \
			size_t n_ = (alloc) < 8 ? 8 : (size_t)(alloc) * 2;    \
			if (n_ < (size_t)(need))                              \
				n_ = (need);                                  \
			(arr) = xrealloc((arr), n_ * sizeof(*(arr)));         \
			(alloc) = n_;                                         \
		}                                                             \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);   /* caller frees; never NULL */
void strbuf_release(struct strbuf *sb);
static inline const char *strbuf_str(const struct strbuf *sb) { return sb->buf ? sb->buf : ""; }

/* Two strings, either of which may be NULL, equal (NULL equals NULL). */
static inline bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* A count with a reason: samples dropped and why, accesses left untyped
 * and why.  named_counts_free() frees the names and the array. */
struct named_count {
	char *what;                   /* "prev is branch target", "stack", ... */
	uint64_t n;
};
void named_counts_free(struct named_count *c, unsigned n);
/* The non-zero ones of counts[0..n), in index order, named by name(i);
 * returns how many.  Caller frees *out with named_counts_free(). */
unsigned named_counts_collect(const uint64_t *counts, unsigned n,
			      const char *(*name)(unsigned i), struct named_count **out);

/* Seconds on CLOCK_MONOTONIC: for intervals and deadlines, never dates. */
double monotonic_s(void);
/* The median of v[0..n) (n > 0), which it sorts. */
double median_of(double *v, unsigned n);
/* The words of a NULL-terminated argv, space-separated (a command as the
 * user typed it, for a report's header); caller frees. */
char *argv_join(char **argv);

/* "dir/../x.c" -> "x.c", "/a/./b//c/" -> "/a/b/c", in place, without
 * the file system (symlinks are not resolved); "" stays "", "/.." is "/",
 * leading ".." of a relative path are kept. */
void path_normalize(char *path);
/* The last component of path: "b" of "a/b".  A path that ends in '/'
 * ("/", "/x/y/") or has no '/' comes back whole.  Never NULL; points
 * into path. */
const char *basename_of(const char *path);

/* Descriptors a target inherits sit at HIGH_FD_BASE and up, out of the
 * way of its own (the allocation channel and its tick at 700, fix
 * --verify's report pipe at 710). */
#define HIGH_FD_BASE 700
/* Grows this process's descriptor table to hold fd now.  Growing it once
 * a second thread exists makes the kernel wait out an RCU grace period
 * (expand_fdtable(): 13 ms measured on a 2-vCPU VM), in series before the
 * target starts; a caller that will place descriptors high calls this
 * while it has one thread.  Best effort: quietly does nothing if it cannot. */
void fd_table_reserve(int fd);

/* qsort, bsearch, memcpy and memmove with a NULL pointer are undefined
 * even when n is 0 (C11 7.22.5, 7.24.1), and an empty array here is often
 * a NULL one (a stripped binary's symbols, an empty perf map, a word no
 * thread touched).  Production code calls these instead: n == 0 does
 * nothing (search_items finds nothing).  tests/house_rules.sh keeps bare
 * qsort()/bsearch() out of the tree. */
typedef int (*item_cmp)(const void *, const void *);
static inline void sort_items(void *base, size_t n, size_t size, item_cmp cmp)
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
static inline void *search_items(const void *key, const void *base, size_t n,
				 size_t size, item_cmp cmp)
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}
static inline void copy_bytes(void *dst, const void *src, size_t n)
{
	if (n)
		memcpy(dst, src, n);
}
static inline void move_bytes(void *dst, const void *src, size_t n)
{
	if (n)
		memmove(dst, src, n);
}

/* 64-bit mix for hash tables. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
