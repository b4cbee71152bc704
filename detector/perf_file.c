/* perf_file.c - perf.data in (perf_file.h). */
#include "detector/perf_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cpu_nodes.h"
#include "common/util.h"

#define PERF_MAGIC2 0x32454c4946524550ULL          /* "PERFILE2", little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL  /* written by a big-endian host */
#define PERF_MAGIC1 0x454c494646524550ULL          /* "PERFFILE": perf before 2011 */

/* perf's feature bits (tools/perf/util/header.h) */
#define FEAT_BUILD_ID 2
#define FEAT_CPUID 9
#define FEAT_CMDLINE 11
#define FEAT_EVENT_DESC 12
#define FEAT_NUMA_TOPOLOGY 14
#define NUMA_NODES_MAX 4096
#define FEAT_BITS 256

/* perf's own record types, after the kernel's (tools/perf/util/event.h) */
#define RECORD_FINISHED_ROUND 68
#define RECORD_AUXTRACE 71
#define RECORD_TIME_CONV 79
#define RECORD_COMPRESSED 81
#define RECORD_USER_FIRST 64
#define RECORD_USER_LAST 83

#define MISC_BUILD_ID_SIZE (1u << 15)   /* the build-id event's size byte is valid */
#define CMDLINE_WORDS_MAX 4096
#define STRING_MAX 65536

struct section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t features[FEAT_BITS / 64];
};

struct id_attr {
	uint64_t id;
	unsigned attr;
};

struct build_id {
	uint32_t pid;
	uint8_t id[20];
	unsigned len;
	char *path;
};

struct perf_file {
	FILE *f;
	uint64_t size;                   /* of the file */
	struct file_header h;
	struct perf_event_attr *attrs;
	char **names;
	unsigned n_attrs;
	struct id_attr *ids;             /* sorted by id */
	size_t n_ids;
	struct build_id *build_ids;
	size_t n_build_ids, alloc_build_ids;
	char *command;
	char *cpuid;                     /* HEADER_CPUID's, or NULL */
	struct cpu_nodes nodes;          /* HEADER_NUMA_TOPOLOGY's; known: read */
	struct perf_aux clock;           /* TIME_CONV's, for AUX traces */
	uint64_t last_time;              /* of the records handed over */
};

/* --- reading the file ---------------------------------------------------- */

static bool read_at(struct perf_file *pf, uint64_t off, void *buf, size_t len)
{
	if (off > pf->size || len > pf->size - off)
		return false;
	return pread(fileno(pf->f), buf, len, (off_t)off) == (ssize_t)len;
}

/* A section inside the file, else err says which. */
static bool section_ok(const struct perf_file *pf, const struct section *s, const char *what,
		       struct strbuf *err)
{
	if (s->offset > pf->size || s->size > pf->size - s->offset) {
		strbuf_addf(err, "corrupt perf.data: the %s section lies past the end of the file",
			    what);
		return false;
	}
	return true;
}

bool perf_file_is(FILE *f)
{
	uint64_t magic;
	struct stat st;

	return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	       pread(fileno(f), &magic, sizeof(magic), 0) == sizeof(magic) &&
	       (magic == PERF_MAGIC2 || magic == PERF_MAGIC2_SWAPPED || magic == PERF_MAGIC1);
}

static bool read_header(struct perf_file *pf, struct strbuf *err)
{
	struct file_header *h = &pf->h;

	if (!read_at(pf, 0, h, 16)) {
		strbuf_addf(err, "not a perf.data file: too short");
		return false;
	}
	if (h->magic == PERF_MAGIC2_SWAPPED) {
		strbuf_addf(err, "perf.data written on a big-endian machine: contend reads "
			      "little-endian files only");
		return false;
	}
	if (h->magic == PERF_MAGIC1) {
		strbuf_addf(err, "perf.data of the first format (perf before 3.0): record "
			      "it again with a newer perf");
		return false;
	}
	if (h->magic != PERF_MAGIC2) {
		strbuf_addf(err, "not a perf.data file");
		return false;
	}
	if (h->size == 16) {
		strbuf_addf(err, "perf.data in pipe mode (perf record -o -): contend reads "
			      "perf's file mode; record with -o FILE");
		return false;
	}
	if (h->size < sizeof(*h)) {
		strbuf_addf(err, "corrupt perf.data: a header of %llu bytes",
			    (unsigned long long)h->size);
		return false;
	}
	if (!read_at(pf, 0, h, sizeof(*h))) {
		strbuf_addf(err, "perf.data cut short: the file ends inside its header");
		return false;
	}
	return section_ok(pf, &h->attrs, "attributes", err) &&
	       section_ok(pf, &h->data, "data", err);
}

