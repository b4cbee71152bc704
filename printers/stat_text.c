/* stat_text.c - `contend stat`'s triage in text and JSON (printers.h): it
 * renders what stat_report_finish() (reports/stat_report.h) derived, and
 * never recomputes it.
 */
#include "printers/printers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/util.h"
#include "printers/json_string.h"
#include "reports/stat_report.h"

#define STAT_TEXT_THREADS 20

/* --- text ------------------------------------------------------------------ */

static void print_num(FILE *out, double v, const char *fmt, int width)
{
	if (isnan(v))
		fprintf(out, " %*s", width, "-");
	else
		fprintf(out, fmt, width, v);
}

static void print_row(FILE *out, const char *label, const struct stat_metrics *m)
{
	const struct counter_value *v = m->c.v;

	fprintf(out, "%-24s", label);
	print_num(out, v[CM_TASK_CLOCK].read ? v[CM_TASK_CLOCK].value / 1e6 : NAN, " %*.1f", 10);
	print_num(out, v[CM_CTX_SWITCHES].read ? v[CM_CTX_SWITCHES].value : NAN, " %*.0f", 7);
	print_num(out, v[CM_PAGE_FAULTS].read ? v[CM_PAGE_FAULTS].value : NAN, " %*.0f", 7);
	print_num(out, m->cpi, " %*.2f", 5);
	print_num(out, m->mo_clears_pki, " %*.2f", 7);
	print_num(out, m->hitm_pki, " %*.2f", 6);
	print_num(out, m->l3_miss_pki, " %*.2f", 7);
	print_num(out, m->dtlb_walks_pki, " %*.2f", 6);
	if (m->samples)
		fprintf(out, "  %5.1f%% of %llu", 100.0 * (double)m->on_contended / (double)m->samples,
			(unsigned long long)m->samples);
	else
		fprintf(out, "  %6s", "-");
	fputc('\n', out);
}

/* How busy a thread was: its samples, else its CPU time. */
static double activity(const struct stat_thread *t)
{
	const struct counter_value *clock = &t->m.c.v[CM_TASK_CLOCK];

	return (double)t->m.samples * 1e9 + (clock->read ? clock->value : 0.0);
}

/* The text shows the STAT_TEXT_THREADS busiest threads (in tid order):
 * a thread pool of a thousand would bury the verdict. */
static bool shown_thread(const struct stat_report *r, const struct stat_thread *t)
{
	unsigned busier = 0;
	double a = activity(t);

	if (r->n_threads <= STAT_TEXT_THREADS)
		return true;
	for (unsigned i = 0; i < r->n_threads && busier < STAT_TEXT_THREADS; i++) {
		double b = activity(&r->threads[i]);

		busier += b > a || (b == a && r->threads[i].tid < t->tid);
	}
	return busier < STAT_TEXT_THREADS;
}

static void print_unread(const struct stat_report *r, FILE *out)
{
	struct strbuf esc = STRBUF_INIT;

	if (!r->n_unread)
		return;
	fprintf(out, "\ncounters that could not be read:\n");
	for (unsigned i = 0; i < r->n_unread; i++) {
		const struct stat_unread *u = &r->unread[i];

		fprintf(out, "  %-31s %s%s%s\n", counter_metric_name(u->metric),
			u->event ? u->event : "", u->event ? ": " : "",
			escape_text(&esc, u->why));
	}
	strbuf_release(&esc);
}

