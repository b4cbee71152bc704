/* sarif.c - the report as SARIF 2.1.0, for code review (GitHub code
 * scanning and other SARIF viewers).
 *
 * One result per finding: under `contend check` (format_flags.judged) the
 * lines that break its rules, else every reported line.  A result sits at
 * the code that writes the line most (violation.h, as check's compiler-
 * style line), says the data, kind, score and advice in its message, and
 * lists the line's other code sites as related locations.  Its rule is the
 * kind: false-sharing, true-sharing, mixed-sharing.  Minor lines follow as
 * notes (under check, only those its baseline judged new, as errors), and
 * latent false sharing as notes of rule latent-false-sharing (under check,
 * only the pairs that break --fail-on latent, as errors).
 *
 * Source files under the source root are URIs relative to the base id
 * SRCROOT, which originalUriBaseIds sets to that root, as GitHub code
 * scanning expects; others are absolute file:// URIs.  The root is the
 * work tree (a directory holding .git) that holds the most of the report's
 * source files, else the current directory if it holds one, else the
 * directory all of them share: a run from outside the checkout still gives
 * relative URIs.  Code without a source line is located in its binary by
 * byte offset.
 *
 * Each result has a partialFingerprints entry that is the same on the
 * next run of the same code: a hash of what names the finding (the type
 * or variable, the members written, the function and relative file of its
 * site), never of addresses, counts or line numbers.
 */
#include "printers/printers.h"
#include "printers/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "printers/json_string.h"
#include "reports/report.h"
#include "reports/report.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SRCROOT "SRCROOT"

static const struct {
	enum sharing_kind kind;
	const char *id, *name, *text;
} rules[] = {
	{ SHARING_FALSE, "false-sharing", "FalseSharing",
	  "Threads write different data on one cache line: each write takes the "
	  "line from the other cores." },
	{ SHARING_TRUE, "true-sharing", "TrueSharing",
	  "Threads write the same bytes of one cache line: the line moves "
	  "between cores on every write." },
	{ SHARING_MIXED, "mixed-sharing", "MixedSharing",
	  "A cache line shared both ways: threads write the same bytes, and "
	  "other data beside them." },
	/* not a line's kind: a pair of ranges, see latent_result() */
	{ SHARING_NONE, "latent-false-sharing", "LatentFalseSharing",
	  "Threads write data less than a cache line apart that lies on two "
	  "lines only by where the object happens to start." },
};

static int rule_of(enum sharing_kind k)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].kind == k)
			return (int)i;
	return -1;
}

/* bytes outside RFC 3986's unreserved set and '/' as %XX */
static void uri_path(struct strbuf *sb, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
}

struct sarif {
	FILE *out;
	char *root;                  /* the source root, "/" ended; NULL: none */
	const struct report_patch *patch;    /* contend fix's edits */
};

static void key_str(FILE *out, const char *key, const char *val)
{
	fprintf(out, "\"%s\": ", key);
	json_write_string(out, val);
}

/* "artifactLocation": {...}, relative to SRCROOT where path lies under it */
static void artifact(struct sarif *s, const char *path)
{
	struct strbuf uri = STRBUF_INIT;
	size_t nroot = s->root ? strlen(s->root) : 0;
	bool under = s->root && !strncmp(path, s->root, nroot) && path[nroot];
	bool relative = under || path[0] != '/';

	if (!relative)
		strbuf_addf(&uri, "file://");
	uri_path(&uri, under ? path + nroot : path);
	fputs("\"artifactLocation\": { ", s->out);
	key_str(s->out, "uri", strbuf_str(&uri));
	if (relative && s->root)
		fprintf(s->out, ", \"uriBaseId\": \"%s\"", SRCROOT);
	fputs(" }", s->out);
	strbuf_release(&uri);
}

