#include "detector/perf_session.h"
#include "detector/perf_event.h"
#include "detector/perf_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/procfs.h"
#include "common/util.h"

struct ring {
	struct perf_ring pr;      /* of the event whose buffer this is */
	int cpu;
	uint8_t *aux;             /* the AUX area (aux_pages), NULL if none */
	size_t aux_size;
};

struct perf_session {
	struct perf_event_attr attr;
	bool has_leader;
	struct perf_event_attr leader;
	struct ring *rings;       /* one per CPU: every event on that CPU writes here */
	unsigned n_rings;
	struct pollfd *pfds;
	int *fds;                 /* every event, for enable/disable/close */
	size_t n_fds, alloc_fds;
	unsigned pages;
	unsigned aux_pages;
	size_t page_size;
	/* drain scratch: records copied out of the rings, then sorted */
	uint8_t *buf;
	size_t buf_len, buf_alloc;
	struct rec_ref {
		uint64_t time;
		size_t off, len;
		size_t aux_off, aux_len;   /* PERF_RECORD_AUX: its bytes in buf */
		unsigned seq, ring;
	} *refs;
	size_t n_refs, alloc_refs;
};

/* Events of every process on a CPU (pid -1): the kernel lets them to a
 * holder of CAP_PERFMON (or CAP_SYS_ADMIN, which includes it), else only
 * while kernel.perf_event_paranoid is 0 or less (perf_allow_cpu()). */
static const char *system_wide_hint(int err)
{
	static char hint[300];

	if (err != EACCES && err != EPERM)
		return perf_open_hint(err);
	snprintf(hint, sizeof(hint),
		 "permission denied: per-CPU events need CAP_PERFMON (or CAP_SYS_ADMIN, or "
		 "root) or kernel.perf_event_paranoid <= 0, and it is %d", perf_event_paranoid(-100));
	return hint;
}

/* Open the event for one task on one CPU.  The first event of a CPU gets
 * the ring buffer; the others are redirected into it (SET_OUTPUT), so
 * memory stays one buffer per CPU however many threads are followed. */
static void add_fd(struct perf_session *ps, int fd)
{
	ALLOC_GROW(ps->fds, ps->n_fds + 1, ps->alloc_fds);
	ps->fds[ps->n_fds++] = fd;
}

/* The group leader of this (task, CPU), if the session has one; -1 if
 * not, -errno if it cannot be opened. */
static int open_leader(struct perf_session *ps, pid_t pid, int cpu)
{
	int fd;

	if (!ps->has_leader)
		return -1;
	fd = perf_event_open_fd(&ps->leader, pid, cpu, -1);
	return fd;
}

/*
 * The AUX area of a ring: its place and size go into the metadata page,
 * then a second mmap at that offset.  Read-write, so that aux_tail tells
 * the kernel which bytes it may overwrite.  Never run on hardware: only
 * arm_spe asks for it, and no Arm machine has run contend yet.
 */
static int map_aux(struct perf_session *ps, struct ring *r)
{
	struct perf_event_mmap_page *meta = r->pr.base;
	size_t size = (size_t)ps->aux_pages * ps->page_size;
	uint64_t offset = ps->page_size + r->pr.data_size;
	void *aux;

	meta->aux_offset = offset;
	meta->aux_size = size;
	aux = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->pr.fd, (off_t)offset);
	if (aux == MAP_FAILED)
		return errno == EPERM ? ENOMEM : errno;
	r->aux = aux;
	r->aux_size = size;
	return 0;
}

