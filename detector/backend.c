/* backend.c - which backend a session runs, and its events on a target. */
#include "detector/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/soft.h"
#include "detector/spe.h"
#include "common/util.h"

/* --- the rows ------------------------------------------------------------ */

static unsigned hw_row_encode(const struct backend_row *row, const struct backend_request *req,
			      const struct hw_host *h, struct hw_event *ev, char **why)
{
	return hw_encode(row->id, h, &req->hw, ev, why);
}

static unsigned hw_row_probe(const struct backend_row *row, const struct backend_request *req,
			     const struct hw_host *h, struct hw_event *ev, char **why)
{
	return hw_probe(row->id, h, &req->hw, ev, why);
}

static void *hw_row_open(struct symbolizer *sym) { return hw_backend_new(sym); }

static bool hw_row_access(void *state, const struct perf_sample *ps, struct access_sample *out)
{
	return hw_backend_access(state, ps, out);
}

static uint64_t hw_row_seen(const void *state) { return hw_backend_samples_seen(state); }
static uint64_t hw_row_decoded(const void *state) { return hw_backend_samples_decoded(state); }

static unsigned hw_row_drops(const void *state, struct named_count **out)
{
	return hw_backend_drop_counts(state, out);
}

static void hw_row_close(void *state) { hw_backend_free(state); }

#define HW_ROW(id_, name_)                                                        \
	{ .id = (id_), .name = (name_), .mem_info = true,                         \
	  .encode = hw_row_encode, .probe = hw_row_probe, .open = hw_row_open,     \
	  .access = hw_row_access, .samples_seen = hw_row_seen,                   \
	  .samples_decoded = hw_row_decoded, .drop_counts = hw_row_drops,         \
	  .close = hw_row_close }

static const struct backend_row pebs_row = HW_ROW(BACKEND_PEBS, "pebs");
static const struct backend_row ibs_row = HW_ROW(BACKEND_IBS, "ibs");

/* spe: packets in the AUX area (spe.h), decoded into the perf samples the
 * other hardware rows get, which reach access through cb->sample.  Never
 * run on an Arm machine. */
static void *spe_row_open(struct symbolizer *sym)
{
	return spe_backend_new(sym, spe_source_format_detect(""));
}

static void spe_row_feed(void *state, const struct perf_aux *a, const struct perf_callbacks *cb)
{
	spe_aux_feed(spe_backend_aux(state), a, cb->sample, cb->sample_ctx);
}

static void spe_row_itrace(void *state, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	spe_aux_itrace_start(spe_backend_aux(state), cpu, pid, tid);
}

static bool spe_row_access(void *state, const struct perf_sample *ps, struct access_sample *out)
{
	return hw_backend_access(spe_backend_hw(state), ps, out);
}

static uint64_t spe_row_seen(const void *state) { return spe_backend_samples_seen(state); }

static uint64_t spe_row_decoded(const void *state)
{
	return spe_backend_samples_decoded(state);
}

static unsigned spe_row_drops(const void *state, struct named_count **out)
{
	return spe_backend_drop_counts(state, out);
}

static void spe_row_close(void *state) { spe_backend_free(state); }

static const struct aux_decoder spe_decoder = {
	.pages = 256, .feed = spe_row_feed, .itrace_start = spe_row_itrace,
};

static const struct backend_row spe_row = {
	.id = BACKEND_SPE, .name = "spe", .mem_info = true, .untried = true,
	.encode = hw_row_encode, .probe = hw_row_probe, .open = spe_row_open,
	.access = spe_row_access, .samples_seen = spe_row_seen,
	.samples_decoded = spe_row_decoded, .drop_counts = spe_row_drops,
	.close = spe_row_close, .aux = &spe_decoder,
};

/* soft always runs: its one event is the same everywhere */
static unsigned soft_row_probe(const struct backend_row *row, const struct backend_request *req,
			       const struct hw_host *h, struct hw_event *ev, char **why)
{
	(void)row;
	(void)h;
	*why = NULL;
	memset(ev, 0, sizeof(*ev));
	soft_event_attr(&ev->attr, req->freq, req->callchain);
	snprintf(ev->name, sizeof(ev->name), "cpu-clock");
	return 1;
}

static void *soft_row_open(struct symbolizer *sym) { return soft_new(sym); }

static bool soft_row_access(void *state, const struct perf_sample *ps, struct access_sample *out)
{
	return soft_access(state, ps, out);
}

