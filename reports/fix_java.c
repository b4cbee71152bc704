/* fix_java.c - the fix of a Java object's false sharing as edits
 * (fix_patch.h): @jdk.internal.vm.annotation.Contended on each field the
 * line's threads fight over, where the class's source declares it.
 *
 * A JIT's code has no DWARF: the class's source is found by its name, as
 * javac lays sources out (com.x.Foo$Bar in com/x/Foo.java), under the
 * project root (--root, else the current directory), the path itself or
 * the one file under the root whose path ends with it (src/main/java/...).
 * A field is annotated where the file declares it once; a name declared
 * twice there (two classes, a local of that name) is not guessed at.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/fix_internal.h"
#include "reports/fix_source.h"

#define SEARCH_DEPTH 12         /* directories below the root */
#define SEARCH_ENTRIES 50000    /* entries looked at, in all */

#define CONTENDED "@jdk.internal.vm.annotation.Contended"

struct search {
	const char *tail;               /* "/com/x/Foo.java" */
	char *found;
	unsigned n_found, entries;
};

/* Files under dir whose path ends with s->tail; symlinks not followed,
 * hidden directories (.git) skipped. */
static void search_dir(struct search *s, const char *dir, unsigned depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && s->entries++ < SEARCH_ENTRIES && s->n_found < 2) {
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR && depth < SEARCH_DEPTH) {
			search_dir(s, path, depth + 1);
		} else if (e->d_type == DT_REG && strlen(path) >= strlen(s->tail) &&
			   !strcmp(path + strlen(path) - strlen(s->tail), s->tail)) {
			if (!s->n_found++)
				s->found = xstrdup(path);
		}
		free(path);
	}
	closedir(d);
}

/* The source file of class (binary name, dots), or NULL and *why. */
static char *class_source(const char *class, const char *root, char **why)
{
	size_t top = strcspn(class, "$");
	char *rel = xasprintf("%.*s.java", (int)top, class), *direct;
	struct search s = { 0 };
	struct stat st;

	for (char *p = rel; *p; p++)
		if (*p == '.' && strcmp(p, ".java"))
			*p = '/';
	direct = xasprintf("%s/%s", root, rel);
	if (!lstat(direct, &st) && S_ISREG(st.st_mode)) {
		free(rel);
		return direct;
	}
	free(direct);
	s.tail = direct = xasprintf("/%s", rel);
	search_dir(&s, root, 0);
	if (s.n_found != 1)
		*why = xasprintf(s.n_found ? "several files under %s end in %s: give --root" :
				 "no source %s under %s (give --root: the project the class's "
				 "source is in)", s.n_found ? root : rel, s.n_found ? rel : root);
	free(direct);
	free(rel);
	if (s.n_found != 1) {
		free(s.found);
		return NULL;
	}
	return s.found;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Does line declare field `name`: modifiers and a type before it, `;` or
 * `=` after it, and nothing that makes it a statement? */
static bool declares_field(const char *line, const char *name)
{
	const char *at = line, *p;
	size_t n = strlen(name);

	while ((at = strstr(at, name))) {
		bool word = (at == line || !ident_char(at[-1])) && !ident_char(at[n]);

		if (word && at > line) {
			p = at + n + strspn(at + n, " \t");
			if (*p == ';' || (*p == '=' && p[1] != '=')) {
				size_t lead = strspn(line, " \t"), len = (size_t)(at - line) - lead;
				const char *before = line + lead;

				char *lead_text = xasprintf("%.*s", (int)len, before);
				bool type_before = len && !strstr(lead_text, "return ") &&
					!strstr(lead_text, "new ") &&
					strspn(lead_text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
					       "QRSTUVWXYZ0123456789_$<>[]?,. \t") == len;

				free(lead_text);
				return type_before;
			}
		}
		at += n;
	}
	return false;
}

/* Is a declaration word ("class") at p, as a whole word? */
static bool type_word_at(const char *line, const char *p)
{
	static const char *const words[] = { "class", "interface", "enum", "record" };

	if (p > line && ident_char(p[-1]))
		return false;
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++)
		if (!strncmp(p, words[i], strlen(words[i])) && !ident_char(p[strlen(words[i])]))
			return true;
	return false;
}

