/* code_probe.c - probes on instructions for one window (code_probe.h).
 *
 * Per thread, one event per site; the first owns a small ring and the
 * others write into it (PERF_EVENT_IOC_SET_OUTPUT: same task, same "any
 * CPU").  Where a site is probed (at ip, at alt, or not at all) is found
 * on the first thread armed and kept for the others.
 */
#include "detector/code_probe.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "common/util.h"
#include "detector/perf_event.h"
#include "detector/perf_ring.h"
#include "detector/perf_session.h"
#include "detector/uprobe_event.h"
#include "detector/watch.h"
#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"

#define RING_PAGES 32             /* ~1800 records of the registers the sites
				     read (~600 of all of them) per thread: more
				     than a window's hit cap (watch.h), so that
				     a drain starved of CPU by the target's own
				     threads loses none */
#define POLL_MS 1
#define ENOTSUPP_KERNEL 524       /* the kernel's ENOTSUPP: uprobes refuse the instruction */

struct probe_thread {
	pid_t tid;
	int fd[CODE_PROBE_MAX_SITES];   /* breakpoints: one per site; uprobes: one */
	unsigned n_fd;
	struct perf_ring ring;
	uint64_t seen;                  /* records that reached hit() */
};

struct window {
	struct code_probe_window *cfg;
	struct perf_event_attr attr;       /* of every event; breakpoints: bp_addr varies */
	struct uprobe_event ev;            /* uprobes: every site, one tracepoint */
	bool ev_defined;
	struct probe_thread *t;
	unsigned n_t, alloc_t;
	unsigned hits;
};

unsigned code_probe_bp_len(void)
{
	return decode_arch_native()->insn_width == 4 ? HW_BREAKPOINT_LEN_4 : sizeof(long);
}

const char *code_probe_kind_name(enum code_probe_kind kind)
{
	return kind == CODE_PROBE_UPROBE ? "uprobes" : "execute breakpoints";
}

/* The user registers a hit needs: those the sites' memory operands read
 * (and the instruction pointer), so that a record is small and a ring
 * holds many; all of them with the stack (a function's entry: the
 * return address is where the architecture keeps it), or where a site
 * does not decode. */
static uint64_t regs_needed(const struct code_probe_window *c)
{
	const struct decode_arch *native = decode_arch_native();
	struct decoder_set decs = { { 0 } };
	uint64_t mask = 1ULL << native->perf_ip;

	for (unsigned i = 0; !c->stack && i < c->n_sites; i++) {
		uint64_t ip = symbolizer_plain(c->sites[i].ip);
		struct decoder *dec = decoder_set_get(&decs, symbolizer_machine(c->sym, c->pid, ip));
		uint8_t code[DECODE_MAX_INSN];
		size_t len = dec ? symbolizer_read(c->sym, c->pid, ip, code, sizeof(code)) : 0;
		struct insn_mem m;

		if (!len || decoder_arch(dec) != native ||
		    !decoder_memory(dec, code, len, ip, &m) || !m.access) {
			mask = 0;
			break;
		}
		if (m.base >= 0)
			mask |= 1ULL << m.base;
		if (m.index >= 0)
			mask |= 1ULL << m.index;
	}
	decoder_set_release(&decs);
	return c->stack || !mask ? decode_native_regs_mask() : mask;
}

static void init_attr(struct window *w)
{
	struct perf_event_attr *a = &w->attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (w->cfg->kind == CODE_PROBE_UPROBE) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = w->ev.id;
	} else {
		a->type = PERF_TYPE_BREAKPOINT;
		a->bp_type = HW_BREAKPOINT_X;
		a->bp_len = code_probe_bp_len();
	}
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = regs_needed(w->cfg);
	if (w->cfg->stack) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = 8;
	}
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Is path the object the mapping is (when its device and inode are known)? */
static bool same_object(const char *path, const struct mapping *m)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	return !m->obj.ino || ((uint64_t)st.st_ino == m->obj.ino && (uint64_t)st.st_dev == m->obj.dev);
}

/* The file and offset of the code at ip in pid, as the kernel must be told
 * for a uprobe: the mapping's own link, which is the file it maps even
 * when deleted or replaced, and has no spaces.  False if ip is not in a
 * file the target maps executable, or the link is not that file. */