static int open_on_cpu(struct perf_session *ps, pid_t pid, int cpu)
{
	struct ring *r = NULL;
	int fd, lfd, err;

	for (unsigned i = 0; i < ps->n_rings; i++)
		if (ps->rings[i].cpu == cpu)
			r = &ps->rings[i];
	lfd = open_leader(ps, pid, cpu);
	if (lfd < -1)
		return lfd;
	fd = perf_event_open_fd(&ps->attr, pid, cpu, lfd);
	if (fd < 0) {
		if (lfd >= 0)
			close(lfd);
		return fd;
	}
	if (r) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->pr.fd) < 0) {
			int e = errno;
			close(fd);
			if (lfd >= 0)
				close(lfd);
			return -e;
		}
	} else {
		r = &ps->rings[ps->n_rings];
		r->cpu = cpu;
		r->aux = NULL;
		err = perf_ring_map(&r->pr, fd, ps->pages);
		if (!err && ps->aux_pages && (err = -map_aux(ps, r)) != 0)
			perf_ring_unmap(&r->pr);
		if (err) {
			close(fd);
			if (lfd >= 0)
				close(lfd);
			return err;
		}
		ps->pfds[ps->n_rings].fd = fd;
		ps->pfds[ps->n_rings].events = POLLIN;
		ps->n_rings++;
	}
	if (lfd >= 0)
		add_fd(ps, lfd);
	add_fd(ps, fd);
	return 0;
}

static long nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : n;
}

int perf_session_add_task(struct perf_session *ps, pid_t tid)
{
	long ncpu = nr_cpus();
	int opened = 0, last = -ENODEV;

	for (long cpu = 0; cpu < ncpu; cpu++) {
		int err = open_on_cpu(ps, tid, (int)cpu);
		if (err == 0) {
			opened++;
			continue;
		}
		last = err;
		if (err == -ENODEV)
			continue;   /* offline CPU */
		return err;
	}
	return opened ? 0 : last;
}

struct perf_session *perf_session_open(const struct perf_session_config *cfg)
{
	struct perf_session *ps = xcalloc(1, sizeof(*ps));
	long ncpu = nr_cpus();
	unsigned n_targets = cfg->n_tids ? cfg->n_tids : 1;

	ps->attr = cfg->attr;
	ps->attr.size = sizeof(ps->attr);
	ps->has_leader = cfg->has_leader;
	ps->leader = cfg->leader;
	ps->leader.size = sizeof(ps->leader);
	ps->pages = cfg->buffer_pages ? cfg->buffer_pages : 128;
	ps->aux_pages = cfg->aux_pages;
	ps->page_size = (size_t)sysconf(_SC_PAGESIZE);
	ps->rings = xcalloc((size_t)ncpu, sizeof(*ps->rings));
	ps->pfds = xcalloc((size_t)ncpu, sizeof(*ps->pfds));

	for (unsigned t = 0; t < n_targets; t++) {
		pid_t pid = cfg->n_tids ? cfg->tids[t] : cfg->pid;
		int err = perf_session_add_task(ps, pid);
		if (err == -ESRCH && cfg->n_tids)
			continue;   /* that thread exited while we attached */
		if (err < 0 && pid == -1) {
			error("cannot sample every process (-a): %s", system_wide_hint(-err));
			perf_session_close(ps);
			return NULL;
		}
		if (err < 0) {
			error("cannot sample %s %d: %s", cfg->n_tids ? "thread" : "process",
			      (int)pid, perf_open_hint(-err));
			perf_session_close(ps);
			return NULL;
		}
	}
	if (ps->n_rings == 0) {
		error("cannot sample process %d: it has no threads left", (int)cfg->pid);
		perf_session_close(ps);
		return NULL;
	}
	return ps;
}

static int ioctl_all(struct perf_session *ps, unsigned long req)
{
	int ret = 0;
	for (size_t i = 0; i < ps->n_fds; i++)
		if (ioctl(ps->fds[i], req, 0) < 0)
			ret = -1;
	return ret;
}

int perf_session_enable(struct perf_session *ps) { return ioctl_all(ps, PERF_EVENT_IOC_ENABLE); }
int perf_session_disable(struct perf_session *ps) { return ioctl_all(ps, PERF_EVENT_IOC_DISABLE); }

