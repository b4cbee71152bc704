/* spe.c - Arm SPE records into contend's samples (spe.h). */
#include "detector/spe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define S(a, s) PERF_MEM_S(a, s)

/* --- the data source ------------------------------------------------------- */

#define ARM_IMPLEMENTER 0x41

enum spe_source_format spe_source_format_of(unsigned implementer, unsigned part)
{
	/* Neoverse N1, V1, N2, V2 */
	static const unsigned neoverse[] = { 0xd0c, 0xd40, 0xd49, 0xd4f };

	if (implementer != ARM_IMPLEMENTER)
		return SPE_SOURCE_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(neoverse); i++)
		if (part == neoverse[i])
			return SPE_SOURCE_NEOVERSE;
	return SPE_SOURCE_UNKNOWN;
}

/* The first CPU's implementer and part: SPE runs on the big cores of one
 * kind in every machine this knows. */
enum spe_source_format spe_source_format_detect(const char *root)
{
	char path[4096], line[256];
	unsigned implementer = 0, part = 0;
	bool have_impl = false, have_part = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root ? root : "");
	if (!(f = fopen(path, "r")))
		return SPE_SOURCE_UNKNOWN;
	while ((!have_impl || !have_part) && fgets(line, sizeof(line), f)) {
		const char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "CPU implementer", 15))
			have_impl = sscanf(colon + 1, "%x", &implementer) == 1;
		else if (!strncmp(line, "CPU part", 8))
			have_part = sscanf(colon + 1, "%x", &part) == 1;
	}
	fclose(f);
	return have_impl && have_part ? spe_source_format_of(implementer, part)
				      : SPE_SOURCE_UNKNOWN;
}

/* Where a Neoverse load's data came from; 0 for a value it does not define. */
static uint64_t neoverse_level(uint16_t source)
{
	switch (source) {
	case SPE_NV_L1D:
		return S(LVL, L1) | S(LVL, HIT) | S(LVLNUM, L1) | S(SNOOP, NONE);
	case SPE_NV_L2:
		return S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) | S(SNOOP, NONE);
	case SPE_NV_PEER_CORE:
		/* another core's private cache: the transfer false sharing makes */
		return S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) | S(SNOOPX, PEER);
	case SPE_NV_LOCAL_CLUSTER:
	case SPE_NV_PEER_CLUSTER:
		return S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3) | S(SNOOPX, PEER);
	case SPE_NV_SYS_CACHE:
		return S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3) | S(SNOOP, HIT);
	case SPE_NV_REMOTE:
		/* some cache of the other socket */
		return S(LVL, REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) |
		       S(SNOOPX, PEER);
	case SPE_NV_DRAM:
		return S(LVL, LOC_RAM) | S(LVL, HIT) | S(LVLNUM, RAM) | S(SNOOP, NONE);
	}
	return 0;
}

/* Without a data source: the deepest level the events name. */
static uint64_t events_level(uint64_t ev)
{
	if (ev & SPE_EV_REMOTE_ACCESS)
		return S(LVL, REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE);
	if (ev & SPE_EV_LLC_MISS)
		return S(LVL, LOC_RAM) | S(LVL, HIT) | S(LVLNUM, RAM);
	if (ev & SPE_EV_LLC_ACCESS)
		return S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3);
	if (ev & SPE_EV_L1D_REFILL)
		return S(LVL, L1) | S(LVL, MISS) | S(LVLNUM, L2);
	if (ev & SPE_EV_L1D_ACCESS)
		return S(LVL, L1) | S(LVL, HIT) | S(LVLNUM, L1);
	return S(LVL, NA);
}

uint64_t spe_data_src(const struct spe_record *rec, enum spe_source_format fmt)
{
	uint64_t ds, level = 0;

	if (!(rec->has & SPE_HAS_OP) || rec->op_class != SPE_OP_CLASS_LDST)
		return 0;
	ds = rec->store ? S(OP, STORE) : S(OP, LOAD);
	ds |= rec->atomic ? S(LOCK, LOCKED) : S(LOCK, NA);
	if (rec->events & SPE_EV_TLB_WALK)
		ds |= S(TLB, MISS) | S(TLB, WK);
	else if (rec->events & SPE_EV_TLB_ACCESS)
		ds |= S(TLB, HIT) | S(TLB, L1);
	else
		ds |= S(TLB, NA);
	/* Neoverse data sources describe loads; a store's says nothing */
	if (!rec->store && fmt == SPE_SOURCE_NEOVERSE && (rec->has & SPE_HAS_SOURCE))
		level = neoverse_level(rec->source);
	if (!level && !rec->store)
		level = events_level(rec->events);
	if (!level)
		level = S(LVL, NA);
	return ds | level;
}

