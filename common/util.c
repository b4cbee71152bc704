#include "common/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int die_status = 2;
bool warnings_quiet;
void (*before_message)(void);

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	if (before_message)
		before_message();
	fprintf(stderr, "contend: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(die_status);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	if (warnings_quiet)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	ALLOC_GROW(sb->buf, sb->len + (size_t)n + 1, sb->alloc);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	ALLOC_GROW(sb->buf, sb->len + n + 1, sb->alloc);
	copy_bytes(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void named_counts_free(struct named_count *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(c[i].what);
	free(c);
}

/* Segments are copied down over the path: out never passes the segment
 * being read, and a separator is written only before a segment, so the
 * result is never longer than the input and the terminating NUL is
 * never overwritten while the input is still being read. */
void path_normalize(char *path)
{
	bool abs = *path == '/';
	char *root = path + abs, *out = root, *p = path;

	while (*p) {
		char *seg = p, *end = strchrnul(p, '/');
		size_t len = (size_t)(end - seg);

		p = *end ? end + 1 : end;
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *slash = out > root ? memrchr(root, '/', (size_t)(out - root)) : NULL;
			char *last = slash ? slash + 1 : root;
			bool last_is_up = out - last == 2 && last[0] == '.' && last[1] == '.';

			if (out > root && !last_is_up) {
				out = slash ? slash : root;     /* drop the last segment */
				continue;
			}
			if (abs)
				continue;               /* "/.." is "/" */
		}
		if (out > root)
			*out++ = '/';
		move_bytes(out, seg, len);
		out += len;
	}
	*out = '\0';
}

const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

unsigned named_counts_collect(const uint64_t *counts, unsigned n,
			      const char *(*name)(unsigned i), struct named_count **out)
{
	struct named_count *c = xcalloc(n ? n : 1, sizeof(*c));
	unsigned used = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		c[used].what = xstrdup(name(i));
		c[used++].n = counts[i];
	}
	*out = c;
	return used;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median_of(double *v, unsigned n)
{
	sort_items(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[64], la = (unsigned)strnlen(a, 63), lb = (unsigned)strnlen(b, 63);

	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0], up;

		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

char *argv_join(char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		strbuf_add(&sb, argv[i], strlen(argv[i]));
	}
	return strbuf_detach(&sb);
}

void fd_table_reserve(int fd)
{
	/* any open descriptor will do; F_DUPFD places its copy at fd or above */
	int any = open("/dev/null", O_RDONLY | O_CLOEXEC), high;

	if (any < 0)
		return;
	high = fcntl(any, F_DUPFD_CLOEXEC, fd);
	if (high >= 0)
		close(high);
	close(any);
}
