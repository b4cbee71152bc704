#include "detector/classify.h"
#include "tap.h"
#include "common/util.h"

#include <inttypes.h>

#define MS 1000000ULL
#define PID 42
#define LINE 0x7000

/* One thread's access pattern: it repeats its accesses in turn. */
struct actor {
	uint32_t tid;
	unsigned offset, size;
	int kind;
};

static void play_one(struct line_table *t, const struct actor *a, uint64_t time)
{
	struct access_sample s = {
		.time = time, .pid = PID, .tid = a->tid,
		.ip = 0x401000 + a->offset, .addr = LINE + a->offset,
		.size = a->size, .kind = a->kind, .base_reg = -1,
	};

	line_table_add(t, &s);
}

/*
 * Round-robin over the actors, one sample every millisecond, the way
 * threads hammering one line in parallel are sampled.
 */
static void play(struct line_table *t, const struct actor *a, size_t n,
		 unsigned samples, uint64_t start)
{
	for (unsigned i = 0; i < samples; i++)
		play_one(t, &a[i % n], start + i * MS);
}

/*
 * The same, but each millisecond a random actor (fixed seed) takes the
 * turn: threads that write and then read do not always leave a read as
 * their last access before another thread's turn.
 */
static void play_shuffled(struct line_table *t, const struct actor *a, size_t n,
			  unsigned samples)
{
	uint64_t x = 12345;

	for (unsigned i = 0; i < samples; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		play_one(t, &a[(x >> 33) % n], i * MS);
	}
}

static struct line_table *table_of(const struct actor *a, size_t n, unsigned samples)
{
	struct line_table *t = line_table_new(64, 3 * MS);

	play(t, a, n, samples, 0);
	return t;
}

static struct classify_config default_cfg;

static void classify(struct line_table *t, struct line_verdict *v)
{
	struct classify_config cfg;

	classify_config_default(&cfg);
	classify_line(line_table_find(t, PID, LINE), line_table_samples(t), &cfg, v);
}

static const struct range_verdict *range_at(const struct line_verdict *v,
					    unsigned offset, unsigned size)
{
	for (unsigned i = 0; i < v->n_ranges; i++)
		if (v->ranges[i].offset == offset && v->ranges[i].size == size)
			return &v->ranges[i];
	return NULL;
}

static const struct range_verdict no_range;

static const struct range_verdict *must_range(const struct line_verdict *v,
					      unsigned offset, unsigned size)
{
	const struct range_verdict *r = range_at(v, offset, size);

	CHECK(r != NULL, "range [%u,+%u) present", offset, size);
	return r ? r : &no_range;
}

static void test_names(void)
{
	struct classify_config c;

	CHECK_STR(sharing_kind_name(SHARING_NONE), "none", "name none");
	CHECK_STR(sharing_kind_name(SHARING_FALSE), "false sharing", "name false");
	CHECK_STR(sharing_kind_name(SHARING_TRUE), "true sharing", "name true");
	CHECK_STR(sharing_kind_name(SHARING_MIXED), "mixed sharing", "name mixed");
	CHECK_STR(sharing_kind_id(SHARING_NONE), "none", "id none");
	CHECK_STR(sharing_kind_id(SHARING_FALSE), "false", "id false");
	CHECK_STR(sharing_kind_id(SHARING_TRUE), "true", "id true");
	CHECK_STR(sharing_kind_id(SHARING_MIXED), "mixed", "id mixed");

	classify_config_default(&c);
	CHECK(c.min_score == 0.005, "min_score %g", c.min_score);
	CHECK(c.min_concurrent_frac == 0.3, "min_concurrent_frac %g",
	      c.min_concurrent_frac);
	CHECK_EQ_U64(c.min_concurrent, 8, "min_concurrent");
	CHECK(c.noise_frac == 0.01, "noise_frac %g", c.noise_frac);
}

static const struct actor counters[] = {
	{ 1, 0, 8, ACCESS_RMW },
	{ 2, 8, 8, ACCESS_RMW },
};

