/* sampler.h - a sample's way from the ring to the line table, on one floor.
 *
 * perf_session hands every PERF_RECORD_SAMPLE of a session to
 * sampler_sample() (perf_callbacks.sample_ctx), and the census hands its
 * hits to sampler_census_access().  In order:
 *   1. dropped before --delay's end, or when the command's keep hook says
 *      so (attach -a: not a process it samples);
 *   2. the census's note of hot code, and the overlap of the threads;
 *   3. the backend's decode: a perf sample in, at most one access out;
 *   4. -g: the call chain, interned (a new one to the chain hook);
 *   5. shared memory located, the access hook (a data file records the
 *      access as sampled), then ingest_access() into the line table.
 * The session (engine/session.c) owns what the fields point to; a sample
 * never climbs to cli/ except through the command's own hooks.
 */
#ifndef CONTEND_SAMPLER_H
#define CONTEND_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "detector/perf_session.h"
#include "detector/sample.h"

struct backend;
struct callchains;
struct census;
struct line_table;
struct overlap;
struct symbolizer;
struct unwinder;

/* The command's hooks (engine/session.h's, for record and top). */
struct sampler_hooks {
	void *ctx;
	/* each access as sampled, before it enters the line table */
	void (*access)(void *ctx, const struct access_sample *a);
	/* -g: each new call chain, before the first access carrying its id */
	void (*chain)(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n);
};

struct sampler {
	struct line_table *lines;
	struct symbolizer *sym;
	struct backend *backend;        /* the running backend */
	struct census *census;          /* NULL: no census */
	struct overlap *overlap;        /* NULL: not measured (attach -a) */
	struct unwinder *unwinder;      /* -g; else NULL */
	struct callchains *chains;      /* with unwinder */
	double sample_from;             /* --delay: monotonic_s(); 0: none */
	/* NULL: keep every sample; else false drops ps (attach -a) */
	bool (*keep)(void *keep_ctx, const struct perf_sample *ps);
	void *keep_ctx;
	struct sampler_hooks hooks;
};

/* perf_callbacks.sample, with the sampler as sample_ctx. */
void sampler_sample(void *sampler, const struct perf_sample *ps);
/* census.h's hit callback: an access found by the census, as a sample. */
void sampler_census_access(void *sampler, const struct access_sample *a);

#endif