static bool uprobe_place(struct symbolizer *sym, pid_t pid, uint64_t ip, struct uprobe_place *out)
{
	const struct mapping *m = symbolizer_find_mapping(sym, pid, ip);

	out->path[0] = 0;
	if (!m || !m->name || m->name[0] != '/' || !(m->prot & 4 /* PROT_EXEC */))
		return false;
	out->offset = ip - m->start + m->pgoff;
	snprintf(out->path, sizeof(out->path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		 m->start, m->end);
	if (same_object(out->path, m))
		return true;
	out->path[0] = 0;
	return false;
}

/* Where each site is probed (at ip, at alt where the kernel refuses ip's
 * instruction, or not at all), and one event for all of them.  0, or
 * -errno. */
static int define_uprobes(struct window *w)
{
	struct code_probe_window *c = w->cfg;
	struct uprobe_place *places = xcalloc(c->n_sites, sizeof(*places));
	struct decoder_set decs = { { 0 } };
	unsigned n = 0;
	int err;

	for (unsigned i = 0; i < c->n_sites; i++) {
		struct code_site *s = &c->sites[i];
		uint64_t ip = symbolizer_plain(s->ip);
		struct decoder *dec = decoder_set_get(&decs, symbolizer_machine(c->sym, c->pid, ip));
		uint8_t code[DECODE_MAX_INSN];
		size_t len = symbolizer_read(c->sym, c->pid, ip, code, sizeof(code));
		struct insn_info ii;

		if (!s->alt && dec && len && decoder_insn(dec, code, len, ip, &ii) && ii.length)
			s->alt = s->ip + ii.length;
		s->at_alt = dec && len && decode_uprobe_refuses(decoder_arch(dec), code, len);
		s->refused = (s->at_alt && !s->alt) ||
			     !uprobe_place(c->sym, c->pid, s->at_alt ? symbolizer_plain(s->alt) : ip,
					   &places[n]);
		n += !s->refused;
	}
	err = n ? uprobe_event_define(&w->ev, places, n) : -ENOENT;
	decoder_set_release(&decs);
	free(places);
	w->ev_defined = !err;
	return err;
}

static void close_thread(struct probe_thread *t)
{
	perf_ring_unmap(&t->ring);
	for (unsigned i = t->n_fd; i-- > 0;)
		close(t->fd[i]);
	t->n_fd = 0;
}

/* The thread's events: one per site (breakpoints) or the one tracepoint
 * of every site (uprobes), into one ring.  0, or -errno (the thread
 * stays unarmed). */
static int arm_thread(struct window *w, struct probe_thread *t)
{
	struct code_probe_window *c = w->cfg;
	unsigned n = c->kind == CODE_PROBE_UPROBE ? 1 : c->n_sites;
	int err;

	for (unsigned i = 0; i < n; i++) {
		struct perf_event_attr a = w->attr;
		int fd;

		if (c->kind == CODE_PROBE_BREAKPOINT)
			a.bp_addr = symbolizer_plain(c->sites[i].ip);
		fd = perf_event_open_fd(&a, t->tid, -1, -1);
		if (fd < 0) {
			close_thread(t);
			return fd;
		}
		t->fd[t->n_fd++] = fd;
	}
	err = perf_ring_map(&t->ring, t->fd[0], RING_PAGES);
	for (unsigned i = 1; !err && i < t->n_fd; i++)
		if (ioctl(t->fd[i], PERF_EVENT_IOC_SET_OUTPUT, t->fd[0]) < 0)
			err = -errno;
	if (err)
		close_thread(t);
	return err;
}

/* Every thread of the process, armed.  Returns the number armed, or -errno. */
static int arm_threads(struct window *w)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int armed = 0, first_err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)w->cfg->pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct probe_thread *t;
		int err;

		if (tid <= 0)
			continue;
		if (w->n_t == CODE_PROBE_MAX_THREADS)
			break;
		ALLOC_GROW(w->t, w->n_t + 1, w->alloc_t);
		t = &w->t[w->n_t];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		err = arm_thread(w, t);
		if (err < 0) {
			if (err != -ESRCH && err != -ENODEV && !first_err)
				first_err = err;
			continue;
		}
		w->n_t++;
		armed++;
	}
	closedir(d);
	if (!armed)
		return first_err ? first_err : -ESRCH;
	return armed;
}