static uint64_t soft_row_seen(const void *state) { return soft_samples_seen(state); }
static uint64_t soft_row_decoded(const void *state) { return soft_samples_decoded(state); }

static unsigned soft_row_drops(const void *state, struct named_count **out)
{
	return soft_drop_counts(state, out);
}

static void soft_row_close(void *state) { soft_free(state); }

static const struct backend_row soft_row = {
	.id = BACKEND_SOFT, .name = "soft",
	.method = "cpu-clock samples + instruction decoding",
	.fallback = true,
	.timer = true,
	.probe = soft_row_probe, .open = soft_row_open, .access = soft_row_access,
	.samples_seen = soft_row_seen, .samples_decoded = soft_row_decoded,
	.drop_counts = soft_row_drops, .close = soft_row_close,
};

/* auto's order: the hardware backends, then the fallback */
const struct backend_row *const backend_rows[BACKEND__COUNT] = {
	&pebs_row, &ibs_row, &spe_row, &soft_row,
};

const struct backend_row *backend_row(enum backend_id id)
{
	for (int i = 0; i < BACKEND__COUNT; i++)
		if (backend_rows[i]->id == id)
			return backend_rows[i];
	return NULL;
}

const char *backend_name(enum backend_id id)
{
	const struct backend_row *row = backend_row(id);

	return row ? row->name : "?";
}

bool backend_from_name(const char *name, enum backend_id *id)
{
	for (int i = 0; i < BACKEND__COUNT; i++) {
		if (!strcmp(name, backend_rows[i]->name)) {
			*id = backend_rows[i]->id;
			return true;
		}
	}
	return false;
}

/* --- choosing --------------------------------------------------------------- */

static bool try_row(const struct backend_request *req, const struct hw_host *h,
		    const struct backend_row *row, struct backend_choice *c)
{
	char *why = NULL;

	c->n_events = row->probe(row, req, h, c->events, &why);
	if (c->n_events && row->untried && c->automatic) {
		/* it could run, but nobody has seen it run: not by default */
		c->n_events = 0;
		why = xasprintf("its decoding has never run on hardware, only on synthetic "
				"records: ask for it with --backend %s", row->name);
	}
	if (c->n_events) {
		c->id = row->id;
		return true;
	}
	c->why_not[row->id] = why;
	return false;
}

bool backend_choose(const struct backend_request *req, const struct hw_host *h,
		    struct backend_choice *c)
{
	enum backend_id want;
	bool chosen = false;

	memset(c, 0, sizeof(*c));
	c->id = BACKEND_SOFT;
	if (strcmp(req->name, "auto")) {
		if (!backend_from_name(req->name, &want))
			return false;
		c->id = want;
		return try_row(req, h, backend_row(want), c);
	}
	c->automatic = true;
	for (int i = 0; i < BACKEND__COUNT; i++) {
		const struct backend_row *row = backend_rows[i];
		struct backend_choice other;

		if (!chosen) {
			chosen = try_row(req, h, row, c);
			continue;
		}
		if (row->fallback) {
			c->why_not[row->id] = xasprintf("%s runs instead", backend_name(c->id));
			continue;
		}
		/* only the reason matters for the ones after the chosen one */
		memset(&other, 0, sizeof(other));
		other.automatic = true;
		if (try_row(req, h, row, &other))
			other.why_not[row->id] = xasprintf("%s was chosen first",
							   backend_name(c->id));
		c->why_not[row->id] = other.why_not[row->id];
	}
	return true;
}

void backend_choice_release(struct backend_choice *c)
{
	for (int i = 0; i < BACKEND__COUNT; i++) {
		free(c->why_not[i]);
		c->why_not[i] = NULL;
	}
}

char *backend_note(const struct backend_choice *c)
{
	const struct backend_row *row = backend_row(c->id);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s %s: ", c->automatic ? "auto chose" : "--backend",
		    backend_name(c->id));
	if (row && row->method) {
		strbuf_addf(&sb, "%s", row->method);
	} else {
		for (unsigned i = 0; i < c->n_events; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", c->events[i].name);
	}
	if (row && row->untried)
		strbuf_addf(&sb, " (never run on hardware before: check its samples)");
	/* the fallback's reason ("pebs runs instead") goes without saying */
	for (int i = 0; i < BACKEND__COUNT; i++)
		if (!backend_rows[i]->fallback && c->why_not[backend_rows[i]->id])
			strbuf_addf(&sb, "; %s: %s", backend_rows[i]->name,
				    c->why_not[backend_rows[i]->id]);
	return strbuf_detach(&sb);
}