static void test_false_sharing(void)
{
	struct line_table *t = table_of(counters, 2, 1000);
	const struct range_verdict *r;
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "false", "kind");
	CHECK(v.contended, "contended");
	CHECK_EQ_U64(v.n_threads, 2, "threads");
	CHECK_EQ_U64(v.n_writers, 2, "writers");
	CHECK(v.score > 0.99 && v.share == 1.0, "score %g share %g", v.score, v.share);
	CHECK(v.concurrent_frac > 0.99, "concurrent_frac %g", v.concurrent_frac);
	CHECK_EQ_U64(v.n_ranges, 2, "ranges");
	CHECK(v.ranges[0].offset == 0 && v.ranges[1].offset == 8, "sorted by offset");
	for (unsigned i = 0; i < v.n_ranges; i++) {
		r = &v.ranges[i];
		CHECK(r->false_writer && r->false_victim && !r->true_shared,
		      "range %u flags %d %d %d", r->offset, r->false_writer,
		      r->false_victim, r->true_shared);
		CHECK_EQ_U64(r->n_threads, 1, "range threads");
		CHECK_EQ_U64(r->n_writers, 1, "range writers");
		CHECK_EQ_U64(r->all, 500, "range samples");
		CHECK_EQ_U64(r->reads, r->writes, "rmw reads and writes");
	}
	CHECK_EQ_U64(v.ranges[0].writes + v.ranges[1].writes, 999, "concurrent writes");
	line_verdict_release(&v);
	CHECK(v.ranges == NULL && v.n_ranges == 0, "released");
	line_table_free(t);
}

static void test_true_sharing(void)
{
	static const struct actor a[] = {
		{ 1, 0, 8, ACCESS_ATOMIC },
		{ 2, 0, 8, ACCESS_ATOMIC },
		{ 3, 0, 8, ACCESS_ATOMIC },
	};
	struct line_table *t = table_of(a, 3, 900);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "kind");
	CHECK(v.contended, "contended");
	CHECK_EQ_U64(v.n_threads, 3, "threads");
	CHECK_EQ_U64(v.n_ranges, 1, "ranges");
	CHECK(v.ranges[0].true_shared && !v.ranges[0].false_writer &&
	      !v.ranges[0].false_victim, "only true-shared");
	CHECK_EQ_U64(v.ranges[0].n_writers, 3, "range writers");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Both threads increment the same word: every pair overlaps. */
static void test_same_word_rmw(void)
{
	static const struct actor a[] = {
		{ 1, 16, 8, ACCESS_RMW },
		{ 2, 16, 8, ACCESS_RMW },
	};
	struct line_table *t = table_of(a, 2, 400);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "kind");
	line_verdict_release(&v);
	line_table_free(t);
}

/* [0,8) and [4,8) overlap: true sharing, not false. */
static void test_partial_overlap(void)
{
	static const struct actor a[] = {
		{ 1, 0, 8, ACCESS_RMW },
		{ 2, 4, 4, ACCESS_LOAD },
	};
	struct line_table *t = table_of(a, 2, 400);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "kind");
	CHECK(v.contended, "contended");
	CHECK(must_range(&v, 4, 4)->true_shared, "reader's range true-shared");
	CHECK_EQ_U64(v.n_writers, 1, "one writer");
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * The Klass case: every thread writes the cache word at 32 and reads the
 * array pointer at 40; another thread only reads the cache word.
 */
