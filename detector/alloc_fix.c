/* alloc_fix.c - the fix mode's spec and site matching (alloc_fix.h).
 *
 * Linked into the shim as well as into contend: nothing here may
 * allocate, and nothing but alloc_fix_format() calls into stdio.
 */
#include "detector/alloc_fix.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

/* A number in base 10 or 16 at *s, up to a byte of stop (or the end);
 * *s moves past it.  False if there are no digits or it overflows. */
static bool parse_num(const char **s, const char *end, unsigned base, const char *stop,
		      uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	while (p < end && !strchr(stop, *p)) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
		p++;
	}
	if (p == *s)
		return false;
	*s = p;
	*out = v;
	return true;
}

static bool starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - s) >= n && !memcmp(s, word, n);
}

/* "DEV:INO:OFF", hex, up to end */
static bool parse_site(const char *s, const char *end, struct alloc_fix_site *site)
{
	return parse_num(&s, end, 16, ":", &site->dev) && s < end && *s++ == ':' &&
	       parse_num(&s, end, 16, ":", &site->ino) && s < end && *s++ == ':' &&
	       parse_num(&s, end, 16, "", &site->off) && s == end && site->ino;
}

static bool parse_word(const char *s, const char *end, struct alloc_fix *f, bool *have_align)
{
	uint64_t v;

	if (starts(s, end, "align=")) {
		s += 6;
		if (!parse_num(&s, end, 10, "", &v) || v < 16 || v > ALLOC_FIX_ALIGN_MAX ||
		    (v & (v - 1)))
			return false;
		f->align = (unsigned)v;
		*have_align = true;
		return true;
	}
	if (starts(s, end, "fd=")) {
		s += 3;
		if (!parse_num(&s, end, 10, "", &v) || v > 1u << 20)
			return false;
		f->report_fd = (int)v;
		return true;
	}
	if (starts(s, end, "site=")) {
		if (f->n_sites == ALLOC_FIX_SITES)
			return false;
		if (!parse_site(s + 5, end, &f->sites[f->n_sites]))
			return false;
		f->sites[f->n_sites++].addr = 0;
		return true;
	}
	return false;
}

bool alloc_fix_parse(const char *spec, struct alloc_fix *f)
{
	const char *s = spec, *end = spec + strlen(spec);
	bool have_align = false;

	memset(f, 0, sizeof(*f));
	f->report_fd = -1;
	while (s < end) {
		const char *w;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		for (w = s; w < end && *w != ' '; w++)
			;
		if (!parse_word(s, w, f, &have_align))
			goto bad;
		s = w;
	}
	if (have_align && f->n_sites)
		return true;
bad:
	memset(f, 0, sizeof(*f));
	f->report_fd = -1;
	return false;
}

int alloc_fix_format(char *buf, size_t cap, const struct alloc_fix *f)
{
	size_t len;
	int n = snprintf(buf, cap, "align=%u fd=%d", f->align, f->report_fd);

	if (n < 0 || (size_t)n >= cap)
		return -1;
	len = (size_t)n;
	for (unsigned i = 0; i < f->n_sites; i++) {
		const struct alloc_fix_site *s = &f->sites[i];

		n = snprintf(buf + len, cap - len, " site=%llx:%llx:%llx",
			     (unsigned long long)s->dev, (unsigned long long)s->ino,
			     (unsigned long long)s->off);
		if (n < 0 || (size_t)n >= cap - len)
			return -1;
		len += (size_t)n;
	}
	return (int)len;
}

/* "start-end perms offset major:minor inode path": the fields before the
 * path, as the kernel prints them (hex but the inode). */
void alloc_fix_map_line(struct alloc_fix *f, const char *line, size_t len)
{
	const char *s = line, *end = line + len;
	uint64_t start, stop, pgoff, major, minor, ino;
	bool exec;

	if (!parse_num(&s, end, 16, "-", &start) || s == end || *s++ != '-' ||
	    !parse_num(&s, end, 16, " ", &stop) || end - s < 6 || *s++ != ' ')
		return;
	exec = s[2] == 'x';
	s += 4;
	if (s == end || *s++ != ' ' || !parse_num(&s, end, 16, " ", &pgoff) ||
	    s == end || *s++ != ' ' || !parse_num(&s, end, 16, ":", &major) ||
	    s == end || *s++ != ':' || !parse_num(&s, end, 16, " ", &minor) ||
	    s == end || *s++ != ' ' || !parse_num(&s, end, 10, " ", &ino))
		return;
	if (!exec || !ino || stop <= start)
		return;
	for (unsigned i = 0; i < f->n_sites; i++) {
		struct alloc_fix_site *site = &f->sites[i];

		if (site->ino == ino && site->dev == makedev(major, minor) &&
		    site->off >= pgoff && site->off - pgoff < stop - start)
			site->addr = start + (site->off - pgoff);
	}
}

size_t alloc_fix_size(const struct alloc_fix *f, size_t size)
{
	size_t a = f->align;

	if (!a)
		return size;
	if (!size)
		return a;
	if (size > SIZE_MAX - (a - 1))
		return 0;
	return (size + a - 1) & ~(a - 1);
}
