/* cmd_check.c - `contend check`: a pass/fail verdict for CI.
 *
 * Runs a command (-- CMD) or reads a data file (-i FILE), builds the
 * report exactly as `run` and `report` do, and judges each reported line
 * against the rules: --fail-on KIND, --min-score X, --allow PATTERN and
 * --baseline FILE.  Minor lines (real sharing below the thresholds) are
 * judged only against a baseline: one that is new there fails.  Latent
 * false sharing fails only under --fail-on latent (and not where the
 * baseline has it, or --allow names it).  A violation is printed as one line in the format
 * compilers use, at the hottest writing code site of the line,
 *
 *   src/stats.c:77: false sharing on counters[0] with counters[1] (...)
 *
 * so that CI logs and editors link to it.  Exit status: 0 pass, 1 some
 * line breaks the rules, 2 usage or environment error (including a target
 * that failed: its run proves nothing).  The violations and the verdict go
 * to stderr (the program under test owns stdout) or --log-fd N.
 * -o FILE writes the JSON report,
 * or the report in --format's format: SARIF carries the violations
 * (format_flags), so that code review shows them where this line points.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "detector/classify.h"
#include "cli/commands.h"
#include "common/escape.h"
#include "common/json_read.h"
#include "common/safe_file.h"
#include "cli/options.h"
#include "engine/session.h"
#include "common/util.h"
#include "reports/latent.h"
#include "reports/member_range.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/report.h"

#define BASELINE_MAX_BYTES (256u << 20)
/* "worsened": the score grew by more than half, and by more than noise */
#define WORSE_FACTOR 1.5
#define WORSE_MIN_DELTA 0.01

/* A line of the baseline report, by what it is rather than where it was:
 * addresses change from run to run, names do not. */
struct known_line {
	char *key;
	enum sharing_kind kind;
	double score;
};

struct checker {
	const struct options *opt;
	bool from_file;
	struct known_line *known;
	size_t n_known, alloc_known;
	unsigned violations, allowed, unchanged;
};

/* --- naming a line ------------------------------------------------------- */

/* "counters+8" -> "counters"; "[heap]+0x2a0" -> "[heap]" */
static char *object_symbol(const char *object)
{
	const char *plus = object ? strrchr(object, '+') : NULL;
	if (!object)
		return NULL;
	return plus && isdigit((unsigned char)plus[1]) ? xasprintf("%.*s", (int)(plus - object), object) : xstrdup(object);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "identity|member,member": the variable, else the type, else the object;
 * then the sorted contended members, a range of elements ("p[3..5]",
 * member_range.h) one by one, as a baseline from before they were merged
 * names them. */
static char *line_key(const char *variable, const char *type, const char *object,
		      const char **members, unsigned n)
{
	struct strbuf sb = STRBUF_INIT;
	char *sym = object_symbol(object);
	char **names = NULL;
	size_t n_names = 0, alloc = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned long first, last;
		size_t len;

		if (!member_range_parse(members[i], &len, &first, &last) || first == last) {
			ALLOC_GROW(names, n_names + 1, alloc);
			names[n_names++] = xstrdup(members[i]);
			continue;
		}
		for (unsigned long e = first; e <= last; e++) {
			ALLOC_GROW(names, n_names + 1, alloc);
			names[n_names++] = xasprintf("%.*s[%lu]", (int)len, members[i], e);
		}
	}
	strbuf_addf(&sb, "%s|", variable ? variable : type ? type : sym ? sym : "?");
	sort_items(names, n_names, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n_names; i++)
		if (!i || strcmp(names[i], names[i - 1]))
			strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]);
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	free(sym);
	return strbuf_detach(&sb);
}

static char *report_line_key(const struct report_line *l)
{
	const char **members = xcalloc(l->n_ranges + 1, sizeof(*members));
	unsigned n = 0;
	char *key;

	for (unsigned i = 0; i < l->n_ranges; i++)
		if (report_range_contended(&l->ranges[i]) && l->ranges[i].member)
			members[n++] = l->ranges[i].member;
	key = line_key(l->variable, l->type_name, l->object, members, n);
	free(members);
	return key;
}

static enum sharing_kind kind_from_id(const char *id)
{
	for (enum sharing_kind k = SHARING_FALSE; k <= SHARING_MIXED; k++)
		if (id && !strcmp(id, sharing_kind_id(k)))
			return k;
	return SHARING_NONE;
}