static void test_klass_mixed(void)
{
	static const struct actor a[] = {
		{ 1, 32, 8, ACCESS_STORE },
		{ 1, 40, 8, ACCESS_LOAD },
		{ 2, 32, 8, ACCESS_STORE },
		{ 2, 40, 8, ACCESS_LOAD },
		{ 3, 32, 8, ACCESS_LOAD },
		{ 3, 40, 8, ACCESS_LOAD },
	};
	struct line_table *t = line_table_new(64, 3 * MS);
	const struct range_verdict *r32, *r40;
	struct line_verdict v;

	play_shuffled(t, a, ARRAY_SIZE(a), 1200);
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "mixed", "kind");
	CHECK(v.contended, "contended");
	CHECK_EQ_U64(v.n_threads, 3, "threads");
	CHECK_EQ_U64(v.n_writers, 2, "writers");
	r32 = must_range(&v, 32, 8);
	r40 = must_range(&v, 40, 8);
	CHECK(r32->true_shared && r32->false_writer && !r32->false_victim,
	      "32: true-shared, false writer");
	CHECK(r40->false_victim && !r40->true_shared && !r40->false_writer,
	      "40: false victim only");
	CHECK_EQ_U64(r32->n_threads, 3, "32 threads");
	CHECK_EQ_U64(r32->n_writers, 2, "32 writers");
	CHECK_EQ_U64(r40->n_writers, 0, "40 writers");
	CHECK_EQ_U64(r40->writes, 0, "40 never written");
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * p3_mutex's done and checksum: both threads write both fields, in turn,
 * under a lock.  Each is truly shared; they do not falsely share with
 * each other, for the same threads would move both lines.
 */
static void test_co_written(void)
{
	static const struct actor a[] = {
		{ 1, 8, 8, ACCESS_STORE },
		{ 1, 16, 8, ACCESS_STORE },
		{ 2, 8, 8, ACCESS_STORE },
		{ 2, 16, 8, ACCESS_STORE },
	};
	static const struct actor b[] = {   /* counters[0] by 1, 2; [1] by 3, 4 */
		{ 1, 0, 8, ACCESS_RMW },
		{ 3, 8, 8, ACCESS_RMW },
		{ 2, 0, 8, ACCESS_RMW },
		{ 4, 8, 8, ACCESS_RMW },
	};
	struct line_table *t = line_table_new(64, 3 * MS);
	const struct range_verdict *r8, *r16;
	struct line_verdict v;

	play_shuffled(t, a, ARRAY_SIZE(a), 1200);
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "co-written kind");
	r8 = must_range(&v, 8, 8);
	r16 = must_range(&v, 16, 8);
	CHECK(r8->true_shared && !r8->false_writer && !r8->false_victim,
	      "done: true-shared only (%d %d %d)", r8->true_shared,
	      r8->false_writer, r8->false_victim);
	CHECK(r16->true_shared && !r16->false_writer && !r16->false_victim,
	      "checksum: true-shared only");
	line_verdict_release(&v);
	line_table_free(t);

	/* different writer sets still falsely share */
	t = table_of(b, ARRAY_SIZE(b), 1200);
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "mixed", "two pairs of writers");
	CHECK(must_range(&v, 0, 8)->false_victim, "0: victim of 8's writers");
	line_verdict_release(&v);
	line_table_free(t);
}

static void test_read_only(void)
{
	static const struct actor a[] = {
		{ 1, 0, 8, ACCESS_LOAD },
		{ 2, 0, 8, ACCESS_LOAD },
		{ 3, 8, 8, ACCESS_LOAD },
	};
	struct line_table *t = table_of(a, 3, 900);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "none", "kind");
	CHECK(!v.contended, "not contended");
	CHECK(v.score == 0.0, "score %g", v.score);
	CHECK_EQ_U64(v.n_writers, 0, "writers");
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * Workers read a stop flag and a config word beside it; the main thread
 * sets the flag once, and one sample caught it (the globals line of
 * testcases/klass_secondary_supers).  One store moves the line once: it
 * is neither contended nor minor.  A store that repeats is.
 */