static const struct code_site *site_of_hit(const struct window *w, uint64_t ip)
{
	for (unsigned i = 0; i < w->cfg->n_sites; i++) {
		const struct code_site *s = &w->cfg->sites[i];

		if (!s->refused && symbolizer_plain(s->at_alt ? s->alt : s->ip) == ip)
			return s;
	}
	return NULL;
}

struct drain {
	struct window *w;
	struct probe_thread *t;
};

static void take_record(void *ctx, const struct perf_event_header *h)
{
	struct drain *d = ctx;
	struct window *w = d->w;
	struct perf_sample ps;
	const struct code_site *s;
	uint64_t lost = perf_record_lost(h);

	if (lost) {
		w->hits += lost > UINT32_MAX ? UINT32_MAX : (unsigned)lost;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || !perf_parse_sample(&w->attr, h, h->size, &ps))
		return;
	w->hits++;
	d->t->seen++;
	if ((s = site_of_hit(w, ps.ip)))
		w->cfg->hit(w->cfg->ctx, &ps, s);
}

static void drain(struct window *w)
{
	for (unsigned i = 0; i < w->n_t; i++) {
		struct drain d = { w, &w->t[i] };

		perf_ring_read(&w->t[i].ring, take_record, &d);
	}
}

/* Each thread's hits as its events counted them, to thread_done(). */
static void count_threads(struct window *w)
{
	for (unsigned i = 0; w->cfg->thread_done && i < w->n_t; i++) {
		struct probe_thread *t = &w->t[i];
		uint64_t counted = 0;

		for (unsigned k = 0; k < t->n_fd; k++) {
			uint64_t v;

			if (read(t->fd[k], &v, sizeof(v)) == (ssize_t)sizeof(v))
				counted += v;
		}
		w->cfg->thread_done(w->cfg->ctx, t->tid, counted > t->seen ? counted : t->seen,
				    t->seen);
	}
}

/* Close every event.  A tracepoint's last close waits a grace period
 * (uprobe_event.h): the uprobes' go to a thread of their own. */
static void release(struct window *w)
{
	int *fds = xcalloc(w->n_t + 1, sizeof(*fds));
	unsigned n = 0;

	for (unsigned i = 0; i < w->n_t; i++) {
		struct probe_thread *t = &w->t[i];

		perf_ring_unmap(&t->ring);
		if (!w->ev_defined) {
			close_thread(t);
			continue;
		}
		for (unsigned k = 0; k < t->n_fd; k++)
			fds[n++] = t->fd[k];
		t->n_fd = 0;
	}
	if (w->ev_defined)
		uprobe_event_release(&w->ev, fds, n);
	free(fds);
	free(w->t);
}

int code_probe_run(struct code_probe_window *cfg)
{
	struct window w = { .cfg = cfg };
	unsigned max = cfg->kind == CODE_PROBE_UPROBE ? CODE_PROBE_MAX_SITES : WATCH_SLOTS;
	double t0;
	int armed;

	if (!cfg->n_sites || cfg->n_sites > max)
		return -EINVAL;
	for (unsigned i = 0; i < cfg->n_sites; i++)
		cfg->sites[i].at_alt = cfg->sites[i].refused = false;
	if (cfg->kind == CODE_PROBE_UPROBE && (armed = define_uprobes(&w)) < 0)
		return armed;
	init_attr(&w);
	armed = arm_threads(&w);
	if (armed < 0) {
		release(&w);
		return armed;
	}
	for (unsigned i = 0; i < w.n_t; i++)
		for (unsigned k = 0; k < w.t[i].n_fd; k++)
			ioctl(w.t[i].fd[k], PERF_EVENT_IOC_ENABLE, 0);
	t0 = monotonic_s();
	do {
		poll(NULL, 0, POLL_MS);
		drain(&w);
	} while (w.hits < cfg->max_hits && monotonic_s() - t0 < cfg->max_s &&
		 !(cfg->stop && *cfg->stop));
	for (unsigned i = 0; i < w.n_t; i++)
		for (unsigned k = 0; k < w.t[i].n_fd; k++)
			ioctl(w.t[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
	drain(&w);
	count_threads(&w);
	release(&w);
	return (int)w.hits;
}