struct brace_state {
	bool in_comment, header;        /* header: a type's name since the last { } ; */
	unsigned depth;
	bool is_class[64];              /* per open brace: a type's body */
};

/* Advances st over one line (comments and literals skipped). */
static void braces_line(struct brace_state *st, const char *l)
{
	for (const char *p = l; *p; p++) {
		if (st->in_comment) {
			if (p[0] == '*' && p[1] == '/')
				st->in_comment = false, p++;
		} else if (p[0] == '/' && p[1] == '*') {
			st->in_comment = true;
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			return;
		} else if (*p == '"' || *p == '\'') {
			for (char q = *p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return;
		} else if (*p == '{') {
			if (st->depth < ARRAY_SIZE(st->is_class))
				st->is_class[st->depth] = st->header;
			st->depth++;
			st->header = false;
		} else if (*p == '}' || *p == ';') {
			if (*p == '}' && st->depth)
				st->depth--;
			st->header = false;
		} else if (type_word_at(l, p)) {
			st->header = true;
		}
	}
}

static bool in_class_body(const struct brace_state *st)
{
	return st->depth && st->depth <= ARRAY_SIZE(st->is_class) &&
	       st->is_class[st->depth - 1];
}

/* "@jdk.internal.vm.annotation.Contended" on the line before decl, with
 * contend's comment, indented as the declaration is. */
static void annotate(struct pending_set *ps, const struct fix_source *src, unsigned decl,
		     const struct report_line *rl)
{
	struct strbuf sb = STRBUF_INIT;
	const char *l = fix_source_line(src, decl);

	fix_comment_line(&sb, l, "a padded area of its own", rl);
	strbuf_add(&sb, l, strspn(l, " \t"));
	strbuf_addf(&sb, "%s\n", CONTENDED);
	fix_pending_add(ps, src, decl, 0, strbuf_detach(&sb));
}

/* The fields the advice names: the line's contended ranges. */
static bool field_contended(const struct report_range *r)
{
	return r->member && (r->false_victim || r->false_writer);
}

char *fix_java_fields(struct fix_ctx *c, struct report_line *rl, struct pending_set *ps)
{
	char cwd[PATH_MAX], *path, *why = NULL;
	const char *root = c->root_opt ? c->root_opt : getcwd(cwd, sizeof(cwd));
	const struct fix_source *src;
	unsigned annotated = 0;

	if (!rl->type_name || !root)
		return xstrdup("the class or the project root is unknown");
	if (!(path = class_source(rl->type_name, root, &why)))
		return why;
	src = fix_source_of(c, path, &why);
	free(path);
	if (!src)
		return why;
	for (unsigned i = 0; i < rl->n_ranges && !why; i++) {
		const char *field = rl->ranges[i].member;
		struct brace_state st = { 0 };
		unsigned decl = 0, n = 0;

		if (!field_contended(&rl->ranges[i]))
			continue;
		/* a field is declared in a type's body, a local in a method's */
		for (unsigned k = 1; k <= src->n_lines; k++) {
			const char *l = fix_source_line(src, k);

			if (in_class_body(&st) && fix_line_names(l, field) &&
			    declares_field(l, field) && !n++)
				decl = k;
			braces_line(&st, l);
		}
		if (n > 1)
			why = xasprintf("field %s is declared %u times in %s: annotate it by hand",
					field, n, basename_of(src->path));
		else if (!n)
			why = xasprintf("no declaration of field %s in %s", field,
					basename_of(src->path));
		if (why)
			break;
		if (!strstr(fix_source_line(src, decl - 1), "Contended") &&
		    !strstr(fix_source_line(src, decl), "Contended")) {
			annotate(ps, src, decl, rl);
			annotated++;
		}
	}
	if (!why && annotated)
		strbuf_addf(&ps->caveat, "the JVM honours @Contended on an application class only "
			    "with -XX:-RestrictContended, and javac needs --add-exports "
			    "java.base/jdk.internal.vm.annotation=ALL-UNNAMED; each annotated "
			    "field gets a padded area of its own (128 bytes on either side)");
	return why;
}