static void test_flag_set_once(void)
{
	static const struct actor readers[] = {
		{ 1, 0, 4, ACCESS_LOAD },
		{ 2, 4, 4, ACCESS_LOAD },
	};
	static const struct actor setter = { 3, 0, 4, ACCESS_STORE };
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line_verdict v;

	/* sampled densely around the store, as a busy machine's few
	 * overlapping moments are: most reads follow it within a window */
	for (unsigned i = 0; i < 10; i++)
		play_one(t, &readers[i % 2], 19 * MS + i * MS / 10);
	play_one(t, &setter, 20 * MS);
	for (unsigned i = 0; i < 30; i++)
		play_one(t, &readers[i % 2], 20 * MS + (i + 1) * MS / 10);
	classify(t, &v);
	CHECK(v.concurrent_frac >= default_cfg.min_concurrent_frac && v.score >= default_cfg.min_score,
	      "the reads around it are concurrent (%g)", v.concurrent_frac);
	CHECK_STR(sharing_kind_id(v.kind), "mixed", "the store does share the line");
	CHECK_EQ_U64(v.n_writers, 1, "one writer");
	CHECK(!v.contended, "one store: not contended (score %g)", v.score);
	CHECK(!line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "one store: not minor sharing either");
	line_verdict_release(&v);

	line_table_free(t);

	static const struct actor bumper[] = {
		{ 1, 0, 4, ACCESS_LOAD }, { 2, 4, 4, ACCESS_LOAD }, { 3, 0, 4, ACCESS_STORE },
	};
	t = table_of(bumper, 3, 60);
	classify(t, &v);
	CHECK(v.contended, "a store that repeats: contended");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Thread 1 owns the line for 100 ms, then thread 2 does. */
static void test_phased(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line_verdict v;

	play(t, &counters[0], 1, 100, 0);
	play(t, &counters[1], 1, 100, 100 * MS);
	classify(t, &v);
	CHECK(!v.contended, "not contended");
	CHECK(v.concurrent_frac < 0.05, "concurrent_frac %g", v.concurrent_frac);
	CHECK(!line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "threads in turn: not minor sharing either");
	line_verdict_release(&v);
	line_table_free(t);
}

/* One thread writing and reading disjoint words is not a pair. */
static void test_one_thread(void)
{
	static const struct actor a[] = {
		{ 1, 0, 8, ACCESS_RMW },
		{ 1, 8, 8, ACCESS_LOAD },
	};
	struct line_table *t = table_of(a, 2, 400);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "none", "kind");
	CHECK(!v.contended, "not contended");
	CHECK_EQ_U64(v.n_ranges, 2, "ranges still listed");
	CHECK_EQ_U64(must_range(&v, 0, 8)->all, 200, "range samples");
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * A thread writing one word and touching another is no pair by itself:
 * thread 1's two counters only meet thread 2's wide write, which overlaps
 * both, so the line is true sharing and not mixed.
 */
static void test_own_ranges(void)
{
	static const struct actor a[] = {
		{ 1, 0, 8, ACCESS_RMW },
		{ 1, 8, 8, ACCESS_RMW },
		{ 2, 0, 16, ACCESS_STORE },
	};
	struct line_table *t = table_of(a, 3, 900);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "kind");
	for (unsigned i = 0; i < v.n_ranges; i++)
		CHECK(v.ranges[i].true_shared && !v.ranges[i].false_writer &&
		      !v.ranges[i].false_victim, "range %u only true-shared",
		      v.ranges[i].offset);
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * A pool's workers taking one slot in turn -- each joined before the next
 * starts -- write the same bytes, but never at the same time: their spans
 * on the line never meet, so no true sharing, though the concurrency
 * window joins one worker's last samples to the next one's first.  Two
 * workers at once on two slots are false sharing.
 */
static void test_workers_in_turn(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line_verdict v;

	for (unsigned w = 0; w < 20; w++) {
		/* workers 100+w and 200+w: slots 0 and 8, 10 ms, together */
		struct actor pair[2] = {
			{ 100 + w, 0, 8, ACCESS_RMW }, { 200 + w, 8, 8, ACCESS_RMW },
		};

		play(t, pair, 2, 10, w * 11 * MS);
	}
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "false", "workers in turn: only the pairs' false sharing");
	for (unsigned i = 0; i < v.n_ranges; i++)
		CHECK(!v.ranges[i].true_shared, "slot %u not true-shared", v.ranges[i].offset);
	line_verdict_release(&v);
	line_table_free(t);

	/* one worker at a time, alone on the line: nothing at all */
	t = line_table_new(64, 3 * MS);
	for (unsigned w = 0; w < 20; w++) {
		struct actor one = { 100 + w, 0, 8, ACCESS_RMW };

		play(t, &one, 1, 10, w * 11 * MS);
	}
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "none", "workers in turn alone");
	CHECK(!v.contended, "not contended");
	line_verdict_release(&v);
	line_table_free(t);
}

