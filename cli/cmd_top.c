/* cmd_top.c - contend top: the contended lines of the last seconds, live.
 *
 *   contend top [options] (-p PID | -- CMD [ARGS...])
 *
 * A session (attach or run) with hooks: every access sample also goes to
 * a sliding window (reports/live_window.h); every -i seconds the window's
 * report is built by report_build(), as the final report would be, and
 * shown -- on a full screen (top_screen.h) or as a plain table per
 * refresh (--batch, or stdout not a terminal).  q, -n or -d ends the
 * sampling as Ctrl-C ends attach's: an attached process runs on as it
 * was.  --report prints the whole session's report at the end.  w
 * confirms the selected line with watchpoints (top_watch.h): the session
 * confirms on demand, and its counts are on the screen's lines as on the
 * final report's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cpu_nodes.h"
#include "cli/commands.h"
#include "engine/heap_walk.h"
#include "cli/options.h"
#include "engine/session.h"
#include "cli/top_screen.h"
#include "engine/top_watch.h"
#include "common/escape.h"
#include "common/procfs.h"
#include "common/util.h"
#include "detector/glibc_heap.h"
#include "detector/watch.h"
#include "reports/live_window.h"
#include "reports/report_finish.h"
#include "printers/printers.h"
#include "reports/report.h"
#include "reports/watch_report.h"
#include "symbolize/data_types.h"

/* At most this many samples in the window (72 bytes each). */
#define TOP_MAX_SAMPLES (1u << 20)

enum top_sort { SORT_SCORE, SORT_SAMPLES, SORT_THREADS, N_SORTS };
static const char *const sort_names[N_SORTS] = { "score", "samples", "threads" };

struct top {
	const struct options *opt;
	struct classify_config cfg;   /* the window's: opt's may skip the final report */
	struct live_window *win;
	struct report *r;             /* the window's latest report */
	unsigned *order;              /* r's lines in the sort's order */
	char *command;                /* the target's, for the header */
	struct cpu_nodes nodes;       /* this machine's NUMA topology (its lines' nodes);
	                                 known false: none read */
	double next;                  /* elapsed seconds of the next refresh */
	unsigned refreshes;
	struct session_view seen;     /* the counts of the last call (no pointers kept) */
	bool quit;                    /* q, -n or -d: ending, by choice */
	bool paused, expanded;
	enum top_sort sort;
	unsigned selected;            /* in order */
	uint32_t sel_pid;             /* the selected line, kept across refreshes */
	uint64_t sel_addr;
	char *message;                /* for the bottom line, until the next key */
	struct top_watch *watch;      /* w's watches and their verdicts */
	bool want_screen;             /* not --batch, and stdout is a terminal */
	struct top_screen *screen;    /* NULL: batch, or not open yet */
};

/* The screen, for restore_terminal(): a die() during the session must not
 * leave the terminal in curses mode. */
static struct top_screen *open_screen;

static void restore_terminal(void)
{
	top_screen_close(open_screen);
	open_screen = NULL;
}

/* Opened at the first beat, once the target is sampled: the errors of
 * starting (no such process, permissions, no such command) print on the
 * terminal as it is.  A terminal curses cannot drive gets tables. */
static void start_screen(struct top *t)
{
	char *why = NULL;

	t->want_screen = false;
	t->screen = open_screen = top_screen_open(&why);
	if (!t->screen) {
		warning("%s: printing tables instead", why);
		free(why);
	}
}

/* --- what a line shows --------------------------------------------------- */

static bool range_contended(const struct report_range *rr)
{
	return rr->true_shared || rr->false_victim || rr->false_writer;
}

static bool member_listed(const struct report_line *l, unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (l->ranges[k].member && !strcmp(l->ranges[k].member, l->ranges[i].member) &&
		    range_contended(&l->ranges[k]))
			return true;
	return false;
}

/* "counters[0],counters[1]": the members of the contended ranges, once
 * each (two threads' ranges of one member are one member). */
static char *members_text(const struct report_line *l)
{
	struct strbuf sb = STRBUF_INIT, esc = STRBUF_INIT;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const char *m = l->ranges[i].member;

		if (!m || !range_contended(&l->ranges[i]) || member_listed(l, i))
			continue;
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", escape_text(&esc, m));
	}
	strbuf_release(&esc);
	if (!sb.len)
		strbuf_addch(&sb, '-');
	return strbuf_detach(&sb);
}

