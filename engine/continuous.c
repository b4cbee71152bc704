/* continuous.c - contend attach --interval: one profile per interval.
 * See continuous.h. */
#include "engine/continuous.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/session.h"
#include "common/procfs.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "reports/live_window.h"
#include "reports/report_finish.h"
#include "reports/report.h"
#include "symbolize/data_types.h"

/* At most this many access samples in one interval (72 bytes each): at
 * 99 Hz a thousand threads for an hour stay under it. */
#define INTERVAL_MAX_SAMPLES (1u << 22)

struct continuous {
	const struct options *opt;
	struct classify_config cfg;   /* the intervals': the final report is not built */
	const char *dir;
	char *command;
	struct live_window *win;
	double next;                  /* elapsed seconds of the next profile */
	double last_close;            /* elapsed seconds of the last one */
	char **kept;                  /* the profiles written, oldest first */
	size_t n_kept, alloc_kept;
	unsigned written, failed;
};

/* DIR/contend-PID-YYYYmmddTHHMMSSZ.EXT, with -N added when that second
 * already has a profile (intervals of a second). */
static char *profile_path(const struct continuous *c)
{
	char stamp[32], *path;
	time_t now = time(NULL);
	struct tm tm;
	struct stat st;

	char who[32];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (c->opt->n_pids)
		snprintf(who, sizeof(who), "%d+", (int)c->opt->pids[0]);
	else if (c->opt->system_wide)
		snprintf(who, sizeof(who), "all");
	else
		snprintf(who, sizeof(who), "%d", (int)c->opt->pid);
	path = xasprintf("%s/contend-%s-%s.%s", c->dir, who, stamp, c->opt->format->extension);
	for (unsigned n = 1; lstat(path, &st) == 0 && n < 100; n++) {
		free(path);
		path = xasprintf("%s/contend-%s-%s-%u.%s", c->dir, who, stamp, n,
				 c->opt->format->extension);
	}
	return path;
}

/* Drop our oldest profiles past --keep.  unlink() of a name we created:
 * were it swapped for a link since, the link goes, not what it names. */
static void rotate(struct continuous *c)
{
	while (c->n_kept > c->opt->keep) {
		if (unlink(c->kept[0]) < 0 && errno != ENOENT)
			warning("%s: cannot remove an old profile: %s", c->kept[0], strerror(errno));
		free(c->kept[0]);
		move_bytes(c->kept, c->kept + 1, --c->n_kept * sizeof(*c->kept));
	}
}

static void write_profile(struct continuous *c, const struct report *r)
{
	struct format_flags flags = { 0 };
	char *path = profile_path(c), *why = NULL;
	struct out_file *of = out_file_open(path, &why);

	if (of) {
		c->opt->format->print(r, out_file_stream(of), &flags);
		if (out_file_commit(of, &why) == 0) {
			ALLOC_GROW(c->kept, c->n_kept + 1, c->alloc_kept);
			c->kept[c->n_kept++] = path;
			c->written++;
			rotate(c);
			return;
		}
	}
	/* a full disk must not end the session: say so, try the next one */
	if (!c->failed++ || !c->opt->quiet)
		warning("%s", why ? why : path);
	free(why);
	free(path);
}

/* The interval that ends now: its report, written. */
static void close_interval(struct continuous *c, const struct session_view *v)
{
	struct run_facts f = {
		.command = c->command, .backend = v->backend, .freq = v->freq,
		.target = TARGET_ATTACHED_RUNNING,
		.price = v->price, .price_note = v->price_note,
	};
	struct report *r;

	live_window_close(c->win, v->elapsed, v->samples, v->decoded);
	c->last_close = v->elapsed;
	r = live_window_report(c->win, &(struct report_inputs){
		.facts = &f, .cfg = &c->cfg, .top = c->opt->top, .sym = v->sym,
		.names = v->names,
	});
	write_profile(c, r);
	report_free(r);
}

static void on_access(void *ctx, const struct access_sample *a)
{
	struct continuous *c = ctx;

	live_window_add(c->win, a);
}

static bool on_live(void *ctx, const struct session_view *v)
{
	struct continuous *c = ctx;

	if (v->elapsed >= c->next) {
		close_interval(c, v);
		c->next += c->opt->interval;
		if (c->next <= v->elapsed)    /* a slow interval: skip, do not catch up */
			c->next = v->elapsed + c->opt->interval;
	}
	return false;
}

/* The session's end: the last, shorter interval is written too (if it
 * has a second of samples), not the whole session's report. */
static int on_report(void *ctx, const struct report *r, const struct options *opt)
{
	struct continuous *c = ctx;

	(void)r;
	(void)opt;
	if (!c->opt->quiet)
		fprintf(stderr, "contend: %u profile%s written to %s\n", c->written,
			c->written == 1 ? "" : "s", c->dir);
	return c->written || !c->failed ? 0 : 2;
}

/* The last interval ends when sampling stops, before the report. */
static struct session_view last_view;
static bool have_view;

static bool on_live_last(void *ctx, const struct session_view *v)
{
	last_view = *v;
	have_view = true;
	return on_live(ctx, v);
}

static void on_stop(void *ctx)
{
	struct continuous *c = ctx;

	if (have_view && live_window_samples(c->win) > 0 &&
	    last_view.elapsed - c->last_close >= 1.0)
		close_interval(c, &last_view);
}

int continuous_attach(struct options *opt)
{
	struct continuous c = { 0 };
	struct session_hooks hooks = {
		.ctx = &c, .access = on_access, .live = on_live_last, .stop = on_stop,
		.report = on_report,
	};
	struct options session_opt;
	struct stat st;
	int ret;

	if (stat(opt->output, &st) < 0)
		die("--interval: -o %s: %s", opt->output, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die("--interval: -o %s: not a directory (the profiles go in one)", opt->output);
	if (access(opt->output, W_OK | X_OK) < 0)
		die("--interval: -o %s: cannot write in it: %s", opt->output, strerror(errno));
	c.opt = opt;
	c.cfg = opt->classify;
	c.dir = opt->output;
	c.next = opt->interval;
	c.win = live_window_new(opt->line_size, session_window_ns(opt, opt->freq), 1,
				INTERVAL_MAX_SAMPLES);
	c.command = opt->n_pids ? xstrdup("the processes of -p") :
		    opt->system_wide ? xstrdup("every process (-a)") :
		    process_alive(opt->pid) ? process_cmdline(opt->pid) : NULL;

	/* The session writes no report of its own (-o is our directory), and
	 * builds none worth the time: no line qualifies for it. */
	session_opt = *opt;
	session_opt.output = NULL;
	session_opt.classify.min_score = 1e300;
	/* left running for hours: no watchpoints (issue 14's SIGTRAP risk) */
	session_opt.confirm = false;
	ret = session_attach(&session_opt, &hooks);

	for (size_t i = 0; i < c.n_kept; i++)
		free(c.kept[i]);
	free(c.kept);
	free(c.command);
	live_window_free(c.win);
	return ret;
}