/* One stray write by a third thread onto a counter is noise. */
static void test_noise(void)
{
	struct line_table *t = table_of(counters, 2, 1000);
	struct access_sample stray = {
		.time = 1000 * MS, .pid = PID, .tid = 3, .ip = 0x402000,
		.addr = LINE + 4, .size = 4, .kind = ACCESS_RMW, .base_reg = -1,
	};
	struct classify_config cfg;
	struct line_verdict v;

	line_table_add(t, &stray);
	/* the counters' threads run on past it: the stray meets them */
	play(t, counters, 2, 10, 1001 * MS);
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "false", "kind with a stray sample");
	CHECK(v.contended, "contended");
	CHECK_EQ_U64(v.n_threads, 2, "stray thread not counted");
	CHECK_EQ_U64(v.n_ranges, 3, "stray range still listed");
	CHECK_EQ_U64(must_range(&v, 4, 4)->n_threads, 0, "stray range has no threads");
	line_verdict_release(&v);

	/* without the noise filter the same sample makes it mixed */
	classify_config_default(&cfg);
	cfg.noise_frac = 0;
	classify_line(line_table_find(t, PID, LINE), line_table_samples(t), &cfg, &v);
	CHECK_STR(sharing_kind_id(v.kind), "mixed", "kind without noise filter");
	CHECK_EQ_U64(v.n_threads, 3, "stray thread counted");
	line_verdict_release(&v);
	line_table_free(t);
}

/*
 * 200 short-lived threads, two alive at a time, each with 5 samples of an
 * atomic add on one counter: every thread is below the noise (1% of 1000
 * concurrent samples), together they are all of the line's samples.
 */
static void test_thread_churn(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line_verdict v;

	for (uint32_t pair = 0; pair < 100; pair++) {
		for (unsigned i = 0; i < 10; i++) {
			struct actor a = { 2 * pair + 1 + i % 2, 0, 8, ACCESS_RMW };

			play_one(t, &a, (pair * 10 + i) * MS);
		}
	}
	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "true", "kind");
	CHECK(v.contended, "contended");
	CHECK_EQ_U64(v.n_threads, 200, "every short-lived thread counted");
	CHECK_EQ_U64(v.n_writers, 200, "every short-lived thread writes");
	line_verdict_release(&v);
	line_table_free(t);
}

