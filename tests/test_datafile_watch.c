/* test_datafile_watch - the watch records of contend.data (version 4):
 * a watched word's exact counts and the windows' totals survive the round
 * trip, come back out of a watch that arms nothing (watch_restore) as the
 * live one gave them, and a truncated, hostile or misplaced record is
 * refused with a reason.
 *
 * `test_datafile_watch --write-seed FILE` writes the fuzzer's seed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "common/util.h"
#include "detector/datafile.h"
#include "detector/run_facts.h"
#include "detector/watch.h"

static const struct run_facts summary1 = {
	.command = "klass_secondary_supers --seconds 1", .backend = "soft",
	.duration = 1.01, .samples = 1455, .decoded = 1060,
};

static struct watch_thread_count threads1[] = {
	{ .tid = 26372, .reads = 199, .writes = 68, .concurrent = 200 },
	{ .tid = 26373, .reads = 576, .writes = 68, .concurrent = 644 },
};

static struct watch_site sites1[] = {
	{ .ip = 0x557c70e01234ULL, .reads = 675, .writes = 0 },
	{ .ip = 0x557c70e01250ULL, .reads = 100, .writes = 136 },  /* an RMW site reads too */
};

static const struct watch_word_result word1 = {
	.pid = 26371, .addr = 0x557c71ce6aa0ULL, .window_s = 0.011, .windows = 2,
	.cut_short = true, .threads_late = 1, .threads_unarmed = 3,
	.reads = 775, .writes = 136,
	.threads = threads1, .n_threads = 2, .sites = sites1, .n_sites = 2,
};

static const struct datafile_watch_session session1 = {
	.windows = 4, .armed_s = 0.063, .note = "a note, as attach on a VM writes it",
};

/* the file header with the target, then the first record's header */
#define FIRST_PAYLOAD (104 + 8)

/* --- what the reader handed out ------------------------------------------ */

struct got {
	struct watch_word_result words[2];
	struct watch_thread_count threads[2][4];
	struct watch_site sites[2][4];
	unsigned n_words;
	struct datafile_watch_session session;
	char note[DATAFILE_WATCH_NOTE_MAX + 1];
	unsigned n_sessions;
};

static void got_word(void *ctx, const struct watch_word_result *r)
{
	struct got *g = ctx;
	unsigned i = g->n_words++;

	if (i >= 2 || r->n_threads > 4 || r->n_sites > 4)
		return;
	g->words[i] = *r;
	copy_bytes(g->threads[i], r->threads, r->n_threads * sizeof(*r->threads));
	copy_bytes(g->sites[i], r->sites, r->n_sites * sizeof(*r->sites));
	g->words[i].threads = g->threads[i];
	g->words[i].sites = g->sites[i];
}

static void got_session(void *ctx, const struct datafile_watch_session *s)
{
	struct got *g = ctx;

	g->n_sessions++;
	g->session = *s;
	if (s->note) {
		snprintf(g->note, sizeof(g->note), "%s", s->note);
		g->session.note = g->note;
	}
}

static int read_file(const char *p, size_t len, struct got *g, struct strbuf *err)
{
	FILE *f = len ? fmemopen((void *)p, len, "r") : fopen("/dev/null", "r");
	struct datafile_callbacks cb = {
		.ctx = g, .watch_word = got_word, .watch_session = got_session,
	};
	struct datafile_reader *r;
	int ret;

	memset(g, 0, sizeof(*g));
	strbuf_reset(err);
	r = datafile_reader_open(f, err);
	ret = r ? datafile_reader_run(r, &cb, err) : -1;
	datafile_reader_free(r);
	fclose(f);
	return ret;
}

static char *write_watch_file(size_t *len, const struct watch_word_result *w,
			      const struct datafile_watch_session *s)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct datafile_writer *wr = datafile_writer_new(f, 1000);

	if (w)
		datafile_write_watch_word(wr, w);
	if (s)
		datafile_write_watch_session(wr, s);
	datafile_writer_finish(wr, &summary1);
	fclose(f);
	return buf;
}