/* --- the running backend ------------------------------------------------------ */

void backend_open(struct backend *b, const struct backend_choice *c, struct symbolizer *sym)
{
	b->row = backend_row(c->id);
	b->state = b->row->open(sym);
}

void backend_close(struct backend *b)
{
	if (b->row)
		b->row->close(b->state);
	b->row = NULL;
	b->state = NULL;
}

/* --- event sets ------------------------------------------------------------ */

struct event_set {
	struct perf_session *ps[HW_MAX_EVENTS];
	unsigned n;
	unsigned aux_pages;                 /* 0: samples come as samples */
	struct backend *b;                  /* whose decoder takes the trace */
};

struct event_set *event_set_open(const struct backend_choice *c,
				 const struct perf_session_config *cfg, bool on_exec)
{
	struct event_set *es = xcalloc(1, sizeof(*es));
	const struct hw_event *leader = NULL;
	const struct backend_row *row = backend_row(c->id);

	es->aux_pages = row && row->aux ? row->aux->pages : 0;

	for (unsigned i = 0; i < c->n_events; i++) {
		struct perf_session_config pc = *cfg;
		struct perf_event_attr *a = &pc.attr;

		if (c->events[i].leader) {
			leader = &c->events[i];   /* opened with the next event */
			continue;
		}
		pc.attr = c->events[i].attr;
		pc.aux_pages = es->aux_pages;
		a->disabled = on_exec;
		a->enable_on_exec = on_exec;
		/* side-band records once, not once per event */
		a->mmap = a->mmap2 = a->mmap_data = es->n == 0;
		a->comm = a->comm_exec = a->task = es->n == 0;
		if (leader) {
			pc.has_leader = true;
			pc.leader = leader->attr;
			pc.leader.disabled = on_exec;
			pc.leader.enable_on_exec = on_exec;
			leader = NULL;
		}
		es->ps[es->n] = perf_session_open(&pc);
		if (!es->ps[es->n]) {
			event_set_close(es);
			return NULL;
		}
		es->n++;
	}
	return es;
}

void event_set_attach(struct event_set *es, struct backend *b)
{
	if (es && b && b->row && b->row->aux)
		es->b = b;
}

int event_set_add_task(struct event_set *es, pid_t tid)
{
	for (unsigned i = 0; i < es->n; i++) {
		int err = perf_session_add_task(es->ps[i], tid);

		if (err)
			return err;
	}
	return 0;
}

/* The first session waits; the others are drained on the same beat. */
int event_set_poll(struct event_set *es, int timeout_ms)
{
	int ready = 0;

	for (unsigned i = 0; i < es->n; i++) {
		int r = perf_session_poll(es->ps[i], i ? 0 : timeout_ms);

		if (r < 0)
			return r;
		ready += r;
	}
	return ready;
}

/* The AUX records go to the decoder, which hands its samples to the
 * caller's sample callback. */
struct aux_relay {
	struct event_set *es;
	const struct perf_callbacks *cb;
};

static void relay_aux(void *ctx, const struct perf_aux *a)
{
	struct aux_relay *r = ctx;
	const struct backend *b = r->es->b;

	b->row->aux->feed(b->state, a, r->cb);
}

static void relay_itrace_start(void *ctx, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	struct aux_relay *r = ctx;
	const struct backend *b = r->es->b;

	b->row->aux->itrace_start(b->state, cpu, pid, tid);
}

size_t event_set_drain(struct event_set *es, const struct perf_callbacks *cb)
{
	struct perf_callbacks with_aux = *cb;
	struct aux_relay relay = { es, cb };
	size_t n = 0;

	if (es->b) {
		with_aux.aux_ctx = &relay;
		with_aux.aux = relay_aux;
		with_aux.itrace_start = relay_itrace_start;
		cb = &with_aux;
	}
	for (unsigned i = 0; i < es->n; i++)
		n += perf_session_drain(es->ps[i], cb);
	return n;
}

void event_set_close(struct event_set *es)
{
	if (!es)
		return;
	for (unsigned i = 0; i < es->n; i++)
		perf_session_close(es->ps[i]);
	free(es);
}
