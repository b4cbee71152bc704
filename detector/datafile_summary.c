/* datafile_summary.c - the summary record of contend.data: the run's
 * facts (its header), the last record of a file (docs/data-format.md).
 * This file encodes and checks its payload; datafile.c frames it.
 */
#include <math.h>
#include <stdlib.h>

#include "common/util.h"
#include "detector/datafile.h"
#include "detector/datafile_codec.h"
#include "detector/instruments.h"
#include "detector/run_facts.h"

enum {
	SUMMARY_FIXED_SIZE = 36,
	SUMMARY_MEM_INFO = 1,           /* flag: hardware data sources */
	SUMMARY_ATTACHED = 2,           /* attached to a process, not launched */
	SUMMARY_EXITED = 4,             /* ... which exited while sampled */
	SUMMARY_PRICE_BUSY = 8,         /* version 6: the price probe found the machine busy */
	DROPPED_MAX = 64,
	COMMAND_MAX = 65535,
	TEXT_MAX = 1024,                /* backend, note, drop reasons */
};

static uint32_t summary_flags(const struct run_facts *s)
{
	uint32_t flags = s->mem_info ? SUMMARY_MEM_INFO : 0;

	if (s->target != TARGET_LAUNCHED)
		flags |= SUMMARY_ATTACHED;
	if (s->target == TARGET_ATTACHED_EXITED)
		flags |= SUMMARY_EXITED;
	if (s->price.busy && !s->price.locked)
		flags |= SUMMARY_PRICE_BUSY;
	return flags;
}

void datafile_summary_encode(struct bytes *b, const struct run_facts *s)
{
	unsigned n_dropped = s->n_dropped < DROPPED_MAX ? s->n_dropped : DROPPED_MAX;

	put_f64(b, s->duration);
	put_u32(b, (uint32_t)s->target_status);
	put_u32(b, n_dropped);
	put_u64(b, s->samples);
	put_u64(b, s->decoded);
	put_u32(b, summary_flags(s));
	put_str(b, s->command, COMMAND_MAX);
	put_str(b, s->backend, TEXT_MAX);
	put_str(b, s->backend_note, TEXT_MAX);
	for (unsigned i = 0; i < n_dropped; i++) {
		put_u64(b, s->dropped[i].n);
		put_str(b, s->dropped[i].what, TEXT_MAX);
	}
	if (transfer_price_holds(&s->price)) {
		put_f64(b, s->price.locked);
		put_f64(b, s->price.store);
		put_u32(b, s->price.runs);
	} else {
		put_f64(b, 0);
		put_f64(b, 0);
		put_u32(b, 0);
	}
	put_str(b, s->price_note, TEXT_MAX);
	/* version 6: the instruments' self-test, every one in order */
	put_u32(b, INSTRUMENT__COUNT);
	for (int i = 0; i < INSTRUMENT__COUNT; i++) {
		const struct instrument_test *t = s->instruments ? &s->instruments->t[i] : NULL;

		put_u32(b, t ? (uint32_t)t->state : INSTRUMENT_UNTESTED);
		put_u64(b, t ? t->expected : 0);
		put_u64(b, t ? t->counted : 0);
		put_u32(b, t ? (uint32_t)t->err : 0);
	}
	/* version 6: how busy the machine was */
	put_f64(b, s->overlap);
	put_f64(b, s->cpu_pressure);
	put_f64(b, s->load);
	/* version 7: its NUMA nodes, the node of each CPU (-1: none) */
	put_u32(b, s->cpu_nodes && s->cpu_nodes->known);
	if (s->cpu_nodes && s->cpu_nodes->known)
		for (unsigned i = 0; i < CPU_NODES_MAX; i++)
			put_u8(b, (uint8_t)s->cpu_nodes->node[i]);
	/* version 8: the fenced store's price (0: not measured) */
	put_f64(b, transfer_price_holds(&s->price) ? s->price.fenced : 0);
}

/* The instruments' self-test of the recording run (version 6): as many
 * as that contend knew, the ones this one knows kept. */
static int parse_instruments(struct datafile_summary *r, struct cursor *c, struct strbuf *err)
{
	uint32_t n = get_u32(c);

	if (c->over || n > 64)
		return datafile_fail(err, "%u instruments", n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t state = get_u32(c), e;
		uint64_t expected = get_u64(c), counted = get_u64(c);

		e = get_u32(c);
		if (c->over)
			return datafile_fail(err, "cut short in its instruments");
		if (state > INSTRUMENT_REFUSED || e > 4095)
			return datafile_fail(err, "instrument %u: state %u, error %u", i, state, e);
		if (i >= INSTRUMENT__COUNT)
			continue;
		r->instruments.t[i] = (struct instrument_test){
			.state = (enum instrument_state)state, .expected = expected,
			.counted = counted, .err = (int)e,
		};
	}
	r->facts.instruments = &r->instruments;
	return 0;
}

/* How busy the recording machine was (version 6): shares in [0, 1] and a
 * load average, or -1 each where it did not know. */
static int parse_machine(struct run_facts *s, struct cursor *c, struct strbuf *err)
{
	s->overlap = get_f64(c);
	s->cpu_pressure = get_f64(c);
	s->load = get_f64(c);
	if (c->over)
		return datafile_fail(err, "cut short in its machine's facts");
	if (!(s->overlap == -1 || (s->overlap >= 0 && s->overlap <= 1)) ||
	    !(s->cpu_pressure == -1 || (s->cpu_pressure >= 0 && s->cpu_pressure <= 1)) ||
	    !(s->load == -1 || (s->load >= 0 && s->load <= 1e6)))
		return datafile_fail(err, "overlap %g, CPU pressure %g, load %g", s->overlap,
			    s->cpu_pressure, s->load);
	return 0;
}