static bool same_word(const struct watch_word_result *a, const struct watch_word_result *b)
{
	if (a->pid != b->pid || a->addr != b->addr || a->window_s != b->window_s ||
	    a->windows != b->windows || a->cut_short != b->cut_short ||
	    a->threads_late != b->threads_late || a->threads_unarmed != b->threads_unarmed ||
	    a->reads != b->reads || a->writes != b->writes || a->n_threads != b->n_threads ||
	    a->n_sites != b->n_sites)
		return false;
	for (unsigned i = 0; i < a->n_threads; i++)
		if (memcmp(&a->threads[i], &b->threads[i], sizeof(a->threads[i])))
			return false;
	for (unsigned i = 0; i < a->n_sites; i++)
		if (memcmp(&a->sites[i], &b->sites[i], sizeof(a->sites[i])))
			return false;
	return true;
}

/* --- tests ------------------------------------------------------------------ */

static void test_round_trip(void)
{
	struct strbuf err = STRBUF_INIT;
	struct got g;
	size_t len;
	char *buf = write_watch_file(&len, &word1, &session1);

	CHECK(read_file(buf, len, &g, &err) == 0, "read: %s", strbuf_str(&err));
	CHECK_EQ_U64(g.n_words, 1, "one watched word");
	CHECK(same_word(&g.words[0], &word1), "the word as written: every field, "
	      "threads with their concurrent hits, code sites");
	CHECK_EQ_U64(g.n_sessions, 1, "one watch session");
	CHECK_EQ_U64(g.session.windows, 4, "windows");
	CHECK(g.session.armed_s == 0.063, "armed time %g", g.session.armed_s);
	CHECK_STR(g.session.note, session1.note, "note");
	free(buf);

	/* no note: none comes back (not an empty string) */
	buf = write_watch_file(&len, NULL, &(struct datafile_watch_session){ .windows = 1 });
	CHECK(read_file(buf, len, &g, &err) == 0 && g.n_sessions == 1 && !g.session.note,
	      "a session without a note: %s", strbuf_str(&err));
	free(buf);
	strbuf_release(&err);
}

/* A recorded word in a watch that arms nothing gives the sites, threads
 * and totals back as the live watch gave them. */
static void test_restore(void)
{
	struct watch_config cfg;
	struct watch *w;
	const struct watch_word_result *r;

	watch_config_default(&cfg);
	w = watch_new(&cfg);
	CHECK(watch_restore(w, &word1), "restored");
	CHECK(!watch_restore(w, &word1), "the same word twice is refused");
	watch_restore_totals(w, 4, 0.063);
	r = watch_result(w, word1.pid, word1.addr);
	CHECK(r && same_word(r, &word1), "the restored word is the recorded one");
	CHECK(!watch_result(w, word1.pid, word1.addr + 8), "no other word");
	CHECK_EQ_U64(watch_windows_run(w), 4, "windows");
	CHECK(watch_armed_s(w) == 0.063, "armed %g", watch_armed_s(w));
	watch_free(w);
}

/* More threads than the format holds: the ones with the most hits. */
static void test_thread_cap(void)
{
	unsigned n = DATAFILE_WATCH_THREADS_MAX + 10;
	struct watch_thread_count *t = xcalloc(n, sizeof(*t));
	struct watch_word_result big = word1;
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct datafile_writer *wr = datafile_writer_new(f, 1000);
	uint32_t type, size;

	for (unsigned i = 0; i < n; i++)     /* tid 1 has the fewest hits */
		t[i] = (struct watch_thread_count){ .tid = i + 1, .reads = i };
	big.threads = t;
	big.n_threads = n;
	big.reads = (uint64_t)n * n;
	big.n_sites = 0;
	datafile_write_watch_word(wr, &big);
	datafile_writer_finish(wr, &summary1);
	fclose(f);
	memcpy(&type, buf + 104, 4);
	memcpy(&size, buf + 108, 4);
	CHECK_EQ_U64(size, 56 + 28 * DATAFILE_WATCH_THREADS_MAX, "threads capped");
	/* the first thread kept is tid 11: the ten with fewest hits are gone */
	CHECK(buf[FIRST_PAYLOAD + 56] == 11, "kept from tid %d", buf[FIRST_PAYLOAD + 56]);
	{
		struct got g;
		CHECK(read_file(buf, len, &g, &err) == 0, "capped word reads: %s",
		      strbuf_str(&err));
	}
	free(buf);
	free(t);
	strbuf_release(&err);
}

static void expect_refused(char *buf, size_t len, const char *want, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct got g;

	CHECK(read_file(buf, len, &g, &err) < 0 && strstr(strbuf_str(&err), want),
	      "%s: want \"%s\", got \"%s\"", what, want, strbuf_str(&err));
	strbuf_release(&err);
}

static void put32(char *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
}