/* --- attributes and their ids ------------------------------------------- */

static int id_cmp(const void *a, const void *b)
{
	const struct id_attr *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static bool read_ids(struct perf_file *pf, unsigned attr, const struct section *s,
		     struct strbuf *err)
{
	size_t n = s->size / 8;

	if (!section_ok(pf, s, "sample ids", err))
		return false;
	if (n > PERF_FILE_IDS_MAX - pf->n_ids) {
		strbuf_addf(err, "perf.data names more than %u sample ids", PERF_FILE_IDS_MAX);
		return false;
	}
	pf->ids = xrealloc(pf->ids, (pf->n_ids + n) * sizeof(*pf->ids));
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		if (!read_at(pf, s->offset + i * 8, &id, 8)) {
			strbuf_addf(err, "corrupt perf.data: cannot read the sample ids");
			return false;
		}
		pf->ids[pf->n_ids++] = (struct id_attr){ id, attr };
	}
	return true;
}

static bool read_attrs(struct perf_file *pf, struct strbuf *err)
{
	const struct file_header *h = &pf->h;
	uint64_t attr_bytes = h->attr_size - sizeof(struct section);
	uint64_t n;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct section) ||
	    h->attr_size > 4096) {
		strbuf_addf(err, "corrupt perf.data: attributes of %llu bytes",
			    (unsigned long long)h->attr_size);
		return false;
	}
	n = h->attrs.size / h->attr_size;
	if (!n || n > PERF_FILE_ATTRS_MAX) {
		strbuf_addf(err, "corrupt perf.data: %llu events (1 to %u)",
			    (unsigned long long)n, PERF_FILE_ATTRS_MAX);
		return false;
	}
	pf->attrs = xcalloc(n, sizeof(*pf->attrs));
	pf->names = xcalloc(n, sizeof(*pf->names));
	pf->n_attrs = (unsigned)n;
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = h->attrs.offset + i * h->attr_size;
		size_t take = attr_bytes < sizeof(*pf->attrs) ? attr_bytes : sizeof(*pf->attrs);
		struct section ids;

		if (!read_at(pf, at, &pf->attrs[i], take) ||
		    !read_at(pf, at + attr_bytes, &ids, sizeof(ids))) {
			strbuf_addf(err, "corrupt perf.data: cannot read the attributes");
			return false;
		}
		pf->attrs[i].size = (uint32_t)take;
		if (!read_ids(pf, i, &ids, err))
			return false;
	}
	if (pf->n_ids)
		sort_items(pf->ids, pf->n_ids, sizeof(*pf->ids), id_cmp);
	/* perf parses every sample with the first event's layout unless each
	 * one leads with its id; so does this reader */
	for (unsigned i = 1; i < n; i++)
		if (pf->attrs[i].sample_type != pf->attrs[0].sample_type &&
		    !(pf->attrs[0].sample_type & PERF_SAMPLE_IDENTIFIER)) {
			strbuf_addf(err, "corrupt perf.data: its events lay samples out "
				      "differently and none carries an identifier");
			return false;
		}
	return true;
}

/* --- features ------------------------------------------------------------ */

/* A perf_header_string (u32 length, then NUL-padded bytes) at *off. */
static char *read_string(struct perf_file *pf, uint64_t *off, uint64_t end)
{
	uint32_t len;
	char *s;

	if (*off + 4 > end || !read_at(pf, *off, &len, 4) || !len || len > STRING_MAX ||
	    len > end - *off - 4)
		return NULL;
	s = xmalloc(len + 1);
	if (!read_at(pf, *off + 4, s, len)) {
		free(s);
		return NULL;
	}
	s[len] = '\0';
	*off += 4 + len;
	return s;
}

static void read_cmdline(struct perf_file *pf, const struct section *s)
{
	uint64_t off = s->offset, end = s->offset + s->size;
	struct strbuf sb = STRBUF_INIT;
	uint32_t nr;

	if (!read_at(pf, off, &nr, 4) || nr > CMDLINE_WORDS_MAX)
		return;
	off += 4;
	for (uint32_t i = 0; i < nr; i++) {
		char *w = read_string(pf, &off, end);
		if (!w)
			break;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_add(&sb, w, strlen(w));
		free(w);
	}
	if (sb.len)
		pf->command = strbuf_detach(&sb);
	strbuf_release(&sb);
}

