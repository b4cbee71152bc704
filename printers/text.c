/* text.c - the report as plain text, in the spirit of perf report --stdio.
 *
 * A '#' header says what was measured and how much of it could be used;
 * then one block per contended line: what it is, one row per (range,
 * thread) with the code sites under each range, and the advice.  Nothing
 * is wider than TEXT_WIDTH columns except the layouts the advice wrote.
 * The JSON report has everything this one leaves out.
 */
#include "printers/printers.h"
#include "reports/report.h"
#include "printers/verdict_text.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/escape.h"
#include "printers/fix_report.h"
#include "printers/site_group.h"
#include "common/util.h"

#define TEXT_WIDTH 100
#define MAX_SITES 4             /* per range */
#define MAX_CHAINS 2            /* per site */
#define MAX_PAIR_TIDS 3         /* per side of a contending pair */
#define MAX_THREAD_ROWS 8       /* per range: the busiest */
#define MAX_THREADS_LISTED 24   /* per line */
#define MIN_MEMBER_WIDTH 16
#define INDENT "   "

static double percent(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

static int digits(uint64_t v)
{
	int n = 1;

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

/*
 * s, a name from the target (a command line can hold anything), escaped
 * (common/escape.h), cut to width columns with "...".  Returns the
 * columns used.
 */
static int put_clipped(FILE *out, const char *s, int width)
{
	struct strbuf sb = STRBUF_INIT;
	const char *e = escape_text(&sb, s);
	int n;

	if (width > 3 && strlen(e) > (size_t)width)
		n = fprintf(out, "%.*s...", width - 3, e);
	else
		n = fprintf(out, "%s", e);
	strbuf_release(&sb);
	return n;
}

/*
 * Items of a list ("stack 80", "1235", words), wrapped at TEXT_WIDTH;
 * continued lines start with cont.
 */
struct wrap {
	FILE *out;
	int col;
	const char *sep, *cont;
	bool started;
};

/* item may hold a name from the target: it is printed escaped */
static void wrap_item(struct wrap *w, const char *raw)
{
	struct strbuf esc = STRBUF_INIT;
	const char *item = escape_text(&esc, raw);
	int len = strlen(item), sep = strlen(w->sep);

	if (w->started && w->col + sep + len > TEXT_WIDTH) {
		/* the separator without its trailing blanks ends the line */
		while (sep && w->sep[sep - 1] == ' ')
			sep--;
		fprintf(w->out, "%.*s\n%s", sep, w->sep, w->cont);
		w->col = strlen(w->cont);
	} else if (w->started) {
		w->col += fprintf(w->out, "%s", w->sep);
	}
	w->started = true;
	w->col += fprintf(w->out, "%s", item);
	strbuf_release(&esc);
}

static void wrap_count(struct wrap *w, const struct named_count *c)
{
	char *item = xasprintf("%s %" PRIu64, c->what, c->n);

	wrap_item(w, item);
	free(item);
}

/* Words at blanks only: a newline is part of a name (the texts here have
 * none of their own), printed as \n in its word, not a break in it. */
static void wrap_words(struct wrap *w, const char *text)
{
	char *copy = xstrdup(text), *save = NULL;

	for (char *word = strtok_r(copy, " ", &save); word;
	     word = strtok_r(NULL, " ", &save))
		wrap_item(w, word);
	free(copy);
}

/* ------------------------------------------------------------------ */
/* header */

/* "   (exit 0, 1.51 s)", or for an attached process whether it lives on. */
static char *target_status_text(const struct report *r)
{
	switch (r->target) {
	case TARGET_ATTACHED_RUNNING:
		return xasprintf("   (attached %.2f s, still running)", r->duration);
	case TARGET_ATTACHED_EXITED:
		return xasprintf("   (attached, exited after %.2f s)", r->duration);
	case TARGET_PERF_FILE:
		return xasprintf("   (sampled by perf, %.2f s)", r->duration);
	case TARGET_LAUNCHED:
		break;
	}
	return r->target_status >= 0 ?
		xasprintf("   (exit %d, %.2f s)", r->target_status, r->duration) :
		xasprintf("   (signal %d, %.2f s)", -r->target_status, r->duration);
}

/* A header note: "# label text...", wrapped; nothing if text is NULL. */
static void print_note(FILE *out, const char *label, const char *text)
{
	struct wrap w = { out, 0, " ", "#   " };

	if (!text)
		return;
	w.col = fprintf(out, "%s", label);
	wrap_words(&w, text);
	fputc('\n', out);
}

static void print_measured(const struct report *r, FILE *out)
{
	char *instruments;

	fprintf(out, "# contend report: %s backend", r->backend ? r->backend : "unknown");
	if (r->freq)
		fprintf(out, ", %u Hz", r->freq);
	fputc('\n', out);
	print_note(out, "#   ", r->backend_note);
	if (r->command) {
		char *status = target_status_text(r);
		int col = fprintf(out, "# command: ");

		put_clipped(out, r->command, TEXT_WIDTH - col - (int)strlen(status));
		fprintf(out, "%s\n", status);
		free(status);
	}
	print_note(out, "# JIT code: ", r->jit_note);
	instruments = report_instruments_note(r);
	print_note(out, "# instruments: ", instruments);
	free(instruments);
	print_note(out, "# confirmation: ", r->watch_note);
	if (r->n_lines || r->n_minor) {      /* their gains */
		char *price = report_price_text(r);

		print_note(out, "# transfer price: ", price);
		free(price);
	}
}

static void print_counts(const struct report *r, FILE *out)
{
	uint64_t dropped = 0;
	int col;

	if (r->busy) {
		char *busy = xasprintf("the target's threads ran at once %.0f%% of the sampled "
				       "time (CPU pressure %.0f%%, load %.1f); concurrency is judged "
				       "against that", 100 * r->overlap, 100 * r->cpu_pressure,
				       r->load);

		print_note(out, "# busy machine: ", busy);
		free(busy);
	}
	if (r->watch_windows && r->watch_by_code)
		fprintf(out, "# confirmation: %s, %u windows, %.3f s in all; exact counts of that "
			"code\n", report_watch_instrument(r), r->watch_windows, r->watch_armed_s);
	else if (r->watch_windows)
		fprintf(out, "# watchpoints: %u windows, %.3f s armed in all; exact counts\n",
			r->watch_windows, r->watch_armed_s);
	if (r->traps_absorbed)
		fprintf(out, "# debug traps absorbed: %" PRIu64 " (the hypervisor's spurious SIGTRAP, "
			"seen with watchpoints armed); the target went on\n", r->traps_absorbed);
	if (!r->samples && r->watch_windows) {
		fprintf(out, "# lines watched: %u   line size: %u\n", r->n_lines, r->line_size);
		return;
	}
	for (unsigned i = 0; i < r->n_dropped; i++)
		dropped += r->dropped[i].n;
	col = fprintf(out, "# samples: %" PRIu64 "   decoded accesses: %" PRIu64 " (%.1f%%)",
		      r->samples, r->decoded, percent(r->decoded, r->samples));
	if (dropped) {
		struct wrap w = { out, col, ", ", "#   " };

		w.col += fprintf(out, "   dropped: %" PRIu64 " (", dropped);
		for (unsigned i = 0; i < r->n_dropped; i++)
			wrap_count(&w, &r->dropped[i]);
		fputc(')', out);
	}
	fputc('\n', out);
	fprintf(out, "# lines touched by >= 2 threads: %u   contended: %u   line size: %u\n",
		r->n_candidates, r->n_lines, r->line_size);
}

static void print_type_rate(const struct report *r, FILE *out)
{
	uint64_t all = r->typed + r->untyped;
	struct wrap w = { out, 0, ", ", "#   " };

	if (!all)
		return;
	w.col = fprintf(out, "# type attribution: %.1f%% of accesses on contended lines",
			percent(r->typed, all));
	if (r->n_untyped_why) {
		w.col += fprintf(out, " (untyped: ");
		for (unsigned i = 0; i < r->n_untyped_why; i++)
			wrap_count(&w, &r->untyped_why[i]);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* ------------------------------------------------------------------ */
/* one line: title and summary */

/* The processes of a line, for its title and shared memory row: "pid
 * 4242", "pids 4242,4243"; past two, "8 processes" (eight backends' pids
 * left the title no room for the object; the threads row and JSON list
 * them). */
static char *process_list(const struct report_line *l, const char *one, const char *many)
{
	if (l->n_pids > 2)
		return xasprintf("%u processes", l->n_pids);
	if (l->n_pids == 2)
		return xasprintf("%s %" PRIu32 ",%" PRIu32, many, l->pids[0], l->pids[1]);
	return xasprintf("%s %" PRIu32, one, l->pid);
}

/* A thread as the tables name it: "tid", or "pid/tid" on a line that
 * several processes share. */
/* "2374", "4100/2374", or a goroutine's "g3" (common/access.h). */
static char *thread_label(const struct report_thread *t, bool with_pid)
{
	char buf[TID_LABEL_MAX];

	tid_label(buf, t->tid);
	return with_pid && t->pid ? xasprintf("%" PRIu32 "/%s", t->pid, buf) : xstrdup(buf);
}

/* Memory that processes share: what it is, the same in every process. */
static void print_shared_memory(const struct report_line *l, FILE *out)
{
	char *who;

	if (!l->obj_ino)
		return;
	who = process_list(l, "process", "processes");
	fprintf(out, INDENT "shared memory (device %u:%u, inode %" PRIu64 ", offset 0x%" PRIx64
		") of %s%s\n", major(l->obj_dev), minor(l->obj_dev), l->obj_ino, l->obj_off, who,
		l->n_pids > 1 ? "; not watched: a watch sees one process" : "");
	free(who);
}

static void print_title(const struct report_line *l, unsigned rank, FILE *out)
{
	/* an undecided line may have no kind: its samples never showed a writer */
	const char *kind = l->undecided && l->kind == SHARING_NONE ? "shared" :
			   sharing_kind_name(l->kind);
	char *who = process_list(l, "pid", "pids");
	char *where = xasprintf("  line 0x%" PRIx64 "  %s", l->addr, who);
	char *object = report_line_title(l);
	int col = fprintf(out, "== %s#%u  ", l->minor ? "minor " : l->undecided ? "undecided " : "",
			  rank);

	for (; *kind; kind++, col++)
		fputc(toupper((unsigned char)*kind), out);
	if (*object) {
		col += fprintf(out, "  ");
		put_clipped(out, object, TEXT_WIDTH - col - (int)strlen(where));
	}
	fprintf(out, "%s\n", where);
	free(where);
	free(who);
	free(object);
}

/* Mean latency of the samples that carried one, in cycles; "-" if none. */
static char *mean_latency(const struct report_mem *m)
{
	if (!m->weighted)
		return xstrdup("-");
	return xasprintf("%.0f", (double)m->latency / (double)m->weighted);
}

/* With a hardware backend: "HITM 117 local, 3 remote   peer 0   mean latency 212 cycles   cpus 0-3" */
static void print_mem_summary(const struct report_line *l, FILE *out)
{
	char *lat = mean_latency(&l->mem), *cpus = report_cpus_text(l);

	fprintf(out, INDENT "HITM %" PRIu64 " local, %" PRIu64 " remote   peer %" PRIu64
		"   mean latency %s cycles%s%s\n", l->mem.hitm_local, l->mem.hitm_remote,
		l->mem.peer, lat, *cpus ? "   " : "", cpus);
	free(lat);
	free(cpus);
}

/* Without one, the CPUs only when they cross NUMA nodes (perf c2c's Node) */
static void print_nodes(const struct report_line *l, FILE *out)
{
	char *cpus;

	if (!l->nodes_known || !(l->nodes & (l->nodes - 1)))
		return;
	cpus = report_cpus_text(l);
	fprintf(out, INDENT "%s: its transfers cross NUMA nodes\n", cpus);
	free(cpus);
}

static void print_summary(const struct report_line *l, FILE *out)
{
	unsigned listed = l->n_threads < MAX_THREADS_LISTED ? l->n_threads : MAX_THREADS_LISTED;
	struct wrap w = { out, 0, " ", INDENT "         " };

	if (l->samples) {
		fprintf(out, INDENT "score %.3f   %.1f%% of samples   %.1f%% concurrent",
			l->score, 100.0 * l->share, 100.0 * l->concurrent_frac);
		if (l->typed + l->untyped)
			fprintf(out, "   typed %.0f%%", percent(l->typed, l->typed + l->untyped));
		fputc('\n', out);
	}
	if (l->n_instances > 1)
		fprintf(out, INDENT "%u instances of this structure, accessed by the same code "
			"and threads: their samples are pooled\n", l->n_instances);

	w.col = fprintf(out, INDENT "threads: ");
	for (unsigned i = 0; i < listed; i++) {
		const struct report_thread *t = &l->threads[i];
		char *who = thread_label(t, l->n_pids > 1);
		char *item = t->comm ? xasprintf("%s(%s)", who, t->comm) : xstrdup(who);

		free(who);

		wrap_item(&w, item);
		free(item);
	}
	if (l->n_threads > listed)
		fprintf(out, " ... %u more", l->n_threads - listed);
	fputc('\n', out);
	print_shared_memory(l, out);
}

/* "lock: g.lock (pthread_mutex_t), 40 bytes from line offset 32, 8 of
 * them on the next line": where the lock lies says whether taking it
 * moves one line or two. */
static void print_lock(const struct report_line *l, FILE *out)
{
	const struct report_lock *k = &l->lock;
	uint64_t line_end = l->addr + l->line_size, end = k->addr + k->size;

	struct strbuf esc = STRBUF_INIT;

	if (!k->name)
		return;
	fprintf(out, INDENT "lock: %s", escape_text(&esc, k->name));
	if (k->type_name)
		fprintf(out, " (%s)", escape_text(&esc, k->type_name));
	strbuf_release(&esc);
	if (k->size && k->addr >= l->addr)
		fprintf(out, ", %" PRIu64 " bytes from line offset %" PRIu64,
			k->size, k->addr - l->addr);
	else if (k->size)
		fprintf(out, ", %" PRIu64 " bytes from %" PRIu64 " bytes before "
			"the line", k->size, l->addr - k->addr);
	if (k->size && end > line_end)
		fprintf(out, ", %" PRIu64 " of them on the next line%s",
			end - line_end, end - line_end > l->line_size ? "s" : "");
	fputc('\n', out);
}

/* ------------------------------------------------------------------ */
/* one line: the range table */

static char *range_role(const struct report_range *rr)
{
	struct strbuf sb = STRBUF_INIT;

	if (rr->true_shared)
		strbuf_addf(&sb, "true-shared");
	/* a range that both suffers and causes is first of all a cause */
	if (rr->false_writer || rr->false_victim)
		strbuf_addf(&sb, "%sfalse (%s)", sb.len ? ", " : "",
			    rr->false_writer ? "writer" : "victim");
	if (!sb.len)
		strbuf_addf(&sb, "-");
	return strbuf_detach(&sb);
}

struct columns {
	int member, role, thread, reads, writes;
	bool pids;               /* threads as pid/tid: several processes */
	bool mem;                /* HITM, peer and latency columns */
	int hitm, peer, lat;
	int to_member;           /* indent of the member column */
	int to_thread;           /* indent of the thread column */
};

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static char *hitm_pair(const struct report_mem *m)
{
	return xasprintf("%" PRIu64 "/%" PRIu64, m->hitm_local, m->hitm_remote);
}

static void mem_widths(struct columns *w, const struct report_mem *m)
{
	char *hitm = hitm_pair(m), *lat = mean_latency(m);

	w->hitm = max_int(w->hitm, strlen(hitm));
	w->peer = max_int(w->peer, digits(m->peer));
	w->lat = max_int(w->lat, strlen(lat));
	free(hitm);
	free(lat);
}

/* Columns as wide as their contents; the member gives way if too wide. */
static struct columns column_widths(const struct report_line *l, bool mem)
{
	struct columns w = {
		.member = strlen("member"), .role = strlen("role"),
		.thread = strlen("thread"), .reads = strlen("reads"),
		.writes = strlen("writes"), .to_member = strlen(INDENT "offset  size  "),
		.mem = mem, .hitm = strlen("HITM l/r"), .peer = strlen("peer"),
		.lat = strlen("lat"), .pids = l->n_pids > 1,
	};
	int fixed;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *rr = &l->ranges[i];
		char *role = range_role(rr);

		w.member = max_int(w.member, rr->member ? strlen(rr->member) : 1);
		w.role = max_int(w.role, strlen(role));
		free(role);
		for (unsigned k = 0; k < rr->n_threads; k++) {
			char *who = thread_label(&rr->threads[k], w.pids);

			w.thread = max_int(w.thread, strlen(who));
			free(who);
			w.reads = max_int(w.reads, digits(rr->threads[k].reads));
			w.writes = max_int(w.writes, digits(rr->threads[k].writes));
			mem_widths(&w, &rr->threads[k].mem);
		}
	}
	fixed = w.to_member + 2 + w.role + 2 + w.thread + 2 + w.reads + 2 + w.writes;
	if (mem)
		fixed += 2 + w.hitm + 2 + w.peer + 2 + w.lat;
	if (fixed + w.member > TEXT_WIDTH)
		w.member = max_int(TEXT_WIDTH - fixed, MIN_MEMBER_WIDTH);
	w.to_thread = w.to_member + w.member + 2 + w.role + 2;
	return w;
}

static int cmp_busiest(const void *a, const void *b)
{
	const struct report_thread *x = *(const struct report_thread *const *)a;
	const struct report_thread *y = *(const struct report_thread *const *)b;
	uint64_t nx = x->reads + x->writes, ny = y->reads + y->writes;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* "  117/3     0  212": HITM local/remote, peer, mean latency in cycles. */
static void print_mem_columns(const struct report_mem *m, const struct columns *w, FILE *out)
{
	char *hitm, *lat;

	if (!w->mem)
		return;
	hitm = hitm_pair(m);
	lat = mean_latency(m);
	fprintf(out, "  %*s  %*" PRIu64 "  %*s", w->hitm, hitm, w->peer, m->peer, w->lat, lat);
	free(hitm);
	free(lat);
}

static void print_range_threads(const struct report_range *rr, const char *role,
				const struct columns *w, FILE *out)
{
	unsigned shown = rr->n_threads < MAX_THREAD_ROWS ? rr->n_threads : MAX_THREAD_ROWS;
	const struct report_thread **t = xcalloc(rr->n_threads, sizeof(*t));
	int col;

	for (unsigned k = 0; k < rr->n_threads; k++)
		t[k] = &rr->threads[k];
	if (rr->n_threads > 1)
		sort_items(t, rr->n_threads, sizeof(*t), cmp_busiest);

	fprintf(out, INDENT "%-6u  %-4u  ", rr->offset, rr->size);
	col = put_clipped(out, rr->member ? rr->member : "?", w->member);
	fprintf(out, "%*s  %-*s  ", w->member - col, "", w->role, role);
	for (unsigned k = 0; k < shown; k++) {
		char *who = thread_label(t[k], w->pids);

		if (k)
			fprintf(out, "%*s", w->to_thread, "");
		fprintf(out, "%-*s  %*" PRIu64 "  %*" PRIu64, w->thread, who,
			w->reads, t[k]->reads, w->writes, t[k]->writes);
		free(who);
		print_mem_columns(&t[k]->mem, w, out);
		fputc('\n', out);
	}
	if (!shown)
		fputc('\n', out);
	if (rr->n_threads > shown)
		fprintf(out, "%*s... %u more threads\n", w->to_thread, "", rr->n_threads - shown);
	free(t);
}

/*
 * function  file:line (inlined into caller), in width columns: the caller
 * goes first, then the function is cut; file:line says the most.
 */
static void print_location(const struct report_site *s, int width, FILE *out)
{
	struct strbuf ef = STRBUF_INIT, ev = STRBUF_INIT, ei = STRBUF_INIT;
	const char *via = s->via ? escape_text(&ev, s->via) : NULL;
	const char *into = s->inlined_into ? escape_text(&ei, s->inlined_into) : NULL;
	char *where = s->file ? xasprintf("  %s:%d",
					  escape_location_path(&ef, basename_of(s->file)),
					  s->line) : xstrdup("");
	char *inl = into && via ? xasprintf(" (via %s, inlined into %s)", via, into) :
		    into ? xasprintf(" (inlined into %s)", into) :
		    via ? xasprintf(" (via %s)", via) : xstrdup("");
	char *what = s->function ? xstrdup(s->function) :
		     s->module ? xasprintf("%s+0x%" PRIx64, s->module, s->module_off) :
		     xasprintf("0x%" PRIx64, s->ip);
	int room = width - (int)strlen(where);

	if ((int)(strlen(what) + strlen(inl)) > room)
		inl[0] = '\0';
	put_clipped(out, what, room - (int)strlen(inl));
	fprintf(out, "%s%s\n", where, inl);
	strbuf_release(&ef);
	strbuf_release(&ev);
	strbuf_release(&ei);
	free(where);
	free(inl);
	free(what);
}

/* Under a site, with -g: "1700 from worker f.c:91 <- start_thread ...". */
static void print_chains(const struct report_site *s, int indent, FILE *out)
{
	unsigned shown = s->n_chains < MAX_CHAINS ? s->n_chains : MAX_CHAINS;

	for (unsigned i = 0; i < shown; i++) {
		const struct report_chain *c = &s->chains[i];
		char *count = xasprintf("%" PRIu64 " from ", c->count);
		char *cont = xasprintf("%*s", indent + (int)strlen(count), "");
		struct wrap w = { out, 0, " <- ", cont };

		w.col = fprintf(out, "%*s%s", indent, "", count);
		for (unsigned k = 0; k < c->n_frames; k++)
			wrap_item(&w, c->frames[k]);
		fputc('\n', out);
		free(count);
		free(cont);
	}
	if (s->n_chains > shown)
		fprintf(out, "%*s... %u more call chains\n", indent, "", s->n_chains - shown);
}

/* Under the member column: "sites: 10 R 1790 W  function  file:line",
 * one row per source line (site_group.h). */
static void print_sites(const struct report_range *rr, int indent, FILE *out)
{
	struct site_group *g;
	unsigned n = site_groups(rr->sites, rr->n_sites, &g);
	unsigned shown = n < MAX_SITES ? n : MAX_SITES;
	int rw = 1, ww = 1;

	for (unsigned i = 0; i < shown; i++) {
		if (digits(g[i].reads) > rw)
			rw = digits(g[i].reads);
		if (digits(g[i].writes) > ww)
			ww = digits(g[i].writes);
	}
	for (unsigned i = 0; i < shown; i++) {
		int col = fprintf(out, "%*s%-7s%*" PRIu64 " R %*" PRIu64 " W  ", indent, "",
				  i ? "" : "sites:", rw, g[i].reads, ww, g[i].writes);

		print_location(g[i].site, TEXT_WIDTH - col, out);
		print_chains(g[i].site, indent + 7, out);
	}
	if (n > shown)
		fprintf(out, "%*s%7s... %u more\n", indent, "", "", n - shown);
	free(g);
}

static void print_ranges(const struct report_line *l, bool mem, FILE *out)
{
	struct columns w = column_widths(l, mem);

	fprintf(out, INDENT "%-6s  %-4s  %-*s  %-*s  %-*s  %*s  %*s", "offset", "size",
		w.member, "member", w.role, "role", w.thread, "thread",
		w.reads, "reads", w.writes, "writes");
	if (mem)
		fprintf(out, "  %*s  %*s  %*s", w.hitm, "HITM l/r", w.peer, "peer", w.lat, "lat");
	fputc('\n', out);
	for (unsigned i = 0; i < l->n_ranges; i++) {
		char *role = range_role(&l->ranges[i]);

		print_range_threads(&l->ranges[i], role, &w, out);
		print_sites(&l->ranges[i], w.to_member, out);
		free(role);
	}
}

/* ------------------------------------------------------------------ */
/* one line: who contends with whom */

/* "1235", "1235,1236,1237,+2" */
static char *tid_list(const struct report_pair_side *side)
{
	unsigned shown = side->n_tids < MAX_PAIR_TIDS ? side->n_tids : MAX_PAIR_TIDS;
	struct strbuf sb = STRBUF_INIT;
	char buf[TID_LABEL_MAX];

	for (unsigned i = 0; i < shown; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", tid_label(buf, side->tids[i]));
	if (side->n_tids > shown)
		strbuf_addf(&sb, ",+%u", side->n_tids - shown);
	return strbuf_detach(&sb);
}

/*
 * kind  weight  threads  site
 *           vs  threads  site
 */
static void print_pairs(const struct report_line *l, FILE *out)
{
	int ww = 1, tw = 1, lead;

	if (!l->n_pairs)
		return;
	for (unsigned i = 0; i < l->n_pairs; i++) {
		char *a = tid_list(&l->pairs[i].a), *b = tid_list(&l->pairs[i].b);

		ww = max_int(ww, digits(l->pairs[i].weight));
		tw = max_int(tw, max_int(strlen(a), strlen(b)));
		free(a);
		free(b);
	}
	fprintf(out, INDENT "contending pairs (concurrent samples, threads, code):\n");
	lead = strlen(INDENT "  ") + strlen("false") + 2 + ww;
	for (unsigned i = 0; i < l->n_pairs; i++) {
		const struct report_pair *p = &l->pairs[i];
		char *a = tid_list(&p->a), *b = tid_list(&p->b);
		int col;

		col = fprintf(out, INDENT "  %-5s  %*" PRIu64 "  %-*s  ", sharing_kind_id(p->kind),
			      ww, p->weight, tw, a);
		print_location(&p->a.site, TEXT_WIDTH - col, out);
		col = fprintf(out, "%*s  %-*s  ", lead, "vs", tw, b);
		print_location(&p->b.site, TEXT_WIDTH - col, out);
		free(a);
		free(b);
	}
}

/* ------------------------------------------------------------------ */
/* one line: exact counts from watchpoints */

/*
 * The word's code sites, which share its exact counts (watch.h): the
 * first MAX_SITES, then what the others add up to, then what no sampled
 * code took, so that the sites always account for the counts above them.
 */
static void print_watch_sites(const struct report_watch_word *w, FILE *out)
{
	uint64_t reads = 0, writes = 0, more_reads = 0, more_writes = 0;
	struct site_group *g;
	unsigned n = site_groups(w->sites, w->n_sites, &g);
	int col;

	for (unsigned i = 0; i < n; i++) {
		reads += g[i].reads;
		writes += g[i].writes;
		if (i >= MAX_SITES) {
			more_reads += g[i].reads;
			more_writes += g[i].writes;
			continue;
		}
		col = fprintf(out, INDENT "%8s%-7s%" PRIu64 " R %" PRIu64 " W  ", "",
			      i ? "" : "sites:", g[i].reads, g[i].writes);
		print_location(g[i].site, TEXT_WIDTH - col, out);
	}
	free(g);
	if (n > MAX_SITES)
		fprintf(out, INDENT "%8s%7s... %u more sites: %" PRIu64 " R %" PRIu64 " W\n", "", "",
			n - MAX_SITES, more_reads, more_writes);
	if (reads < w->reads || writes < w->writes) {
		fprintf(out, INDENT "%8s(", "");
		if (reads < w->reads)
			fprintf(out, "%" PRIu64 " reads", w->reads - reads);
		if (reads < w->reads && writes < w->writes)
			fprintf(out, ", ");
		if (writes < w->writes)
			fprintf(out, "%" PRIu64 " writes", w->writes - writes);
		fprintf(out, " at code no sample caught)\n");
	}
}

static void print_watch_word(const struct report_watch_word *w, int member_width, FILE *out)
{
	unsigned shown = w->n_threads < MAX_THREAD_ROWS ? w->n_threads : MAX_THREAD_ROWS;
	const struct report_thread **t = xcalloc(w->n_threads ? w->n_threads : 1, sizeof(*t));
	int col;

	for (unsigned k = 0; k < w->n_threads; k++)
		t[k] = &w->threads[k];
	if (w->n_threads > 1)
		sort_items(t, w->n_threads, sizeof(*t), cmp_busiest);
	fprintf(out, INDENT "%-6" PRIu64 "  ", w->offset);
	col = put_clipped(out, w->member ? w->member : "?", member_width);
	fprintf(out, "%*s", member_width - col, "");
	for (unsigned k = 0; k < shown; k++)
		fprintf(out, "%*s  %-8" PRIu32 "  %10" PRIu64 "  %10" PRIu64 "\n",
			k ? (int)strlen(INDENT "offset  ") + member_width : 0, "",
			t[k]->tid, t[k]->reads, t[k]->writes);
	if (!shown)
		fprintf(out, "  (no access)\n");
	if (w->n_threads > shown)
		fprintf(out, INDENT "%*s... %u more threads\n", 8 + member_width, "",
			w->n_threads - shown);
	print_watch_sites(w, out);
	if (w->cut_short)
		fprintf(out, INDENT "%8s(a window ended early: more hits/s than the cap)\n", "");
	if (w->threads_late)
		fprintf(out, INDENT "%8s(%u thread windows began late: created while armed)\n",
			"", w->threads_late);
	if (w->threads_unarmed)
		fprintf(out, INDENT "%8s(%u thread windows unarmed: no free debug register)\n",
			"", w->threads_unarmed);
	free(t);
}

/* "confirmed: false sharing by exact counts", the words and their threads. */
static void print_watch(const struct report_line *l, FILE *out)
{
	int member_width = strlen("member");

	if (!l->confirmed_checked)
		return;
	if (l->confirmed) {
		fprintf(out, INDENT "confirmed: %s by exact counts%s", sharing_kind_name(l->watch_kind),
			l->watch_by_code ? " of uprobes on its code" : "");
	} else {
		char *why = watch_not_confirmed_why(l);

		fprintf(out, INDENT "not confirmed: %s", why);
		free(why);
	}
	fprintf(out, " (%u word%s %s", l->n_words, l->n_words == 1 ? "" : "s",
		l->watch_by_code ? "counted" : "watched");
	if (l->watched_line != l->addr)
		fprintf(out, " on the instance at line 0x%" PRIx64, l->watched_line);
	fprintf(out, ", %.3f s)\n", l->watch_window_s);
	for (unsigned i = 0; i < l->n_words; i++)
		if (l->words[i].member)
			member_width = max_int(member_width, strlen(l->words[i].member));
	member_width = member_width < 32 ? member_width : 32;
	fprintf(out, INDENT "%-6s  %-*s  %-8s  %10s  %10s\n", "offset", member_width, "member",
		"thread", "reads", "writes");
	for (unsigned i = 0; i < l->n_words; i++)
		print_watch_word(&l->words[i], member_width, out);
}

/* ------------------------------------------------------------------ */
/* one line: advice */

/* "counters[0] and counters[1]": the busiest writer and what it hurts. */
static char *contending_pair(const struct report_line *l)
{
	const struct report_range *x = NULL, *y = NULL;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *rr = &l->ranges[i];

		if (!rr->member || !(rr->false_writer || rr->true_shared))
			continue;
		if (!x || rr->reads + rr->writes > x->reads + x->writes)
			x = rr;
	}
	for (unsigned i = 0; x && i < l->n_ranges; i++) {
		const struct report_range *rr = &l->ranges[i];

		if (rr == x || !rr->member || !strcmp(rr->member, x->member) ||
		    !(rr->false_victim || rr->false_writer))
			continue;
		if (!y || rr->reads + rr->writes > y->reads + y->writes)
			y = rr;
	}
	if (!x || !y)
		return xstrdup("the contending members");
	return xasprintf("%s and %s", x->member, y->member);
}

static void print_block(const char *title, const char *text, FILE *out)
{
	fprintf(out, INDENT "%s\n", title);
	while (*text) {
		const char *nl = strchrnul(text, '\n');

		fprintf(out, INDENT "    %.*s\n", (int)(nl - text), text);
		text = *nl ? nl + 1 : nl;
	}
}

/* A layout of the advice, printed from its rows. */
static void print_layout_block(const char *title,
			       const struct report_layout *lay, FILE *out)
{
	char *text = advice_layout_text(lay);

	if (text)
		print_block(title, text, out);
	free(text);
}

static void print_advice(const struct report_line *l, FILE *out)
{
	const struct report_advice *a = &l->advice;
	struct wrap w = { out, 0, " ", INDENT "        " };

	if (!a->summary)
		return;
	w.col = fprintf(out, INDENT "advice: ");
	wrap_words(&w, a->summary);
	fputc('\n', out);
	print_layout_block("layout now:", &a->current, out);
	print_layout_block("proposed:", &a->proposed, out);
	if (a->cost_bytes)
		fprintf(out, INDENT "cost: %+ld bytes\n", a->cost_bytes);
	if (l->gain_unknown) {
		w.started = false;
		w.cont = INDENT "    ";
		w.col = fprintf(out, INDENT "fixing this line: gain");
		w.started = true;
		wrap_words(&w, l->gain_unknown);
		fputc('\n', out);
	}
	if (l->predicted_gain > 1.005) {
		w.started = false;
		w.cont = INDENT "    ";
		w.col = fprintf(out, INDENT "fixing this line: %s~%.1fx",
				report_gain_floor_word(l->gain_note), l->predicted_gain);
		if (!l->gain_note && l->gain_high > 0 && l->gain_high - l->gain_low >= 0.05)
			w.col += fprintf(out, " (%.1f-%.1fx)", l->gain_low, l->gain_high);
		if (l->kind == SHARING_MIXED && l->predicted_gain_all > l->predicted_gain + 0.05)
			w.col += fprintf(out, " (padding); %s~%.1fx with the true sharing removed too",
					 report_gain_floor_word(l->gain_all_note), l->predicted_gain_all);
		if (l->gain_note || l->gain_all_note) {
			w.col += fprintf(out, ";");
			w.started = true;
			wrap_words(&w, l->gain_note ? l->gain_note : l->gain_all_note);
		}
		fputc('\n', out);
	}
	if (a->placements_total) {
		char *pair = contending_pair(l);
		char *text = xasprintf("%u of %u start offsets put %s on one line",
				       a->placements_sharing, a->placements_total, pair);

		w.started = false;
		w.cont = INDENT "            ";
		w.col = fprintf(out, INDENT "placements: ");
		wrap_words(&w, text);
		fputc('\n', out);
		free(text);
		free(pair);
	}
}

/* "   heap block: calloc(2, 3072) = 6144 bytes at ..., allocated in main x.c:112" */
static void print_alloc(const struct report_line *l, FILE *out)
{
	char *sentence;
	struct wrap w = { out, 0, " ", INDENT "            ", false };

	if (!l->alloc)
		return;
	sentence = alloc_sentence(l->alloc);
	w.col = fprintf(out, INDENT ALLOC_SENTENCE_TITLE);
	wrap_words(&w, sentence);
	fputc('\n', out);
	free(sentence);
}

static void print_line(const struct report_line *l, unsigned rank, bool mem, FILE *out)
{
	print_title(l, rank, out);
	print_alloc(l, out);
	print_summary(l, out);
	print_lock(l, out);
	if (mem)
		print_mem_summary(l, out);
	else
		print_nodes(l, out);
	if (l->n_ranges)
		print_ranges(l, mem, out);
	print_pairs(l, out);
	print_watch(l, out);
	print_advice(l, out);
	fix_print_line_text(l, out);
}

void report_print_text_line(const struct report *r, unsigned i, FILE *out)
{
	print_line(&r->lines[i], i + 1, r->mem_info, out);
}

/* "inconclusive: why; the lines two threads used, undecided:", wrapped. */
static void print_inconclusive(const struct report *r, FILE *out)
{
	char *text = xasprintf("%s; %u line%s two threads used, undecided:", r->inconclusive,
			       r->n_undecided, r->n_undecided == 1 ? "" : "s");
	struct wrap w = { out, fprintf(out, "inconclusive: "), " ", "  " };

	wrap_words(&w, text);
	fputc('\n', out);
	free(text);
}

void report_print_text(const struct report *r, FILE *out)
{
	char *verdict = report_verdict_line(r);

	fprintf(out, "%s\n", verdict);
	free(verdict);
	print_measured(r, out);
	print_counts(r, out);
	print_type_rate(r, out);
	fix_print_header_text(r, out);
	fputc('\n', out);
	if (!r->n_lines && r->inconclusive)
		print_inconclusive(r, out);
	else if (!r->n_lines)
		fprintf(out, "no contended cache lines found (%u line%s touched by >= 2 threads)\n",
			r->n_candidates, r->n_candidates == 1 ? "" : "s");
	for (unsigned i = 0; i < r->n_undecided; i++) {
		fputc('\n', out);
		print_line(&r->undecided[i], i + 1, r->mem_info, out);
	}
	for (unsigned i = 0; i < r->n_lines; i++) {
		if (i)
			fputc('\n', out);
		print_line(&r->lines[i], i + 1, r->mem_info, out);
	}
	if (r->n_minor)
		fprintf(out, "\n-- minor sharing: %u line%s shared for real but at little cost "
			"(below the thresholds), ranked low --\n", r->n_minor,
			r->n_minor == 1 ? "" : "s");
	for (unsigned i = 0; i < r->n_minor; i++) {
		fputc('\n', out);
		print_line(&r->minor[i], i + 1, r->mem_info, out);
	}
	report_print_latent_text(r, out);
}
