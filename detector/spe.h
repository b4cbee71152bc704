/* spe.h - Arm SPE records into contend's samples.
 *
 * An SPE record (spe_packet.h) of a load or store with a data virtual
 * address becomes the perf sample a PEBS load would have been: the PC as
 * ip, the data address, the total latency as weight, and a
 * perf_mem_data_src built from the operation type (load, store; an atomic
 * is a locked access), the events (TLB walk, L1D/LLC refill, remote) and
 * the data source packet.  That sample then goes through
 * hw_backend_access() like every PEBS and IBS sample, so the line table
 * cannot tell SPE from PEBS.
 *
 * The data source packet is implementation defined: the encoding of the
 * Neoverse cores (N1, N2, V1, V2: the encoding Linux's perf reads for
 * them) is decoded, others fall back on the events.  SPE never says a
 * line was modified in another core (no HITM): a peer core, cluster or
 * remote socket is a peer transfer (SNOOPX_PEER), as perf c2c counts it.
 *
 * spe_aux turns the AUX bytes a perf session hands out (perf_aux) into
 * those samples, with the pid/tid of the record's side band, or the
 * CONTEXT packet's thread id when the kernel put the PID in CONTEXTIDR.
 *
 * None of this has run on Arm hardware: it is tested with hand-built
 * packet streams (docs/hardware-backends.md).
 */
#ifndef CONTEND_SPE_H
#define CONTEND_SPE_H

#include <stdbool.h>
#include <stdint.h>
#include "detector/hw_backend.h"
#include "detector/perf_session.h"
#include "detector/spe_packet.h"

/* How a CPU encodes the data source packet. */
enum spe_source_format {
	SPE_SOURCE_UNKNOWN,         /* use the events only */
	SPE_SOURCE_NEOVERSE,
};

/* From cpuinfo's "CPU implementer" and "CPU part". */
enum spe_source_format spe_source_format_of(unsigned implementer, unsigned part);
/* From root/proc/cpuinfo ("" the real one); unknown if unreadable. */
enum spe_source_format spe_source_format_detect(const char *root);

/* The Neoverse data source values */
enum spe_neoverse_source {
	SPE_NV_L1D = 0x0,
	SPE_NV_L2 = 0x8,
	SPE_NV_PEER_CORE = 0x9,
	SPE_NV_LOCAL_CLUSTER = 0xa,
	SPE_NV_SYS_CACHE = 0xb,
	SPE_NV_PEER_CLUSTER = 0xc,
	SPE_NV_REMOTE = 0xd,
	SPE_NV_DRAM = 0xe,
};

/* The perf_mem_data_src of a load/store record; 0 for other records. */
uint64_t spe_data_src(const struct spe_record *rec, enum spe_source_format fmt);

/* The generic timer -> perf time conversion of a ring's metadata page. */
struct spe_clock {
	bool valid;
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
	bool short_counter;         /* cap_user_time_short: cycles, mask apply */
	uint64_t cycles, mask;
};
uint64_t spe_clock_to_perf(const struct spe_clock *c, uint64_t ticks);

/* What the side band says about a record: whose, where, when. */
struct spe_context {
	uint32_t pid, tid, cpu;
	uint64_t time;              /* when the record has no usable timestamp */
};

/*
 * One record in, at most one perf sample out: loads and stores with a
 * data virtual address; branches, other operations and records without
 * an address give false.  pid is ctx's; tid the CONTEXT packet's (EL1)
 * when there is one, else ctx's; time the record's timestamp through clk
 * when clk is valid, else ctx's.
 */
bool spe_record_sample(const struct spe_record *rec, const struct spe_context *ctx,
		       const struct spe_clock *clk, enum spe_source_format fmt,
		       struct perf_sample *out);

/* spe_record_sample() and then hw_backend_access(), as a PEBS sample goes. */
bool spe_record_access(struct hw_backend *hb, const struct spe_record *rec,
		       const struct spe_context *ctx, const struct spe_clock *clk,
		       enum spe_source_format fmt, struct access_sample *out);

/* --- the AUX stream --------------------------------------------------------- */

struct spe_aux;

struct spe_aux_counts {
	uint64_t chunks, bytes;
	uint64_t records;           /* records decoded */
	uint64_t samples;           /* handed to the sample callback */
	uint64_t other_ops;         /* branches, other operations, no address */
	uint64_t bad, truncated;    /* decoding errors (the reader resynchronises) */
	uint64_t lost_chunks;       /* PERF_AUX_FLAG_TRUNCATED/PARTIAL/COLLISION */
};

struct spe_aux *spe_aux_new(enum spe_source_format fmt);
void spe_aux_free(struct spe_aux *sa);
/* The task whose trace starts on cpu: the owner of that CPU's next records
 * when the AUX record itself carries no pid/tid. */
void spe_aux_itrace_start(struct spe_aux *sa, uint32_t cpu, uint32_t pid, uint32_t tid);
/* Decode a's bytes; every load/store becomes a perf sample for sample(). */
void spe_aux_feed(struct spe_aux *sa, const struct perf_aux *a,
		  void (*sample)(void *ctx, const struct perf_sample *s), void *ctx);
const struct spe_aux_counts *spe_aux_counts(const struct spe_aux *sa);

/* --- the spe backend's state (backend.c's row) ------------------------------- */

/* The AUX decoder and the hw_backend its samples go through: samples seen
 * are the records (load/store or not, and those lost to bad or cut
 * packets), the drop counts say why each one is not an access. */
struct spe_backend;
struct symbolizer;

struct spe_backend *spe_backend_new(struct symbolizer *sym, enum spe_source_format fmt);
void spe_backend_free(struct spe_backend *sb);
struct spe_aux *spe_backend_aux(struct spe_backend *sb);
struct hw_backend *spe_backend_hw(struct spe_backend *sb);
uint64_t spe_backend_samples_seen(const struct spe_backend *sb);
uint64_t spe_backend_samples_decoded(const struct spe_backend *sb);
/* caller frees with named_counts_free() */
unsigned spe_backend_drop_counts(const struct spe_backend *sb, struct named_count **out);

#endif
