/* patch.c - `--format patch` and `contend fix`: the fix as a unified diff
 * (reports/fix_patch.h), after "# " lines that say, per contended line,
 * what the patch does, what to check, or why it leaves the line alone.
 * patch(1) and git apply skip the "# " lines: the output applies as it is
 * with `patch -p1` (or `git apply`) in the project root it names. */
#include "printers/printers.h"

#include "common/escape.h"
#include "common/util.h"
#include "reports/report.h"

static void comment(FILE *out, const char *label, const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	fprintf(out, "#   %s%s\n", label, escape_text(&sb, text));
	strbuf_release(&sb);
}

void report_print_patch(const struct report *r, FILE *out)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	unsigned patched = 0;

	fprintf(out, "# contend fix: %s\n", escape_text(&a, r->command));
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];

		/* cli/fix_verify.c reads these back: kind, type, variable */
		fprintf(out, "# line %u, %s (%s)", i + 1, escape_text(&a, l->object),
			sharing_kind_name(l->kind));
		if (l->struct_name)
			fprintf(out, ", type %s", escape_text(&a, l->struct_name));
		else if (l->type_name)
			fprintf(out, ", type %s", escape_text(&a, l->type_name));
		if (l->variable)
			fprintf(out, ", variable %s", escape_text(&a, l->variable));
		fprintf(out, ":\n");
		if (l->fix.summary) {
			patched++;
			comment(out, "patch: ", l->fix.summary);
			if (l->fix.caveat)
				comment(out, "check: ", l->fix.caveat);
		} else {
			comment(out, "no patch: ", l->fix.none_why ? l->fix.none_why :
				"the patch was not built");
		}
	}
	if (!r->n_lines && r->inconclusive)
		fprintf(out, "# inconclusive: %s: nothing to patch\n",
			escape_text(&a, r->inconclusive));
	else if (!r->n_lines)
		fprintf(out, "# no contended line: nothing to patch\n");
	if (r->patch.diff)
		fprintf(out, "# apply in %s: patch -p1 < THIS-FILE (or git apply)\n%s",
			escape_text(&b, r->patch.root), r->patch.diff);
	else if (r->n_lines && !patched)
		fprintf(out, "# no line could be patched\n");
	strbuf_release(&a);
	strbuf_release(&b);
}