static void print_header(const struct stat_report *r, FILE *out)
{
	struct strbuf esc = STRBUF_INIT;

	fprintf(out, "# contend stat: %s", escape_text(&esc, r->command ? r->command : "?"));
	if (r->launched)
		fprintf(out, "   (exit %d, %.2f s)\n", r->target_status, r->duration);
	else
		fprintf(out, "   (pid %u, %.2f s)\n", r->pid, r->duration);
	fprintf(out, "# CPU: %s\n", escape_text(&esc, r->model ? r->model : "?"));
	for (unsigned m = 0; m < CM__COUNT; m++)
		if (r->event[m] && r->caveat[m])
			fprintf(out, "#   %s: %s\n", counter_metric_name(m), r->caveat[m]);
	if (r->fit_note)
		fprintf(out, "# note: %s\n", r->fit_note);
	if (r->multiplex_note)
		fprintf(out, "# note: %s\n", r->multiplex_note);
	if (r->threads_note)
		fprintf(out, "# note: %s\n", r->threads_note);
	if (r->sampler)
		fprintf(out, "# sampled alongside with the %s backend: %u contended line%s\n",
			r->sampler, r->contended_lines, r->contended_lines == 1 ? "" : "s");
	strbuf_release(&esc);
}

void stat_report_print_text(const struct stat_report *r, FILE *out)
{
	struct strbuf esc = STRBUF_INIT;

	print_header(r, out);
	print_unread(r, out);
	fprintf(out, "\n%-24s %10s %7s %7s %5s %7s %6s %7s %6s  %s\n", "", "task ms", "ctx-sw",
		"faults", "CPI", "clr/1k", "HITM/k", "L3m/1k", "dTLB/k", "sampled on contended lines");
	print_row(out, "process", &r->process);
	for (unsigned i = 0; i < r->n_threads; i++) {
		const struct stat_thread *t = &r->threads[i];
		char label[64];

		if (!shown_thread(r, t))
			continue;
		snprintf(label, sizeof(label), "  %u %s", t->tid,
			 t->comm ? escape_text(&esc, t->comm) : "");
		print_row(out, label, &t->m);
	}
	if (r->n_threads > STAT_TEXT_THREADS)
		fprintf(out, "  ... %u more threads (--format json lists every one)\n",
			r->n_threads - STAT_TEXT_THREADS);
	fprintf(out, "\n%s\n", r->verdict ? r->verdict : "no verdict");
	if (r->n_thresholds)
		fprintf(out, "thresholds:\n");
	for (unsigned i = 0; i < r->n_thresholds; i++)
		fprintf(out, "  %s: %s\n", r->thresholds[i].what, r->thresholds[i].source);
	strbuf_release(&esc);
}

/* --- JSON ------------------------------------------------------------------ */

static void json_string_or_null(FILE *out, const char *s)
{
	if (s)
		json_write_string(out, s);
	else
		fputs("null", out);
}

static void json_number(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.15g", v);
}

static void json_metrics(FILE *out, const struct stat_metrics *m, const char *indent)
{
	fprintf(out, "%s\"counts\": {", indent);
	for (unsigned k = 0, first = 1; k < CM__COUNT; k++) {
		const struct counter_value *v = &m->c.v[k];

		if (!v->read)
			continue;
		fprintf(out, "%s\n%s  \"%s\": { \"value\": ", first ? "" : ",", indent,
			counter_metric_id(k));
		json_number(out, v->value);
		fprintf(out, ", \"raw\": %llu, \"enabled_ns\": %llu, \"running_ns\": %llu }",
			(unsigned long long)v->raw, (unsigned long long)v->enabled_ns,
			(unsigned long long)v->running_ns);
		first = 0;
	}
	fprintf(out, "\n%s},\n%s\"cpi\": ", indent, indent);
	json_number(out, m->cpi);
	fprintf(out, ", \"mo_clears_pki\": ");
	json_number(out, m->mo_clears_pki);
	fprintf(out, ", \"hitm_pki\": ");
	json_number(out, m->hitm_pki);
	fprintf(out, ", \"l3_misses_pki\": ");
	json_number(out, m->l3_miss_pki);
	fprintf(out, ", \"dtlb_walks_pki\": ");
	json_number(out, m->dtlb_walks_pki);
	fprintf(out, ", \"contested_cycles\": ");
	json_number(out, m->contested);
	fprintf(out, ",\n%s\"samples\": %llu, \"samples_on_contended\": %llu", indent,
		(unsigned long long)m->samples, (unsigned long long)m->on_contended);
}