/* u32 nr, u32 attr_size; per event: its attr, u32 nr_ids, its name, its
 * ids.  The events come in the attributes' order. */
static void read_event_desc(struct perf_file *pf, const struct section *s)
{
	uint64_t off = s->offset, end = s->offset + s->size;
	uint32_t head[2], nr_ids;

	if (!read_at(pf, off, head, sizeof(head)) || head[1] > 4096)
		return;
	off += sizeof(head);
	for (uint32_t i = 0; i < head[0] && i < pf->n_attrs; i++) {
		off += head[1];
		if (off + 4 > end || !read_at(pf, off, &nr_ids, 4))
			return;
		off += 4;
		pf->names[i] = read_string(pf, &off, end);
		if (!pf->names[i] || nr_ids > PERF_FILE_IDS_MAX)
			return;
		off += (uint64_t)nr_ids * 8;
	}
}

/* u32 nr; per node: u32 node, u64 mem_total, u64 mem_free, its CPUs as a
 * perf_header_string ("0-3,8").  A node that does not parse ends it. */
static void read_numa_topology(struct perf_file *pf, const struct section *s)
{
	uint64_t off = s->offset, end = s->offset + s->size;
	uint32_t nr;

	if (!read_at(pf, off, &nr, 4) || nr > NUMA_NODES_MAX)
		return;
	off += 4;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t node;
		char *cpus;
		bool ok;

		if (off + 20 > end || !read_at(pf, off, &node, 4))
			return;
		off += 20;
		if (!(cpus = read_string(pf, &off, end)))
			return;
		ok = cpu_nodes_add(&pf->nodes, node, cpus);
		free(cpus);
		if (!ok)
			return;
	}
}

/* Records of struct perf_record_header_build_id: header, pid, 24 bytes of
 * build-id (20 and a size byte when misc says so), the path. */
static void read_build_ids(struct perf_file *pf, const struct section *s)
{
	uint64_t off = s->offset, end = s->offset + s->size;
	struct {
		struct perf_event_header h;
		int32_t pid;
		uint8_t id[24];
	} e;

	while (off + sizeof(e) <= end && pf->n_build_ids < PERF_FILE_BUILD_IDS_MAX) {
		struct build_id *b;
		size_t name_len;
		char *path;

		if (!read_at(pf, off, &e, sizeof(e)) || e.h.size <= sizeof(e) ||
		    e.h.size > end - off)
			return;
		name_len = e.h.size - sizeof(e);
		path = xmalloc(name_len + 1);
		if (!read_at(pf, off + sizeof(e), path, name_len)) {
			free(path);
			return;
		}
		path[name_len] = '\0';
		ALLOC_GROW(pf->build_ids, pf->n_build_ids + 1, pf->alloc_build_ids);
		b = &pf->build_ids[pf->n_build_ids++];
		b->pid = (uint32_t)e.pid;
		b->len = (e.h.misc & MISC_BUILD_ID_SIZE) && e.id[20] <= 20 ? e.id[20] : 20;
		copy_bytes(b->id, e.id, b->len);
		b->path = path;
		off += e.h.size;
	}
}

/* The feature sections follow the data section, one perf_file_section per
 * bit set, in bit order.  A feature that does not hold is left out: the
 * samples do not need it. */
static void read_features(struct perf_file *pf)
{
	const struct file_header *h = &pf->h;
	uint64_t at = h->data.offset + h->data.size;

	for (unsigned bit = 0; bit < FEAT_BITS; bit++) {
		struct section s;

		if (!(h->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!read_at(pf, at, &s, sizeof(s)))
			return;
		at += sizeof(s);
		if (s.offset > pf->size || s.size > pf->size - s.offset)
			continue;
		if (bit == FEAT_BUILD_ID)
			read_build_ids(pf, &s);
		else if (bit == FEAT_CMDLINE)
			read_cmdline(pf, &s);
		else if (bit == FEAT_CPUID && !pf->cpuid) {
			uint64_t off = s.offset;
			pf->cpuid = read_string(pf, &off, s.offset + s.size);
		}
		else if (bit == FEAT_EVENT_DESC)
			read_event_desc(pf, &s);
		else if (bit == FEAT_NUMA_TOPOLOGY)
			read_numa_topology(pf, &s);
	}
}

struct perf_file *perf_file_open(FILE *f, struct strbuf *err)
{
	struct perf_file *pf = xcalloc(1, sizeof(*pf));
	struct stat st;

	pf->f = f;
	cpu_nodes_init(&pf->nodes);
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "perf.data must be a regular file (not a pipe)");
		goto fail;
	}
	pf->size = (uint64_t)st.st_size;
	if (!read_header(pf, err) || !read_attrs(pf, err))
		goto fail;
	read_features(pf);
	return pf;
