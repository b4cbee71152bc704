/* fix_diff.c - a file's edits as a unified diff (fix_patch.h). */
#include "reports/fix_patch.h"

#include <string.h>

#include "common/util.h"
#include "reports/fix_source.h"

#define CONTEXT 3

/* One line of the diff: its mark, then the line, which ends in '\n'
 * unless it is the file's last and the file has none. */
static void diff_line(struct strbuf *sb, char mark, const char *line)
{
	size_t n = strlen(line);

	strbuf_addch(sb, mark);
	strbuf_add(sb, line, n);
	if (!n || line[n - 1] != '\n')
		strbuf_addf(sb, "\n\\ No newline at end of file\n");
}

static void added_lines(struct strbuf *sb, const char *text, unsigned *count)
{
	for (const char *p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		strbuf_addch(sb, '+');
		strbuf_add(sb, p, n);
		if (!nl)
			strbuf_addch(sb, '\n');
		(*count)++;
		p += n;
	}
}

/* Edits [i, j] as one hunk, after `delta` lines added so far. */
static void hunk(struct strbuf *out, const struct fix_source *src,
		 const struct report_edit *const *e, unsigned i, unsigned j, long *delta)
{
	struct strbuf body = STRBUF_INIT;
	unsigned from = e[i]->line > CONTEXT ? e[i]->line - CONTEXT : 1;
	unsigned last = e[j]->line + e[j]->n_old - 1 + CONTEXT, cur = from;
	unsigned old_n = 0, new_n = 0;
	long old_start, new_start;

	if (last > src->n_lines)
		last = src->n_lines;
	for (unsigned k = i, m; k <= j; k = m + 1) {
		/* edits that touch print as one change: lines out, then in */
		for (m = k; m < j && e[m + 1]->line == e[m]->line + e[m]->n_old; m++)
			;
		for (; cur < e[k]->line; cur++, old_n++, new_n++)
			diff_line(&body, ' ', fix_source_line(src, cur));
		for (; cur < e[m]->line + e[m]->n_old; cur++, old_n++)
			diff_line(&body, '-', fix_source_line(src, cur));
		for (unsigned t = k; t <= m; t++)
			added_lines(&body, e[t]->new_text, &new_n);
	}
	for (; cur <= last; cur++, old_n++, new_n++)
		diff_line(&body, ' ', fix_source_line(src, cur));
	/* an empty side names the line before it, as diff(1) does */
	old_start = old_n ? (long)from : (long)from - 1;
	new_start = new_n ? (long)from + *delta : (long)from + *delta - 1;
	strbuf_addf(out, "@@ -%ld,%u +%ld,%u @@\n", old_start, old_n, new_start, new_n);
	strbuf_add(out, strbuf_str(&body), body.len);
	*delta += (long)new_n - (long)old_n;
	strbuf_release(&body);
}

char *fix_unified_diff(const struct fix_source *src, const char *path,
		       const struct report_edit *const *edits, unsigned n)
{
	struct strbuf sb = STRBUF_INIT;
	long delta = 0;

	strbuf_addf(&sb, "--- a/%s\n+++ b/%s\n", path, path);
	for (unsigned i = 0; i < n; ) {
		unsigned j = i;

		/* edits whose contexts would meet share a hunk */
		while (j + 1 < n && edits[j + 1]->line <=
		       edits[j]->line + edits[j]->n_old + 2 * CONTEXT)
			j++;
		hunk(&sb, src, edits, i, j, &delta);
		i = j + 1;
	}
	return strbuf_detach(&sb);
}
