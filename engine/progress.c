/* progress.c - the status line while sampling; see progress.h. */
#include "engine/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "engine/session.h"
#include "common/escape.h"
#include "common/util.h"
#include "detector/line_table.h"
#include "reports/naming.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

/* The status line on the screen now, erased before any message. */
static struct progress *active;

static void clear_active(void)
{
	if (active)
		progress_clear(active);
}

void progress_init(struct progress *p, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->on = !quiet && isatty(STDERR_FILENO);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->done_cond, NULL);
	if (p->on) {
		active = p;
		before_message = clear_active;
	}
}

void progress_release(struct progress *p)
{
	if (active == p) {
		active = NULL;
		before_message = NULL;
	}
	progress_phase_end(p);
	progress_clear(p);
	free(p->top_name);
	p->top_name = NULL;
	data_types_free(p->dt);
	p->dt = NULL;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->done_cond);
}

static unsigned terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

/* Writes text over the status line, clipped to the terminal (one column
 * spare: a full last column would wrap on some terminals).  The text is
 * ASCII but for names, which are escaped, so clipping by bytes can only
 * cut a name's UTF-8 sequence short: cut at a sequence's start. */
static void draw(const char *text)
{
	size_t width = terminal_width() - 1, n = strlen(text);
	struct strbuf sb = STRBUF_INIT;

	if (n > width) {
		n = width;
		while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
	}
	strbuf_add(&sb, "\r", 1);
	strbuf_add(&sb, text, n);
	strbuf_add(&sb, "\033[K", 3);
	if (write(STDERR_FILENO, sb.buf, sb.len) < 0) {
		/* a status line that cannot be written is not worth a word */
	}
	strbuf_release(&sb);
}

void progress_clear(struct progress *p)
{
	if (!p->shown)
		return;
	if (write(STDERR_FILENO, "\r\033[K", 4) < 0) {
		/* as in draw() */
	}
	p->shown = false;
}

char *progress_text(const struct session_view *v, unsigned shared, const char *top,
		    unsigned top_threads)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "contend: %.1f", v->elapsed);
	if (v->duration > 0)
		strbuf_addf(&sb, " of %.0f", v->duration);
	strbuf_addf(&sb, " s  samples %" PRIu64, v->samples);
	if (v->samples)
		strbuf_addf(&sb, " (%.0f%% decoded)", 100.0 * v->decoded / v->samples);
	strbuf_addf(&sb, "  lines shared %u", shared);
	if (top)
		strbuf_addf(&sb, "  top: %s (%u threads)", top, top_threads);
	return strbuf_detach(&sb);
}

/* The shared line with the most concurrent samples; counts the shared. */
static const struct line *hottest_shared(struct line_table *t, unsigned *shared)
{
	const struct line *best = NULL;

	*shared = 0;
	for (size_t i = 0; i < line_table_count(t); i++) {
		const struct line *l = line_table_line(t, i);

		if (l->n_threads < 2)
			continue;
		++*shared;
		if (!best || l->concurrent > best->concurrent)
			best = l;
	}
	return best && best->concurrent ? best : NULL;
}

/* A global's name as the report gives it ("counters[1]", from DWARF),
 * else object_name()'s ("counters+8", the heap, a mapping). */
static char *address_name(struct progress *p, const struct session_view *v, uint32_t pid,
			  uint64_t addr)
{
	struct data_attribution a;
	struct Dwfl_Module *mod;
	uint64_t bias;

	if (!p->dt)
		p->dt = data_types_new();
	if (p->dt && (mod = symbolizer_module(v->sym, (pid_t)pid, addr, &bias)) &&
	    data_types_global(p->dt, mod, bias, addr, &a) == DT_HIT && a.variable)
		return xasprintf("%s%s", a.variable, a.path ? a.path : "");
	return object_name(v->sym, pid, addr, NULL);
}

/* The line's name, by the address of its most sampled cell; cached. */
static const char *line_name(struct progress *p, const struct session_view *v,
			     const struct line *l)
{
	const struct line_cell *hot = NULL;
	struct strbuf esc = STRBUF_INIT;
	char *raw;

	if (p->top_name && p->top_pid == l->pid && p->top_addr == l->addr)
		return p->top_name;
	for (unsigned i = 0; i < l->n_cells; i++)
		if (!hot || l->cells[i].count > hot->count)
			hot = &l->cells[i];
	raw = address_name(p, v, l->pid, l->addr + (hot ? hot->offset : 0));
	free(p->top_name);
	p->top_name = xstrdup(escape_text(&esc, raw));
	p->top_pid = l->pid;
	p->top_addr = l->addr;
	strbuf_release(&esc);
	free(raw);
	return p->top_name;
}

void progress_update(struct progress *p, const struct session_view *v)
{
	double now = monotonic_s();
	const struct line *top;
	unsigned shared;
	char *text;

	if (!p->on || now - p->last < PROGRESS_PERIOD_S)
		return;
	p->last = now;
	top = hottest_shared(v->lines, &shared);
	text = progress_text(v, shared, top ? line_name(p, v, top) : NULL,
			     top ? top->n_threads : 0);
	draw(text);
	p->shown = true;
	free(text);
}

/* --- phases --------------------------------------------------------------- */

static void *announce(void *arg)
{
	struct progress *p = arg;
	struct timespec until;
	bool done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)PROGRESS_PHASE_DELAY_S;
	pthread_mutex_lock(&p->lock);
	while (!p->phase_done &&
	       pthread_cond_timedwait(&p->done_cond, &p->lock, &until) != ETIMEDOUT)
		;
	done = p->phase_done;
	if (!done) {
		char *text = xasprintf("contend: %s ...", p->phase);

		draw(text);
		p->shown = true;
		free(text);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_phase(struct progress *p, const char *what)
{
	if (!p->on)
		return;
	progress_phase_end(p);
	progress_clear(p);
	p->phase = what;
	p->phase_done = false;
	p->phase_running = pthread_create(&p->thread, NULL, announce, p) == 0;
}

void progress_phase_end(struct progress *p)
{
	if (!p->phase_running)
		return;
	pthread_mutex_lock(&p->lock);
	p->phase_done = true;
	pthread_cond_signal(&p->done_cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->phase_running = false;
	progress_clear(p);
}