fail:
	perf_file_free(pf);
	return NULL;
}

void perf_file_free(struct perf_file *pf)
{
	if (!pf)
		return;
	for (unsigned i = 0; i < pf->n_attrs; i++)
		free(pf->names[i]);
	for (size_t i = 0; i < pf->n_build_ids; i++)
		free(pf->build_ids[i].path);
	free(pf->names);
	free(pf->attrs);
	free(pf->ids);
	free(pf->build_ids);
	free(pf->command);
	free(pf->cpuid);
	free(pf);
}

unsigned perf_file_n_attrs(const struct perf_file *pf) { return pf->n_attrs; }
const struct perf_event_attr *perf_file_attr(const struct perf_file *pf, unsigned i)
{
	return i < pf->n_attrs ? &pf->attrs[i] : NULL;
}
const char *perf_file_event_name(const struct perf_file *pf, unsigned i)
{
	return i < pf->n_attrs ? pf->names[i] : NULL;
}
const char *perf_file_command(const struct perf_file *pf) { return pf->command; }
const char *perf_file_cpuid(const struct perf_file *pf) { return pf->cpuid; }
const struct cpu_nodes *perf_file_cpu_nodes(const struct perf_file *pf)
{
	return pf->nodes.known ? &pf->nodes : NULL;
}

unsigned perf_file_build_id(const struct perf_file *pf, uint32_t pid, const char *path,
			    uint8_t *id)
{
	const struct build_id *any = NULL;

	for (size_t i = 0; i < pf->n_build_ids; i++) {
		const struct build_id *b = &pf->build_ids[i];
		if (strcmp(b->path, path))
			continue;
		if (b->pid == pid) {
			any = b;
			break;
		}
		if (!any)
			any = b;
	}
	if (!any)
		return 0;
	copy_bytes(id, any->id, any->len);
	return any->len;
}

/* --- the data section ---------------------------------------------------- */

/* records lie 8-aligned in a round's buffer, whatever their size */
#define ALIGN8(n) (((size_t)(n) + 7) & ~(size_t)7)

struct record_ref {
	size_t off;                      /* in the round's buffer */
	uint16_t len;
	unsigned attr;
	uint64_t time;
	size_t seq;                      /* file order: the tie-break */
};

struct round {
	uint8_t *buf;
	size_t len, alloc;
	struct record_ref *refs;
	size_t n_refs, alloc_refs;
	uint64_t max_time;               /* latest time in the round so far */
};

static int ref_cmp(const void *a, const void *b)
{
	const struct record_ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The event a sample belongs to: by its id where the samples carry one
 * (first with IDENTIFIER; else after ip, tid, time and addr), else the
 * first.  -1: an id no attribute has. */
static int sample_attr(const struct perf_file *pf, const uint8_t *rec, size_t len)
{
	uint64_t st = pf->attrs[0].sample_type, id;
	size_t off = sizeof(struct perf_event_header);
	struct id_attr key, *hit;

	if (pf->n_attrs == 1)
		return 0;
	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return 0;
		off += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	}
	if (off + 8 > len)
		return -1;
	memcpy(&id, rec + off, 8);
	key.id = id;
	hit = search_items(&key, pf->ids, pf->n_ids, sizeof(*pf->ids), id_cmp);
	return hit ? (int)hit->attr : -1;
}

/* PERF_RECORD_ITRACE_START: whose trace a CPU's AUX area holds from now */
static void itrace_start(const struct perf_event_attr *attr, const uint8_t *rec, size_t len,
			 const struct perf_callbacks *cb)
{
	uint32_t pid, tid;

	if (cb->itrace_start && perf_parse_itrace_start(rec, len, &pid, &tid))
		cb->itrace_start(cb->aux_ctx, perf_record_cpu(attr, rec, len), pid, tid);
}