/* --- the baseline -------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;

	if (!f) {
		error("cannot open baseline %s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len <= BASELINE_MAX_BYTES)
		strbuf_add(&sb, buf, n);
	if (ferror(f) || sb.len > BASELINE_MAX_BYTES) {
		error("cannot read baseline %s: %s", path,
		      ferror(f) ? strerror(errno) : "larger than 256 MiB");
		fclose(f);
		strbuf_release(&sb);
		return NULL;
	}
	fclose(f);
	*len = sb.len;
	return strbuf_detach(&sb);
}

static void add_known(struct checker *c, const struct json *line)
{
	const struct json *ranges = json_get(line, "ranges");
	const char **members = xcalloc(ranges && ranges->type == JSON_ARRAY ? ranges->n + 1 : 1,
				       sizeof(*members));
	unsigned n = 0;
	struct known_line *k;

	for (size_t i = 0; ranges && ranges->type == JSON_ARRAY && i < ranges->n; i++) {
		const struct json *g = &ranges->items[i];
		const char *m = json_string(json_get(g, "member"));
		bool contended = false;
		for (const char *const *flag = (const char *const[]){ "true_shared",
				"false_victim", "false_writer", NULL }; *flag; flag++) {
			const struct json *b = json_get(g, *flag);
			contended |= b && b->type == JSON_BOOL && b->boolean;
		}
		if (contended && m)
			members[n++] = m;
	}
	ALLOC_GROW(c->known, c->n_known + 1, c->alloc_known);
	k = &c->known[c->n_known++];
	k->key = line_key(json_string(json_get(line, "variable")),
			  json_string(json_get(line, "type")),
			  json_string(json_get(line, "object")), members, n);
	k->kind = kind_from_id(json_string(json_get(line, "kind")));
	k->score = json_number(json_get(line, "score"), 0);
	free(members);
}

/* "latent|object type|member a,member b": a latent pair by its names */
static char *latent_key(const char *type, const char *object, const char *a, const char *b)
{
	const char *members[2] = { a ? a : "?", b ? b : "?" };
	char *who = xasprintf("latent %s", type ? type : object ? object : "?");
	char *key = line_key(who, NULL, NULL, members, 2);

	free(who);
	return key;
}

static void add_known_latent(struct checker *c, const struct json *lt)
{
	struct known_line *k;

	ALLOC_GROW(c->known, c->n_known + 1, c->alloc_known);
	k = &c->known[c->n_known++];
	k->key = latent_key(json_string(json_get(lt, "type")),
			    json_string(json_get(lt, "object")),
			    json_string(json_get(json_get(lt, "a"), "member")),
			    json_string(json_get(json_get(lt, "b"), "member")));
	k->kind = SHARING_NONE;
	k->score = json_number(json_get(lt, "share"), 0);
}

static int load_baseline(struct checker *c, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	const struct json *lines;
	struct json *doc;
	size_t len;
	char *text = read_file(path, &len);
	int ret = 0;

	if (!text)
		return -1;
	doc = json_parse(text, len, &err);
	free(text);
	if (!doc) {
		ret = error("baseline %s is not JSON: %s", path, strbuf_str(&err));
		goto out;
	}
	lines = json_get(doc, "lines");
	if (strcmp(json_string(json_get(doc, "schema")) ?: "", "contend-report") ||
	    !lines || lines->type != JSON_ARRAY) {
		ret = error("baseline %s is not a contend JSON report (write one with "
			    "'contend check -o FILE' or 'contend run --format json --top 0')", path);
		goto out;
	}
	if (json_number(json_get(doc, "version"), 0) != 1) {
		ret = error("baseline %s: report schema version %g; this contend reads 1", path,
			    json_number(json_get(doc, "version"), 0));
		goto out;
	}
	for (size_t i = 0; i < lines->n; i++)
		add_known(c, &lines->items[i]);
	/* minor lines and latent pairs are known too (both absent from
	 * reports of an older contend: nothing of theirs is known then) */
	lines = json_get(doc, "minor_lines");
	for (size_t i = 0; lines && lines->type == JSON_ARRAY && i < lines->n; i++)
		add_known(c, &lines->items[i]);
	lines = json_get(doc, "latent");
	for (size_t i = 0; lines && lines->type == JSON_ARRAY && i < lines->n; i++)
		add_known_latent(c, &lines->items[i]);
out:
	json_free(doc);
	strbuf_release(&err);
	return ret;
}

