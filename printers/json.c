/* json.c - the report as one JSON object (docs/json-schema.md).
 *
 * A small writer keeps the nesting and the commas; the report functions
 * only say what goes where.  Small leaf objects (threads, sites, members)
 * are written on one line so that a long report stays readable.
 */
#include "printers/printers.h"
#include "reports/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/util.h"
#include "printers/fix_report.h"
#include "printers/json_string.h"

#define JSON_MAX_DEPTH 16

struct json_level {
	bool empty;                      /* nothing written in it yet */
	bool one_line;
	char close;                      /* '}' or ']' */
};

struct json {
	FILE *out;
	int depth;
	struct json_level level[JSON_MAX_DEPTH];
	bool mem_info;                   /* the report has hardware data sources */
};

/* The innermost open object or array; NULL at the top. */
static struct json_level *json_top(struct json *j)
{
	return j->depth ? &j->level[j->depth - 1] : NULL;
}

static void json_indent(struct json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separator, line break and key before a value; key is NULL in arrays. */
static void json_item(struct json *j, const char *key)
{
	struct json_level *in = json_top(j);

	if (in) {
		if (!in->empty)
			fputc(',', j->out);
		in->empty = false;
		if (in->one_line)
			fputc(' ', j->out);
		else
			json_indent(j);
	}
	if (key) {
		json_write_string(j->out, key);
		fputs(": ", j->out);
	}
}

static void json_open(struct json *j, const char *key, char open, bool one_line)
{
	struct json_level *in = json_top(j);

	json_item(j, key);
	if (j->depth == JSON_MAX_DEPTH)
		die("json: nesting deeper than %d", JSON_MAX_DEPTH);
	fputc(open, j->out);
	/* inside a one-line container everything stays on that line */
	j->level[j->depth++] = (struct json_level){
		.empty = true,
		.one_line = one_line || (in && in->one_line),
		.close = open == '{' ? '}' : ']',
	};
}

static void json_object(struct json *j, const char *key, bool one_line)
{
	json_open(j, key, '{', one_line);
}

static void json_array(struct json *j, const char *key, bool one_line)
{
	json_open(j, key, '[', one_line);
}

static void json_close(struct json *j)
{
	struct json_level in = *json_top(j);

	j->depth--;
	if (!in.empty) {
		if (in.one_line)
			fputc(' ', j->out);
		else
			json_indent(j);
	}
	fputc(in.close, j->out);
}

static void json_str(struct json *j, const char *key, const char *s)
{
	json_item(j, key);
	if (s)
		json_write_string(j->out, s);
	else
		fputs("null", j->out);
}

static void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_item(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

static void json_i64(struct json *j, const char *key, int64_t v)
{
	json_item(j, key);
	fprintf(j->out, "%" PRId64, v);
}

static void json_double(struct json *j, const char *key, double v)
{
	json_item(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

static void json_bool(struct json *j, const char *key, bool v)
{
	json_item(j, key);
	fputs(v ? "true" : "false", j->out);
}

static void json_null(struct json *j, const char *key)
{
	json_item(j, key);
	fputs("null", j->out);
}

/* A gain's range: high 0 is no upper bound (null); none stated (both
 * null) where unknown says why, under uk. */
static void gain_range_json(struct json *j, const char *lk, const char *hk,
			    double low, double high, const char *uk, const char *unknown)
{
	if (unknown) {
		json_null(j, lk);
		json_null(j, hk);
		json_str(j, uk, unknown);
		return;
	}
	json_double(j, lk, low);
	if (high > 0)
		json_double(j, hk, high);
	else
		json_null(j, hk);
}

/* Addresses are strings: JSON numbers lose precision past 2^53. */
static void json_addr(struct json *j, const char *key, uint64_t addr)
{
	json_item(j, key);
	fprintf(j->out, "\"0x%" PRIx64 "\"", addr);
}

/* ------------------------------------------------------------------ */

static void counts_json(struct json *j, const char *key,
			const struct named_count *c, unsigned n)
{
	json_object(j, key, true);
	for (unsigned i = 0; i < n; i++)
		json_u64(j, c[i].what, c[i].n);
	json_close(j);
}

/* HITM, peer and mean latency, where the backend reported them. */
static void mem_json(struct json *j, const struct report_mem *m)
{
	if (!j->mem_info)
		return;
	json_u64(j, "hitm_local", m->hitm_local);
	json_u64(j, "hitm_remote", m->hitm_remote);
	json_u64(j, "peer", m->peer);
	if (m->weighted)
		json_double(j, "mean_latency", (double)m->latency / (double)m->weighted);
	else
		json_null(j, "mean_latency");
}

/* with_pid: the line is shared by processes; each thread says its own. */
static void threads_json(struct json *j, const struct report_thread *t, unsigned n,
			 bool with_pid)
{
	json_array(j, "threads", false);
	for (unsigned i = 0; i < n; i++) {
		json_object(j, NULL, true);
		if (with_pid)
			json_u64(j, "pid", t[i].pid);
		json_u64(j, "tid", t[i].tid);
		if (tid_is_goroutine(t[i].tid))   /* the "g3" text prints */
			json_u64(j, "goroutine", t[i].tid - GOROUTINE_TID_BASE + 1);
		json_str(j, "comm", t[i].comm);
		json_u64(j, "reads", t[i].reads);
		json_u64(j, "writes", t[i].writes);
		mem_json(j, &t[i].mem);
		json_close(j);
	}
	json_close(j);
}

static void chains_json(struct json *j, const struct report_site *s)
{
	json_array(j, "chains", false);
	for (unsigned i = 0; i < s->n_chains; i++) {
		json_object(j, NULL, true);
		json_u64(j, "count", s->chains[i].count);
		json_array(j, "frames", true);
		for (unsigned k = 0; k < s->chains[i].n_frames; k++)
			json_str(j, NULL, s->chains[i].frames[k]);
		json_close(j);
		json_close(j);
	}
	json_close(j);
}

/* Where the code is: the fields a site and a side of a pair share. */
static void location_json(struct json *j, const struct report_site *s)
{
	json_addr(j, "ip", report_code_addr(s->ip));   /* never its version pin */
	json_str(j, "function", s->function);
	json_str(j, "file", s->file);
	if (s->line > 0)
		json_i64(j, "line", s->line);
	else
		json_null(j, "line");
	json_str(j, "inlined_into", s->inlined_into);
	json_str(j, "via", s->via);
	json_str(j, "module", s->module);
	if (s->module)
		json_addr(j, "module_offset", s->module_off);
	else
		json_null(j, "module_offset");
}

/* One line, unless it has call chains to list. */
static void site_json(struct json *j, const struct report_site *s)
{
	json_object(j, NULL, !s->n_chains);
	location_json(j, s);
	json_u64(j, "reads", s->reads);
	json_u64(j, "writes", s->writes);
	chains_json(j, s);
	json_close(j);
}

/* A range of array elements ("p[3..5]", member_range.h) lists them one
 * by one too, as they were named before ranges were merged. */
static void elements_json(struct json *j, const char *member)
{
	unsigned long first, last;
	size_t len;

	if (!member_range_parse(member, &len, &first, &last) || first == last)
		return;
	json_array(j, "elements", true);
	for (unsigned long i = first; i <= last; i++) {
		char *name = xasprintf("%.*s[%lu]", (int)len, member, i);

		json_str(j, NULL, name);
		free(name);
	}
	json_close(j);
}

static void range_json(struct json *j, const struct report_range *rr, bool with_pid)
{
	json_object(j, NULL, false);
	json_u64(j, "offset", rr->offset);
	json_u64(j, "size", rr->size);
	json_str(j, "member", rr->member);
	elements_json(j, rr->member);
	json_bool(j, "true_shared", rr->true_shared);
	json_bool(j, "false_victim", rr->false_victim);
	json_bool(j, "false_writer", rr->false_writer);
	json_u64(j, "reads", rr->reads);
	json_u64(j, "writes", rr->writes);
	mem_json(j, &rr->mem);
	threads_json(j, rr->threads, rr->n_threads, with_pid);
	json_array(j, "sites", false);
	for (unsigned i = 0; i < rr->n_sites; i++)
		site_json(j, &rr->sites[i]);
	json_close(j);
	json_close(j);
}

static void tids_json(struct json *j, const char *key, const uint32_t *tid, unsigned n)
{
	json_array(j, key, true);
	for (unsigned i = 0; i < n; i++)
		json_u64(j, NULL, tid[i]);
	json_close(j);
}

static void pair_side_json(struct json *j, const char *key, const struct report_pair_side *side)
{
	json_object(j, key, true);
	location_json(j, &side->site);
	json_u64(j, "reads", side->site.reads);
	json_u64(j, "writes", side->site.writes);
	json_u64(j, "concurrent", side->concurrent);
	tids_json(j, "tids", side->tids, side->n_tids);
	json_close(j);
}

static void pairs_json(struct json *j, const struct report_line *l)
{
	json_array(j, "pairs", false);
	for (unsigned i = 0; i < l->n_pairs; i++) {
		json_object(j, NULL, false);
		json_str(j, "kind", sharing_kind_id(l->pairs[i].kind));
		json_u64(j, "weight", l->pairs[i].weight);
		pair_side_json(j, "a", &l->pairs[i].a);
		pair_side_json(j, "b", &l->pairs[i].b);
		json_close(j);
	}
	json_close(j);
}

static void member_json(struct json *j, const struct report_member *m)
{
	json_object(j, NULL, true);
	json_str(j, "name", m->name);
	json_str(j, "type", m->type_name);
	json_u64(j, "offset", m->offset);
	json_u64(j, "size", m->size);
	json_u64(j, "reads", m->reads);
	json_u64(j, "writes", m->writes);
	tids_json(j, "writers", m->writers, m->n_writers);
	tids_json(j, "readers", m->readers, m->n_readers);
	json_close(j);
}

/* A layout's C text (deprecated fields: the rows below say it all). */
static void layout_text_json(struct json *j, const char *key,
			     const struct report_layout *lay)
{
	char *text = advice_layout_text(lay);

	json_str(j, key, text);
	free(text);
}

/* One member of a layout.  The current layout's rows say who writes and
 * reads each member; the proposal's, where it moves and what padding
 * goes before it. */
static void layout_row_json(struct json *j, const struct report_layout *lay,
			    const struct report_layout_row *row, bool current)
{
	json_object(j, NULL, true);
	json_str(j, "member", row->member);
	json_str(j, "type", row->type_name);
	json_u64(j, "offset", row->offset);
	json_u64(j, "size", row->size);
	json_u64(j, "align", row->align);
	json_u64(j, "padding_before", row->padding_before);
	if (row->line >= 0)
		json_i64(j, "line", row->line);
	else
		json_null(j, "line");
	if (row->access)
		json_str(j, "access", report_member_access(row->access));
	if (row->base)
		json_bool(j, "base", true);
	if (current) {
		tids_json(j, "writers", row->writers, row->n_writers);
		tids_json(j, "readers", row->readers, row->n_readers);
		json_u64(j, "accesses", row->accesses);
		json_double(j, "share", lay->accesses ? row->share : 0);
	} else {
		json_bool(j, "line_aligned", row->line_aligned);
	}
	json_close(j);
}

static void layout_json(struct json *j, const char *key,
			const struct report_layout *lay, bool current)
{
	if (!lay->title) {
		json_null(j, key);
		return;
	}
	json_object(j, key, false);
	json_str(j, "title", report_layout_title(lay));
	json_u64(j, "size", lay->size);
	json_u64(j, "align", lay->align);
	if (lay->placed)
		json_u64(j, "line_offset", lay->line_offset);
	else
		json_null(j, "line_offset");
	json_u64(j, "tail_padding", lay->tail_padding);
	json_array(j, "members", false);
	for (unsigned i = 0; i < lay->n_rows; i++)
		layout_row_json(j, lay, &lay->rows[i], current);
	json_close(j);
	json_close(j);
}

static void advice_json(struct json *j, const struct report_advice *a)
{
	if (!a->summary) {
		json_null(j, "advice");
		return;
	}
	json_object(j, "advice", false);
	json_str(j, "summary", a->summary);
	layout_text_json(j, "layout_now", &a->current);
	layout_text_json(j, "layout_proposed", &a->proposed);
	json_i64(j, "cost_bytes", a->cost_bytes);
	json_u64(j, "placements_sharing", a->placements_sharing);
	json_u64(j, "placements_total", a->placements_total);
	layout_json(j, "layout_current", &a->current, true);
	layout_json(j, "layout_padded", &a->proposed, false);
	if (a->placements_total) {
		json_object(j, "placements", true);
		json_u64(j, "sharing", a->placements_sharing);
		json_u64(j, "total", a->placements_total);
		json_close(j);
	} else {
		json_null(j, "placements");
	}
	json_close(j);
}

/* The exact counts of one watched word (watch backend). */
static void watch_word_json(struct json *j, const struct report_watch_word *w)
{
	json_object(j, NULL, false);
	json_u64(j, "offset", w->offset);
	json_u64(j, "size", w->size);
	json_str(j, "member", w->member);
	json_double(j, "window_s", w->window_s);
	json_u64(j, "windows", w->windows);
	json_bool(j, "cut_short", w->cut_short);
	json_u64(j, "threads_late", w->threads_late);
	json_u64(j, "threads_unarmed", w->threads_unarmed);
	json_u64(j, "reads", w->reads);
	json_u64(j, "writes", w->writes);
	json_array(j, "threads", false);
	for (unsigned i = 0; i < w->n_threads; i++) {
		json_object(j, NULL, true);
		json_u64(j, "tid", w->threads[i].tid);
		json_str(j, "comm", w->threads[i].comm);
		json_u64(j, "reads", w->threads[i].reads);
		json_u64(j, "writes", w->threads[i].writes);
		json_close(j);
	}
	json_close(j);
	json_array(j, "sites", false);
	for (unsigned i = 0; i < w->n_sites; i++)
		site_json(j, &w->sites[i]);
	json_close(j);
	json_close(j);
}

static void confirmation_json(struct json *j, const struct report_line *l)
{
	if (!l->confirmed_checked) {
		json_null(j, "confirmation");
		return;
	}
	json_object(j, "confirmation", false);
	json_str(j, "instrument", l->watch_by_code ? "uprobes" : "watchpoints");
	json_bool(j, "confirmed", l->confirmed);
	json_str(j, "kind", sharing_kind_id(l->watch_kind));
	json_addr(j, "line", l->watched_line);
	json_double(j, "window_s", l->watch_window_s);
	json_array(j, "words", false);
	for (unsigned i = 0; i < l->n_words; i++)
		watch_word_json(j, &l->words[i]);
	json_close(j);
	json_close(j);
}

static void lock_json(struct json *j, const struct report_lock *k)
{
	if (!k->name) {
		json_null(j, "lock");
		return;
	}
	json_object(j, "lock", true);
	json_str(j, "name", k->name);
	json_str(j, "type", k->type_name);
	json_addr(j, "address", k->addr);
	json_u64(j, "size", k->size);
	json_close(j);
}

/* Memory processes share: the processes, and the object and offset (the
 * same in each); absent on a line of one process's private memory. */
static void shared_json(struct json *j, const struct report_line *l)
{
	if (l->n_pids > 1) {
		json_array(j, "pids", true);
		for (unsigned i = 0; i < l->n_pids; i++)
			json_u64(j, NULL, l->pids[i]);
		json_close(j);
	}
	if (!l->obj_ino)
		return;
	json_object(j, "shared_memory", true);
	json_u64(j, "device_major", major(l->obj_dev));
	json_u64(j, "device_minor", minor(l->obj_dev));
	json_u64(j, "inode", l->obj_ino);
	json_addr(j, "offset", l->obj_off);
	json_close(j);
}

/* The heap block: only where allocations were tracked (docs/json-schema.md,
 * "Allocation fields"), so that reports without tracking keep their shape. */
static void alloc_json(struct json *j, const struct report_alloc *a)
{
	if (!a)
		return;
	json_object(j, "allocation", false);
	json_addr(j, "start", a->start);
	json_u64(j, "size", a->size);
	json_str(j, "call", a->call);
	if (a->count) {
		json_u64(j, "count", a->count);
		json_u64(j, "elem_size", a->elem_size);
	}
	if (a->align)
		json_u64(j, "align", a->align);
	json_bool(j, "freed", a->freed);
	json_u64(j, "tid", a->tid);
	if (a->walked) {
		json_null(j, "site");     /* read from the heap: never seen allocated */
	} else {
		json_object(j, "site", true);
		json_str(j, "name", a->site);
		json_str(j, "function", a->function);
		json_str(j, "file", a->file);
		json_u64(j, "line", a->line);
		json_addr(j, "return_address", a->address);
		json_close(j);
	}
	json_array(j, "callers", true);
	for (unsigned i = 0; i < a->n_callers; i++)
		json_str(j, NULL, a->callers[i]);
	json_close(j);
	json_str(j, "variable", a->variable);
	json_str(j, "type", a->type_name);
	json_u64(j, "type_size", a->type_size);
	json_str(j, "block_source", a->walked ? "heap-walk" : "shim");
	if (a->walked)
		json_u64(j, "usable_size", a->usable);
	json_close(j);
}

/* run --measure-fix only (docs/json-schema.md, "Measured gain") */
static void fix_run_json(struct json *j, const struct report_fix_run *fr)
{
	if (!fr)
		return;
	json_object(j, "fix_run", false);
	json_bool(j, "measured", !fr->not_measured);
	json_str(j, "not_measured", fr->not_measured);
	json_str(j, "not_fixable", fr->not_fixable);
	json_u64(j, "align", fr->align);
	json_array(j, "sites", false);
	for (unsigned i = 0; i < fr->n_sites; i++) {
		json_object(j, NULL, true);
		json_str(j, "name", fr->sites[i].name);
		json_str(j, "call", fr->sites[i].call);
		json_addr(j, "file_offset", fr->sites[i].off);
		json_close(j);
	}
	json_close(j);
	json_u64(j, "runs", fr->runs);
	if (!fr->not_measured) {
		json_u64(j, "blocks_fixed", fr->blocks_fixed);
		json_double(j, "wall_s_plain", fr->wall_plain);
		json_double(j, "wall_s_fixed", fr->wall_fixed);
		json_double(j, "cpu_s_plain", fr->cpu_plain);
		json_double(j, "cpu_s_fixed", fr->cpu_fixed);
		json_double(j, "gain", fr->gain);
		json_double(j, "cpu_gain", fr->cpu_gain);
		json_double(j, "gain_min", fr->gain_min);
		json_double(j, "gain_max", fr->gain_max);
		json_bool(j, "noisy", fr->noisy);
		json_str(j, "noise", fr->noise);
	}
	json_close(j);
}

/* "cpus": the CPUs the line's samples ran on; "numa_nodes": theirs, when
 * the sampling machine's topology is known; "cpus_beyond": some CPU from
 * REPORT_CPUS_MAX up.  Absent where no sample said its CPU. */
static void cpus_json(struct json *j, const struct report_line *l)
{
	bool any = l->cpus_beyond;

	for (unsigned i = 0; i < REPORT_CPUS_MAX / 64; i++)
		any = any || l->cpus[i];
	if (!any)
		return;
	json_array(j, "cpus", true);
	for (unsigned c = 0; c < REPORT_CPUS_MAX; c++)
		if (l->cpus[c / 64] & (1ULL << (c % 64)))
			json_u64(j, NULL, c);
	json_close(j);
	if (l->cpus_beyond)
		json_bool(j, "cpus_beyond", true);
	if (!l->nodes_known)
		return;
	json_array(j, "numa_nodes", true);
	for (unsigned n = 0; n < 64; n++)
		if (l->nodes & (1ULL << n))
			json_u64(j, NULL, n);
	json_close(j);
}

/* contend fix (reports/fix_patch.h): the line's part of the patch, as
 * data; "edits" index nothing: each is whole (docs/json-schema.md) */
static void line_fix_json(struct json *j, const struct report_patch *p,
			  const struct report_line_fix *f)
{
	if (!p || !p->built)
		return;
	json_object(j, "fix", false);
	json_str(j, "summary", f->summary);
	json_str(j, "caveat", f->caveat);
	json_str(j, "no_patch", f->none_why);
	json_array(j, "edits", false);
	for (unsigned i = 0; i < f->n_edits; i++) {
		const struct report_edit *e = &p->edits[f->edits[i]];

		json_object(j, NULL, false);
		json_str(j, "file", e->path);
		json_str(j, "source", e->source);
		json_u64(j, "line", e->line);
		json_u64(j, "lines_replaced", e->n_old);
		json_str(j, "old", e->old_text);
		json_str(j, "new", e->new_text);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

static void line_json(struct json *j, const struct report_line *l, unsigned rank,
		      const struct report_patch *patch)
{
	json_object(j, NULL, false);
	json_u64(j, "rank", rank);
	json_u64(j, "pid", l->pid);
	json_addr(j, "address", l->addr);
	shared_json(j, l);
	json_u64(j, "line_size", l->line_size);
	json_str(j, "kind", sharing_kind_id(l->kind));
	json_double(j, "score", l->score);
	json_double(j, "share", l->share);
	json_double(j, "concurrent_fraction", l->concurrent_frac);
	json_u64(j, "samples", l->samples);
	json_u64(j, "concurrent", l->concurrent);
	json_u64(j, "instances", l->n_instances ? l->n_instances : 1);
	if (l->minor)
		json_bool(j, "minor", true);
	mem_json(j, &l->mem);
	cpus_json(j, l);
	json_str(j, "object", l->object);
	json_str(j, "variable", l->variable);
	json_str(j, "type", l->type_name);
	if (l->variable || l->type_name)
		json_addr(j, "object_start", l->object_start);
	else
		json_null(j, "object_start");
	alloc_json(j, l->alloc);
	lock_json(j, &l->lock);
	json_u64(j, "typed", l->typed);
	json_u64(j, "untyped", l->untyped);
	json_double(j, "predicted_gain", l->predicted_gain);
	if (l->gain_unknown)
		json_str(j, "predicted_gain_unknown", l->gain_unknown);
	json_double(j, "predicted_gain_all", l->predicted_gain_all);
	gain_range_json(j, "predicted_gain_low", "predicted_gain_high", l->gain_low, l->gain_high,
			"predicted_gain_range_unknown", l->gain_range_unknown);
	gain_range_json(j, "predicted_gain_all_low", "predicted_gain_all_high",
			l->gain_all_low, l->gain_all_high, "predicted_gain_all_range_unknown",
			l->gain_all_range_unknown);
	json_bool(j, "gain_measured", l->measured && !l->measured->not_measured);
	if (l->gain_note)
		json_str(j, "predicted_gain_note", l->gain_note);
	if (l->gain_all_note)
		json_str(j, "predicted_gain_all_note", l->gain_all_note);
	if (l->measured && !l->measured->not_measured) {   /* the report's fix_run */
		json_double(j, "measured_gain", l->measured->gain);
	}
	threads_json(j, l->threads, l->n_threads, l->n_pids > 1);

	json_array(j, "ranges", false);
	for (unsigned i = 0; i < l->n_ranges; i++)
		range_json(j, &l->ranges[i], l->n_pids > 1);
	json_close(j);

	pairs_json(j, l);
	confirmation_json(j, l);

	json_array(j, "members", false);
	for (unsigned i = 0; i < l->n_members; i++)
		member_json(j, &l->members[i]);
	json_close(j);
	json_u64(j, "struct_size", l->struct_size);
	json_u64(j, "struct_align", l->struct_align);
	advice_json(j, &l->advice);
	line_fix_json(j, patch, &l->fix);
	json_close(j);
}

static void latent_side_json(struct json *j, const char *key,
			     const struct report_latent_side *s)
{
	json_object(j, key, false);
	json_u64(j, "tid", s->tid);
	json_addr(j, "address", s->addr);
	json_u64(j, "offset", s->offset);
	json_u64(j, "size", s->size);
	json_str(j, "member", s->member);
	json_u64(j, "reads", s->reads);
	json_u64(j, "writes", s->writes);
	json_object(j, "site", false);
	location_json(j, &s->site);
	json_close(j);
	json_close(j);
}

static const char *placement_basis_name(enum placement_basis b)
{
	switch (b) {
	case PLACEMENT_ALLOCATION:
		return "allocation";
	case PLACEMENT_MALLOC:
		return "malloc";
	case PLACEMENT_DECLARATION:
		return "declaration";
	case PLACEMENT_TYPE:
		break;
	}
	return "type";
}

static void latent_json(struct json *j, const struct report_latent *lt, unsigned rank)
{
	json_object(j, NULL, false);
	json_u64(j, "rank", rank);
	json_str(j, "kind", "latent_false");
	json_u64(j, "pid", lt->pid);
	json_str(j, "object", lt->object);
	json_str(j, "type", lt->type_name);
	json_addr(j, "object_start", lt->object_start);
	json_u64(j, "element_size", lt->type_size);
	json_u64(j, "type_align", lt->type_align);
	json_u64(j, "allocation_align", latent_alloc_align(lt));
	if (latent_decl_align(lt))
		json_u64(j, "declaration_align", latent_decl_align(lt));
	json_bool(j, "heap", lt->heap);
	json_double(j, "share", lt->share);
	json_u64(j, "gap", lt->gap);
	latent_side_json(j, "a", &lt->a);
	latent_side_json(j, "b", &lt->b);
	alloc_json(j, lt->alloc);
	json_array(j, "placements", false);
	for (unsigned i = 0; i < lt->n_placements; i++) {
		json_object(j, NULL, true);
		json_u64(j, "line_size", lt->placements[i].line_size);
		json_u64(j, "align", lt->placements[i].align);
		json_u64(j, "sharing", lt->placements[i].sharing);
		json_u64(j, "total", lt->placements[i].total);
		json_str(j, "alignment_of", placement_basis_name(lt->placements[i].basis));
		json_close(j);
	}
	json_close(j);
	json_str(j, "advice", lt->advice);
	json_close(j);
}

static void type_attribution_json(struct json *j, const struct report *r)
{
	uint64_t all = r->typed + r->untyped;

	json_object(j, "type_attribution", false);
	json_u64(j, "typed", r->typed);
	json_u64(j, "untyped", r->untyped);
	json_double(j, "rate", all ? (double)r->typed / (double)all : 0.0);
	counts_json(j, "untyped_by_reason", r->untyped_why, r->n_untyped_why);
	json_close(j);
}

/* What the gains were priced at (report.h, report_pricing()): the probe's ratios, or
 * null and why not, and the ratios used. */
static void json_price(struct json *j, const struct report *r)
{
	struct report_pricing p = report_pricing(r);

	json_object(j, "transfer_price", false);
	if (r->price.locked) {
		json_double(j, "locked", r->price.locked);
		json_double(j, "store", r->price.store);
		if (r->price.fenced)
			json_double(j, "fenced", r->price.fenced);
		else
			json_null(j, "fenced");
	} else {
		json_null(j, "locked");
		json_null(j, "store");
		json_null(j, "fenced");
		json_str(j, "note", r->price_note ? r->price_note : "not recorded");
	}
	json_u64(j, "runs", r->price.runs);
	json_double(j, "priced_locked", p.locked);
	json_double(j, "priced_store", p.store);
	json_double(j, "priced_fenced", p.fenced);
	json_double(j, "reference_locked", p.reference_locked);
	json_double(j, "reference_store", p.reference_store);
	json_double(j, "reference_fenced", p.reference_fenced);
	json_close(j);
}

/* The run's self-test of its instruments (instruments.h): each one's
 * state and what it counted against what happened; [] when untested. */
static void instruments_json(struct json *j, const struct report *r)
{
	json_array(j, "instruments", false);
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		const struct instrument_test *t = &r->instruments.t[i];
		char *text;

		if (t->state == INSTRUMENT_UNTESTED)
			continue;
		text = instrument_result_text(&r->instruments, (enum instrument)i);
		json_object(j, NULL, true);
		json_str(j, "name", instrument_name((enum instrument)i));
		json_str(j, "state", instrument_state_name(t->state));
		json_bool(j, "works", t->state == INSTRUMENT_WORKS);
		json_u64(j, "expected", t->expected);
		json_u64(j, "counted", t->counted);
		json_str(j, "result", text);
		json_close(j);
		free(text);
	}
	json_close(j);
}

/* How busy the machine was (run_facts.h): null where unknown. */
static void machine_json(struct json *j, const struct report *r)
{
	json_object(j, "machine", true);
	if (r->overlap >= 0)
		json_double(j, "overlap", r->overlap);
	else
		json_null(j, "overlap");
	if (r->cpu_pressure >= 0)
		json_double(j, "cpu_pressure", r->cpu_pressure);
	else
		json_null(j, "cpu_pressure");
	if (r->load >= 0)
		json_double(j, "load", r->load);
	else
		json_null(j, "load");
	json_bool(j, "busy", r->busy);
	json_double(j, "threshold_scale", r->busy_scale);
	json_close(j);
}

void report_print_json(const struct report *r, FILE *out)
{
	struct json j = { .out = out, .mem_info = r->mem_info };

	json_object(&j, NULL, false);
	json_str(&j, "schema", "contend-report");
	json_str(&j, "schema_id", "urn:contend:report:1");   /* docs/report-1.schema.json */
	json_u64(&j, "version", 1);
	json_str(&j, "command", r->command);
	json_str(&j, "backend", r->backend);
	json_str(&j, "backend_note", r->backend_note);
	if (r->jit_note)
		json_str(&j, "jit_note", r->jit_note);
	if (r->watch_note)
		json_str(&j, "watch_note", r->watch_note);
	json_price(&j, r);
	json_bool(&j, "memory_info", r->mem_info);
	json_u64(&j, "freq", r->freq);
	json_double(&j, "duration_s", r->duration);
	json_u64(&j, "line_size", r->line_size);
	if (r->target == TARGET_LAUNCHED) {
		json_i64(&j, "target_status", r->target_status);
	} else if (r->target == TARGET_PERF_FILE) {
		json_str(&j, "sampled_by", "perf");
	} else {        /* an attached process's exit status is its parent's */
		json_bool(&j, "attached", true);
		json_bool(&j, "target_running", r->target == TARGET_ATTACHED_RUNNING);
	}
	json_u64(&j, "samples", r->samples);
	json_u64(&j, "decoded", r->decoded);
	counts_json(&j, "dropped", r->dropped, r->n_dropped);
	type_attribution_json(&j, r);
	json_u64(&j, "candidates", r->n_candidates);
	machine_json(&j, r);
	json_str(&j, "verdict", r->n_lines ? "contended" : r->inconclusive ? "inconclusive" : "none");
	if (r->inconclusive)
		json_str(&j, "inconclusive", r->inconclusive);
	if (r->watch_windows) {
		json_object(&j, "watch", true);
		json_str(&j, "instrument", r->watch_by_code ? "uprobes" : "watchpoints");
		json_u64(&j, "windows", r->watch_windows);
		json_double(&j, "armed_s", r->watch_armed_s);
		json_close(&j);
	} else {
		json_null(&j, "watch");
	}
	json_u64(&j, "spurious_traps", r->traps_absorbed);
	instruments_json(&j, r);
	fix_run_json(&j, r->fix_run);
	if (r->patch.built) {
		json_object(&j, "patch", false);
		json_str(&j, "root", r->patch.root);
		json_str(&j, "diff", r->patch.diff);
		json_close(&j);
	}
	json_array(&j, "lines", false);
	for (unsigned i = 0; i < r->n_lines; i++)
		line_json(&j, &r->lines[i], i + 1, &r->patch);
	json_close(&j);
	json_array(&j, "minor_lines", false);
	for (unsigned i = 0; i < r->n_minor; i++)
		line_json(&j, &r->minor[i], i + 1, NULL);
	json_close(&j);
	json_array(&j, "latent", false);
	for (unsigned i = 0; i < r->n_latent; i++)
		latent_json(&j, &r->latent[i], i + 1);
	json_close(&j);
	json_array(&j, "undecided_lines", false);
	for (unsigned i = 0; i < r->n_undecided; i++)
		line_json(&j, &r->undecided[i], i + 1, NULL);
	json_close(&j);
	json_close(&j);
	fputc('\n', out);
}