/* Hand over the round's records up to time upto (all: UINT64_MAX), in
 * time order; keep the rest for the next round. */
static void round_flush(struct perf_file *pf, struct round *r, uint64_t upto,
			const struct perf_callbacks *cb, struct perf_file_counts *c)
{
	uint8_t *rest = NULL;
	size_t rest_len = 0, n_rest = 0, i;

	if (r->n_refs > 1)
		sort_items(r->refs, r->n_refs, sizeof(*r->refs), ref_cmp);
	for (i = 0; i < r->n_refs && r->refs[i].time <= upto; i++) {
		const struct record_ref *ref = &r->refs[i];
		const uint8_t *rec = r->buf + ref->off;
		const struct perf_event_header *h = (const void *)rec;

		if (ref->time > pf->last_time)
			pf->last_time = ref->time;
		if (h->type == PERF_RECORD_ITRACE_START) {
			itrace_start(&pf->attrs[ref->attr], rec, ref->len, cb);
		} else if (!perf_record_dispatch(&pf->attrs[ref->attr], rec, ref->len, cb)) {
			if (h->type == PERF_RECORD_SAMPLE)
				c->malformed++;
			else
				c->unknown_type++;
		} else if (h->type == PERF_RECORD_SAMPLE) {
			c->samples++;
		}
	}
	if (i < r->n_refs) {   /* later than the round before: they wait */
		for (size_t j = i; j < r->n_refs; j++)
			rest_len += ALIGN8(r->refs[j].len);
		rest = xmalloc(rest_len);
		for (size_t j = i; j < r->n_refs; j++) {
			struct record_ref *ref = &r->refs[j];
			memcpy(rest + n_rest, r->buf + ref->off, ref->len);
			ref->off = n_rest;
			n_rest += ALIGN8(ref->len);
		}
		move_bytes(r->refs, r->refs + i, (r->n_refs - i) * sizeof(*r->refs));
	}
	r->n_refs -= i;
	free(r->buf);
	r->buf = rest;
	r->len = rest_len;
	r->alloc = rest_len;
}

/* One record (hdr read, its body at off in the file) into the round. */
static bool round_add(struct perf_file *pf, struct round *r, const struct perf_event_header *hdr,
		      uint64_t off, size_t seq, struct perf_file_counts *c)
{
	struct record_ref *ref;
	uint8_t *rec;
	int attr = 0;

	ALLOC_GROW(r->buf, r->len + ALIGN8(hdr->size), r->alloc);
	rec = r->buf + r->len;
	memcpy(rec, hdr, sizeof(*hdr));
	if (!read_at(pf, off + sizeof(*hdr), rec + sizeof(*hdr), hdr->size - sizeof(*hdr)))
		return false;
	if (hdr->type == PERF_RECORD_SAMPLE && (attr = sample_attr(pf, rec, hdr->size)) < 0) {
		c->unknown_event++;
		return true;
	}
	ALLOC_GROW(r->refs, r->n_refs + 1, r->alloc_refs);
	ref = &r->refs[r->n_refs++];
	*ref = (struct record_ref){
		.off = r->len, .len = hdr->size, .attr = (unsigned)attr, .seq = seq,
		.time = perf_record_time(&pf->attrs[attr], rec, hdr->size),
	};
	if (ref->time > r->max_time)
		r->max_time = ref->time;
	r->len += ALIGN8(hdr->size);   /* perf's sizes are; a hostile file's may not be */
	return true;
}

/* PERF_RECORD_TIME_CONV: the clock of the AUX traces' timestamps (the
 * ring's metadata page when perf recorded): time_shift, time_mult,
 * time_zero, then (newer perf) time_cycles, time_mask and the caps. */
static void read_time_conv(struct perf_file *pf, const struct perf_event_header *hdr,
			   uint64_t off)
{
	uint64_t v[5] = { 0 };
	uint8_t caps[2] = { 1, 0 };   /* older records: time_zero is valid */
	size_t body = hdr->size - sizeof(*hdr);

	if (body < 24 || !read_at(pf, off + sizeof(*hdr), v, body < sizeof(v) ? body : sizeof(v)))
		return;
	if (body >= sizeof(v) + 2)
		read_at(pf, off + sizeof(*hdr) + sizeof(v), caps, 2);
	pf->clock.time_shift = (uint16_t)v[0];
	pf->clock.time_mult = (uint32_t)v[1];
	pf->clock.time_zero = v[2];
	pf->clock.time_cycles = v[3];
	pf->clock.time_mask = v[4];
	pf->clock.time_zero_valid = caps[0];
	pf->clock.time_short = caps[1];
}