/* False sharing on a line with 0.1% of the program's samples. */
static void test_below_min_score(void)
{
	struct line_table *t = table_of(counters, 2, 1000);
	struct classify_config cfg;
	struct line_verdict v;

	classify_config_default(&cfg);
	classify_line(line_table_find(t, PID, LINE), 1000 * 1000, &cfg, &v);
	CHECK_STR(sharing_kind_id(v.kind), "false", "kind");
	CHECK(!v.contended, "not contended at score %g", v.score);
	CHECK(v.share == 0.001, "share %g", v.share);
	CHECK(line_verdict_minor(line_table_find(t, PID, LINE), &v, &cfg),
	      "real false sharing at little cost: minor");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Too few concurrent samples to say anything. */
static void test_below_min_concurrent(void)
{
	struct line_table *t = table_of(counters, 2, 6);
	struct line_verdict v;

	classify(t, &v);
	CHECK_STR(sharing_kind_id(v.kind), "false", "kind");
	CHECK(!v.contended, "5 concurrent samples are not enough");
	CHECK(line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "5 concurrent samples: minor");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Threads taking turns every 20 ms: each hand-off leaves a few concurrent
 * samples, enough for the floor, but they are not sharing, minor or not. */
static void test_turns_not_minor(void)
{
	struct line_table *t = line_table_new(64, 3 * MS);
	struct line_verdict v;

	for (unsigned p = 0; p < 20; p++)
		play(t, &counters[p % 2], 1, 20, p * 20 * MS);
	classify(t, &v);
	CHECK(line_table_find(t, PID, LINE)->concurrent >= MINOR_MIN_CONCURRENT,
	      "concurrent %" PRIu64, line_table_find(t, PID, LINE)->concurrent);
	CHECK(v.kind != SHARING_NONE && v.concurrent_frac < default_cfg.min_concurrent_frac,
	      "kind %s, concurrent_frac %g", sharing_kind_id(v.kind), v.concurrent_frac);
	CHECK(!line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "threads in turn: not minor");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Minor needs MINOR_MIN_CONCURRENT concurrent samples, or the watch's
 * word for it; a contended line is not minor. */
static void test_minor_floor(void)
{
	struct line_table *t = table_of(counters, 2, MINOR_MIN_CONCURRENT);
	struct line_verdict v;

	classify(t, &v);
	CHECK_EQ_U64(line_table_find(t, PID, LINE)->concurrent, MINOR_MIN_CONCURRENT - 1,
		     "concurrent");
	CHECK(!line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "below the floor: not minor");
	/* the watchpoints saw the two threads share it: the floor is theirs */
	line_table_find(t, PID, LINE)->watch_shared = true;
	CHECK(line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "below the floor, shared under the watch: minor");
	line_verdict_release(&v);
	line_table_free(t);

	/* the watch does not stand in for the rest: threads in turn stay out */
	t = line_table_new(64, 3 * MS);
	for (unsigned p = 0; p < 20; p++)
		play(t, &counters[p % 2], 1, 20, p * 20 * MS);
	line_table_find(t, PID, LINE)->watch_shared = true;
	classify(t, &v);
	CHECK(!line_verdict_minor(line_table_find(t, PID, LINE), &v, &default_cfg),
	      "shared under the watch, but in turn when sampled: not minor");
	line_verdict_release(&v);
	line_table_free(t);

	t = table_of(counters, 2, 1000);
	classify(t, &v);
	CHECK(v.contended && !line_verdict_minor(line_table_find(t, PID, LINE), &v,
						 &default_cfg), "contended: not minor");
	line_verdict_release(&v);
	line_table_free(t);
}

/* Ranges come sorted by offset, then size. */
static void test_range_order(void)
{
	static const struct actor a[] = {
		{ 1, 8, 8, ACCESS_RMW },
		{ 2, 0, 8, ACCESS_LOAD },
		{ 2, 0, 4, ACCESS_LOAD },
	};
	struct line_table *t = table_of(a, 3, 300);
	struct line_verdict v;

	classify(t, &v);
	CHECK_EQ_U64(v.n_ranges, 3, "ranges");
	CHECK(v.ranges[0].offset == 0 && v.ranges[0].size == 4 &&
	      v.ranges[1].offset == 0 && v.ranges[1].size == 8 &&
	      v.ranges[2].offset == 8, "order");
	line_verdict_release(&v);
	line_table_free(t);
}

int main(void)
{
	classify_config_default(&default_cfg);
	test_names();
	test_false_sharing();
	test_true_sharing();
	test_same_word_rmw();
	test_partial_overlap();
	test_klass_mixed();
	test_co_written();
	test_read_only();
	test_phased();
	test_flag_set_once();
	test_one_thread();
	test_own_ranges();
	test_noise();
	test_workers_in_turn();
	test_thread_churn();
	test_below_min_score();
	test_below_min_concurrent();
	test_minor_floor();
	test_turns_not_minor();
	test_range_order();
	return test_done();
}