/* a location object for a code site (without braces around it) */
static void site_location(struct sarif *s, const struct report_site *site)
{
	fputs("\"physicalLocation\": { ", s->out);
	if (site->file && site->line > 0) {
		artifact(s, site->file);
		fprintf(s->out, ", \"region\": { \"startLine\": %d } }", site->line);
	} else if (site->module) {
		artifact(s, site->module);
		fprintf(s->out, ", \"region\": { \"byteOffset\": %" PRIu64 " } }", site->module_off);
	} else {
		fputs("\"address\": { ", s->out);
		fprintf(s->out, "\"absoluteAddress\": %" PRIu64 " } }", site->ip);
	}
	if (site->function) {
		fputs(", \"logicalLocations\": [ { ", s->out);
		key_str(s->out, "name", site->function);
		fputs(", \"kind\": \"function\" } ]", s->out);
	}
}

static bool has_place(const struct report_site *site)
{
	return (site->file && site->line > 0) || site->module;
}

/* The line's other sites: what else touches it, and where. */
static void related(struct sarif *s, const struct report_line *l, const struct report_site *main)
{
	unsigned id = 0;

	fputs(",\n          \"relatedLocations\": [", s->out);
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *g = &l->ranges[i];
		for (unsigned k = 0; k < g->n_sites; k++) {
			const struct report_site *site = &g->sites[k];
			char *text;
			if (site == main || !has_place(site))
				continue;
			text = xasprintf("%s %s: %" PRIu64 " sampled reads, %" PRIu64 " writes%s%s",
					 report_range_contended(g) ? "contends on" : "also touches",
					 g->member ? g->member : l->object ? l->object : "the line",
					 site->reads, site->writes, site->function ? " in " : "",
					 site->function ? site->function : "");
			fprintf(s->out, "%s\n            { \"id\": %u, ", id ? "," : "", id);
			site_location(s, site);
			fputs(", \"message\": { ", s->out);
			key_str(s->out, "text", text);
			fputs(" } }", s->out);
			free(text);
			id++;
		}
	}
	fputs(id ? "\n          ]" : " ]", s->out);
}

static void properties(struct sarif *s, const struct report_line *l)
{
	fputs(",\n          \"properties\": { ", s->out);
	key_str(s->out, "kind", sharing_kind_id(l->kind));
	fprintf(s->out, ", \"score\": %.6f", l->score);
	if (l->object) {
		fputs(", ", s->out);
		key_str(s->out, "object", l->object);
	}
	if (l->variable) {
		fputs(", ", s->out);
		key_str(s->out, "variable", l->variable);
	}
	if (l->type_name) {
		fputs(", ", s->out);
		key_str(s->out, "type", l->type_name);
	}
	fprintf(s->out, ", \"line_address\": \"0x%" PRIx64 "\", \"pid\": %" PRIu32
		", \"threads\": %u, \"confirmed\": %s }", l->addr, l->pid, l->n_threads,
		l->confirmed ? "true" : "false");
}

/* The path a URI names: relative to the root where it lies under it. */
static const char *relative_path(const struct sarif *s, const char *path)
{
	size_t n = s->root ? strlen(s->root) : 0;

	return path && n && !strncmp(path, s->root, n) && path[n] ? path + n : path;
}

/* partialFingerprints: what names the finding, hashed (top comment). */
static void fingerprint(struct sarif *s, const struct report_line *l,
			const struct report_site *site)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "%s|", l->type_name ? l->type_name : l->variable ? l->variable : "");
	for (unsigned i = 0; i < l->n_ranges; i++)
		if (l->ranges[i].writes && l->ranges[i].member)
			strbuf_addf(&key, "%s,", l->ranges[i].member);
	if (site)
		strbuf_addf(&key, "|%s|%s", site->function ? site->function : "",
			    site->file ? relative_path(s, site->file) : site->module ? site->module : "");
	fprintf(s->out, ",\n          \"partialFingerprints\": { \"contendFinding/v1\": "
		"\"%016" PRIx64 "\" }", hash_str(strbuf_str(&key)));
	strbuf_release(&key);
}

/* One replacement: whole lines [line, line + n_old) out, the text in
 * (columns 1 to 1 of the next line: the newlines go too). */