/* PERF_RECORD_AUXTRACE: size, offset, reference; idx, tid, cpu; then size
 * bytes of trace, handed to cb->aux as the rings' AUX areas are.  False
 * when nothing takes it (no decoder, or a trace over the round's cap). */
static bool aux_trace(struct perf_file *pf, const struct perf_event_header *hdr,
		      uint64_t off, uint64_t size, const struct perf_callbacks *cb)
{
	struct {
		uint64_t size, offset, reference;
		uint32_t idx, tid, cpu, reserved;
	} e;
	struct perf_aux a = pf->clock;
	uint8_t *data;

	if (!cb->aux || !size || size > PERF_FILE_ROUND_MAX || hdr->size < sizeof(*hdr) + sizeof(e) ||
	    !read_at(pf, off + sizeof(*hdr), &e, sizeof(e)))
		return false;
	data = xmalloc(size);
	if (!read_at(pf, off + hdr->size, data, size)) {
		free(data);
		return false;
	}
	a.cpu = e.cpu;
	a.tid = e.tid == UINT32_MAX ? 0 : e.tid;   /* per-CPU traces: -1 */
	a.time = pf->last_time;
	a.offset = e.offset;
	a.data = data;
	a.size = size;
	cb->aux(cb->aux_ctx, &a);
	free(data);
	return true;
}

int perf_file_run(struct perf_file *pf, const struct perf_callbacks *cb,
		  struct perf_file_counts *c, struct strbuf *err)
{
	uint64_t off = pf->h.data.offset, end = off + pf->h.data.size;
	uint64_t before = 0;   /* the latest time of the rounds before the last */
	struct round r = { 0 };
	size_t seq = 0;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	while (off < end) {
		struct perf_event_header hdr;

		if (end - off < sizeof(hdr) || !read_at(pf, off, &hdr, sizeof(hdr)) ||
		    hdr.size < sizeof(hdr) || hdr.size > end - off) {
			strbuf_addf(err, "corrupt perf.data: a record at byte %llu runs past the "
				    "data section", (unsigned long long)off);
			ret = -1;
			break;
		}
		c->records++;
		if (hdr.type == RECORD_COMPRESSED) {
			strbuf_addf(err, "perf.data holds compressed records (perf record -z): "
				      "record without -z, or decompress it with 'perf inject -i "
				      "perf.data -o plain.data'");
			ret = -1;
			break;
		}
		if (hdr.type == RECORD_AUXTRACE) {
			uint64_t size;   /* the trace follows the record */
			if (!read_at(pf, off + sizeof(hdr), &size, 8) ||
			    size > end - off - hdr.size) {
				strbuf_addf(err, "corrupt perf.data: an AUX trace at byte %llu runs "
					    "past the data section", (unsigned long long)off);
				ret = -1;
				break;
			}
			/* what came before it in time is known: mappings, threads */
			round_flush(pf, &r, UINT64_MAX, cb, c);
			before = r.max_time;
			if (!aux_trace(pf, &hdr, off, size, cb))
				c->aux_bytes += size;
			off += hdr.size + size;
			continue;
		}
		if (hdr.type == RECORD_TIME_CONV)
			read_time_conv(pf, &hdr, off);
		if (hdr.type == RECORD_FINISHED_ROUND) {
			/* what a later round can hold is no earlier than the one before */
			round_flush(pf, &r, before, cb, c);
			before = r.max_time;
		} else if (hdr.type >= RECORD_USER_FIRST && hdr.type <= RECORD_USER_LAST) {
			/* perf's bookkeeping: ids, time conversion, maps of CPUs */
		} else if (!round_add(pf, &r, &hdr, off, seq++, c)) {
			strbuf_addf(err, "corrupt perf.data: cannot read the record at byte %llu",
				    (unsigned long long)off);
			ret = -1;
			break;
		}
		if (r.len > PERF_FILE_ROUND_MAX || r.n_refs >= PERF_FILE_ROUND_RECORDS) {
			c->round_flushes++;
			round_flush(pf, &r, UINT64_MAX, cb, c);
		}
		off += hdr.size;
	}
	round_flush(pf, &r, UINT64_MAX, cb, c);
	free(r.buf);
	free(r.refs);
	return ret;
}
