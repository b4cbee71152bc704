/* datafile.c - write and read contend.data (docs/data-format.md).
 *
 * Every field has an explicit size and is stored little-endian, byte by
 * byte, so the file means the same on every host.  Records are framed as
 * (u32 type, u32 payload size, payload); the reader checks each size
 * against the format before reading the payload and grows its buffer only
 * as bytes actually arrive, so a hostile size costs nothing.
 */
#include "detector/datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "detector/datafile_codec.h"
#include "detector/run_facts.h"

static const char magic[8] = "CONTEND";   /* with its NUL: 8 bytes */

enum {
	HEADER_SIZE = 24,               /* what every version has */
	/* + the target's credentials, filled in when the file is finished */
	TARGET_GROUPS_MAX = 16,
	TARGET_SIZE = 16 + 4 * TARGET_GROUPS_MAX,
	HEADER_WRITTEN = HEADER_SIZE + TARGET_SIZE,
	HEADER_SIZE_MAX = 4096,         /* later versions may grow the header */
	FREQ_MAX = 1000000,
	RECORD_HEADER_SIZE = 8,
	RECORD_MAX = 1 << 20,
	READ_CHUNK = 4096,              /* buffer growth while reading a payload */
	SAMPLE_SIZE = 64,
	SAMPLE_SHARED_SIZE = 88,        /* + object device, inode, offset */
	SAMPLE_SHARED = 1,              /* sample flag: in shared memory */
	SAMPLE_FENCED = 2,              /* sample flag: a fenced store (version 8) */
	MMAP_FIXED_SIZE = 38,
	COMM_FIXED_SIZE = 10,
	CHAIN_FIXED_SIZE = 8,
	ALLOC_SIZE = 80,
	HEAP_BLOCK_SIZE = 24,
};

enum record_type {
	REC_SAMPLE = 1,
	REC_MMAP = 2,
	REC_COMM = 3,
	REC_SUMMARY = 4,
	REC_CHAIN = 5,
	REC_ALLOC = 6,
	REC_HEAP_BLOCK = 7,
	REC_WATCH_WORD = 8,
	REC_WATCH_SESSION = 9,
	REC_LAST = REC_WATCH_SESSION,
};

static const char *record_name(uint32_t type)
{
	switch (type) {
	case REC_SAMPLE: return "sample";
	case REC_MMAP: return "mmap";
	case REC_COMM: return "comm";
	case REC_SUMMARY: return "summary";
	case REC_CHAIN: return "chain";
	case REC_ALLOC: return "alloc";
	case REC_HEAP_BLOCK: return "heap block";
	case REC_WATCH_WORD: return "watch word";
	case REC_WATCH_SESSION: return "watch session";
	}
	return "unknown";
}

/* --- writer ------------------------------------------------------------- */

struct datafile_writer {
	FILE *f;
	struct bytes rec;
	uint64_t samples;
	struct bytes target;            /* the header's credentials; empty: unknown */
};

static void begin_record(struct datafile_writer *w)
{
	w->rec.len = 0;
}

static void end_record(struct datafile_writer *w, uint32_t type)
{
	unsigned char frame[RECORD_HEADER_SIZE];
	store_le(frame, type, 4);
	store_le(frame + 4, w->rec.len, 4);
	fwrite(frame, 1, sizeof(frame), w->f);
	fwrite(w->rec.p, 1, w->rec.len, w->f);
}

struct datafile_writer *datafile_writer_new(FILE *f, unsigned freq)
{
	struct datafile_writer *w = xcalloc(1, sizeof(*w));
	struct bytes h = { 0 };

	w->f = f;
	put(&h, magic, sizeof(magic));
	put_u32(&h, DATAFILE_VERSION);
	put_u32(&h, HEADER_WRITTEN);
	put_u32(&h, freq);
	put_u32(&h, 0);                 /* flags */
	while (h.len < HEADER_WRITTEN)  /* the target: unknown until finished */
		put_u8(&h, 0);
	fwrite(h.p, 1, h.len, f);
	free(h.p);
	return w;
}