int perf_session_poll(struct perf_session *ps, int timeout_ms)
{
	int n = poll(ps->pfds, ps->n_rings, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -1;
	return n < 0 ? 0 : n;
}

unsigned perf_session_nr_events(const struct perf_session *ps)
{
	return (unsigned)ps->n_fds;
}

void perf_session_close(struct perf_session *ps)
{
	if (!ps)
		return;
	for (unsigned i = 0; i < ps->n_rings; i++) {
		if (ps->rings[i].aux)
			munmap(ps->rings[i].aux, ps->rings[i].aux_size);
		perf_ring_unmap(&ps->rings[i].pr);
	}
	for (size_t i = 0; i < ps->n_fds; i++)
		close(ps->fds[i]);
	free(ps->fds);
	free(ps->rings);
	free(ps->pfds);
	free(ps->buf);
	free(ps->refs);
	free(ps);
}

/* --- record parsing ------------------------------------------------------ */

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const uint8_t *take_bytes(struct cursor *c, uint64_t n)
{
	const uint8_t *p = c->p;
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return p;
}

bool perf_parse_sample(const struct perf_event_attr *attr, const void *rec,
		       size_t len, struct perf_sample *out)
{
	const struct perf_event_header *h = rec;
	struct cursor c = { (const uint8_t *)rec + sizeof(*h), (const uint8_t *)rec + len, false };
	uint64_t st = attr->sample_type, v;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) || h->type != PERF_RECORD_SAMPLE)
		return false;
	if (st & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c);
	if (st & PERF_SAMPLE_IP)
		out->ip = take_u64(&c);
	if (st & PERF_SAMPLE_TID) {
		v = take_u64(&c);
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		out->time = take_u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		out->addr = take_u64(&c);
	if (st & PERF_SAMPLE_ID)
		take_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take_u64(&c);
	out->cpu = PERF_CPU_UNKNOWN;
	if (st & PERF_SAMPLE_CPU)
		out->cpu = (uint32_t)take_u64(&c);
	if (st & PERF_SAMPLE_PERIOD)
		out->period = take_u64(&c);
	if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK))
		return false;   /* never requested by contend */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take_u64(&c);
		if (nr > 4096 || !take_bytes(&c, nr * 8))
			return false;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		out->regs_abi = take_u64(&c);
		if (out->regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			uint64_t mask = attr->sample_regs_user;
			for (int bit = 0; bit < 64; bit++) {
				if (!(mask & (1ULL << bit)))
					continue;
				v = take_u64(&c);
				if (bit < DECODE_MAX_REGS) {
					out->regs.val[bit] = v;
					out->regs.mask |= 1ULL << bit;
				}
			}
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take_u64(&c);
		const uint8_t *data = size ? take_bytes(&c, size) : NULL;
		uint64_t dyn = size ? take_u64(&c) : 0;
		out->stack = data;
		out->stack_size = dyn < size ? dyn : size;
	}
	if (st & PERF_SAMPLE_WEIGHT)
		out->weight = take_u64(&c);
	else if (st & PERF_SAMPLE_WEIGHT_STRUCT)   /* perf mem on newer Intel: the
						      latency is the low 32 bits */
		out->weight = (uint32_t)take_u64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		out->data_src = take_u64(&c);
	return !c.bad;
}

/* The pid, tid and time of a non-sample record live in its trailing
 * sample_id (attr.sample_id_all): the fields are at the end, in a fixed
 * order (tid, time, id, stream_id, cpu, identifier).  Zero if absent. */
struct trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

static void parse_trailer(const struct perf_event_attr *attr, const uint8_t *rec, size_t len,
			  size_t body_min, struct trailer *t)
{
	uint64_t st = attr->sample_type;
	size_t n, pos;

	memset(t, 0, sizeof(*t));
	if (!attr->sample_id_all)
		return;
	n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	    !!(st & PERF_SAMPLE_IDENTIFIER);
	if (len < sizeof(struct perf_event_header) + body_min + n * 8)
		return;
	pos = len - n * 8;
	if (st & PERF_SAMPLE_TID) {
		memcpy(&t->pid, rec + pos, 4);
		memcpy(&t->tid, rec + pos + 4, 4);
		pos += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&t->time, rec + pos, 8);
		pos += 8;
	}
	pos += 8 * (!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	if (st & PERF_SAMPLE_CPU)
		memcpy(&t->cpu, rec + pos, 4);
}

