/* data_src.h - perf_mem_data_src, decoded.
 *
 * Hardware backends (PEBS, IBS, SPE) tag each memory sample with a 64-bit
 * perf_mem_data_src: the kind of operation, where the data came from (the
 * old mem_lvl bitmask, or the newer mem_lvl_num + mem_remote + mem_hops),
 * the snoop result (HITM: the line was modified in another core's cache)
 * and its extension (peer: forwarded from a peer core's cache), lock, TLB
 * and blocking.  data_src_decode() turns every field into plain values;
 * data_src_coherence() answers the one question the line table asks: was
 * this access served by another core's copy of the line, and from how far.
 *
 * The raw value of an access sample is 0 when the backend had none (soft);
 * all of it decodes to "not available" then.
 */
#ifndef CONTEND_DATA_SRC_H
#define CONTEND_DATA_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Operation: flags, 0 if not available. */
#define DS_OP_LOAD	0x1
#define DS_OP_STORE	0x2
#define DS_OP_PFETCH	0x4
#define DS_OP_EXEC	0x8

/* Where the data came from, one level (the newest encoding wins). */
enum mem_level {
	MEM_LEVEL_NA = 0,
	MEM_LEVEL_L1,
	MEM_LEVEL_LFB,          /* line fill buffer / miss address buffer */
	MEM_LEVEL_L2,
	MEM_LEVEL_L2_MHB,       /* L2 miss handling buffer */
	MEM_LEVEL_L3,
	MEM_LEVEL_L4,
	MEM_LEVEL_MSC,          /* memory-side cache */
	MEM_LEVEL_ANY_CACHE,    /* some cache, level unknown (remote caches) */
	MEM_LEVEL_RAM,
	MEM_LEVEL_PMEM,
	MEM_LEVEL_CXL,
	MEM_LEVEL_IO,
	MEM_LEVEL_UNCACHED,
	MEM_LEVEL__COUNT
};

enum mem_hit { MEM_HIT_NA = 0, MEM_HIT, MEM_MISS };

/* Snoop results: flags, 0 if not available. */
#define DS_SNOOP_NONE	0x1     /* no snoop was needed */
#define DS_SNOOP_HIT	0x2     /* another cache had the line, clean */
#define DS_SNOOP_MISS	0x4
#define DS_SNOOP_HITM	0x8     /* another cache had the line, modified */

enum mem_lock { MEM_LOCK_NA = 0, MEM_UNLOCKED, MEM_LOCKED };

/* TLB: flags, 0 if not available. */
#define DS_TLB_HIT	0x01
#define DS_TLB_MISS	0x02
#define DS_TLB_L1	0x04
#define DS_TLB_L2	0x08
#define DS_TLB_WALKER	0x10
#define DS_TLB_OS	0x20

/* Blocked: flags, 0 if not available or not blocked. */
#define DS_BLK_DATA	0x1     /* data could not be forwarded */
#define DS_BLK_ADDR	0x2     /* address conflict */

struct data_src {
	uint8_t op;             /* DS_OP_* */
	uint8_t level;          /* enum mem_level */
	uint8_t hit;            /* enum mem_hit */
	bool remote;            /* another node or socket */
	uint8_t hops;           /* 0 unknown; 1 other core, same node; 2 other
				   node, same socket; 3 other socket; 4 other board */
	uint8_t snoop;          /* DS_SNOOP_* */
	bool fwd;               /* snoopx: forwarded */
	bool peer;              /* snoopx: transferred from a peer core's cache */
	uint8_t lock;           /* enum mem_lock */
	uint8_t tlb;            /* DS_TLB_* */
	bool blocked_na;        /* the blocking field says "not available" */
	uint8_t blk;            /* DS_BLK_* */
};

/* Decode raw; returns false when it carries no information at all (0). */
bool data_src_decode(uint64_t raw, struct data_src *out);

const char *mem_level_name(enum mem_level l);   /* "L1", "RAM", "any cache", ... */

/* "load, L3 hit, snoop HITM, TLB L1 hit, locked": every available field,
 * for reports and debugging.  Returns the length snprintf would. */
int data_src_describe(uint64_t raw, char *buf, size_t len);

/*
 * What a load's data source says about coherence traffic, as perf c2c
 * counts it: HITM when the snoop found the line modified in another core
 * (remote when the data came from another node or socket), else peer when
 * it was forwarded from a peer core's cache.  A sample is at most one of
 * the three, so their sums count samples.
 */
enum coherence {
	COHERENCE_NONE = 0,
	COHERENCE_HITM_LOCAL,
	COHERENCE_HITM_REMOTE,
	COHERENCE_PEER,
};
enum coherence data_src_coherence(uint64_t raw);

#endif