void datafile_write_sample(struct datafile_writer *w, const struct access_sample *a)
{
	struct bytes *b = &w->rec;

	begin_record(w);
	put_u64(b, a->time);
	put_u32(b, a->pid);
	put_u32(b, a->tid);
	put_u32(b, a->cpu);
	put_u32(b, a->chain_id);
	put_u64(b, a->ip);
	put_u64(b, a->addr);
	put_u64(b, (uint64_t)a->base_off);
	put_u64(b, a->data_src);
	put_u32(b, a->weight);
	put_u8(b, a->size);
	put_u8(b, a->kind);
	put_u8(b, (uint8_t)a->base_reg);
	put_u8(b, (a->obj_ino ? SAMPLE_SHARED : 0) |
		  (a->flags & ACCESS_SAMPLE_FENCED ? SAMPLE_FENCED : 0));
	if (a->obj_ino) {
		put_u64(b, a->obj_dev);
		put_u64(b, a->obj_ino);
		put_u64(b, a->obj_off);
	}
	end_record(w, REC_SAMPLE);
	w->samples++;
}

void datafile_write_mmap(struct datafile_writer *w, const struct datafile_mmap *m)
{
	struct bytes *b = &w->rec;
	const char *name = m->filename ? m->filename : "";
	size_t name_len = strlen(name);
	unsigned id_len = m->build_id_len;

	if (name_len > DATAFILE_PATH_MAX)
		name_len = DATAFILE_PATH_MAX;
	if (id_len > DATAFILE_BUILD_ID_MAX)
		id_len = 0;
	begin_record(w);
	put_u32(b, m->pid);
	put_u32(b, m->prot);
	put_u64(b, m->start);
	put_u64(b, m->len);
	put_u64(b, m->pgoff);
	put_u16(b, (uint16_t)m->flags);
	put_u8(b, (uint8_t)id_len);
	put_u8(b, 0);
	put_u16(b, (uint16_t)name_len);
	put(b, m->build_id, id_len);
	put(b, name, name_len);
	end_record(w, REC_MMAP);
}

void datafile_write_comm(struct datafile_writer *w, uint32_t pid, uint32_t tid,
			 const char *comm, bool exec)
{
	struct bytes *b = &w->rec;
	size_t n = strlen(comm);

	if (n > DATAFILE_COMM_MAX)
		n = DATAFILE_COMM_MAX;
	begin_record(w);
	put_u32(b, pid);
	put_u32(b, tid);
	put_u8(b, exec ? 1 : 0);
	put_u8(b, (uint8_t)n);
	put(b, comm, n);
	end_record(w, REC_COMM);
}

void datafile_write_chain(struct datafile_writer *w, uint32_t id, const uint64_t *pcs,
			  unsigned n)
{
	struct bytes *b = &w->rec;

	if (n > DATAFILE_CHAIN_MAX)
		n = DATAFILE_CHAIN_MAX;
	begin_record(w);
	put_u32(b, id);
	put_u32(b, n);
	for (unsigned i = 0; i < n; i++)
		put_u64(b, pcs[i]);
	end_record(w, REC_CHAIN);
}

void datafile_write_alloc(struct datafile_writer *w, const struct alloc_record *r)
{
	struct bytes *b = &w->rec;

	begin_record(w);
	put_u64(b, r->time);
	put_u64(b, r->addr);
	put_u64(b, r->size);
	put_u64(b, r->arg);
	for (unsigned i = 0; i < ALLOC_FRAMES; i++)
		put_u64(b, r->frames[i]);
	put_u32(b, r->pid);
	put_u32(b, r->tid);
	put_u32(b, r->call);
	put_u32(b, r->flags & ALLOC_FLAG_FREED);
	end_record(w, REC_ALLOC);
}