static const struct known_line *find_known(const struct checker *c, const char *key)
{
	for (size_t i = 0; i < c->n_known; i++)
		if (!strcmp(c->known[i].key, key))
			return &c->known[i];
	return NULL;
}

/* --- the rules ----------------------------------------------------------- */

static bool kind_fails(enum fail_on rule, enum sharing_kind k)
{
	switch (rule) {
	case FAIL_ON_ANY:
		return k != SHARING_NONE;
	case FAIL_ON_FALSE:
		return k == SHARING_FALSE || k == SHARING_MIXED;
	case FAIL_ON_TRUE:
		return k == SHARING_TRUE || k == SHARING_MIXED;
	}
	return false;
}

static const char *skip_keyword(const char *type)
{
	static const char *const keywords[] = { "struct ", "union ", "class " };
	for (size_t i = 0; type && i < ARRAY_SIZE(keywords); i++)
		if (!strncmp(type, keywords[i], strlen(keywords[i])))
			return type + strlen(keywords[i]);
	return type;
}

/* Is name (n bytes) the line's variable, object or type? */
static bool names_line(const struct report_line *l, const char *name, size_t n)
{
	const char *type = skip_keyword(l->type_name);
	char *sym = object_symbol(l->object);
	const char *cands[] = { l->variable, sym, l->type_name, type };
	bool yes = false;

	for (size_t i = 0; i < ARRAY_SIZE(cands) && !yes; i++)
		yes = cands[i] && strlen(cands[i]) == n && !strncmp(cands[i], name, n);
	free(sym);
	return yes;
}

/* member path m is pat, or ends with ".pat", or starts with "pat[" / "pat." */
static bool member_is(const char *m, const char *pat)
{
	size_t lm = strlen(m), lp = strlen(pat);

	if (!strcmp(m, pat))
		return true;
	if (lm > lp && m[lm - lp - 1] == '.' && !strcmp(m + lm - lp, pat))
		return true;
	return lm > lp && !strncmp(m, pat, lp) && (m[lp] == '[' || m[lp] == '.');
}

static bool member_allowed(const struct report_line *l, const char *m, const char *pat,
			   const char *dot)
{
	if (!strcmp(m, pat))
		return true;
	return dot && dot[1] && names_line(l, pat, (size_t)(dot - pat)) && member_is(m, dot + 1);
}

/* SYMBOL: the line's variable, object or type; TYPE.member: that, and one
 * of its contended members; or a contended member as printed, or one
 * element of a range of them ("p[3]" of "p[0..7]", member_range.h). */
static bool allowed_by(const struct report_line *l, const char *pat)
{
	const char *dot = strchr(pat, '.');

	if (names_line(l, pat, strlen(pat)))
		return true;
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const char *m = l->ranges[i].member;
		unsigned long first, last;
		size_t len;

		if (!report_range_contended(&l->ranges[i]) || !m)
			continue;
		if (member_allowed(l, m, pat, dot))
			return true;
		if (!member_range_parse(m, &len, &first, &last) || first == last)
			continue;
		for (unsigned long e = first; e <= last; e++) {
			char *name = xasprintf("%.*s[%lu]", (int)len, m, e);
			bool yes = member_allowed(l, name, pat, dot);

			free(name);
			if (yes)
				return true;
		}
	}
	return false;
}

static bool allowed(const struct options *opt, const struct report_line *l)
{
	for (unsigned i = 0; i < opt->n_allow; i++)
		if (allowed_by(l, opt->allow[i]))
			return true;
	return false;
}

/* --- printing a violation ------------------------------------------------ */

/* file:line: message, at the code that writes the line most */
static void print_violation(FILE *f, const struct report_line *l, const char *why)
{
	const struct report_range *at = NULL;
	const struct report_site *site = report_violation_site(l, &at);
	char *message = report_violation_message(l, why);
	struct strbuf loc = STRBUF_INIT, msg = STRBUF_INIT;

	/* "file:line: message", read by editors and CI: every name in it is
	 * the target's, so the location and the message are escaped apart
	 * (a file name cannot hold a ':' of the location, nor a newline) */
	if (site && site->file && site->line > 0)
		fprintf(f, "%s:%d: ", escape_location_path(&loc, site->file), site->line);
	else if (site && site->module)
		fprintf(f, "%s+0x%llx: ", escape_location_path(&loc, site->module),
			(unsigned long long)site->module_off);
	else
		fprintf(f, "%s: ", escape_location_path(&loc, l->object ? l->object : "?"));
	strbuf_release(&loc);
	fprintf(f, "%s\n", escape_text(&msg, message));
	strbuf_release(&msg);
	free(message);
}

