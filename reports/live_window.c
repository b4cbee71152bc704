/* live_window.c - the report of the last few seconds; see live_window.h. */
#include "reports/live_window.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "detector/ingest.h"
#include "detector/line_table.h"
#include "reports/report.h"
#include "reports/report_finish.h"

/* Where an interval ended: the first sample after it, and the backend's
 * counts then. */
struct live_mark {
	uint64_t seq;
	uint64_t samples, decoded;
	double t;
};

struct live_trend {
	uint32_t pid;
	uint64_t addr;
	double score[LIVE_TREND_POINTS];   /* oldest first */
	unsigned noted;                    /* intervals since first reported */
	unsigned gone;                     /* intervals since last reported */
};

struct live_window {
	unsigned line_size;
	uint64_t window_ns;
	unsigned n_intervals;
	size_t max_samples;
	/* the samples from seq base on: buf[start .. start + n) */
	struct access_sample *buf;
	size_t start, n, alloc;
	uint64_t base;
	/* marks[0] opens the window, marks[n_marks - 1] closes it */
	struct live_mark marks[LIVE_MAX_INTERVALS + 1];
	unsigned n_marks;
	struct live_trend *trends;
	size_t n_trends, alloc_trends;
};

struct live_window *live_window_new(unsigned line_size, uint64_t window_ns,
				    unsigned n_intervals, size_t max_samples)
{
	struct live_window *w = xcalloc(1, sizeof(*w));

	if (n_intervals < 1)
		n_intervals = 1;
	if (n_intervals > LIVE_MAX_INTERVALS)
		n_intervals = LIVE_MAX_INTERVALS;
	w->line_size = line_size;
	w->window_ns = window_ns;
	w->n_intervals = n_intervals;
	w->max_samples = max_samples;
	w->n_marks = 1;   /* the origin: 0 s, nothing taken */
	return w;
}

void live_window_free(struct live_window *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w->trends);
	free(w);
}

static void drop_oldest(struct live_window *w, size_t k)
{
	if (k > w->n)
		k = w->n;
	w->start += k;
	w->n -= k;
	w->base += k;
	if (!w->n)
		w->start = 0;
}

void live_window_add(struct live_window *w, const struct access_sample *a)
{
	if (w->max_samples && w->n >= w->max_samples)
		drop_oldest(w, 1);
	if (w->start + w->n == w->alloc && w->start >= w->alloc / 2 && w->start) {
		/* half of the room is behind us: slide down rather than grow */
		memmove(w->buf, w->buf + w->start, w->n * sizeof(*w->buf));
		w->start = 0;
	}
	ALLOC_GROW(w->buf, w->start + w->n + 1, w->alloc);
	w->buf[w->start + w->n++] = *a;
}

void live_window_close(struct live_window *w, double now, uint64_t samples,
		       uint64_t decoded)
{
	uint64_t first;

	if (w->n_marks == w->n_intervals + 1) {
		memmove(w->marks, w->marks + 1, (w->n_marks - 1) * sizeof(*w->marks));
		w->n_marks--;
	}
	w->marks[w->n_marks++] = (struct live_mark){
		.seq = w->base + w->n, .samples = samples, .decoded = decoded, .t = now,
	};
	first = w->marks[0].seq;
	if (first > w->base)
		drop_oldest(w, first - w->base);
}

unsigned live_window_intervals(const struct live_window *w)
{
	return w->n_marks - 1;
}

static const struct live_mark *first_mark(const struct live_window *w)
{
	return &w->marks[0];
}

static const struct live_mark *last_mark(const struct live_window *w)
{
	return &w->marks[w->n_marks - 1];
}

/* The window's samples: [from, to) of buf. */
static void window_span(const struct live_window *w, size_t *from, size_t *to)
{
	uint64_t a = first_mark(w)->seq, b = last_mark(w)->seq;

	if (a < w->base)
		a = w->base;
	if (b < a)
		b = a;
	*from = w->start + (size_t)(a - w->base);
	*to = w->start + (size_t)(b - w->base);
}

size_t live_window_samples(const struct live_window *w)
{
	size_t from, to;

	window_span(w, &from, &to);
	return to - from;
}

double live_window_seconds(const struct live_window *w)
{
	return last_mark(w)->t - first_mark(w)->t;
}

uint64_t live_window_taken(const struct live_window *w)
{
	return last_mark(w)->samples - first_mark(w)->samples;
}

uint64_t live_window_clipped(const struct live_window *w)
{
	uint64_t first = first_mark(w)->seq, last = last_mark(w)->seq;

	if (w->base <= first)
		return 0;
	return (w->base < last ? w->base : last) - first;
}

struct report *live_window_report(const struct live_window *w, const struct report_inputs *in)
{
	struct report_inputs mine = *in;
	struct run_facts f = *in->facts;
	struct report *r;
	size_t from, to;

	mine.lines = line_table_new(w->line_size, w->window_ns);
	mine.facts = &f;
	window_span(w, &from, &to);
	for (size_t i = from; i < to; i++) {
		struct access_sample a = w->buf[i];

		ingest_access(mine.lines, in->sym, &a);
	}
	f.samples = live_window_taken(w);
	f.decoded = last_mark(w)->decoded - first_mark(w)->decoded;
	f.duration = live_window_seconds(w);
	r = report_finish(&mine);
	line_table_free(mine.lines);
	return r;
}

static struct live_trend *find_trend(const struct live_window *w, uint32_t pid, uint64_t addr)
{
	for (size_t i = 0; i < w->n_trends; i++)
		if (w->trends[i].pid == pid && w->trends[i].addr == addr)
			return &w->trends[i];
	return NULL;
}

void live_window_note(struct live_window *w, const struct report *r)
{
	size_t kept = 0;

	for (size_t i = 0; i < w->n_trends; i++) {
		struct live_trend *t = &w->trends[i];

		memmove(t->score, t->score + 1, (LIVE_TREND_POINTS - 1) * sizeof(*t->score));
		t->score[LIVE_TREND_POINTS - 1] = 0;
		if (t->noted < LIVE_TREND_POINTS)
			t->noted++;
		t->gone++;
	}
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];
		struct live_trend *t = find_trend(w, l->pid, l->addr);

		if (!t) {
			ALLOC_GROW(w->trends, w->n_trends + 1, w->alloc_trends);
			t = &w->trends[w->n_trends++];
			*t = (struct live_trend){ .pid = l->pid, .addr = l->addr, .noted = 1 };
		}
		t->score[LIVE_TREND_POINTS - 1] = l->score;
		t->gone = 0;
	}
	/* a line gone for as long as the trend reaches has nothing to show */
	for (size_t i = 0; i < w->n_trends; i++)
		if (w->trends[i].gone < LIVE_TREND_POINTS)
			w->trends[kept++] = w->trends[i];
	w->n_trends = kept;
}

unsigned live_window_trend(const struct live_window *w, uint32_t pid, uint64_t addr,
			   double *out)
{
	const struct live_trend *t = find_trend(w, pid, addr);

	memset(out, 0, LIVE_TREND_POINTS * sizeof(*out));
	if (!t)
		return 0;
	memcpy(out, t->score, sizeof(t->score));
	return t->noted;
}