void datafile_write_heap_block(struct datafile_writer *w, uint32_t pid,
			       const struct glibc_heap_block *b)
{
	struct bytes *rec = &w->rec;

	begin_record(w);
	put_u32(rec, pid);
	put_u32(rec, (uint32_t)b->arena);
	put_u64(rec, b->start);
	put_u64(rec, b->usable);
	end_record(w, REC_HEAP_BLOCK);
}

void datafile_write_watch_word(struct datafile_writer *w, const struct watch_word_result *r)
{
	begin_record(w);
	datafile_watch_word_encode(&w->rec, r);
	end_record(w, REC_WATCH_WORD);
}

void datafile_write_watch_session(struct datafile_writer *w,
				  const struct datafile_watch_session *s)
{
	begin_record(w);
	datafile_watch_session_encode(&w->rec, s);
	end_record(w, REC_WATCH_SESSION);
}

uint64_t datafile_writer_samples(const struct datafile_writer *w)
{
	return w->samples;
}

void datafile_writer_set_target(struct datafile_writer *w, const struct proc_creds *c)
{
	unsigned n = c->ngroups < TARGET_GROUPS_MAX ? c->ngroups : TARGET_GROUPS_MAX;

	/* more groups than fit: the rest are left out, which only ever
	 * denies (a file readable through them is not shown) */
	w->target.len = 0;
	put_u32(&w->target, 1);
	put_u32(&w->target, (uint32_t)c->uid);
	put_u32(&w->target, (uint32_t)c->gid);
	put_u32(&w->target, n);
	for (unsigned i = 0; i < TARGET_GROUPS_MAX; i++)
		put_u32(&w->target, i < n ? (uint32_t)c->groups[i] : 0);
}

/* The credentials into the header's space for them; a stream that cannot
 * seek (never a file record writes) keeps them unknown. */
static void write_target(struct datafile_writer *w)
{
	if (!w->target.len || fseek(w->f, HEADER_SIZE, SEEK_SET) != 0)
		return;
	fwrite(w->target.p, 1, w->target.len, w->f);
	fseek(w->f, 0, SEEK_END);
}

int datafile_writer_finish(struct datafile_writer *w, const struct run_facts *s)
{
	int ret = 0;

	begin_record(w);
	datafile_summary_encode(&w->rec, s);
	end_record(w, REC_SUMMARY);
	write_target(w);

	errno = 0;
	if (fflush(w->f) != 0 || ferror(w->f)) {
		if (!errno)
			errno = EIO;
		ret = -1;
	}
	datafile_writer_free(w);
	return ret;
}

void datafile_writer_free(struct datafile_writer *w)
{
	if (!w)
		return;
	free(w->rec.p);
	free(w->target.p);
	free(w);
}

/* --- reader ------------------------------------------------------------- */

struct datafile_reader {
	FILE *f;
	uint64_t pos;                   /* bytes consumed */
	unsigned freq;
	unsigned char *buf;             /* the current payload */
	size_t alloc;
	uint64_t records;
	uint32_t chains;                /* chain records read: ids 1..chains */
	uint32_t version;               /* 1: no alloc records */
	bool watch_session;             /* its record was read: one at most */
	struct proc_creds target;       /* as recorded, if has_target */
	gid_t target_groups[TARGET_GROUPS_MAX];
	bool has_target;
	struct datafile_summary summary;   /* owned */
	char name[DATAFILE_PATH_MAX + 1];   /* NUL-terminated copies for callbacks */
};

/* Read exactly n bytes into buf; false at end of file. */
static bool read_exact(struct datafile_reader *r, void *buf, size_t n, size_t *got)
{
	*got = fread(buf, 1, n, r->f);
	r->pos += *got;
	return *got == n;
}

/* Read an n-byte payload, growing the buffer only as data arrives. */
static bool read_payload(struct datafile_reader *r, size_t n)
{
	size_t have = 0;

	while (have < n) {
		size_t want = n - have < READ_CHUNK ? n - have : READ_CHUNK, got;
		ALLOC_GROW(r->buf, have + want, r->alloc);
		if (!read_exact(r, r->buf + have, want, &got))
			return false;
		have += got;
	}
	return true;
}