/* --- the verdict --------------------------------------------------------- */

static bool breaks_rules(struct checker *c, const struct report_line *l, char **why)
{
	const struct options *opt = c->opt;
	const struct known_line *k;
	char *key;

	*why = NULL;
	if (!kind_fails(opt->fail_on, l->kind))
		return false;
	/* a minor line is below every threshold: only a baseline judges it */
	if (l->minor ? !opt->baseline : l->score < opt->classify.min_score)
		return false;
	if (allowed(opt, l)) {
		c->allowed++;
		return false;
	}
	if (!opt->baseline)
		return true;
	key = report_line_key(l);
	k = find_known(c, key);
	free(key);
	if (!k) {
		*why = xstrdup(l->minor ? "new since the baseline, minor" : "new since the baseline");
		return true;
	}
	if (k->kind != l->kind) {
		*why = xasprintf("was %s in the baseline", sharing_kind_name(k->kind));
		return true;
	}
	if (l->score > k->score * WORSE_FACTOR && l->score - k->score > WORSE_MIN_DELTA) {
		*why = xasprintf("score was %.3f in the baseline", k->score);
		return true;
	}
	c->unchanged++;
	return false;
}

/* --fail-on latent: a latent pair fails unless allowed (its object, type
 * or one of its members) or in the baseline. */
static bool latent_breaks_rules(struct checker *c, const struct report_latent *lt)
{
	const struct options *opt = c->opt;
	char *key;
	bool known;

	if (!opt->fail_on_latent)
		return false;
	for (unsigned i = 0; i < opt->n_allow; i++) {
		const char *pat = opt->allow[i];
		const char *type = skip_keyword(lt->type_name);

		if ((lt->object && !strcmp(lt->object, pat)) ||
		    (lt->type_name && !strcmp(lt->type_name, pat)) || (type && !strcmp(type, pat)) ||
		    (lt->a.member && !strcmp(lt->a.member, pat)) ||
		    (lt->b.member && !strcmp(lt->b.member, pat))) {
			c->allowed++;
			return false;
		}
	}
	if (!opt->baseline)
		return true;
	key = latent_key(lt->type_name, lt->object, lt->a.member, lt->b.member);
	known = find_known(c, key) != NULL;
	free(key);
	if (known)
		c->unchanged++;
	return !known;
}

/* file:line: latent false sharing: ..., at the code writing it */
static void print_latent_violation(FILE *f, const struct report_latent *lt)
{
	const struct report_latent_side *w = lt->a.writes ? &lt->a : &lt->b;
	char *message = latent_message(lt);
	struct strbuf loc = STRBUF_INIT, msg = STRBUF_INIT;

	if (w->site.file && w->site.line > 0)
		fprintf(f, "%s:%d: ", escape_location_path(&loc, w->site.file), w->site.line);
	else
		fprintf(f, "%s: ", escape_location_path(&loc, lt->object ? lt->object : "?"));
	fprintf(f, "%s\n", escape_text(&msg, message));
	strbuf_release(&loc);
	strbuf_release(&msg);
	free(message);
}

/* The exit status, and the summary on the log (stderr or --log-fd). */
static int verdict(const struct checker *c, const struct report *r, FILE *log)
{
	if (r->target_status != 0) {
		/* run says how the target failed; a recording cannot */
		if (c->from_file)
			error("the recorded program failed (%s %d): its run proves nothing",
			      r->target_status < 0 ? "signal" : "exit status",
			      abs(r->target_status));
		return 2;
	}
	if (!c->opt->quiet) {
		if (c->violations)
			fprintf(log, "contend: check failed: %u line%s break%s the rules\n",
				c->violations, c->violations == 1 ? "" : "s",
				c->violations == 1 ? "s" : "");
		else
			fprintf(log, "contend: check passed: %u contended line%s, %u allowed, "
				"%u as in the baseline\n", r->n_lines, r->n_lines == 1 ? "" : "s",
				c->allowed, c->unchanged);
		/* a pass that proves nothing must not look like one that does */
		if (r->inconclusive)
			fprintf(log, "contend: warning: inconclusive: %s (%u line%s undecided)\n",
				r->inconclusive, r->n_undecided, r->n_undecided == 1 ? "" : "s");
		if (r->n_latent && !c->opt->fail_on_latent)
			fprintf(log, "contend: note: %u latent false-sharing pair%s (on one line "
				"in other placements); --fail-on latent fails on them\n",
				r->n_latent, r->n_latent == 1 ? "" : "s");
	}
	return c->violations ? 1 : 0;
}