/* The line's most sampled code site: "increment false_sharing_counters.c:86". */
static char *site_text(const struct report_line *l)
{
	const struct report_site *best = NULL;
	struct strbuf fn = STRBUF_INIT, file = STRBUF_INIT;
	char *s;

	for (unsigned i = 0; i < l->n_ranges; i++)
		for (unsigned k = 0; k < l->ranges[i].n_sites; k++) {
			const struct report_site *x = &l->ranges[i].sites[k];

			if (!best || x->reads + x->writes > best->reads + best->writes)
				best = x;
		}
	if (!best)
		return xstrdup("-");
	if (best->function && best->file)
		s = xasprintf("%s %s:%d", escape_text(&fn, best->function),
			      escape_text(&file, basename_of(best->file)), best->line);
	else if (best->function)
		s = xasprintf("%s", escape_text(&fn, best->function));
	else if (best->module)
		s = xasprintf("%s+0x%" PRIx64, escape_text(&fn, basename_of(best->module)),
			      best->module_off);
	else
		s = xasprintf("0x%" PRIx64, best->ip);
	strbuf_release(&fn);
	strbuf_release(&file);
	return s;
}

static char *tids_text(const struct report_line *l)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < l->n_threads; i++)
		strbuf_addf(&sb, "%s%" PRIu32, i ? "," : "", l->threads[i].tid);
	return strbuf_detach(&sb);
}

static char *gain_text(const struct report_line *l)
{
	return l->predicted_gain > 0 ? xasprintf("%.2fx", l->predicted_gain) : xstrdup("-");
}

