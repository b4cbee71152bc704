/* top_watch.c - contend top's w: confirm the selected line with
 * watchpoints.  See top_watch.h. */
#include "engine/top_watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/session.h"
#include "common/escape.h"
#include "common/procfs.h"
#include "common/util.h"
#include "detector/watch.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/watch_report.h"

/* Threads a row names; the message names as many. */
#define NOTE_THREADS 8

struct watched_line {
	uint32_t pid;
	uint64_t addr;
	char *note;                   /* for its row */
};

struct top_watch {
	struct watched_line *lines;   /* every line w watched, latest note each */
	unsigned n_lines, alloc_lines;
	bool running;                 /* the last w's windows are not all run */
	uint32_t pid;                 /* the line it watches */
	uint64_t addr;
	unsigned line_size;
	char *object;                 /* its object, escaped: "counters" */
};

struct top_watch *top_watch_new(void)
{
	return xcalloc(1, sizeof(struct top_watch));
}

void top_watch_free(struct top_watch *tw)
{
	if (!tw)
		return;
	for (unsigned i = 0; i < tw->n_lines; i++)
		free(tw->lines[i].note);
	free(tw->lines);
	free(tw->object);
	free(tw);
}

static struct watched_line *find_line(const struct top_watch *tw, uint32_t pid, uint64_t addr)
{
	for (unsigned i = 0; i < tw->n_lines; i++)
		if (tw->lines[i].pid == pid && tw->lines[i].addr == addr)
			return &tw->lines[i];
	return NULL;
}

/* Takes note (malloc'd) as the row's note of the line. */
static void set_note(struct top_watch *tw, uint32_t pid, uint64_t addr, char *note)
{
	struct watched_line *w = find_line(tw, pid, addr);

	if (!w) {
		ALLOC_GROW(tw->lines, tw->n_lines + 1, tw->alloc_lines);
		w = &tw->lines[tw->n_lines++];
		*w = (struct watched_line){ .pid = pid, .addr = addr };
	}
	free(w->note);
	w->note = note;
}

const char *top_watch_note(const struct top_watch *tw, uint32_t pid, uint64_t addr)
{
	const struct watched_line *w = tw ? find_line(tw, pid, addr) : NULL;

	return w ? w->note : NULL;
}

bool top_watch_running(const struct top_watch *tw)
{
	return tw && tw->running;
}

/* Why w does not arm watchpoints in this session, or NULL if it may. */
static char *not_allowed(const struct session_view *v)
{
	if (v->confirm && confirm_failed(v->confirm))
		return xstrdup("w: watchpoints could not be armed in this session (contend said "
			       "why on stderr): no more watches");
	if (v->confirm)
		return NULL;
	if (v->watch_note)   /* target_watch_default(): attach on a VM */
		return xstrdup("w: no watchpoints: attached on a virtual machine, where a "
			       "watchpoint's trap can kill the process with a spurious SIGTRAP; "
			       "start top with --confirm to watch anyway");
	return xstrdup("w: no watchpoints: --no-confirm turned them off; start top without it");
}

char *top_watch_start(struct top_watch *tw, const struct session_view *v,
		      const struct report_line *l)
{
	struct strbuf esc = STRBUF_INIT;
	char *why, *msg;
	int err;

	if (!l)
		return xstrdup("w: no line selected");
	if ((why = not_allowed(v)))
		return why;
	if (tw->running || confirm_busy(v->confirm))
		return xasprintf("w: a watch of %s (line 0x%" PRIx64 ") is under way: wait for "
				 "its result", tw->object ? tw->object : "a line", tw->addr);
	if (l->n_pids > 1)
		return xstrdup("w: several processes share this line, and a watch counts the "
			       "threads of one: not watched");
	if (!process_alive((pid_t)l->pid))
		return xasprintf("w: process %" PRIu32 " is gone: nothing to watch", l->pid);
	err = confirm_line(v->confirm, v->lines, l->pid, l->addr);
	if (err == -EXDEV)
		return xstrdup("w: several processes share this line, and a watch counts the "
			       "threads of one: not watched");
	if (err < 0)
		return xasprintf("w: no sampled word of line 0x%" PRIx64 " to watch", l->addr);
	tw->running = true;
	tw->pid = l->pid;
	tw->addr = l->addr;
	tw->line_size = l->line_size;
	free(tw->object);
	tw->object = xstrdup(escape_text(&esc, l->object ? l->object : "-"));
	strbuf_release(&esc);
	set_note(tw, l->pid, l->addr, xstrdup("watching..."));
	msg = xasprintf("w: watching %s (line 0x%" PRIx64 ", pid %" PRIu32 ") with watchpoints "
			"for a few short windows...", tw->object, l->addr, l->pid);
	return msg;
}

