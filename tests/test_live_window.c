/* test_live_window.c - the sliding window of contend top (live_window.h):
 * which samples it holds, that its report is the report of a line table
 * fed those samples, trends, and the bound on memory. */
#include "reports/live_window.h"
#include "reports/report_finish.h"
#include "reports/report.h"
#include "detector/line_table.h"
#include "common/util.h"
#include "tap.h"

#define MS 1000000ULL
#define PID 42
#define LINE_X 0x10000ULL   /* two counters at +0 and +8 */
#define LINE_Y 0x20000ULL

struct feed {
	struct live_window *w;
	struct line_table *whole;   /* every sample, as the session's table */
	uint64_t t;                 /* ns */
	uint64_t taken;             /* decoded samples */
	uint64_t undecoded;         /* 100 more per interval, as the backend counts */
};

static void add(struct feed *f, uint32_t tid, uint64_t addr, int kind)
{
	struct access_sample s = {
		.time = f->t, .pid = PID, .tid = tid, .ip = 0x401000 + tid, .addr = addr,
		.size = 8, .kind = kind, .base_reg = -1,
	};

	live_window_add(f->w, &s);
	if (f->whole)
		line_table_add(f->whole, &s);
	f->taken++;
}

/* One interval of 1 s at 1 kHz per thread: threads 1 and 2 each write
 * their own counter of LINE_X (false sharing), or thread 1 alone. */
static void interval(struct feed *f, unsigned seconds, bool shared)
{
	for (int i = 0; i < 1000; i++) {
		f->t += MS;
		add(f, 1, LINE_X, ACCESS_STORE);
		add(f, shared ? 2 : 3, shared ? LINE_X + 8 : LINE_Y, ACCESS_STORE);
	}
	f->undecoded += 100;
	live_window_close(f->w, seconds, f->taken + f->undecoded, f->taken);
}

static struct report *window_report(struct feed *f)
{
	struct classify_config cfg;
	struct run_facts facts = { .command = "test", .backend = "soft", .freq = 1000 };

	classify_config_default(&cfg);
	return live_window_report(f->w, &(struct report_inputs){
		.facts = &facts, .cfg = &cfg, .top = 10 });
}

static const struct report_line *line_at(const struct report *r, uint64_t addr)
{
	for (unsigned i = 0; i < r->n_lines; i++)
		if (r->lines[i].addr == addr)
			return &r->lines[i];
	return NULL;
}

/* Sharing for two seconds, then none: the line is in the window while
 * the window holds a shared second, and gone once it slid past. */
static void test_slides(void)
{
	struct feed f = { .w = live_window_new(64, 2 * MS, 2, 0) };
	struct report *r;
	const struct report_line *l;

	interval(&f, 1, true);
	CHECK_EQ_U64(live_window_intervals(f.w), 1, "one interval closed");
	CHECK_EQ_U64(live_window_samples(f.w), 2000, "its samples");
	interval(&f, 2, true);
	r = window_report(&f);
	l = line_at(r, LINE_X);
	CHECK(l && l->kind == SHARING_FALSE, "shared line in the window: false sharing");
	CHECK_EQ_U64(r->samples, 4200, "taken in the window, undecoded included");
	CHECK_EQ_U64(r->decoded, 4000, "decoded in the window");
	CHECK(r->duration == 2.0, "window of 2 s, got %g", r->duration);
	report_free(r);

	interval(&f, 3, false);
	CHECK_EQ_U64(live_window_intervals(f.w), 2, "two intervals kept");
	CHECK_EQ_U64(live_window_samples(f.w), 4000, "only the window's samples");
	r = window_report(&f);
	l = line_at(r, LINE_X);
	CHECK(l != NULL, "half the window shared: still reported");
	report_free(r);

	interval(&f, 4, false);
	r = window_report(&f);
	CHECK(!line_at(r, LINE_X), "window past the sharing: line gone");
	CHECK_EQ_U64(r->n_lines, 0, "nothing contended");
	CHECK_EQ_U64(r->samples, 4200, "window's samples");
	report_free(r);
	live_window_free(f.w);
}

/* A window that holds the whole session reports what the session's own
 * table reports: the same line, kind, samples and score. */
