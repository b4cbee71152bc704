/* datafile_watch.c - the watch records of contend.data (version 4; the
 * by-code flag, version 6).
 *
 * record runs the watch windows that run does (watch.h, confirmation);
 * their exact counts cannot be recomputed from the samples, so the file
 * keeps them: one "watch word" record per watched word and one "watch
 * session" record for the windows as a whole (docs/data-format.md).
 * This file encodes and checks their payloads; datafile.c frames them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "common/util.h"
#include "detector/datafile.h"
#include "detector/datafile_codec.h"

#define WORD_CUT_SHORT 1u                  /* flag: a window hit the cap */
#define WORD_BY_CODE 2u                    /* flag: counted by code (watch.h) */

static int cmp_hits(const void *a, const void *b)
{
	const struct watch_thread_count *x = a, *y = b;
	uint64_t nx = x->reads + x->writes, ny = y->reads + y->writes;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct watch_thread_count *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The threads to store, by tid: all of them, or the ones with the most
 * hits when there are more than the format holds. */
static unsigned kept_threads(const struct watch_word_result *r, struct watch_thread_count **out)
{
	unsigned n = r->n_threads;

	*out = xcalloc(n ? n : 1, sizeof(**out));
	copy_bytes(*out, r->threads, n * sizeof(**out));
	if (n > DATAFILE_WATCH_THREADS_MAX) {
		sort_items(*out, n, sizeof(**out), cmp_hits);
		n = DATAFILE_WATCH_THREADS_MAX;
	}
	if (n > 1)
		sort_items(*out, n, sizeof(**out), cmp_tid);
	return n;
}

void datafile_watch_word_encode(struct bytes *b, const struct watch_word_result *r)
{
	struct watch_thread_count *t;
	unsigned n_threads = kept_threads(r, &t);
	unsigned n_sites = r->n_sites < DATAFILE_WATCH_SITES_MAX ? r->n_sites
								 : DATAFILE_WATCH_SITES_MAX;

	put_u32(b, r->pid);
	put_u32(b, r->windows);
	put_u64(b, r->addr);
	put_f64(b, r->window_s);
	put_u64(b, r->reads);
	put_u64(b, r->writes);
	put_u32(b, r->threads_late);
	put_u32(b, r->threads_unarmed);
	put_u32(b, (r->cut_short ? WORD_CUT_SHORT : 0) | (r->by_code ? WORD_BY_CODE : 0));
	put_u16(b, (uint16_t)n_threads);
	put_u16(b, (uint16_t)n_sites);
	for (unsigned i = 0; i < n_threads; i++) {
		put_u32(b, t[i].tid);
		put_u64(b, t[i].reads);
		put_u64(b, t[i].writes);
		put_u64(b, t[i].concurrent);
	}
	for (unsigned i = 0; i < n_sites; i++) {
		put_u64(b, r->sites[i].ip);
		put_u64(b, r->sites[i].reads);
		put_u64(b, r->sites[i].writes);
	}
	free(t);
}

void datafile_watch_session_encode(struct bytes *b, const struct datafile_watch_session *s)
{
	put_u32(b, s->windows);
	put_u32(b, 0);                           /* flags */
	put_f64(b, s->armed_s);
	put_str(b, s->note, DATAFILE_WATCH_NOTE_MAX);
}


/* Counts of parts may not add up to more than the word's own. */
static bool add_within(uint64_t *sum, uint64_t v, uint64_t total)
{
	if (v > total - *sum)
		return false;
	*sum += v;
	return true;
}

static int parse_threads(struct cursor *c, struct watch_word_result *r, struct strbuf *err)
{
	uint64_t reads = 0, writes = 0;

	for (unsigned i = 0; i < r->n_threads; i++) {
		struct watch_thread_count *t = &r->threads[i];

		t->tid = get_u32(c);
		t->reads = get_u64(c);
		t->writes = get_u64(c);
		t->concurrent = get_u64(c);
		if (i && t->tid <= r->threads[i - 1].tid)
			return datafile_fail(err, "thread %" PRIu32 " out of order (tids ascend, once each)",
				   t->tid);
		if (!add_within(&reads, t->reads, r->reads) ||
		    !add_within(&writes, t->writes, r->writes))
			return datafile_fail(err, "its threads have more hits than the word");
		if (t->concurrent > t->reads + t->writes)
			return datafile_fail(err, "thread %" PRIu32 ": %" PRIu64 " concurrent of %" PRIu64
				   " hits", t->tid, t->concurrent, t->reads + t->writes);
	}
	return 0;
}

static int parse_sites(struct cursor *c, struct watch_word_result *r, struct strbuf *err)
{
	uint64_t reads = 0, writes = 0;

	for (unsigned i = 0; i < r->n_sites; i++) {
		struct watch_site *s = &r->sites[i];

		s->ip = get_u64(c);
		s->reads = get_u64(c);
		s->writes = get_u64(c);
		if (!add_within(&reads, s->reads, r->reads) ||
		    !add_within(&writes, s->writes, r->writes))
			return datafile_fail(err, "its code sites have more hits than the word");
	}
	return 0;
}

int datafile_watch_word_parse(struct cursor *c, struct watch_word_result *r, struct strbuf *err)
{
	uint32_t flags;
	size_t want;

	memset(r, 0, sizeof(*r));
	r->pid = get_u32(c);
	r->windows = get_u32(c);
	r->addr = get_u64(c);
	r->window_s = get_f64(c);
	r->reads = get_u64(c);
	r->writes = get_u64(c);
	r->threads_late = get_u32(c);
	r->threads_unarmed = get_u32(c);
	flags = get_u32(c);
	r->n_threads = get_u16(c);
	r->n_sites = get_u16(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len,
			   DATAFILE_WATCH_WORD_FIXED);
	if (flags & ~(WORD_CUT_SHORT | WORD_BY_CODE))
		return datafile_fail(err, "unknown flags 0x%x", flags);
	r->cut_short = flags & WORD_CUT_SHORT;
	r->by_code = flags & WORD_BY_CODE;
	if (!r->pid || !r->windows || r->addr % WATCH_WORD)
		return datafile_fail(err, "word 0x%" PRIx64 " of pid %" PRIu32 " in %u windows (want a "
			   "pid, an 8-byte aligned address and at least one window)",
			   r->addr, r->pid, r->windows);
	if (!isfinite(r->window_s) || r->window_s < 0)
		return datafile_fail(err, "armed %g s", r->window_s);
	if (r->n_threads > DATAFILE_WATCH_THREADS_MAX || r->n_sites > DATAFILE_WATCH_SITES_MAX)
		return datafile_fail(err, "%u threads and %u code sites (at most %d and %d)", r->n_threads,
			   r->n_sites, DATAFILE_WATCH_THREADS_MAX, DATAFILE_WATCH_SITES_MAX);
	want = DATAFILE_WATCH_WORD_FIXED + (size_t)r->n_threads * DATAFILE_WATCH_THREAD_SIZE +
	       (size_t)r->n_sites * DATAFILE_WATCH_SITE_SIZE;
	if (c->len != want)
		return datafile_fail(err, "size %zu, but %u threads and %u code sites make %zu", c->len,
			   r->n_threads, r->n_sites, want);
	r->threads = xcalloc(r->n_threads ? r->n_threads : 1, sizeof(*r->threads));
	r->alloc_threads = r->n_threads;
	r->sites = xcalloc(r->n_sites ? r->n_sites : 1, sizeof(*r->sites));
	r->alloc_sites = r->n_sites;
	if (parse_threads(c, r, err) || parse_sites(c, r, err))
		return -1;
	return 0;
}

void datafile_watch_word_release(struct watch_word_result *r)
{
	free(r->threads);
	free(r->sites);
	r->threads = NULL;
	r->sites = NULL;
}

int datafile_watch_session_parse(struct cursor *c, struct datafile_watch_session *s,
				 char *note, struct strbuf *err)
{
	uint32_t flags;
	uint16_t n;
	const unsigned char *p;

	s->windows = get_u32(c);
	flags = get_u32(c);
	s->armed_s = get_f64(c);
	n = get_u16(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len,
			   DATAFILE_WATCH_SESSION_FIXED);
	if (flags)
		return datafile_fail(err, "unknown flags 0x%x", flags);
	if (!isfinite(s->armed_s) || s->armed_s < 0)
		return datafile_fail(err, "armed %g s", s->armed_s);
	if (n > DATAFILE_WATCH_NOTE_MAX)
		return datafile_fail(err, "its note is %u bytes long (at most %d)", n,
			   DATAFILE_WATCH_NOTE_MAX);
	if (c->len != (size_t)DATAFILE_WATCH_SESSION_FIXED + n)
		return datafile_fail(err, "size %zu, but its note makes %d", c->len,
			   DATAFILE_WATCH_SESSION_FIXED + n);
	p = get_bytes(c, n);
	if (memchr(p, '\0', n))
		return datafile_fail(err, "its note contains a NUL byte");
	copy_bytes(note, p, n);
	note[n] = '\0';
	s->note = n ? note : NULL;
	return 0;
}