/* "FALSE SHARING" */
static void kind_upper(const struct report_line *l, char *out, size_t size)
{
	snprintf(out, size, "%s", sharing_kind_name(l->kind));
	for (char *p = out; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}

/* The last LIVE_TREND_POINTS scores as a bar of ASCII levels, then '^'
 * rising, 'v' falling or '=' (within 10%) since the refresh before. */
static void trend_bar(const struct top *t, const struct report_line *l, char *out)
{
	static const char levels[] = " .:-=+*#";
	double tr[LIVE_TREND_POINTS], max = 0, last, prev;
	unsigned n = live_window_trend(t->win, l->pid, l->addr, tr), i;

	for (i = 0; i < LIVE_TREND_POINTS; i++)
		if (tr[i] > max)
			max = tr[i];
	for (i = 0; i < LIVE_TREND_POINTS; i++) {
		int k = max > 0 ? (int)lround(tr[i] / max * 7) : 0;

		out[i] = levels[k < 0 ? 0 : k > 7 ? 7 : k];
	}
	last = tr[LIVE_TREND_POINTS - 1];
	prev = tr[LIVE_TREND_POINTS - 2];
	out[i++] = ' ';
	out[i++] = n < 2 ? '+' : last > prev * 1.1 ? '^' : last < prev * 0.9 ? 'v' : '=';
	out[i] = '\0';
}

/* --- order and selection ------------------------------------------------- */

static const struct top *sorting;

static uint64_t sort_key(const struct report_line *l, enum top_sort s)
{
	switch (s) {
	case SORT_SAMPLES: return l->samples;
	case SORT_THREADS: return l->n_threads;
	default: return (uint64_t)(l->score * 1e9);
	}
}

static int cmp_order(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	uint64_t kx = sort_key(&sorting->r->lines[x], sorting->sort);
	uint64_t ky = sort_key(&sorting->r->lines[y], sorting->sort);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return (x > y) - (x < y);   /* then the report's rank */
}

/* Sorts the lines and finds the selected one again. */
static void order_lines(struct top *t)
{
	unsigned n = t->r ? t->r->n_lines : 0;

	free(t->order);
	t->order = xcalloc(n ? n : 1, sizeof(*t->order));
	for (unsigned i = 0; i < n; i++)
		t->order[i] = i;
	sorting = t;
	sort_items(t->order, n, sizeof(*t->order), cmp_order);
	for (unsigned i = 0; i < n; i++) {
		const struct report_line *l = &t->r->lines[t->order[i]];

		if (l->pid == t->sel_pid && l->addr == t->sel_addr)
			t->selected = i;
	}
	if (t->selected >= n)
		t->selected = n ? n - 1 : 0;
}

static const struct report_line *selected_line(const struct top *t)
{
	if (!t->r || !t->r->n_lines)
		return NULL;
	return &t->r->lines[t->order[t->selected]];
}

static void remember_selection(struct top *t)
{
	const struct report_line *l = selected_line(t);

	t->sel_pid = l ? l->pid : 0;
	t->sel_addr = l ? l->addr : 0;
}

/* --- the window's report ------------------------------------------------- */

/* note: a refresh (live_window_note() keeps its scores for the trend);
 * false: the same window again, with the counts of a watch just over. */
static void rebuild(struct top *t, const struct session_view *v, bool note)
{
	struct run_facts f = {
		.command = t->command, .backend = v->backend, .freq = v->freq,
		.target = t->opt->pid ? TARGET_ATTACHED_RUNNING : TARGET_LAUNCHED,
		.price = v->price, .price_note = v->price_note,
	};
	/* attached: the blocks of the lines shown, read from the heap as it
	 * is now (heap_walk.h), as attach's final report reads them */
	struct glibc_heap *heap = heap_walk_open(t->opt, t->opt->pid);

	f.heap = heap;
	if (t->nodes.known)
		f.cpu_nodes = &t->nodes;
	report_free(t->r);
	/* the exact counts of w's watches, once over, as the final report
	 * shows them (Enter); not a watch's partial ones */
	t->r = live_window_report(t->win, &(struct report_inputs){
		.facts = &f, .cfg = &t->cfg, .top = t->opt->top, .sym = v->sym,
		.confirm = v->confirm,
		.fill_watch = confirm_windows_run(v->confirm) && !top_watch_running(t->watch),
		.names = v->names,
	});
	glibc_heap_free(heap);
	if (note)
		live_window_note(t->win, t->r);
	order_lines(t);
}

/* --- batch: one table per refresh ------------------------------------------ */

static void print_table(struct top *t, FILE *out)
{
	const struct report *r = t->r;
	struct strbuf esc = STRBUF_INIT;

	fprintf(out, "# contend top  elapsed %.1f s  window %.1f s  samples %" PRIu64
		"  decoded %.1f%%  shared %u  contended %u  sort %s\n", t->seen.elapsed,
		r->duration, r->samples, r->samples ? 100.0 * r->decoded / r->samples : 0.0,
		r->n_candidates, r->n_lines, sort_names[t->sort]);
	fprintf(out, "rank\tkind\tscore\ttrend\tsamples\tshare\tgain\tthreads\ttids\t"
		"object\tmembers\tsite\n");
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[t->order[i]];
		double tr[LIVE_TREND_POINTS];
		unsigned noted = live_window_trend(t->win, l->pid, l->addr, tr);
		char *members = members_text(l), *site = site_text(l), *tids = tids_text(l);
		char *gain = gain_text(l), trend[16];

		if (noted < 2)
			snprintf(trend, sizeof(trend), "new");
		else
			snprintf(trend, sizeof(trend), "%+.3f", tr[LIVE_TREND_POINTS - 1] -
				 tr[LIVE_TREND_POINTS - 2]);
		fprintf(out, "%u\t%s\t%.3f\t%s\t%" PRIu64 "\t%.1f%%\t%s\t%u\t%s\t%s\t%s\t%s\n",
			i + 1, sharing_kind_id(l->kind), l->score, trend, l->samples,
			100.0 * l->share, gain, l->n_threads, tids,
			escape_text(&esc, l->object ? l->object : "-"), members, site);
		free(members);
		free(site);
		free(tids);
		free(gain);
	}
	fputc('\n', out);
	fflush(out);
	strbuf_release(&esc);
}

/* --- the screen ------------------------------------------------------------ */

static char *screen_row(const struct top *t, unsigned i)
{
	const struct report_line *l = &t->r->lines[t->order[i]];
	char kind[32], trend[LIVE_TREND_POINTS + 3];
	char *members = members_text(l), *site = site_text(l), *gain = gain_text(l), *row;
	const char *watched = top_watch_note(t->watch, l->pid, l->addr);
	struct strbuf esc = STRBUF_INIT;

	kind_upper(l, kind, sizeof(kind));
	trend_bar(t, l, trend);
	/* w's verdict before the code site, which a narrow screen cuts first */
	row = xasprintf("%3u  %-14s %6.3f  %-10s %7s %4u  %-16s %-28s %s%s%s%s", i + 1, kind,
			l->score, trend, gain, l->n_threads,
			escape_text(&esc, l->object ? l->object : "-"), members,
			watched ? "[" : "", watched ? watched : "", watched ? "]  " : "", site);
	strbuf_release(&esc);
	free(members);
	free(site);
	free(gain);
	return row;
}