/* "1234", "12.3K", "1.2M" */
static void short_count(uint64_t n, char *out, size_t size)
{
	if (n < 10000)
		snprintf(out, size, "%" PRIu64, n);
	else if (n < 1000000)
		snprintf(out, size, "%.1fK", (double)n / 1e3);
	else if (n < 1000000000)
		snprintf(out, size, "%.1fM", (double)n / 1e6);
	else
		snprintf(out, size, "%.1fG", (double)n / 1e9);
}

/* "1.2K writes, 3 reads, threads 1234 1235" over the line's words (the
 * row's, for room, without the reads) */
static char *counts_text(const struct report_line *rl, bool with_reads)
{
	uint64_t reads = 0, writes = 0;
	uint32_t tids[NOTE_THREADS];
	unsigned n_tids = 0, more = 0;
	struct strbuf sb = STRBUF_INIT;
	char r[16], w[16];

	for (unsigned i = 0; i < rl->n_words; i++) {
		reads += rl->words[i].reads;
		writes += rl->words[i].writes;
		for (unsigned k = 0; k < rl->words[i].n_threads; k++) {
			uint32_t tid = rl->words[i].threads[k].tid;
			unsigned j = 0;

			while (j < n_tids && tids[j] != tid)
				j++;
			if (j < n_tids)
				continue;
			if (n_tids < NOTE_THREADS)
				tids[n_tids++] = tid;
			else
				more++;   /* may count a thread twice: "more than" */
		}
	}
	short_count(writes, w, sizeof(w));
	short_count(reads, r, sizeof(r));
	strbuf_addf(&sb, "%s writes, ", w);
	if (with_reads)
		strbuf_addf(&sb, "%s reads, ", r);
	strbuf_addf(&sb, "thread%s", n_tids == 1 ? "" : "s");
	for (unsigned j = 0; j < n_tids; j++)
		strbuf_addf(&sb, " %" PRIu32, tids[j]);
	if (!n_tids)
		strbuf_addf(&sb, " none");
	if (more)
		strbuf_addf(&sb, " and more");
	return strbuf_detach(&sb);
}

/* The verdict line of the text report ("confirmed: false sharing by
 * exact counts (2 words watched, 0.050 s)", "not confirmed: only thread
 * 12 accessed the watched words (...)"), as the report prints the line. */
static char *verdict_text(const struct report *r)
{
	char *buf = NULL, *save = NULL, *found = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	report_print_text_line(r, 0, f);
	fclose(f);
	for (char *s = strtok_r(buf, "\n", &save); s && !found; s = strtok_r(NULL, "\n", &save)) {
		s += strspn(s, " \t");
		if (!strncmp(s, "confirmed: ", 11) || !strncmp(s, "not confirmed: ", 15))
			found = xstrdup(s);
	}
	free(buf);
	return found;
}

/* The watch is over: the line's exact counts, classified and worded as
 * the final report's line (watch_report.h), for the row and the message. */
static char *finish(struct top_watch *tw, const struct session_view *v)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct report_line *rl;
	char *verdict, *counts, *row_counts, *msg;

	tw->running = false;
	r->line_size = tw->line_size;
	r->lines = xcalloc(1, sizeof(*r->lines));
	r->n_lines = 1;
	rl = &r->lines[0];
	rl->pid = tw->pid;
	rl->addr = tw->addr;
	rl->line_size = tw->line_size;
	confirm_fill_report(v->confirm, r, v->sym);
	if (!rl->confirmed_checked) {
		set_note(tw, tw->pid, tw->addr, xstrdup("not watched: its process is gone?"));
		msg = confirm_failed(v->confirm) ?
			xasprintf("w: %s (line 0x%" PRIx64 "): %s could not be armed "
				  "(contend said why on stderr)", tw->object, tw->addr,
				  confirm_by_code(v->confirm) ? "uprobes" : "watchpoints") :
			xasprintf("w: %s (line 0x%" PRIx64 "): no window ran: process %" PRIu32
				  " gone?", tw->object, tw->addr, tw->pid);
		report_free(r);
		return msg;
	}
	rl->kind = rl->watch_kind;
	verdict = verdict_text(r);
	counts = counts_text(rl, true);
	row_counts = counts_text(rl, false);
	set_note(tw, tw->pid, tw->addr, rl->confirmed ?
		 xasprintf("confirmed: %s, %s", sharing_kind_name(rl->watch_kind), row_counts) :
		 xasprintf("not confirmed, %s", row_counts));
	free(row_counts);
	msg = xasprintf("w: %s (line 0x%" PRIx64 "): %s; %s", tw->object, tw->addr,
			verdict ? verdict : rl->confirmed ? "confirmed" : "not confirmed", counts);
	free(verdict);
	free(counts);
	report_free(r);
	return msg;
}

char *top_watch_poll(struct top_watch *tw, const struct session_view *v)
{
	if (!tw->running || confirm_busy(v->confirm))
		return NULL;
	return finish(tw, v);
}