/* A file that ends anywhere inside the watch records is truncated. */
static void test_truncated(void)
{
	size_t len;
	char *buf = write_watch_file(&len, &word1, &session1);
	size_t end = FIRST_PAYLOAD + 56 + 2 * 28 + 2 * 24;   /* the word's end */

	for (size_t n = FIRST_PAYLOAD; n < end; n++)
		expect_refused(buf, n, "the file ends inside a watch word record",
			       "cut inside the word");
	for (size_t n = end + 8; n < end + 8 + 18 + strlen(session1.note); n++)
		expect_refused(buf, n, "the file ends inside a watch session record",
			       "cut inside the session");
	/* a record whose size says less than its threads and sites make */
	put32(buf + FIRST_PAYLOAD - 4, 56 + 2 * 28 + 24);
	expect_refused(buf, len, "corrupt watch word record at byte 104: size 136, but 2 "
		       "threads and 2 code sites make 160", "short size");
	free(buf);
	/* a record shorter than its fixed part */
	buf = write_watch_file(&len, &word1, NULL);
	put32(buf + FIRST_PAYLOAD - 4, 20);
	expect_refused(buf, len, "less than its 56 fixed bytes", "shorter than fixed");
	free(buf);
}

static void test_hostile(void)
{
	size_t len;
	char *buf;

	buf = write_watch_file(&len, &word1, &session1);
	buf[8] = 3;                             /* version 3 knew no watch records */
	expect_refused(buf, len, "watch word record in a version 3 file", "version 3");
	buf[8] = DATAFILE_VERSION;
	buf[FIRST_PAYLOAD + 48] = 4;            /* flags: 1 and 2 are known */
	expect_refused(buf, len, "unknown flags 0x4", "flags");
	buf[FIRST_PAYLOAD + 48] = 1;
	buf[FIRST_PAYLOAD + 8] |= 4;            /* addr not 8-byte aligned */
	expect_refused(buf, len, "8-byte aligned", "unaligned word");
	buf[FIRST_PAYLOAD + 8] &= ~4;
	put32(buf + FIRST_PAYLOAD + 4, 0);      /* windows */
	expect_refused(buf, len, "at least one window", "no window");
	put32(buf + FIRST_PAYLOAD + 4, 2);
	put32(buf + FIRST_PAYLOAD + 56 + 28, 26000);   /* second tid below the first */
	expect_refused(buf, len, "thread 26000 out of order", "tids out of order");
	put32(buf + FIRST_PAYLOAD + 56 + 28, 26373);
	put32(buf + FIRST_PAYLOAD + 56 + 4, 5000);     /* a thread's reads > the word's */
	expect_refused(buf, len, "its threads have more hits than the word", "thread hits");
	put32(buf + FIRST_PAYLOAD + 56 + 4, 199);
	put32(buf + FIRST_PAYLOAD + 56 + 20, 5000);    /* concurrent > its hits */
	expect_refused(buf, len, "thread 26372: 5000 concurrent of 267 hits", "concurrent");
	put32(buf + FIRST_PAYLOAD + 56 + 20, 200);
	put32(buf + FIRST_PAYLOAD + 56 + 56 + 8, 676); /* the sites' reads > the word's */
	expect_refused(buf, len, "code sites have more hits than the word", "site hits");
	free(buf);

	/* two session records */
	{
		char *p = NULL;
		FILE *f = open_memstream(&p, &len);
		struct datafile_writer *wr = datafile_writer_new(f, 1000);

		datafile_write_watch_session(wr, &session1);
		datafile_write_watch_session(wr, &session1);
		datafile_writer_finish(wr, &summary1);
		fclose(f);
		expect_refused(p, len, "corrupt watch session record", "a second session");
		expect_refused(p, len, "a second one", "a second session says so");
		free(p);
	}
	/* a NUL in the note */
	buf = write_watch_file(&len, NULL, &session1);
	buf[FIRST_PAYLOAD + 18 + 3] = '\0';
	expect_refused(buf, len, "its note contains a NUL byte", "NUL in the note");
	free(buf);
}

static int write_seed(const char *path)
{
	size_t len;
	char *buf = write_watch_file(&len, &word1, &session1);
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		ret = error("cannot write %s: %s", path, strerror(errno));
	free(buf);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seed"))
		return write_seed(argv[2]);
	test_round_trip();
	test_restore();
	test_thread_cap();
	test_truncated();
	test_hostile();
	return test_done();
}