/* The recording machine's NUMA topology (version 7): a flag, and with it
 * the node of each of CPU_NODES_MAX CPUs, -1 or 0..63. */
static int parse_nodes(struct datafile_summary *r, struct cursor *c, struct strbuf *err)
{
	uint32_t known = get_u32(c);

	cpu_nodes_init(&r->nodes);
	if (c->over || known > 1)
		return datafile_fail(err, "NUMA topology flag %u", known);
	if (!known)
		return 0;
	for (unsigned i = 0; i < CPU_NODES_MAX; i++) {
		int8_t node = (int8_t)get_u8(c);

		if (c->over)
			return datafile_fail(err, "cut short in its NUMA topology");
		if (node < -1 || node > 63)
			return datafile_fail(err, "CPU %u on NUMA node %d", i, node);
		r->nodes.node[i] = node;
	}
	r->nodes.known = true;
	r->facts.cpu_nodes = &r->nodes;
	return 0;
}

int datafile_summary_parse(struct cursor *c, uint32_t version, struct datafile_summary *r,
			   struct strbuf *err)
{
	struct run_facts *s = &r->facts;
	uint32_t n_dropped, flags;

	s->duration = get_f64(c);
	s->target_status = (int32_t)get_u32(c);
	n_dropped = get_u32(c);
	s->samples = get_u64(c);
	s->decoded = get_u64(c);
	flags = get_u32(c);
	if (c->over)
		return datafile_fail(err, "size %zu, less than its %d fixed bytes", c->len, SUMMARY_FIXED_SIZE);
	if (flags & ~(uint32_t)(SUMMARY_MEM_INFO | SUMMARY_ATTACHED | SUMMARY_EXITED |
				(version >= 6 ? SUMMARY_PRICE_BUSY : 0)))
		return datafile_fail(err, "unknown flags 0x%x", flags);
	if ((flags & SUMMARY_EXITED) && !(flags & SUMMARY_ATTACHED))
		return datafile_fail(err, "flags 0x%x: exited without attached", flags);
	s->mem_info = flags & SUMMARY_MEM_INFO;
	s->target = !(flags & SUMMARY_ATTACHED) ? TARGET_LAUNCHED :
		    (flags & SUMMARY_EXITED) ? TARGET_ATTACHED_EXITED : TARGET_ATTACHED_RUNNING;
	if (!isfinite(s->duration) || s->duration < 0)
		return datafile_fail(err, "duration %g s", s->duration);
	if (s->decoded > s->samples)
		return datafile_fail(err, "%llu decoded accesses of %llu samples",
			    (unsigned long long)s->decoded, (unsigned long long)s->samples);
	if (n_dropped > DROPPED_MAX)
		return datafile_fail(err, "%u drop reasons (at most %d)", n_dropped, DROPPED_MAX);
	if (!(r->command = datafile_get_text(c, COMMAND_MAX, "command", err)) ||
	    !(r->backend = datafile_get_text(c, TEXT_MAX, "backend name", err)) ||
	    !(r->backend_note = datafile_get_text(c, TEXT_MAX, "backend note", err)))
		return -1;
	r->dropped = xcalloc(n_dropped ? n_dropped : 1, sizeof(*r->dropped));
	for (; r->n_dropped < n_dropped; r->n_dropped++) {
		struct named_count *d = &r->dropped[r->n_dropped];
		d->n = get_u64(c);
		if (!(d->what = datafile_get_text(c, TEXT_MAX, "drop reason", err)))
			return -1;
	}
	if (version >= 5) {
		struct transfer_price *p = &s->price;

		p->locked = get_f64(c);
		p->store = get_f64(c);
		p->runs = get_u32(c);
		if (c->over)
			return datafile_fail(err, "cut short in its transfer price");
		if (!transfer_price_holds(p))
			return datafile_fail(err, "transfer prices %g and %g from %u runs", p->locked,
				    p->store, p->runs);
		p->busy = (flags & SUMMARY_PRICE_BUSY) && !p->locked;
		if (!(r->price_note = datafile_get_text(c, TEXT_MAX, "price note", err)))
			return -1;
		s->price_note = *r->price_note ? r->price_note : NULL;
	}
	s->overlap = s->cpu_pressure = s->load = -1;
	if (version >= 6 && (parse_instruments(r, c, err) < 0 || parse_machine(s, c, err) < 0))
		return -1;
	if (version >= 7 && parse_nodes(r, c, err) < 0)
		return -1;
	if (version >= 8) {
		s->price.fenced = get_f64(c);
		if (c->over || !transfer_price_valid(s->price.fenced) ||
		    (s->price.fenced && !s->price.locked))
			return datafile_fail(err, "fenced store price %g", s->price.fenced);
	}
	if (c->pos != c->len)
		return datafile_fail(err, "%zu bytes left over after its fields", c->len - c->pos);
	s->command = r->command;
	s->backend = *r->backend ? r->backend : "?";
	s->backend_note = *r->backend_note ? r->backend_note : NULL;
	s->dropped = r->dropped;
	s->n_dropped = r->n_dropped;
	return 0;
}


void datafile_summary_release(struct datafile_summary *r)
{
	for (unsigned i = 0; i < r->n_dropped; i++)
		free(r->dropped[i].what);
	free(r->dropped);
	free(r->command);
	free(r->backend);
	free(r->backend_note);
	free(r->price_note);
}
