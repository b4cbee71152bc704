/* backend.c - which backend a session runs, and its events on a target. */
#include "detector/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/soft.h"
#include "common/util.h"

static const char *const soft_method = "cpu-clock samples + instruction decoding";

static void choose_soft(const struct backend_request *req, struct backend_choice *c)
{
	c->id = BACKEND_SOFT;
	c->n_events = 1;
	soft_event_attr(&c->events[0].attr, req->freq, req->callchain);
	snprintf(c->events[0].name, sizeof(c->events[0].name), "cpu-clock");
}

static bool try_hardware(const struct backend_request *req, const struct hw_host *h,
			 enum backend_id id, struct backend_choice *c)
{
	char *why = NULL;

	c->n_events = hw_probe(id, h, &req->hw, c->events, &why);
	if (c->n_events) {
		c->id = id;
		return true;
	}
	c->n_events = 0;
	c->why_not[id] = why;
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
		if (want == BACKEND_SOFT) {
			choose_soft(req, c);
			return true;
		}
		c->id = want;
		return try_hardware(req, h, want, c);
	}
	c->automatic = true;
	for (int id = 0; id < BACKEND_SOFT; id++) {
		struct backend_choice other;

		if (!chosen) {
			chosen = try_hardware(req, h, id, c);
			continue;
		}
		/* only the reason matters for the ones after the chosen one */
		memset(&other, 0, sizeof(other));
		if (try_hardware(req, h, id, &other))
			other.why_not[id] = xasprintf("%s was chosen first", backend_name(c->id));
		c->why_not[id] = other.why_not[id];
	}
	if (chosen)
		c->why_not[BACKEND_SOFT] = xasprintf("%s runs instead", backend_name(c->id));
	else
		choose_soft(req, c);
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
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s %s: ", c->automatic ? "auto chose" : "--backend",
		    backend_name(c->id));
	if (c->id == BACKEND_SOFT) {
		strbuf_addf(&sb, "%s", soft_method);
	} else {
		for (unsigned i = 0; i < c->n_events; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", c->events[i].name);
	}
	for (int id = 0; id < BACKEND_SOFT; id++)
		if (c->why_not[id])
			strbuf_addf(&sb, "; %s: %s", backend_name(id), c->why_not[id]);
	return strbuf_detach(&sb);
}

/* --- event sets ------------------------------------------------------------ */

struct event_set {
	struct perf_session *ps[HW_MAX_EVENTS];
	unsigned n;
};

struct event_set *event_set_open(const struct backend_choice *c,
				 const struct perf_session_config *cfg, bool on_exec)
{
	struct event_set *es = xcalloc(1, sizeof(*es));
	const struct hw_event *leader = NULL;

	for (unsigned i = 0; i < c->n_events; i++) {
		struct perf_session_config pc = *cfg;
		struct perf_event_attr *a = &pc.attr;

		if (c->events[i].leader) {
			leader = &c->events[i];   /* opened with the next event */
			continue;
		}
		pc.attr = c->events[i].attr;
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

size_t event_set_drain(struct event_set *es, const struct perf_callbacks *cb)
{
	size_t n = 0;

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
