/* backend.h - which backend a session runs, and its events on a target.
 *
 * Every backend is one row of a table (backend_rows): its name, a probe
 * that says whether it can run on this host (its events) or why not, and
 * the calls a session makes on the running backend: open, turn a perf
 * sample into an access sample, count the samples it dropped, close.  A
 * new backend is its own file and one row here.
 *
 * backend_choose() resolves --backend: "auto" tries the rows in order
 * (pebs, ibs, spe: each one refuses with a reason unless the CPU, the
 * kernel and the permissions allow it), then the fallback, soft, which
 * always runs.  The choice keeps why every other backend did not run; the
 * report header and `contend backends` print it.  backend_open() starts
 * the chosen one for a session.
 *
 * An event set is the perf sessions (perf_session.h) of a choice on one
 * target: one per sampling event (with its group leader, if it has one),
 * all delivering to the same callbacks.  The first one also carries the
 * side-band records (mmap, comm, fork).
 */
#ifndef CONTEND_BACKEND_H
#define CONTEND_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "detector/hw_backend.h"
#include "detector/perf_session.h"
#include "detector/sample.h"

struct aux_decoder;
struct named_count;
struct symbolizer;

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

/* One backend.  The state the calls take is what open() returned. */
struct backend_row {
	enum backend_id id;
	const char *name;                   /* "pebs", --backend's word */
	/* soft: what it samples, for the note; NULL: the events say it */
	const char *method;
	bool fallback;                      /* auto's last resort: always runs */
	bool timer;                         /* its samples are the timer's (cpu-clock) */
	/* Never run on hardware (spe): auto passes it over with that reason;
	 * asked for by name, it runs. */
	bool untried;
	bool mem_info;                      /* samples carry data source, weight */
	/* The events it would open on host h, run or not (NULL: no such
	 * encodings to show); 0 and *why (caller frees) if there are none. */
	unsigned (*encode)(const struct backend_row *row, const struct backend_request *req,
			   const struct hw_host *h, struct hw_event *ev, char **why);
	/* encode, and can they be opened here?  As encode. */
	unsigned (*probe)(const struct backend_row *row, const struct backend_request *req,
			  const struct hw_host *h, struct hw_event *ev, char **why);
	void *(*open)(struct symbolizer *sym);
	/* one perf sample in, at most one access out */
	bool (*access)(void *state, const struct perf_sample *ps, struct access_sample *out);
	uint64_t (*samples_seen)(const void *state);
	uint64_t (*samples_decoded)(const void *state);
	/* reasons samples were dropped; caller frees with named_counts_free() */
	unsigned (*drop_counts)(const void *state, struct named_count **out);
	void (*close)(void *state);
	/* Samples that arrive as an AUX-area trace (spe), NULL for the others:
	 * the pages to map per ring, and the decoder (on the state open()
	 * returned) that turns the trace into perf samples for cb->sample,
	 * which hands them to access above. */
	const struct aux_decoder *aux;
};

struct aux_decoder {
	unsigned pages;                     /* per ring, a power of two */
	void (*feed)(void *state, const struct perf_aux *a, const struct perf_callbacks *cb);
	void (*itrace_start)(void *state, uint32_t cpu, uint32_t pid, uint32_t tid);
};

/* The row of id, and every row in auto's order. */
const struct backend_row *backend_row(enum backend_id id);
extern const struct backend_row *const backend_rows[BACKEND__COUNT];

const char *backend_name(enum backend_id id);        /* "pebs", ... */
bool backend_from_name(const char *name, enum backend_id *id);

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

/* The chosen backend, running in a session. */
struct backend {
	const struct backend_row *row;
	void *state;
};

void backend_open(struct backend *b, const struct backend_choice *c, struct symbolizer *sym);
static inline bool backend_access(struct backend *b, const struct perf_sample *ps,
				  struct access_sample *out)
{
	return b->row->access(b->state, ps, out);
}
void backend_close(struct backend *b);

struct event_set;

/* Open the choice's events on the target (cfg: pid, tids, buffer_pages;
 * its attr is ignored).  on_exec: start counting when the target execs,
 * else at once.  A backend with an AUX decoder gets its AUX areas mapped,
 * and drain feeds them to the decoder, whose samples reach cb->sample.
 * NULL after printing an error. */
struct event_set *event_set_open(const struct backend_choice *c,
				 const struct perf_session_config *cfg, bool on_exec);
/* The running backend whose AUX decoder takes the trace (a row with
 * aux); without it the AUX records are passed over.  es may be NULL. */
void event_set_attach(struct event_set *es, struct backend *b);
int event_set_add_task(struct event_set *es, pid_t tid);
int event_set_poll(struct event_set *es, int timeout_ms);
size_t event_set_drain(struct event_set *es, const struct perf_callbacks *cb);
void event_set_close(struct event_set *es);

#endif
