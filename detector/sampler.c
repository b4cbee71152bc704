/* sampler.c - a perf sample to the line table (sampler.h). */
#include "detector/sampler.h"

#include "common/util.h"
#include "detector/backend.h"
#include "detector/callchain.h"
#include "detector/census.h"
#include "detector/ingest.h"
#include "detector/overlap.h"
#include "detector/shared_mem.h"
#include "symbolize/unwind.h"

/* -g: the id of the sample's call chain, 0 if it has none. */
static uint32_t sample_chain(struct sampler *sm, const struct perf_sample *ps)
{
	uint64_t pcs[CALLCHAIN_MAX_DEPTH];
	unsigned n = unwind_callers(sm->unwinder, ps->pid, &ps->regs, ps->stack,
				    ps->stack_size, pcs, CALLCHAIN_MAX_DEPTH);
	size_t known = callchains_count(sm->chains);
	uint32_t id = callchain_intern(sm->chains, pcs, n);

	if (callchains_count(sm->chains) > known && sm->hooks.chain)
		sm->hooks.chain(sm->hooks.ctx, id, pcs, n);
	return id;
}

static void take_access(struct sampler *sm, struct access_sample *a)
{
	shared_mem_locate(sm->sym, a);   /* shared memory: one line for all */
	if (sm->hooks.access)
		sm->hooks.access(sm->hooks.ctx, a);   /* a data file: as sampled */
	ingest_access(sm->lines, sm->sym, a);
}

void sampler_sample(void *sampler, const struct perf_sample *ps)
{
	struct sampler *sm = sampler;
	struct access_sample a;

	if (sm->sample_from && monotonic_s() < sm->sample_from)
		return;
	if (sm->keep && !sm->keep(sm->keep_ctx, ps))
		return;
	if (sm->census)
		census_note_sample(sm->census, ps->pid, ps->ip);
	if (sm->overlap)
		overlap_note(sm->overlap, ps->time, ps->tid);
	if (!backend_access(sm->backend, ps, &a))
		return;
	if (sm->unwinder)
		a.chain_id = sample_chain(sm, ps);
	take_access(sm, &a);
}

void sampler_census_access(void *sampler, const struct access_sample *sampled)
{
	struct access_sample a = *sampled;

	take_access(sampler, &a);
}