static uint64_t trailer_time(const struct perf_event_attr *attr, const uint8_t *rec, size_t len)
{
	struct trailer t;

	parse_trailer(attr, rec, len, 0, &t);
	return t.time;
}

uint32_t perf_record_cpu(const struct perf_event_attr *attr, const void *record, size_t len)
{
	struct trailer t;

	parse_trailer(attr, record, len, 0, &t);
	return t.cpu;
}

bool perf_parse_aux(const struct perf_event_attr *attr, const void *rec, size_t len,
		    struct perf_aux *out)
{
	const struct perf_event_header *h = rec;
	uint64_t v[3];   /* aux_offset, aux_size, flags */
	struct trailer t;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) + sizeof(v) || h->type != PERF_RECORD_AUX || h->size != len)
		return false;
	memcpy(v, (const uint8_t *)rec + sizeof(*h), sizeof(v));
	parse_trailer(attr, rec, len, sizeof(v), &t);
	out->offset = v[0];
	out->size = v[1];
	out->flags = v[2];
	out->pid = t.pid;
	out->tid = t.tid;
	out->time = t.time;
	return true;
}

bool perf_parse_itrace_start(const void *rec, size_t len, uint32_t *pid, uint32_t *tid)
{
	const struct perf_event_header *h = rec;
	uint32_t ids[2];

	if (len < sizeof(*h) + sizeof(ids) || h->type != PERF_RECORD_ITRACE_START)
		return false;
	memcpy(ids, (const uint8_t *)rec + sizeof(*h), sizeof(ids));
	*pid = ids[0];
	*tid = ids[1];
	return true;
}

bool perf_aux_copy(const uint8_t *aux, size_t aux_size, uint64_t offset, uint64_t size,
		   uint8_t *dst)
{
	size_t at, first;

	if (!aux || !aux_size || (aux_size & (aux_size - 1)) || size > aux_size)
		return false;
	at = (size_t)(offset & (aux_size - 1));
	first = aux_size - at < size ? aux_size - at : (size_t)size;
	copy_bytes(dst, aux + at, first);
	copy_bytes(dst + first, aux, (size_t)size - first);
	return true;
}

uint64_t perf_record_time(const struct perf_event_attr *attr, const void *record, size_t len)
{
	const uint8_t *rec = record;
	const struct perf_event_header *h = (const void *)rec;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t off = sizeof(*h);
		uint64_t st = attr->sample_type, t = 0;
		off += 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			    !!(st & PERF_SAMPLE_TID));
		if ((st & PERF_SAMPLE_TIME) && off + 8 <= len)
			memcpy(&t, rec + off, 8);
		return t;
	}
	return trailer_time(attr, rec, len);
}

/* The AUX bytes a PERF_RECORD_AUX (the last record in buf) announces,
 * after it in buf; returns where the AUX area's consumed bytes end, 0 if
 * none were taken. */
static uint64_t copy_aux(struct perf_session *ps, struct ring *r, struct rec_ref *ref)
{
	struct perf_aux a;

	if (!r->aux || !perf_parse_aux(&ps->attr, ps->buf + ref->off, ref->len, &a) ||
	    a.size > r->aux_size)
		return 0;
	ALLOC_GROW(ps->buf, ps->buf_len + a.size, ps->buf_alloc);
	if (!perf_aux_copy(r->aux, r->aux_size, a.offset, a.size, ps->buf + ps->buf_len))
		return 0;
	ref->aux_off = ps->buf_len;
	ref->aux_len = a.size;
	ps->buf_len += a.size;
	return a.offset + a.size;
}

struct copy_out {
	struct perf_session *ps;
	struct ring *r;
	unsigned *seq;
	uint64_t aux_end;        /* where the AUX bytes taken end */
};