static void test_same_as_whole(void)
{
	struct feed f = { .w = live_window_new(64, 2 * MS, 10, 0),
			  .whole = line_table_new(64, 2 * MS) };
	struct classify_config cfg;
	struct run_facts facts = { .command = "test", .backend = "soft", .freq = 1000 };
	struct report *rw, *rs;

	interval(&f, 1, false);
	interval(&f, 2, true);
	interval(&f, 3, true);
	classify_config_default(&cfg);
	rw = window_report(&f);
	facts.samples = f.taken + f.undecoded;
	facts.decoded = f.taken;
	rs = report_build(&facts, f.whole, &cfg, 10, NULL, NULL);
	CHECK_EQ_U64(rw->n_lines, rs->n_lines, "lines");
	CHECK_EQ_U64(rw->n_candidates, rs->n_candidates, "candidates");
	CHECK_EQ_U64(rw->samples, rs->samples, "samples");
	for (unsigned i = 0; i < rw->n_lines && i < rs->n_lines; i++) {
		CHECK_EQ_U64(rw->lines[i].addr, rs->lines[i].addr, "line");
		CHECK_EQ_U64(rw->lines[i].kind, rs->lines[i].kind, "kind");
		CHECK_EQ_U64(rw->lines[i].samples, rs->lines[i].samples, "line samples");
		CHECK(rw->lines[i].score == rs->lines[i].score, "score %g vs %g",
		      rw->lines[i].score, rs->lines[i].score);
	}
	CHECK(rw->n_lines == 1, "one line, got %u", rw->n_lines);
	report_free(rw);
	report_free(rs);
	line_table_free(f.whole);
	live_window_free(f.w);
}

/* Scores per interval, oldest first; a line not reported scores 0, and
 * one gone for LIVE_TREND_POINTS intervals is forgotten. */
static void test_trend(void)
{
	struct feed f = { .w = live_window_new(64, 2 * MS, 1, 0) };
	double tr[LIVE_TREND_POINTS];
	struct report *r;
	unsigned n, second = 0;

	CHECK_EQ_U64(live_window_trend(f.w, PID, LINE_X, tr), 0, "never noted");
	for (unsigned s = 1; s <= 3; s++) {
		interval(&f, s, s >= 2);
		r = window_report(&f);
		live_window_note(f.w, r);
		report_free(r);
	}
	n = live_window_trend(f.w, PID, LINE_X, tr);
	CHECK_EQ_U64(n, 2, "noted since it was first reported");
	CHECK(tr[LIVE_TREND_POINTS - 1] > 0.3 && tr[LIVE_TREND_POINTS - 2] > 0.3,
	      "two shared intervals score, got %g %g", tr[LIVE_TREND_POINTS - 2],
	      tr[LIVE_TREND_POINTS - 1]);
	CHECK(tr[LIVE_TREND_POINTS - 3] == 0, "before: 0");
	for (unsigned s = 4; s < 4 + LIVE_TREND_POINTS; s++) {
		interval(&f, s, false);
		r = window_report(&f);
		live_window_note(f.w, r);
		report_free(r);
		n = live_window_trend(f.w, PID, LINE_X, tr);
		if (s == 4)
			CHECK(n == 3 && tr[LIVE_TREND_POINTS - 1] == 0 &&
			      tr[LIVE_TREND_POINTS - 2] > 0.3, "fading: last 0, before it scored");
		if (s == 5)
			second = n;
	}
	CHECK_EQ_U64(second, 4, "still noted while fading");
	CHECK_EQ_U64(live_window_trend(f.w, PID, LINE_X, tr), 0, "gone 8 intervals: forgotten");
	live_window_free(f.w);
}

/* At most max_samples are kept; the window says how many it lacks. */
static void test_bound(void)
{
	struct feed f = { .w = live_window_new(64, 2 * MS, 3, 500) };

	interval(&f, 1, true);
	CHECK_EQ_U64(live_window_samples(f.w), 500, "kept");
	CHECK_EQ_U64(live_window_clipped(f.w), 1500, "lacking");
	CHECK_EQ_U64(live_window_taken(f.w), 2100, "taken, as the backend counted");
	for (unsigned s = 2; s <= 5; s++)
		interval(&f, s, false);
	CHECK_EQ_U64(live_window_samples(f.w), 500, "still bounded");
	CHECK_EQ_U64(live_window_clipped(f.w), 5500, "the 3 s window lacks the rest");
	live_window_free(f.w);
}

/* An empty interval (an idle target) still slides the window. */
static void test_idle(void)
{
	struct feed f = { .w = live_window_new(64, 2 * MS, 2, 0) };

	interval(&f, 1, true);
	live_window_close(f.w, 2, f.taken + f.undecoded, f.taken);
	live_window_close(f.w, 3, f.taken + f.undecoded, f.taken);
	CHECK_EQ_U64(live_window_samples(f.w), 0, "idle window holds nothing");
	CHECK_EQ_U64(live_window_taken(f.w), 0, "took nothing");
	CHECK(live_window_seconds(f.w) == 2.0, "2 s window, got %g", live_window_seconds(f.w));
	live_window_free(f.w);
}

int main(void)
{
	test_slides();
	test_same_as_whole();
	test_trend();
	test_bound();
	test_idle();
	return test_done();
}