/* -o FILE: the report in --format's format (SARIF carries the verdicts),
 * or JSON where --format is the default text.  Checked before the run
 * (session_check_output), written safely (common/safe_file.h). */
static int write_artefact(const struct report *r, const struct options *opt,
			  const struct report_violation *v, unsigned n,
			  const struct report_latent *const *lv, unsigned n_lv)
{
	const struct report_format *fmt = opt->format;
	char *why = NULL;
	struct out_file *of = out_file_open(opt->output, &why);

	if (!strcmp(fmt->name, "text") || !strcmp(fmt->name, "annotate"))
		fmt = report_format_find("json", 0);
	if (of) {
		fmt->print(r, out_file_stream(of),
			   &(struct format_flags){ .full = opt->annotate_full, .judged = true,
						   .violations = v, .n_violations = n,
						   .latent_violations = lv,
						   .n_latent_violations = n_lv });
		if (out_file_commit(of, &why) == 0)
			return 0;
	}
	error("%s", why);
	free(why);
	return -1;
}

static int judge(void *ctx, const struct report *r, const struct options *opt)
{
	struct checker *c = ctx;
	unsigned n = r->n_lines + r->n_minor, n_lines, n_lv = 0;
	struct report_violation *v = xcalloc(n + 1, sizeof(*v));
	const struct report_latent **lv = xcalloc(r->n_latent + 1, sizeof(*lv));
	char **why = xcalloc(n + 1, sizeof(*why));
	char *log_why = NULL;
	struct out_file *log = out_file_open_fd(opt->report_fd, &log_why);
	int ret;

	if (!log) {
		error("%s", log_why);
		free(log_why);
		free(why);
		free(lv);
		free(v);
		return 2;
	}
	/* contended lines, then minor ones: SARIF shows the violations */
	for (unsigned i = 0; i < n; i++) {
		const struct report_line *l = i < r->n_lines ? &r->lines[i] :
					      &r->minor[i - r->n_lines];

		if (breaks_rules(c, l, &why[i])) {
			print_violation(out_file_stream(log), l, why[i]);
			v[c->violations++] = (struct report_violation){ l, why[i] };
		}
	}
	n_lines = c->violations;
	for (unsigned i = 0; i < r->n_latent; i++) {
		if (latent_breaks_rules(c, &r->latent[i])) {
			print_latent_violation(out_file_stream(log), &r->latent[i]);
			lv[n_lv++] = &r->latent[i];
			c->violations++;
		}
	}
	fflush(out_file_stream(log));
	ret = opt->output && write_artefact(r, opt, v, n_lines, lv, n_lv) < 0 ? 2 :
	      verdict(c, r, out_file_stream(log));
	if (out_file_commit(log, &log_why) < 0) {
		error("%s", log_why);
		free(log_why);
		ret = 2;
	}
	for (unsigned i = 0; i < n; i++)
		free(why[i]);
	free(lv);
	free(why);
	free(v);
	return ret;
}

static void checker_release(struct checker *c)
{
	free(c->opt->allow);      /* options_parse() grew it */
	for (size_t i = 0; i < c->n_known; i++)
		free(c->known[i].key);
	free(c->known);
}

int cmd_check(int argc, char **argv)
{
	struct options opt;
	struct checker c = { .opt = &opt };
	struct session_hooks hooks = { .ctx = &c, .report = judge };
	int ret;

	options_parse(&opt, argc, argv);
	if (opt.input && opt.argv)
		die("check: give -i FILE or a command after --, not both");
	if (!opt.input && !opt.argv)
		options_usage("check", 2);
	if (!opt.output && strcmp(opt.format->name, "text") && strcmp(opt.format->name, "annotate"))
		die("check: --format %s needs -o FILE: the log carries the violations",
		    opt.format->name);
	opt.top = 0;            /* every contended line is judged */
	c.from_file = opt.input != NULL;
	if (opt.baseline && load_baseline(&c, opt.baseline) < 0) {
		checker_release(&c);
		return 2;
	}
	ret = c.from_file ? report_data_file(&opt, &hooks) : session_run(&opt, &hooks);
	checker_release(&c);
	return ret;
}