/* The selected line as the text report prints it, tabs expanded. */
static char **detail_lines(const struct top *t, unsigned *n)
{
	char *buf = NULL, **lines = NULL, *save = NULL;
	size_t size = 0, alloc = 0;
	FILE *f = open_memstream(&buf, &size);

	*n = 0;
	if (!f)
		return NULL;
	report_print_text_line(t->r, t->order[t->selected], f);
	fclose(f);
	for (char *s = strtok_r(buf, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
		struct strbuf sb = STRBUF_INIT;

		for (; *s; s++) {
			if (*s != '\t')
				strbuf_addch(&sb, *s);
			else
				do
					strbuf_addch(&sb, ' ');
				while (sb.len % 8);
		}
		ALLOC_GROW(lines, *n + 1, alloc);
		lines[(*n)++] = strbuf_detach(&sb);
	}
	free(buf);
	return lines;
}

static void free_lines(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* repaint: the whole screen, also what curses did not write (a launched
 * target's output) */
static void draw(struct top *t, bool repaint)
{
	const struct report *r = t->r;
	char *header[3], **rows = NULL, **detail = NULL;
	unsigned n_rows = r ? r->n_lines : 0, n_detail = 0, n_header = 2;
	struct strbuf esc = STRBUF_INIT;
	uint64_t clipped = live_window_clipped(t->win);

	/* the command last: a long one is what the screen's width cuts */
	header[0] = xasprintf("contend top  %s %u Hz  refresh %g s  window %g s  sort: %s%s"
			      "  pid %d (%s)", t->seen.backend, t->seen.freq, t->opt->interval,
			      t->opt->span, sort_names[t->sort], t->paused ? "  [paused]" : "",
			      (int)t->seen.pid, escape_text(&esc, t->command));
	header[1] = xasprintf("elapsed %.0f s  samples %" PRIu64 " (window %" PRIu64
			      ", %.0f%% decoded)  lines shared %u  contended %u",
			      t->seen.elapsed, t->seen.samples, r ? r->samples : 0,
			      r && r->samples ? 100.0 * r->decoded / r->samples : 0.0,
			      r ? r->n_candidates : 0, n_rows);
	if (clipped)
		header[n_header++] = xasprintf("the window lacks its %" PRIu64 " oldest samples "
					       "(memory bound): shorten --span", clipped);
	rows = xcalloc(n_rows ? n_rows : 1, sizeof(*rows));
	for (unsigned i = 0; i < n_rows; i++)
		rows[i] = screen_row(t, i);
	if (t->expanded && n_rows)
		detail = detail_lines(t, &n_detail);
	top_screen_draw(t->screen, &(struct top_frame){
		.header = (const char *const *)header, .n_header = n_header,
		.columns = "  #  KIND            SCORE  TREND         GAIN  THR  OBJECT"
			   "           MEMBERS                      HOTTEST CODE",
		.rows = (const char *const *)rows, .n_rows = n_rows, .selected = t->selected,
		.detail = (const char *const *)detail, .n_detail = n_detail,
		.empty = r ? "  (no contended line in the window)" :
			     "  (sampling: the first refresh comes after -i seconds)",
		.message = t->message, .repaint = repaint,
	});
	for (unsigned i = 0; i < n_header; i++)
		free(header[i]);
	free_lines(rows, n_rows);
	free_lines(detail, n_detail);
	strbuf_release(&esc);
}

/* One key; false if it changes nothing on the screen. */
static bool handle_key(struct top *t, int c, const struct session_view *v)
{
	unsigned n = t->r ? t->r->n_lines : 0;

	free(t->message);
	t->message = NULL;
	switch (c) {
	case 'q': case 'Q':
		t->quit = true;
		return false;
	case TOP_KEY_UP: case 'k':
		if (t->selected)
			t->selected--;
		break;
	case TOP_KEY_DOWN: case 'j':
		if (t->selected + 1 < n)
			t->selected++;
		break;
	case TOP_KEY_ENTER:
		t->expanded = !t->expanded;
		break;
	case 's':
		t->sort = (t->sort + 1) % N_SORTS;
		if (t->r)
			order_lines(t);
		break;
	case 'p':
		t->paused = !t->paused;
		break;
	case 'w':
		t->message = top_watch_start(t->watch, v, selected_line(t));
		break;
	case TOP_KEY_RESIZE:
		break;
	default:
		return false;
	}
	remember_selection(t);
	return true;
}

/* --- the session's hooks ---------------------------------------------------- */

static void on_access(void *ctx, const struct access_sample *a)
{
	struct top *t = ctx;

	live_window_add(t->win, a);
}

static bool on_live(void *ctx, const struct session_view *v)
{
	struct top *t = ctx;
	bool redraw = false, refreshed = false;
	char *message;
	int c;

	if (t->want_screen) {
		start_screen(t);
		redraw = t->screen != NULL;
	}
	t->seen = *v;
	t->seen.lines = NULL;
	t->seen.sym = NULL;
	t->seen.names = NULL;
	t->seen.confirm = NULL;
	t->seen.watch_note = NULL;
	if (v->elapsed >= t->next) {
		t->next += t->opt->interval;
		if (t->next <= v->elapsed)   /* a slow refresh: skip, do not catch up */
			t->next = v->elapsed + t->opt->interval;
		live_window_close(t->win, v->elapsed, v->samples, v->decoded);
		if (!t->paused) {
			rebuild(t, v, true);
			redraw = refreshed = true;
			t->refreshes++;
			if (!t->screen)
				print_table(t, stdout);
		}
		if (t->opt->iterations && t->refreshes >= t->opt->iterations)
			t->quit = true;
	}
	if (t->opt->duration > 0 && v->elapsed >= t->opt->duration)
		t->quit = true;
	while (t->screen && !t->quit && (c = top_screen_key(t->screen)) != TOP_KEY_NONE)
		redraw |= handle_key(t, c, v);
	if ((message = top_watch_poll(t->watch, v))) {
		free(t->message);
		t->message = message;
		if (t->r && !t->paused)
			rebuild(t, v, false);
		redraw = true;
	}
	if (t->screen && redraw && !t->quit)
		draw(t, refreshed);
	return t->quit;
}

static int on_report(void *ctx, const struct report *r, const struct options *opt)
{
	struct top *t = ctx;
	bool had_screen = t->screen;

	restore_terminal();
	t->screen = NULL;
	/* the last screen stays behind as a table, as perf top --stdio's and
	 * htop's do: what top saw last, in the terminal's scrollback */
	if (had_screen && t->r && !opt->report_on_quit)
		print_table(t, stdout);
	if (!t->quit && r->target == TARGET_ATTACHED_EXITED)
		fprintf(stderr, "contend: process %d exited after %.1f s\n", (int)opt->pid,
			r->duration);
	if (!opt->report_on_quit)
		return 0;
	return session_print_report(r, opt);
}

/* ----------------------------------------------------------------------- */

int cmd_top(int argc, char **argv)
{
	struct options opt;
	struct top t = { 0 };
	struct session_hooks hooks = {
		.ctx = &t, .access = on_access, .live = on_live, .report = on_report,
		.confirm_on_demand = true,   /* w; attach on a VM needs --confirm */
	};
	int ret;

	options_parse(&opt, argc, argv);
	if (opt.pid && opt.argv)
		die("top: give -p PID or a command after --, not both");
	if (!opt.pid && !opt.argv)
		options_usage("top", 2);
	if (opt.output && !opt.report_on_quit)
		die("top: -o is where --report writes the session's report: add --report");
	t.opt = &opt;
	t.cfg = opt.classify;
	/* The screen or the tables say it all: no status line, no messages
	 * over the screen.  Watchpoints only on the lines w asks for: none
	 * where there are no keys. */
	opt.quiet = true;
	/* without --report the final report is not printed: qualify no line,
	 * so that nothing is built for it */
	if (!opt.report_on_quit)
		opt.classify.min_score = INFINITY;
	t.next = opt.interval;
	t.win = live_window_new(opt.line_size, session_window_ns(&opt, opt.freq),
				(unsigned)ceil(opt.span / opt.interval - 1e-9), TOP_MAX_SAMPLES);
	if (opt.pid) {
		if (!process_alive(opt.pid))
			die("no such process: %d (find the PID with pidof or ps)", (int)opt.pid);
		t.command = process_cmdline(opt.pid);
	} else {
		struct strbuf sb = STRBUF_INIT;

		for (int i = 0; opt.argv[i]; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "", opt.argv[i]);
		t.command = strbuf_detach(&sb);
	}
	cpu_nodes_read_sysfs(&t.nodes);   /* the machine's: read once */
	t.want_screen = !opt.batch && isatty(STDOUT_FILENO);
	if (!t.want_screen)
		opt.confirm = false;
	t.watch = top_watch_new();
	atexit(restore_terminal);

	ret = opt.pid ? session_attach(&opt, &hooks) : session_run(&opt, &hooks);

	restore_terminal();   /* the session failed before its report */
	/* q, -n, -d: the launched target got SIGTERM by our choice */
	if (t.quit && ret == 1)
		ret = 0;
	report_free(t.r);
	live_window_free(t.win);
	free(t.order);
	free(t.command);
	free(t.message);
	top_watch_free(t.watch);
	return ret;
}