/* --- time ------------------------------------------------------------------- */

/* perf's own formula (perf_event_mmap_page): quotient and remainder keep
 * the product from overflowing 64 bits. */
uint64_t spe_clock_to_perf(const struct spe_clock *c, uint64_t ticks)
{
	uint64_t quot, rem;

	if (!c->valid || c->shift > 63)
		return 0;
	/* a counter narrower than 64 bits: ticks since the page's last update */
	if (c->short_counter)
		ticks = c->cycles + ((ticks - c->cycles) & c->mask);
	quot = ticks >> c->shift;
	rem = ticks & ((1ULL << c->shift) - 1);
	return c->zero + quot * c->mult + ((rem * c->mult) >> c->shift);
}

/* --- records into samples --------------------------------------------------------- */

bool spe_record_sample(const struct spe_record *rec, const struct spe_context *ctx,
		       const struct spe_clock *clk, enum spe_source_format fmt,
		       struct perf_sample *out)
{
	memset(out, 0, sizeof(*out));
	if (!(rec->has & SPE_HAS_OP) || rec->op_class != SPE_OP_CLASS_LDST ||
	    !(rec->has & SPE_HAS_VADDR))
		return false;
	out->ip = rec->has & SPE_HAS_PC ? rec->pc : 0;
	out->addr = rec->vaddr;
	out->pid = ctx->pid;
	out->tid = (rec->has & SPE_HAS_CONTEXT) && rec->context_el == 1 ? rec->context : ctx->tid;
	out->cpu = ctx->cpu;
	out->time = ctx->time;
	if ((rec->has & SPE_HAS_TIMESTAMP) && clk && clk->valid)
		out->time = spe_clock_to_perf(clk, rec->timestamp);
	out->period = 1;
	out->weight = rec->has & SPE_HAS_TOTAL_LAT ? rec->total_lat : 0;
	out->data_src = spe_data_src(rec, fmt);
	out->regs_abi = PERF_SAMPLE_REGS_ABI_NONE;
	return true;
}

bool spe_record_access(struct hw_backend *hb, const struct spe_record *rec,
		       const struct spe_context *ctx, const struct spe_clock *clk,
		       enum spe_source_format fmt, struct access_sample *out)
{
	struct perf_sample ps;

	return spe_record_sample(rec, ctx, clk, fmt, &ps) && hw_backend_access(hb, &ps, out);
}

/* --- the AUX stream ------------------------------------------------------------------ */

#define MAX_CPUS 4096

struct cpu_owner {
	uint32_t pid, tid;
	bool known;
};

struct spe_aux {
	enum spe_source_format fmt;
	struct cpu_owner *owners;   /* by CPU, from ITRACE_START */
	size_t n_owners;
	struct spe_aux_counts counts;
};

struct spe_aux *spe_aux_new(enum spe_source_format fmt)
{
	struct spe_aux *sa = xcalloc(1, sizeof(*sa));

	sa->fmt = fmt;
	return sa;
}

void spe_aux_free(struct spe_aux *sa)
{
	if (!sa)
		return;
	free(sa->owners);
	free(sa);
}

void spe_aux_itrace_start(struct spe_aux *sa, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	if (cpu >= MAX_CPUS)
		return;
	if (cpu >= sa->n_owners) {
		size_t n = (size_t)cpu + 1;

		sa->owners = xrealloc(sa->owners, n * sizeof(*sa->owners));
		memset(sa->owners + sa->n_owners, 0, (n - sa->n_owners) * sizeof(*sa->owners));
		sa->n_owners = n;
	}
	sa->owners[cpu] = (struct cpu_owner){ pid, tid, true };
}

static struct spe_context chunk_context(const struct spe_aux *sa, const struct perf_aux *a)
{
	struct spe_context c = { .pid = a->pid, .tid = a->tid, .cpu = a->cpu, .time = a->time };

	if (!c.pid && !c.tid && a->cpu < sa->n_owners && sa->owners[a->cpu].known) {
		c.pid = sa->owners[a->cpu].pid;
		c.tid = sa->owners[a->cpu].tid;
	}
	return c;
}