static void json_events(const struct stat_report *r, FILE *out)
{
	fprintf(out, "  \"events\": {");
	for (unsigned m = 0, first = 1; m < CM__COUNT; m++) {
		if (!r->event[m])
			continue;
		fprintf(out, "%s\n    \"%s\": { \"event\": ", first ? "" : ",", counter_metric_id(m));
		json_string_or_null(out, r->event[m]);
		fprintf(out, ", \"caveat\": ");
		json_string_or_null(out, r->caveat[m]);
		fprintf(out, " }");
		first = 0;
	}
	fprintf(out, "\n  },\n  \"unreadable\": [");
	for (unsigned i = 0; i < r->n_unread; i++) {
		fprintf(out, "%s\n    { \"metric\": \"%s\", \"event\": ", i ? "," : "",
			counter_metric_id(r->unread[i].metric));
		json_string_or_null(out, r->unread[i].event);
		fprintf(out, ", \"why\": ");
		json_string_or_null(out, r->unread[i].why);
		fprintf(out, " }");
	}
	fprintf(out, "%s],\n", r->n_unread ? "\n  " : "");
}

void stat_report_print_json(const struct stat_report *r, FILE *out)
{
	fprintf(out, "{\n  \"schema\": \"contend-stat\",\n  \"version\": 1,\n  \"command\": ");
	json_string_or_null(out, r->command);
	fprintf(out, ",\n  \"pid\": %u,\n  \"duration_s\": %.6g,\n", r->pid, r->duration);
	if (r->launched)
		fprintf(out, "  \"target_status\": %d,\n", r->target_status);
	fprintf(out, "  \"cpu\": ");
	json_string_or_null(out, r->model);
	fprintf(out, ",\n  \"notes\": [");
	if (r->fit_note)
		json_string_or_null(out, r->fit_note);
	if (r->multiplex_note) {
		fprintf(out, "%s", r->fit_note ? ", " : "");
		json_string_or_null(out, r->multiplex_note);
	}
	if (r->threads_note) {
		fprintf(out, "%s", r->fit_note || r->multiplex_note ? ", " : "");
		json_string_or_null(out, r->threads_note);
	}
	fprintf(out, "],\n");
	json_events(r, out);
	fprintf(out, "  \"sampler\": ");
	json_string_or_null(out, r->sampler);
	fprintf(out, ",\n  \"contended_lines\": %u,\n  \"process\": {\n", r->contended_lines);
	json_metrics(out, &r->process, "    ");
	fprintf(out, "\n  },\n  \"threads\": [");
	for (unsigned i = 0; i < r->n_threads; i++) {
		fprintf(out, "%s\n    {\n      \"tid\": %u, \"comm\": ", i ? "," : "",
			r->threads[i].tid);
		json_string_or_null(out, r->threads[i].comm);
		fprintf(out, ",\n");
		json_metrics(out, &r->threads[i].m, "      ");
		fprintf(out, "\n    }");
	}
	fprintf(out, "%s],\n  \"verdict\": {\n    \"judged\": %s,\n    \"likely\": %s,\n"
		"    \"from\": \"%s\",\n    \"text\": ", r->n_threads ? "\n  " : "",
		r->judged ? "true" : "false", r->likely ? "true" : "false",
		r->counters_judged ? "counters" : "samples");
	json_string_or_null(out, r->verdict);
	fprintf(out, ",\n    \"thresholds\": [");
	for (unsigned i = 0; i < r->n_thresholds; i++) {
		fprintf(out, "%s\n      { \"rule\": ", i ? "," : "");
		json_string_or_null(out, r->thresholds[i].what);
		fprintf(out, ", \"source\": ");
		json_string_or_null(out, r->thresholds[i].source);
		fprintf(out, " }");
	}
	fprintf(out, "%s]\n  }\n}\n", r->n_thresholds ? "\n    " : "");
}
