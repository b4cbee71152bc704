/* datafile_codec.h - the byte encoding of contend.data records, shared by
 * the files that write and read them (datafile.c, datafile_watch.c).
 *
 * Private to detector/datafile*.c.  Writing appends little-endian fields
 * to a growing buffer; reading walks one payload with a cursor whose reads
 * past the end return zeros and set 'over', so a parser reads every field
 * and checks once.
 */
#ifndef CONTEND_DATAFILE_CODEC_H
#define CONTEND_DATAFILE_CODEC_H

#include "common/cpu_nodes.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/util.h"

struct bytes {
	unsigned char *p;
	size_t len, alloc;
};

static inline void put(struct bytes *b, const void *src, size_t n)
{
	ALLOC_GROW(b->p, b->len + n, b->alloc);
	copy_bytes(b->p + b->len, src, n);
	b->len += n;
}

static inline void store_le(unsigned char *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_le(struct bytes *b, uint64_t v, unsigned size)
{
	unsigned char le[8];
	store_le(le, v, size);
	put(b, le, size);
}

static inline void put_u8(struct bytes *b, uint8_t v) { put_le(b, v, 1); }
static inline void put_u16(struct bytes *b, uint16_t v) { put_le(b, v, 2); }
static inline void put_u32(struct bytes *b, uint32_t v) { put_le(b, v, 4); }
static inline void put_u64(struct bytes *b, uint64_t v) { put_le(b, v, 8); }

static inline void put_f64(struct bytes *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	put_u64(b, v);
}

/* A string: u16 length, then its bytes, no NUL; cut to max bytes. */
static inline void put_str(struct bytes *b, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (n > max)
		n = max;
	put_u16(b, (uint16_t)n);
	put(b, s, n);
}

/* Reading side: a cursor over one payload.  Reads past the end return
 * zeros and set 'over', so a parser reads every field and checks once. */
struct cursor {
	const unsigned char *p;
	size_t len, pos;
	bool over;
};

static inline uint64_t get_le(struct cursor *c, unsigned size)
{
	uint64_t v = 0;
	if (c->over || c->len - c->pos < size) {
		c->over = true;
		return 0;
	}
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->p[c->pos + i] << (8 * i);
	c->pos += size;
	return v;
}

static inline uint8_t get_u8(struct cursor *c) { return (uint8_t)get_le(c, 1); }
static inline uint16_t get_u16(struct cursor *c) { return (uint16_t)get_le(c, 2); }
static inline uint32_t get_u32(struct cursor *c) { return (uint32_t)get_le(c, 4); }
static inline uint64_t get_u64(struct cursor *c) { return get_le(c, 8); }

static inline double get_f64(struct cursor *c)
{
	uint64_t v = get_u64(c);
	double d;
	memcpy(&d, &v, sizeof(d));
	return d;
}

/* n raw bytes, or NULL past the end */
static inline const unsigned char *get_bytes(struct cursor *c, size_t n)
{
	const unsigned char *p;
	if (c->over || c->len - c->pos < n) {
		c->over = true;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

/* --- errors and text (datafile.c) ------------------------------------------ */

struct strbuf;

/* What is wrong, appended to err; returns -1. */
int datafile_fail(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A u16-length string of at most max bytes, as text (no NUL, no bytes a
 * name may not hold); NULL with err if bad.  Caller frees. */
char *datafile_get_text(struct cursor *c, size_t max, const char *what, struct strbuf *err);

/* --- the summary record (datafile_summary.c) -------------------------------- */

#include "detector/instruments.h"
#include "detector/run_facts.h"

/* A parsed summary: the facts, and the strings and arrays they point to. */
struct datafile_summary {
	struct run_facts facts;
	struct named_count *dropped;
	unsigned n_dropped;
	char *command, *backend, *backend_note, *price_note;
	struct instruments instruments;
	struct cpu_nodes nodes;          /* version 7; facts.cpu_nodes points here */
};

void datafile_summary_encode(struct bytes *b, const struct run_facts *s);
/* 0, or -1 with what is wrong in err; the strings it read are s's either
 * way (datafile_summary_release()).  The facts' freq is left 0. */
int datafile_summary_parse(struct cursor *c, uint32_t version, struct datafile_summary *s,
			   struct strbuf *err);
void datafile_summary_release(struct datafile_summary *s);

/* --- watch records (datafile_watch.c) ------------------------------------ */

struct datafile_watch_session;
struct watch_word_result;

enum {
	DATAFILE_WATCH_WORD_FIXED = 56,
	DATAFILE_WATCH_THREAD_SIZE = 28,     /* tid, reads, writes, concurrent */
	DATAFILE_WATCH_SITE_SIZE = 24,       /* ip, reads, writes */
	DATAFILE_WATCH_SESSION_FIXED = 18,   /* with the note's u16 length */
};

void datafile_watch_word_encode(struct bytes *b, const struct watch_word_result *r);
void datafile_watch_session_encode(struct bytes *b, const struct datafile_watch_session *s);
/* 0, or -1 with what is wrong in err.  r owns its threads and sites
 * either way: datafile_watch_word_release(). */
int datafile_watch_word_parse(struct cursor *c, struct watch_word_result *r, struct strbuf *err);
void datafile_watch_word_release(struct watch_word_result *r);
/* note: room for DATAFILE_WATCH_NOTE_MAX + 1 bytes; s->note points there. */
int datafile_watch_session_parse(struct cursor *c, struct datafile_watch_session *s,
				 char *note, struct strbuf *err);

#endif