/* The target's credentials after the 24 bytes every header has (files of
 * contend before them have a 24-byte header: no target). */
static int read_target(struct datafile_reader *r, struct strbuf *err)
{
	struct cursor c = { .p = r->buf, .len = TARGET_SIZE };
	uint32_t known = get_u32(&c), n;

	r->target.uid = (uid_t)get_u32(&c);
	r->target.gid = (gid_t)get_u32(&c);
	n = get_u32(&c);
	if (known > 1 || n > TARGET_GROUPS_MAX) {
		strbuf_addf(err, "corrupt header: target credentials (known %u, %u groups; "
			    "want 0..1, 0..%d)", known, n, TARGET_GROUPS_MAX);
		return -1;
	}
	for (unsigned i = 0; i < TARGET_GROUPS_MAX; i++) {
		uint32_t g = get_u32(&c);

		if (i < n)
			r->target_groups[i] = (gid_t)g;
	}
	r->target.groups = r->target_groups;
	r->target.ngroups = n;
	r->has_target = known == 1;
	return 0;
}

const struct proc_creds *datafile_reader_target(const struct datafile_reader *r)
{
	return r->has_target ? &r->target : NULL;
}

struct datafile_reader *datafile_reader_open(FILE *f, struct strbuf *err)
{
	struct datafile_reader *r = xcalloc(1, sizeof(*r));
	unsigned char h[HEADER_SIZE];
	struct cursor c = { .p = h, .len = sizeof(h) };
	uint32_t version, header_size, flags;
	size_t got;

	r->f = f;
	if (!read_exact(r, h, sizeof(h), &got)) {
		if (ferror(f))
			strbuf_addf(err, "read error: %s", strerror(errno));
		else if (!got)
			strbuf_addf(err, "empty file: not a contend data file");
		else if (!memcmp(h, magic, got < sizeof(magic) ? got : sizeof(magic)))
			strbuf_addf(err, "truncated at byte %zu: the file ends inside its "
				    "%d-byte header", got, HEADER_SIZE);
		else
			strbuf_addf(err, "not a contend data file (no CONTEND magic)");
		goto fail;
	}
	if (!memcmp(h, "PERFILE2", 8)) {   /* report -i FILE reads these, not a pipe */
		strbuf_addf(err, "a perf.data file: give it as -i FILE (perf's format is "
			    "read from a file, not a pipe)");
		goto fail;
	}
	if (memcmp(get_bytes(&c, sizeof(magic)), magic, sizeof(magic))) {
		strbuf_addf(err, "not a contend data file (no CONTEND magic)");
		goto fail;
	}
	version = get_u32(&c);
	header_size = get_u32(&c);
	r->freq = get_u32(&c);
	flags = get_u32(&c);
	if (version < 1 || version > DATAFILE_VERSION) {
		strbuf_addf(err, "data file version %u; this contend reads versions 1..%d "
			    "(record it again, or use the contend that wrote it)",
			    version, DATAFILE_VERSION);
		goto fail;
	}
	r->version = version;
	if (header_size < HEADER_SIZE || header_size > HEADER_SIZE_MAX) {
		strbuf_addf(err, "corrupt header: header size %u (want %d..%d)",
			    header_size, HEADER_SIZE, HEADER_SIZE_MAX);
		goto fail;
	}
	if (flags) {
		strbuf_addf(err, "corrupt header: unknown flags 0x%x", flags);
		goto fail;
	}
	if (r->freq == 0 || r->freq > FREQ_MAX) {
		strbuf_addf(err, "corrupt header: sampling rate %u Hz (want 1..%d)",
			    r->freq, FREQ_MAX);
		goto fail;
	}
	if (header_size > HEADER_SIZE && !read_payload(r, header_size - HEADER_SIZE)) {
		strbuf_addf(err, "truncated at byte %llu: the file ends inside its %u-byte header",
			    (unsigned long long)r->pos, header_size);
		goto fail;
	}
	if (header_size >= HEADER_WRITTEN && read_target(r, err) < 0)
		goto fail;
	return r;
fail:
	datafile_reader_free(r);
	return NULL;
}