void spe_aux_feed(struct spe_aux *sa, const struct perf_aux *a,
		  void (*sample)(void *ctx, const struct perf_sample *s), void *ctx)
{
	struct spe_context c = chunk_context(sa, a);
	struct spe_clock clk = { a->time_zero_valid, a->time_shift, a->time_mult, a->time_zero,
				 a->time_short, a->time_cycles, a->time_mask };
	struct spe_reader r;
	struct spe_record rec;
	enum spe_result res;

	sa->counts.chunks++;
	sa->counts.bytes += a->size;
	if (a->flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION))
		sa->counts.lost_chunks++;
	spe_reader_init(&r, a->data, a->size);
	while ((res = spe_reader_next(&r, &rec)) != SPE_DONE) {
		struct perf_sample ps;

		if (res == SPE_ERR_BAD) {
			sa->counts.bad++;
			continue;       /* resynchronise on the next packet */
		}
		if (res == SPE_ERR_TRUNCATED) {
			sa->counts.truncated++;
			break;
		}
		sa->counts.records++;
		if (!spe_record_sample(&rec, &c, &clk, sa->fmt, &ps)) {
			sa->counts.other_ops++;
			continue;
		}
		sa->counts.samples++;
		if (sample)
			sample(ctx, &ps);
	}
}

const struct spe_aux_counts *spe_aux_counts(const struct spe_aux *sa)
{
	return &sa->counts;
}

/* --- the spe backend's state ---------------------------------------------------------- */

struct spe_backend {
	struct hw_backend *hb;
	struct spe_aux *sa;
};

struct spe_backend *spe_backend_new(struct symbolizer *sym, enum spe_source_format fmt)
{
	struct spe_backend *sb = xcalloc(1, sizeof(*sb));

	sb->hb = hw_backend_new(sym);
	sb->sa = spe_aux_new(fmt);
	return sb;
}

void spe_backend_free(struct spe_backend *sb)
{
	if (!sb)
		return;
	hw_backend_free(sb->hb);
	spe_aux_free(sb->sa);
	free(sb);
}

struct spe_aux *spe_backend_aux(struct spe_backend *sb) { return sb->sa; }
struct hw_backend *spe_backend_hw(struct spe_backend *sb) { return sb->hb; }

enum spe_drop {
	SPE_DROP_OTHER_OP,
	SPE_DROP_BAD,
	SPE_DROP_TRUNCATED,
	SPE_DROP_AUX_GAPS,
	SPE_DROP__COUNT
};

static const char *spe_drop_name(unsigned i)
{
	static const char *const names[SPE_DROP__COUNT] = {
		[SPE_DROP_OTHER_OP] = "SPE record of no load or store",
		[SPE_DROP_BAD] = "SPE record lost to a bad packet",
		[SPE_DROP_TRUNCATED] = "SPE record cut short",
		[SPE_DROP_AUX_GAPS] = "AUX data the kernel lost (chunks)",
	};
	return names[i];
}

static void spe_drops(const struct spe_backend *sb, uint64_t drops[SPE_DROP__COUNT])
{
	const struct spe_aux_counts *c = &sb->sa->counts;

	drops[SPE_DROP_OTHER_OP] = c->other_ops;
	drops[SPE_DROP_BAD] = c->bad;
	drops[SPE_DROP_TRUNCATED] = c->truncated;
	drops[SPE_DROP_AUX_GAPS] = c->lost_chunks;
}

uint64_t spe_backend_samples_seen(const struct spe_backend *sb)
{
	const struct spe_aux_counts *c = &sb->sa->counts;

	return hw_backend_samples_seen(sb->hb) + c->other_ops + c->bad + c->truncated;
}

uint64_t spe_backend_samples_decoded(const struct spe_backend *sb)
{
	return hw_backend_samples_decoded(sb->hb);
}

unsigned spe_backend_drop_counts(const struct spe_backend *sb, struct named_count **out)
{
	uint64_t drops[SPE_DROP__COUNT];
	struct named_count *hw, *spe;
	unsigned n_hw = hw_backend_drop_counts(sb->hb, &hw), n_spe;

	spe_drops(sb, drops);
	n_spe = named_counts_collect(drops, SPE_DROP__COUNT, spe_drop_name, &spe);
	hw = xrealloc(hw, (n_hw + n_spe ? n_hw + n_spe : 1) * sizeof(*hw));
	copy_bytes(hw + n_hw, spe, n_spe * sizeof(*spe));
	free(spe);      /* the names moved */
	*out = hw;
	return n_hw + n_spe;
}