static void replacement(struct sarif *s, const struct report_edit *e, bool first)
{
	fprintf(s->out, "%s{ \"deletedRegion\": { \"startLine\": %u, \"startColumn\": 1, "
		"\"endLine\": %u, \"endColumn\": 1 }, \"insertedContent\": { ",
		first ? "" : ", ", e->line, e->line + e->n_old);
	key_str(s->out, "text", e->new_text);
	fputs(" } }", s->out);
}

/* "fixes": the line's part of contend fix's patch, one artifactChange
 * per file its edits touch in a row; nothing when it has none. */
static void fixes(struct sarif *s, const struct report_line *l)
{
	const struct report_line_fix *f = &l->fix;

	if (!s->patch || !f->summary || !f->n_edits)
		return;
	fputs(",\n          \"fixes\": [ { \"description\": { ", s->out);
	key_str(s->out, "text", f->summary);
	fputs(" }, \"artifactChanges\": [", s->out);
	for (unsigned i = 0; i < f->n_edits; i++) {
		const struct report_edit *e = &s->patch->edits[f->edits[i]];
		bool same = i && !strcmp(e->source, s->patch->edits[f->edits[i - 1]].source);

		if (!same) {
			fputs(i ? " ] }, { " : " { ", s->out);
			artifact(s, e->source);
			fputs(", \"replacements\": [ ", s->out);
		}
		replacement(s, e, !same);
	}
	fputs(" ] } ] } ]", s->out);
}

static void result(struct sarif *s, const struct report_line *l, const char *why,
		   const char *level, bool first)
{
	const struct report_range *at = NULL;
	const struct report_site *site = report_violation_site(l, &at);
	char *message = report_violation_message(l, why);
	int rule = rule_of(l->kind);

	fprintf(s->out, "%s\n        {\n          ", first ? "" : ",");
	if (rule >= 0)
		fprintf(s->out, "\"ruleId\": \"%s\", \"ruleIndex\": %d, ", rules[rule].id, rule);
	fprintf(s->out, "\"level\": \"%s\",\n          \"message\": { ", level);
	key_str(s->out, "text", message);
	fputs(" }", s->out);
	if (site && has_place(site)) {
		fputs(",\n          \"locations\": [ { ", s->out);
		site_location(s, site);
		fputs(" } ]", s->out);
		related(s, l, site);
	}
	fingerprint(s, l, site);
	fixes(s, l);
	properties(s, l);
	fputs("\n        }", s->out);
	free(message);
}

/* A latent pair: at the code writing it (side a's if both write), the
 * other side as its related location. */
static void latent_result(struct sarif *s, const struct report_latent *lt,
			  const char *level, bool first)
{
	const struct report_latent_side *w = lt->a.writes ? &lt->a : &lt->b;
	const struct report_latent_side *o = w == &lt->a ? &lt->b : &lt->a;
	char *message = latent_message(lt);
	int rule = rule_of(SHARING_NONE);

	fprintf(s->out, "%s\n        {\n          \"ruleId\": \"%s\", \"ruleIndex\": %d, "
		"\"level\": \"%s\",\n          \"message\": { ", first ? "" : ",",
		rules[rule].id, rule, level);
	key_str(s->out, "text", message);
	fputs(" }", s->out);
	if (has_place(&w->site)) {
		fputs(",\n          \"locations\": [ { ", s->out);
		site_location(s, &w->site);
		fputs(" } ]", s->out);
		if (has_place(&o->site)) {
			fputs(",\n          \"relatedLocations\": [\n            { \"id\": 0, ", s->out);
			site_location(s, &o->site);
			fputs(", \"message\": { ", s->out);
			key_str(s->out, "text", o->member ? o->member : "the other range");
			fputs(" } }\n          ]", s->out);
		}
	}
	fputs(",\n          \"properties\": { \"kind\": \"latent_false\", ", s->out);
	key_str(s->out, "object", lt->object ? lt->object : "?");
	fprintf(s->out, ", \"pid\": %" PRIu32 ", \"gap\": %" PRIu64 " }\n        }", lt->pid,
		lt->gap);
	free(message);
}