unsigned datafile_reader_freq(const struct datafile_reader *r)
{
	return r->freq;
}

__attribute__((format(printf, 2, 3)))
int datafile_fail(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record parsers: 0, or -1 with what is wrong in err (the caller says
 * which record). */

static int parse_sample(struct cursor *c, struct access_sample *a, struct strbuf *err)
{
	unsigned flags;

	if (c->len != SAMPLE_SIZE && c->len != SAMPLE_SHARED_SIZE)
		return datafile_fail(err, "size %zu, want %d or %d", c->len, SAMPLE_SIZE,
			    SAMPLE_SHARED_SIZE);
	a->time = get_u64(c);
	a->pid = get_u32(c);
	a->tid = get_u32(c);
	a->cpu = get_u32(c);
	a->chain_id = get_u32(c);
	a->ip = get_u64(c);
	a->addr = get_u64(c);
	a->base_off = (int64_t)get_u64(c);
	a->data_src = get_u64(c);
	a->weight = get_u32(c);
	a->size = get_u8(c);
	a->kind = get_u8(c);
	a->base_reg = (int8_t)get_u8(c);
	flags = get_u8(c);
	if (flags & ~(SAMPLE_SHARED | SAMPLE_FENCED))
		return datafile_fail(err, "flags 0x%x (want bits of 0x%x)", flags,
				     SAMPLE_SHARED | SAMPLE_FENCED);
	a->flags = flags & SAMPLE_FENCED ? ACCESS_SAMPLE_FENCED : 0;
	if ((flags & SAMPLE_SHARED) != (c->len == SAMPLE_SHARED_SIZE))
		return datafile_fail(err, "size %zu does not match its flags 0x%x", c->len, flags);
	a->obj_dev = a->obj_ino = a->obj_off = 0;
	if (flags & SAMPLE_SHARED) {
		a->obj_dev = get_u64(c);
		a->obj_ino = get_u64(c);
		a->obj_off = get_u64(c);
		if (!a->obj_ino)
			return datafile_fail(err, "shared memory of inode 0");
	}
	if (a->size < 1 || a->size > 64)
		return datafile_fail(err, "access size %u (want 1..64)", a->size);
	if (a->kind > ACCESS_ATOMIC)
		return datafile_fail(err, "access kind %u (want 0..3)", a->kind);
	return 0;
}

static int copy_text(char *out, const unsigned char *p, size_t n, const char *what,
		     struct strbuf *err)
{
	if (memchr(p, '\0', n))
		return datafile_fail(err, "its %s contains a NUL byte", what);
	copy_bytes(out, p, n);
	out[n] = '\0';
	return 0;
}

/* A u16-length string of at most max bytes; NULL with err if bad. */
char *datafile_get_text(struct cursor *c, size_t max, const char *what, struct strbuf *err)
{
	uint16_t n = get_u16(c);
	const unsigned char *p = get_bytes(c, n);
	char *s;

	if (!p) {
		datafile_fail(err, "the record ends inside its %s", what);
		return NULL;
	}
	if (n > max) {
		datafile_fail(err, "its %s is %u bytes long (at most %zu)", what, n, max);
		return NULL;
	}
	s = xmalloc((size_t)n + 1);
	if (copy_text(s, p, n, what, err)) {
		free(s);
		return NULL;
	}
	return s;
}

static int parse_mmap(struct cursor *c, char *name, struct datafile_mmap *m,
		      struct strbuf *err)
{
	unsigned id_len, name_len;

	m->pid = get_u32(c);
	m->prot = get_u32(c);
	m->start = get_u64(c);
	m->len = get_u64(c);
	m->pgoff = get_u64(c);
	m->flags = get_u16(c);
	id_len = get_u8(c);
	get_u8(c);
	name_len = get_u16(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len, MMAP_FIXED_SIZE);
	if (m->flags & ~DATAFILE_MMAP_RESET)
		return datafile_fail(err, "unknown flags 0x%x", m->flags);
	if (m->prot & ~7u)
		return datafile_fail(err, "protection 0x%x is not a set of PROT_READ|WRITE|EXEC", m->prot);
	if (id_len > DATAFILE_BUILD_ID_MAX)
		return datafile_fail(err, "build-id of %u bytes (at most %d)", id_len, DATAFILE_BUILD_ID_MAX);
	if (name_len > DATAFILE_PATH_MAX)
		return datafile_fail(err, "file name of %u bytes (at most %d)", name_len, DATAFILE_PATH_MAX);
	if (c->len != (size_t)MMAP_FIXED_SIZE + id_len + name_len)
		return datafile_fail(err, "size %zu, but its build-id and file name make %u",
			    c->len, MMAP_FIXED_SIZE + id_len + name_len);
	if (!m->len || m->start + m->len < m->start)
		return datafile_fail(err, "mapping 0x%llx+0x%llx is empty or wraps around",
			    (unsigned long long)m->start, (unsigned long long)m->len);
	copy_bytes(m->build_id, get_bytes(c, id_len), id_len);
	m->build_id_len = id_len;
	m->filename = name;
	return copy_text(name, get_bytes(c, name_len), name_len, "file name", err);
}

static int parse_comm(struct cursor *c, uint32_t *pid, uint32_t *tid, bool *exec,
		      char *comm, struct strbuf *err)
{
	unsigned flags, n;

	*pid = get_u32(c);
	*tid = get_u32(c);
	flags = get_u8(c);
	n = get_u8(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len, COMM_FIXED_SIZE);
	if (flags & ~1u)
		return datafile_fail(err, "unknown flags 0x%x", flags);
	if (n > DATAFILE_COMM_MAX)
		return datafile_fail(err, "name of %u bytes (at most %d)", n, DATAFILE_COMM_MAX);
	if (c->len != (size_t)COMM_FIXED_SIZE + n)
		return datafile_fail(err, "size %zu, but its name makes %u", c->len, COMM_FIXED_SIZE + n);
	*exec = flags & 1;
	return copy_text(comm, get_bytes(c, n), n, "name", err);
}

static int parse_chain(struct cursor *c, uint32_t expect_id, uint32_t *id, uint64_t *pcs,
		       unsigned *n, struct strbuf *err)
{
	*id = get_u32(c);
	*n = get_u32(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len, CHAIN_FIXED_SIZE);
	if (*id != expect_id)
		return datafile_fail(err, "chain id %u out of sequence (want %u)", *id, expect_id);
	if (*n < 1 || *n > DATAFILE_CHAIN_MAX)
		return datafile_fail(err, "%u frames (want 1..%d)", *n, DATAFILE_CHAIN_MAX);
	if (c->len != CHAIN_FIXED_SIZE + 8 * (size_t)*n)
		return datafile_fail(err, "size %zu, but %u frames make %zu", c->len, *n,
			    CHAIN_FIXED_SIZE + 8 * (size_t)*n);
	for (unsigned i = 0; i < *n; i++)
		pcs[i] = get_u64(c);
	return 0;
}

static int parse_alloc(struct cursor *c, struct alloc_record *a, struct strbuf *err)
{
	if (c->len != ALLOC_SIZE)
		return datafile_fail(err, "size %zu (want %d)", c->len, ALLOC_SIZE);
	memset(a, 0, sizeof(*a));
	a->time = get_u64(c);
	a->addr = get_u64(c);
	a->size = get_u64(c);
	a->arg = get_u64(c);
	for (unsigned i = 0; i < ALLOC_FRAMES; i++)
		a->frames[i] = get_u64(c);
	a->pid = get_u32(c);
	a->tid = get_u32(c);
	a->call = get_u32(c);
	a->flags = get_u32(c);
	if (a->flags & ~ALLOC_FLAG_FREED)
		return datafile_fail(err, "unknown flags 0x%x", a->flags);
	if (!a->call || a->call >= ALLOC__COUNT || a->call == ALLOC_FREE)
		return datafile_fail(err, "allocation call %u (want 1..%d, not %d)", a->call,
			    ALLOC__COUNT - 1, ALLOC_FREE);
	if (!a->addr || a->addr + a->size < a->addr)
		return datafile_fail(err, "block 0x%llx of %llu bytes", (unsigned long long)a->addr,
			    (unsigned long long)a->size);
	return 0;
}

static int parse_heap_block(struct cursor *c, uint32_t *pid, struct glibc_heap_block *b,
			    struct strbuf *err)
{
	uint32_t arena;

	if (c->len != HEAP_BLOCK_SIZE)
		return datafile_fail(err, "size %zu (want %d)", c->len, HEAP_BLOCK_SIZE);
	*pid = get_u32(c);
	arena = get_u32(c);
	b->start = get_u64(c);
	b->usable = get_u64(c);
	if (arena != GLIBC_HEAP_MAIN && arena != GLIBC_HEAP_THREAD && arena != GLIBC_HEAP_MMAPPED)
		return datafile_fail(err, "arena %u (want %d..%d)", arena, GLIBC_HEAP_MAIN,
			    GLIBC_HEAP_MMAPPED);
	b->arena = (enum glibc_heap_arena)arena;
	if (!*pid || !b->start || !b->usable || b->start + b->usable < b->start)
		return datafile_fail(err, "block 0x%llx of %llu bytes in pid %u",
			    (unsigned long long)b->start, (unsigned long long)b->usable, *pid);
	return 0;
}

static int parse_watch(struct datafile_reader *r, uint32_t type, struct cursor *c,
		       const struct datafile_callbacks *cb, struct strbuf *err)
{
	struct watch_word_result word;
	struct datafile_watch_session session;
	int ret;

	if (r->version < 4)
		return datafile_fail(err, "%s record in a version %u file", record_name(type), r->version);
	if (type == REC_WATCH_SESSION) {
		if (r->watch_session)
			return datafile_fail(err, "a second one");
		r->watch_session = true;
		if (datafile_watch_session_parse(c, &session, r->name, err))
			return -1;
		if (cb->watch_session)
			cb->watch_session(cb->ctx, &session);
		return 0;
	}
	ret = datafile_watch_word_parse(c, &word, err);
	if (!ret && cb->watch_word)
		cb->watch_word(cb->ctx, &word);
	datafile_watch_word_release(&word);
	return ret;
}

static int parse_record(struct datafile_reader *r, uint32_t type, struct cursor *c,
			const struct datafile_callbacks *cb, struct strbuf *err)
{
	struct access_sample a;
	struct datafile_mmap m;
	char comm[DATAFILE_COMM_MAX + 1];
	uint64_t pcs[DATAFILE_CHAIN_MAX];
	struct alloc_record alloc;
	struct glibc_heap_block block;
	uint32_t pid = 0, tid, id;
	unsigned n;
	bool exec = false;

	switch (type) {
	case REC_SAMPLE:
		if (parse_sample(c, &a, err))
			return -1;
		if (a.chain_id > r->chains)
			return datafile_fail(err, "call chain %u before its chain record", a.chain_id);
		if (cb->access)
			cb->access(cb->ctx, &a);
		return 0;
	case REC_MMAP:
		if (parse_mmap(c, r->name, &m, err))
			return -1;
		if (cb->mmap)
			cb->mmap(cb->ctx, &m);
		return 0;
	case REC_COMM:
		if (parse_comm(c, &pid, &tid, &exec, comm, err))
			return -1;
		if (cb->comm)
			cb->comm(cb->ctx, pid, tid, comm, exec);
		return 0;
	case REC_CHAIN:
		if (parse_chain(c, r->chains + 1, &id, pcs, &n, err))
			return -1;
		r->chains++;
		if (cb->chain)
			cb->chain(cb->ctx, id, pcs, n);
		return 0;
	case REC_ALLOC:
		if (r->version < 2)
			return datafile_fail(err, "alloc record in a version %u file", r->version);
		if (parse_alloc(c, &alloc, err))
			return -1;
		if (cb->alloc)
			cb->alloc(cb->ctx, &alloc);
		return 0;
	case REC_HEAP_BLOCK:
		if (r->version < 3)
			return datafile_fail(err, "heap block record in a version %u file", r->version);
		if (parse_heap_block(c, &pid, &block, err))
			return -1;
		if (cb->heap_block)
			cb->heap_block(cb->ctx, pid, &block);
		return 0;
	case REC_WATCH_WORD:
	case REC_WATCH_SESSION:
		return parse_watch(r, type, c, cb, err);
	case REC_SUMMARY:
		if (datafile_summary_parse(c, r->version, &r->summary, err) < 0)
			return -1;
		r->summary.facts.freq = r->freq;
		return 0;
	}
	return datafile_fail(err, "unknown record type %u", type);
}

int datafile_reader_run(struct datafile_reader *r, const struct datafile_callbacks *cb,
			struct strbuf *err)
{
	unsigned char h[RECORD_HEADER_SIZE];
	struct strbuf why = STRBUF_INIT;
	uint32_t type, size;

	do {
		uint64_t at = r->pos;
		struct cursor c = { .p = h, .len = sizeof(h) };
		size_t got;

		if (!read_exact(r, h, sizeof(h), &got)) {
			if (ferror(r->f))
				return datafile_fail(err, "read error at byte %llu: %s",
					    (unsigned long long)r->pos, strerror(errno));
			if (got)
				return datafile_fail(err, "truncated at byte %llu: the file ends inside "
					    "a record header", (unsigned long long)at);
			return datafile_fail(err, "truncated at byte %llu: no summary record after %llu "
				    "records (was contend record interrupted?)",
				    (unsigned long long)at, (unsigned long long)r->records);
		}
		type = get_u32(&c);
		size = get_u32(&c);
		if (type < REC_SAMPLE || type > REC_LAST)
			return datafile_fail(err, "corrupt at byte %llu: unknown record type %u",
				    (unsigned long long)at, type);
		if (size > RECORD_MAX)
			return datafile_fail(err, "corrupt at byte %llu: %s record of %u bytes (at most %d)",
				    (unsigned long long)at, record_name(type), size, RECORD_MAX);
		if (!read_payload(r, size)) {
			if (ferror(r->f))
				return datafile_fail(err, "read error at byte %llu: %s",
					    (unsigned long long)r->pos, strerror(errno));
			return datafile_fail(err, "truncated at byte %llu: the file ends inside a %s "
				    "record of %u bytes", (unsigned long long)at,
				    record_name(type), size);
		}
		r->records++;
		c = (struct cursor){ .p = r->buf, .len = size };
		if (parse_record(r, type, &c, cb, &why)) {
			datafile_fail(err, "corrupt %s record at byte %llu: %s", record_name(type),
			     (unsigned long long)at, strbuf_str(&why));
			strbuf_release(&why);
			return -1;
		}
	} while (type != REC_SUMMARY);

	if (fgetc(r->f) != EOF)
		return datafile_fail(err, "corrupt at byte %llu: data after the summary record",
			    (unsigned long long)r->pos);
	return 0;
}

const struct run_facts *datafile_reader_summary(const struct datafile_reader *r)
{
	return r->summary.command ? &r->summary.facts : NULL;
}

void datafile_reader_free(struct datafile_reader *r)
{
	if (!r)
		return;
	datafile_summary_release(&r->summary);
	free(r->buf);
	free(r);
}
