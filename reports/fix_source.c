/* fix_source.c - the source files a fix patch edits (fix_source.h). */
#include "reports/fix_source.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"
#include "common/util.h"

static void add_line(struct fix_source *s, const char *from, size_t len, unsigned *alloc)
{
	char *line = xmalloc(len + 1);

	copy_bytes(line, from, len);
	line[len] = '\0';
	ALLOC_GROW(s->lines, s->n_lines + 1, *alloc);
	s->lines[s->n_lines++] = line;
}

static char *read_all(int fd, size_t *len, char **why, const char *path)
{
	size_t alloc = 65536, n = 0;
	char *buf = xmalloc(alloc);
	ssize_t got;

	for (;;) {
		if (n == alloc) {
			if (alloc >= FIX_SOURCE_MAX) {
				*why = xasprintf("%s: over %u MiB: not a source file to patch",
						 path, FIX_SOURCE_MAX >> 20);
				free(buf);
				return NULL;
			}
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		got = read(fd, buf + n, alloc - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*why = xasprintf("%s: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	*len = n;
	return buf;
}

int fix_source_read(const char *path, const struct proc_creds *reader,
		    struct fix_source *out, char **why)
{
	struct read_policy pol = { .reader = reader };
	unsigned alloc = 0;
	size_t len = 0, start = 0;
	char *buf;
	int fd;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	fd = safe_open_read(path, reader ? &pol : NULL, why);
	if (fd < 0)
		return -1;
	buf = read_all(fd, &len, why, path);
	close(fd);
	if (!buf)
		return -1;
	if (memchr(buf, '\0', len)) {
		*why = xasprintf("%s: holds NUL bytes: not a source file", path);
		free(buf);
		return -1;
	}
	out->path = xstrdup(path);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			add_line(out, buf + start, i + 1 - start, &alloc);
			start = i + 1;
		}
	}
	if (start < len) {
		add_line(out, buf + start, len - start, &alloc);
		out->no_newline = true;
	}
	free(buf);
	return 0;
}

void fix_source_release(struct fix_source *s)
{
	for (unsigned i = 0; i < s->n_lines; i++)
		free(s->lines[i]);
	free(s->lines);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

const char *fix_source_line(const struct fix_source *s, unsigned n)
{
	return n >= 1 && n <= s->n_lines ? s->lines[n - 1] : "";
}

/* --- scanning ------------------------------------------------------------ */

enum lex_state { LEX_CODE, LEX_BLOCK_COMMENT };

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Skip a string or character literal opened at line[i]; returns the
 * offset past it (or the line's end). */
static size_t skip_literal(const char *line, size_t i)
{
	char quote = line[i++];

	while (line[i] && line[i] != '\n') {
		if (line[i] == '\\' && line[i + 1])
			i += 2;
		else if (line[i++] == quote)
			break;
	}
	return i;
}

/*
 * Scan one line from state *st, calling found(end offset) for each use of
 * name in code; returns the state at the line's end.
 */
static enum lex_state scan_line(const char *line, enum lex_state st, const char *name,
				void (*found)(void *ctx, unsigned end), void *ctx)
{
	size_t nlen = strlen(name), i = 0;

	while (line[i]) {
		if (st == LEX_BLOCK_COMMENT) {
			const char *e = strstr(line + i, "*/");

			if (!e)
				return st;
			i = (size_t)(e - line) + 2;
			st = LEX_CODE;
		} else if (line[i] == '/' && line[i + 1] == '*') {
			st = LEX_BLOCK_COMMENT;
			i += 2;
		} else if (line[i] == '/' && line[i + 1] == '/') {
			return st;
		} else if (line[i] == '"' || line[i] == '\'') {
			i = skip_literal(line, i);
		} else if (ident_char(line[i]) && (i == 0 || !ident_char(line[i - 1]))) {
			size_t j = i;

			while (ident_char(line[j]))
				j++;
			if (j - i == nlen && !strncmp(line + i, name, nlen) &&
			    !isdigit((unsigned char)line[i]))
				found(ctx, (unsigned)j);
			i = j;
		} else {
			i++;
		}
	}
	return st;
}

struct uses {
	unsigned line, n, alloc;
	unsigned *lines, *ends;
};

static void note_use(void *ctx, unsigned end)
{
	struct uses *u = ctx;
	unsigned alloc = u->alloc;

	ALLOC_GROW(u->lines, u->n + 1, alloc);
	ALLOC_GROW(u->ends, u->n + 1, u->alloc);
	u->lines[u->n] = u->line;
	u->ends[u->n++] = end;
}

static void note_any(void *ctx, unsigned end)
{
	(void)end;
	*(bool *)ctx = true;
}

bool fix_line_names(const char *line, const char *name)
{
	bool any = false;

	scan_line(line, LEX_CODE, name, note_any, &any);
	return any;
}

unsigned fix_source_uses(const struct fix_source *s, const char *name,
			 unsigned **lines, unsigned **ends)
{
	struct uses u = { 0 };
	enum lex_state st = LEX_CODE;

	for (unsigned i = 0; i < s->n_lines; i++) {
		u.line = i + 1;
		st = scan_line(s->lines[i], st, name, note_use, &u);
	}
	*lines = u.lines;
	*ends = u.ends;
	return u.n;
}

unsigned fix_bracket_end(const char *line, unsigned open)
{
	int depth = 0;

	for (size_t i = open; line[i] && line[i] != '\n'; i++) {
		if (line[i] == '"' || line[i] == '\'') {
			i = skip_literal(line, i) - 1;
			continue;
		}
		if (line[i] == '[')
			depth++;
		else if (line[i] == ']' && --depth == 0)
			return (unsigned)i + 1;
	}
	return 0;
}

/* --- paths --------------------------------------------------------------- */

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

char *fix_project_root(const char *path, const char *root)
{
	char *dir, *git;
	struct stat st;

	if (root) {
		char *abs = realpath(root, NULL);

		return abs ? abs : xstrdup(root);
	}
	dir = dir_of(path);
	for (char *d = xstrdup(dir); ; ) {
		git = xasprintf("%s/.git", d);
		if (lstat(git, &st) == 0) {
			free(git);
			free(dir);
			return d;
		}
		free(git);
		if (!strcmp(d, "/") || !strcmp(d, ".")) {
			free(d);
			return dir;
		}
		char *up = dir_of(d);

		free(d);
		d = up;
	}
}

char *fix_relative_path(const char *path, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!strcmp(root, "/"))
		return path[0] == '/' && path[1] ? xstrdup(path + 1) : NULL;
	if (strncmp(path, root, n) || path[n] != '/' || !path[n + 1])
		return NULL;
	if (strstr(path + n, "/../") || strstr(path + n, "/./"))
		return NULL;
	return xstrdup(path + n + 1);
}