static void driver(struct sarif *s)
{
	fputs("      \"tool\": { \"driver\": {\n"
	      "        \"name\": \"contend\",\n", s->out);
	fprintf(s->out, "        \"version\": \"%s\",\n", PACKAGE_VERSION);
	fputs("        \"rules\": [", s->out);
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		fprintf(s->out, "%s\n          { \"id\": \"%s\", \"name\": \"%s\", "
			"\"shortDescription\": { ", i ? "," : "", rules[i].id, rules[i].name);
		key_str(s->out, "text", rules[i].kind == SHARING_NONE ? "latent false sharing" :
			sharing_kind_name(rules[i].kind));
		fputs(" }, \"fullDescription\": { ", s->out);
		key_str(s->out, "text", rules[i].text);
		fprintf(s->out, " }, \"defaultConfiguration\": { \"level\": \"%s\" } }",
			rules[i].kind == SHARING_NONE ? "note" : "warning");
	}
	fputs("\n        ]\n      } },\n", s->out);
}

/* The run's instruments (instruments.h): one notification per instrument
 * that failed its self-test, so that a reviewer sees what the results
 * could not rest on, and every state as the run's properties. */
static void invocation(struct sarif *s, const struct report *r)
{
	bool any = false;

	fputs("      \"invocations\": [ { \"executionSuccessful\": true, "
	      "\"toolExecutionNotifications\": [", s->out);
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		enum instrument_state st = r->instruments.t[i].state;
		char *text, *message;

		if (st == INSTRUMENT_UNTESTED || st == INSTRUMENT_WORKS)
			continue;
		text = instrument_result_text(&r->instruments, (enum instrument)i);
		message = xasprintf("%s %s", instrument_name((enum instrument)i), text);
		fprintf(s->out, "%s\n        { \"level\": \"warning\", \"message\": { ",
			any ? "," : "");
		key_str(s->out, "text", message);
		fputs(" } }", s->out);
		free(message);
		free(text);
		any = true;
	}
	fputs(any ? "\n      ] } ],\n" : " ] } ],\n", s->out);
	fputs("      \"properties\": { \"instruments\": {", s->out);
	any = false;
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		if (r->instruments.t[i].state == INSTRUMENT_UNTESTED)
			continue;
		fprintf(s->out, "%s \"%s\": \"%s\"", any ? "," : "",
			instrument_name((enum instrument)i),
			instrument_state_name(r->instruments.t[i].state));
		any = true;
	}
	fputs(any ? " }, " : "}, ", s->out);
	fprintf(s->out, "\"confirmation\": \"%s\" },\n",
		!r->watch_windows ? "none" : r->watch_by_code ? "uprobes" : "watchpoints");
}

/* The n-th absolute source file the report names (repeats included),
 * NULL past the last. */
static const char *nth_source(const struct report *r, unsigned n)
{
	for (unsigned i = 0; i < r->n_lines + r->n_minor; i++) {
		const struct report_line *l = i < r->n_lines ? &r->lines[i] :
					      &r->minor[i - r->n_lines];
		for (unsigned g = 0; g < l->n_ranges; g++)
			for (unsigned k = 0; k < l->ranges[g].n_sites; k++) {
				const char *f = l->ranges[g].sites[k].file;

				if (f && f[0] == '/' && !n--)
					return f;
			}
	}
	return NULL;
}

/* The deepest directory ("/"-ended) every absolute source file lies under;
 * NULL if that is "/" alone. */
static char *common_directory(const struct report *r)
{
	const char *f = nth_source(r, 0);
	char *dir = xstrdup(f);
	size_t len = (size_t)(strrchr(dir, '/') - dir) + 1;

	for (unsigned i = 1; (f = nth_source(r, i)); i++)
		while (len > 1 && strncmp(f, dir, len))
			len = (size_t)((char *)memrchr(dir, '/', len - 1) - dir) + 1;
	dir[len] = '\0';
	if (len > 1)
		return dir;
	free(dir);
	return NULL;
}

