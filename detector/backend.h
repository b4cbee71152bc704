/* backend.h - which backend a session runs, and its events on a target.
 *
 * backend_choose() resolves --backend: "auto" tries the hardware backend
 * of this CPU (pebs, ibs, spe: each one refuses with a reason unless the
 * CPU, the kernel and the permissions allow it), then soft, which always
 * runs.  The choice keeps why every other backend did not run; the report
 * header and `contend backends` print it.
 *
 * An event set is the perf sessions (perf_session.h) of a choice on one
 * target: one per sampling event (with its group leader, if it has one),
 * all delivering to the same callbacks.  The first one also carries the
 * side-band records (mmap, comm, fork).
 */
#ifndef CONTEND_BACKEND_H
#define CONTEND_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>
#include "detector/hw_backend.h"
#include "detector/perf_session.h"

struct backend_choice {
	enum backend_id id;                 /* the backend that runs */
	bool automatic;                     /* chosen by auto */
	struct hw_event events[HW_MAX_EVENTS];
	unsigned n_events;
	char *why_not[BACKEND__COUNT];      /* reason per backend that does not run */
};

struct backend_request {
	const char *name;                   /* "auto", "pebs", "ibs", "spe", "soft" */
	struct hw_config hw;
	unsigned freq;                      /* soft: samples per second per thread */
	bool callchain;
};

/*
 * Choose for host h.  Returns false when the backend asked for by name
 * cannot run (c->why_not[c->id] says why) or the name is unknown.
 */
bool backend_choose(const struct backend_request *req, const struct hw_host *h,
		    struct backend_choice *c);
void backend_choice_release(struct backend_choice *c);

/* "pebs: no PMU exposed to this virtual machine; ibs: not an AMD CPU ...":
 * what ran and why the others did not, for the report header. */
char *backend_note(const struct backend_choice *c);

struct event_set;

/* Open the choice's events on the target (cfg: pid, tids, buffer_pages;
 * its attr is ignored).  on_exec: start counting when the target execs,
 * else at once.  NULL after printing an error. */
struct event_set *event_set_open(const struct backend_choice *c,
				 const struct perf_session_config *cfg, bool on_exec);
int event_set_add_task(struct event_set *es, pid_t tid);
int event_set_poll(struct event_set *es, int timeout_ms);
size_t event_set_drain(struct event_set *es, const struct perf_callbacks *cb);
void event_set_close(struct event_set *es);

#endif