static void copy_record(void *ctx, const struct perf_event_header *h)
{
	struct copy_out *co = ctx;
	struct perf_session *ps = co->ps;
	struct rec_ref *ref;

	ALLOC_GROW(ps->buf, ps->buf_len + h->size, ps->buf_alloc);
	copy_bytes(ps->buf + ps->buf_len, h, h->size);
	ALLOC_GROW(ps->refs, ps->n_refs + 1, ps->alloc_refs);
	ref = &ps->refs[ps->n_refs++];
	*ref = (struct rec_ref){ .off = ps->buf_len, .len = h->size, .seq = (*co->seq)++,
				 .ring = (unsigned)(co->r - ps->rings) };
	ps->buf_len += h->size;
	if (h->type == PERF_RECORD_AUX) {
		uint64_t end = copy_aux(ps, co->r, ref);

		co->aux_end = end > co->aux_end ? end : co->aux_end;
	}
}

/* Copy the available records of one ring into ps->buf. */
static void ring_copy_out(struct perf_session *ps, struct ring *r, unsigned *seq)
{
	struct copy_out co = { ps, r, seq, 0 };
	struct perf_event_mmap_page *meta = r->pr.base;

	perf_ring_read(&r->pr, copy_record, &co);
	/* the AUX bytes are copied: the kernel may write there again */
	if (co.aux_end)
		__atomic_store_n(&meta->aux_tail, co.aux_end, __ATOMIC_RELEASE);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A PERF_RECORD_AUX with its bytes and the ring's clock. */
static void dispatch_aux(struct perf_session *ps, const struct rec_ref *ref,
			 const struct perf_callbacks *cb)
{
	const struct ring *r = &ps->rings[ref->ring];
	const struct perf_event_mmap_page *meta = r->pr.base;
	struct perf_aux a;

	if (!cb->aux || !ref->aux_len ||
	    !perf_parse_aux(&ps->attr, ps->buf + ref->off, ref->len, &a))
		return;
	a.cpu = (uint32_t)r->cpu;
	a.data = ps->buf + ref->aux_off;
	a.size = ref->aux_len;
	a.time_zero_valid = meta->cap_user_time_zero;
	a.time_shift = meta->time_shift;
	a.time_mult = meta->time_mult;
	a.time_zero = meta->time_zero;
	a.time_short = meta->cap_user_time_short;
	a.time_cycles = meta->time_cycles;
	a.time_mask = meta->time_mask;
	cb->aux(cb->aux_ctx, &a);
}

/* A record's trailing name (padded, then the sample_id), as a string. */
static void record_name(char *name, size_t size, const uint8_t *p, size_t n)
{
	if (n >= size)
		n = size - 1;
	copy_bytes(name, p, n);
	name[n] = '\0';
}

static void dispatch_mmap2(const uint8_t *body, size_t blen, uint16_t misc,
			   const struct perf_callbacks *cb)
{
	/* u32 pid, tid; u64 addr, len, pgoff; u32 maj, min; u64 ino,
	 * ino_generation (or build id); u32 prot, flags; char filename[] */
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_gen;
		uint32_t prot, flags;
	} m;
	char name[4096];
	struct map_object obj;

	if (blen <= sizeof(m))
		return;
	memcpy(&m, body, sizeof(m));
	record_name(name, sizeof(name), body + sizeof(m), blen - sizeof(m));
	obj = (struct map_object){
		.dev = makedev(m.maj, m.min), .ino = m.ino,
		.shared = (m.flags & MAP_SHARED) != 0,
	};
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)   /* a build-id where the inode was */
		obj.dev = obj.ino = 0;
	cb->mmap(cb->ctx, m.pid, m.addr, m.len, m.pgoff, m.prot, name, &obj);
}

static void dispatch_comm(const uint8_t *body, size_t blen, uint16_t misc,
			  const struct perf_callbacks *cb)
{
	uint32_t ids[2];
	char comm[32];

	if (blen <= 8)
		return;
	memcpy(ids, body, 8);
	record_name(comm, sizeof(comm), body + 8, blen - 8);
	cb->comm(cb->ctx, ids[0], ids[1], comm, !!(misc & PERF_RECORD_MISC_COMM_EXEC));
}

/* PERF_RECORD_MMAP (before MMAP2, and what perf synthesizes for some
 * files): no protection bits, but misc says whether it is data. */