/* Is dir (a "/"-ended path) a work tree: does it hold .git? */
static bool is_work_tree(const char *dir)
{
	char *git = xasprintf("%s.git", dir);
	struct stat st;
	bool yes = lstat(git, &st) == 0;

	free(git);
	return yes;
}

/* The work tree holding file ("/"-ended), NULL if none does. */
static char *work_tree_of(const char *file)
{
	char *dir = xstrdup(file), *slash;

	while ((slash = strrchr(dir, '/')) && slash != dir) {
		slash[1] = '\0';
		if (is_work_tree(dir))
			return dir;
		*slash = '\0';
	}
	free(dir);
	return NULL;
}

/* The source root (top comment), "/" ended, NULL if none fits: the work
 * tree holding the most of the report's source files, else the current
 * directory if it holds one, else their common directory.  Looks only at
 * names (lstat of .git): the files are the target's, never opened here. */
static char *source_root(const struct report *r)
{
	char *best = NULL, *cwd;
	unsigned best_n = 0;
	const char *f;

	for (unsigned i = 0; (f = nth_source(r, i)); i++) {
		char *tree = work_tree_of(f);
		unsigned n = 0;

		for (unsigned k = 0; tree && (f = nth_source(r, k)); k++)
			n += !strncmp(f, tree, strlen(tree));
		if (n > best_n) {
			free(best);
			best = tree;
			best_n = n;
		} else {
			free(tree);
		}
		if (best_n && i >= 16)
			break;          /* enough to choose by */
	}
	if (best)
		return best;
	cwd = getcwd(NULL, 0);
	if (cwd && cwd[0] == '/') {
		char *root = xasprintf("%s%s", cwd, cwd[strlen(cwd) - 1] == '/' ? "" : "/");

		free(cwd);
		for (unsigned i = 0; (f = nth_source(r, i)); i++)
			if (!strncmp(f, root, strlen(root)))
				return root;
		free(root);
	} else {
		free(cwd);
	}
	return nth_source(r, 0) ? common_directory(r) : NULL;
}

void report_print_sarif(const struct report *r, FILE *out, const struct format_flags *f)
{
	struct sarif s = { .out = out, .root = source_root(r), .patch = &r->patch };
	bool judged = f && f->judged;
	unsigned n = judged ? f->n_violations : r->n_lines;

	fprintf(out, "{\n  \"$schema\": \"%s\",\n  \"version\": \"2.1.0\",\n"
		"  \"runs\": [\n    {\n", SARIF_SCHEMA);
	driver(&s);
	invocation(&s, r);
	if (s.root) {
		struct strbuf uri = STRBUF_INIT;
		strbuf_addf(&uri, "file://");
		uri_path(&uri, s.root);
		fprintf(out, "      \"originalUriBaseIds\": { \"%s\": { ", SRCROOT);
		key_str(out, "uri", strbuf_str(&uri));
		fputs(" } },\n", out);
		strbuf_release(&uri);
	}
	fputs("      \"results\": [", out);
	for (unsigned i = 0; i < n; i++) {
		if (judged)
			result(&s, f->violations[i].line, f->violations[i].why, "error", !i);
		else
			result(&s, &r->lines[i], NULL, "warning", !i);
	}
	for (unsigned i = 0; !judged && i < r->n_minor; i++, n++)
		result(&s, &r->minor[i], NULL, "note", !n);
	for (unsigned i = 0; judged && i < f->n_latent_violations; i++, n++)
		latent_result(&s, f->latent_violations[i], "error", !n);
	for (unsigned i = 0; !judged && i < r->n_latent; i++, n++)
		latent_result(&s, &r->latent[i], "note", !n);
	fputs(n ? "\n      ]\n" : " ]\n", out);
	fputs("    }\n  ]\n}\n", out);
	free(s.root);
}