static void dispatch_mmap(const uint8_t *body, size_t blen, uint16_t misc,
			  const struct perf_callbacks *cb)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} m;
	char name[4096];
	uint32_t prot = PROT_READ | (misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC);

	if (blen <= sizeof(m))
		return;
	memcpy(&m, body, sizeof(m));
	record_name(name, sizeof(name), body + sizeof(m), blen - sizeof(m));
	cb->mmap(cb->ctx, m.pid, m.addr, m.len, m.pgoff, prot, name, NULL);
}

bool perf_record_dispatch(const struct perf_event_attr *attr, const void *record, size_t len,
			  const struct perf_callbacks *cb)
{
	const uint8_t *rec = record;
	const struct perf_event_header *h = record;
	const uint8_t *body = rec + sizeof(*h);
	size_t blen;

	if (len < sizeof(*h))
		return false;
	blen = len - sizeof(*h);
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		struct perf_sample s;
		if (!perf_parse_sample(attr, rec, len, &s))
			return false;
		if (cb->sample)
			cb->sample(cb->sample_ctx, &s);
		return true;
	}
	case PERF_RECORD_MMAP2:
		if (cb->mmap)
			dispatch_mmap2(body, blen, h->misc, cb);
		return true;
	case PERF_RECORD_MMAP:
		if (cb->mmap)
			dispatch_mmap(body, blen, h->misc, cb);
		return true;
	case PERF_RECORD_COMM:
		if (cb->comm)
			dispatch_comm(body, blen, h->misc, cb);
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t ids[4];   /* pid, ppid, tid, ptid */
		if (blen < sizeof(ids))
			return false;
		memcpy(ids, body, sizeof(ids));
		if (h->type == PERF_RECORD_FORK && cb->fork)
			cb->fork(cb->ctx, ids[0], ids[1], ids[2]);
		else if (h->type == PERF_RECORD_EXIT && cb->exit)
			cb->exit(cb->ctx, ids[0], ids[2]);
		return true;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (blen < sizeof(v))
			return false;
		if (cb->lost) {
			memcpy(v, body, sizeof(v));
			cb->lost(cb->ctx, v[1]);
		}
		return true;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_TEXT_POKE:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_LOST_SAMPLES:
		return true;   /* known, and nothing contend needs */
	default:
		return false;
	}
}

static void dispatch(struct perf_session *ps, const struct rec_ref *ref,
		     const struct perf_callbacks *cb)
{
	const uint8_t *rec = ps->buf + ref->off;
	const struct perf_event_header *h = (const void *)rec;

	switch (h->type) {
	case PERF_RECORD_AUX:
		dispatch_aux(ps, ref, cb);
		break;
	case PERF_RECORD_ITRACE_START: {
		uint32_t pid, tid;

		if (cb->itrace_start && perf_parse_itrace_start(rec, ref->len, &pid, &tid))
			cb->itrace_start(cb->aux_ctx, (uint32_t)ps->rings[ref->ring].cpu, pid, tid);
		break;
	}
	default:
		perf_record_dispatch(&ps->attr, rec, ref->len, cb);
		break;
	}
}

size_t perf_session_drain(struct perf_session *ps, const struct perf_callbacks *cb)
{
	unsigned seq = 0;
	size_t n;

	ps->buf_len = 0;
	ps->n_refs = 0;
	for (unsigned i = 0; i < ps->n_rings; i++)
		ring_copy_out(ps, &ps->rings[i], &seq);
	for (size_t i = 0; i < ps->n_refs; i++)
		ps->refs[i].time = perf_record_time(&ps->attr, ps->buf + ps->refs[i].off,
					       ps->refs[i].len);
	if (ps->n_refs > 1)   /* refs is NULL until the first record */
		sort_items(ps->refs, ps->n_refs, sizeof(*ps->refs), cmp_ref);
	for (size_t i = 0; i < ps->n_refs; i++)
		dispatch(ps, &ps->refs[i], cb);
	n = ps->n_refs;
	/* keep the scratch bounded: a burst should not pin memory forever */
	if (ps->buf_alloc > (64u << 20)) {
		free(ps->buf);
		ps->buf = NULL;
		ps->buf_alloc = 0;
	}
	return n;
}
