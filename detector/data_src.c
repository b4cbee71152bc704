/* data_src.c - perf_mem_data_src, decoded.
 *
 * Fields are taken out of the 64-bit value by shift and width (the ABI is
 * defined on the value, not on the bit-field union, which differs between
 * little- and big-endian builds).  Two encodings of the level coexist: the
 * old mem_lvl bitmask, which mixes level and locality (REM_CCE1: "remote
 * cache, 1 hop"), and mem_lvl_num + mem_remote + mem_hops.  Kernels fill
 * either or both; the number wins when it says something.
 */
#include "detector/data_src.h"

#include <stdio.h>
#include <string.h>

/* include/uapi/linux/perf_event.h: position and width of each field */
#define OP_SHIFT	0
#define OP_BITS		5
#define LVL_SHIFT	5
#define LVL_BITS	14
#define SNOOP_SHIFT	19
#define SNOOP_BITS	5
#define LOCK_SHIFT	24
#define LOCK_BITS	2
#define TLB_SHIFT	26
#define TLB_BITS	7
#define LVLNUM_SHIFT	33
#define LVLNUM_BITS	4
#define REMOTE_SHIFT	37
#define SNOOPX_SHIFT	38
#define SNOOPX_BITS	2
#define BLK_SHIFT	40
#define BLK_BITS	3
#define HOPS_SHIFT	43
#define HOPS_BITS	3

/* mem_lvl bits */
#define LVL_NA		0x0001
#define LVL_HIT		0x0002
#define LVL_MISS	0x0004
#define LVL_L1		0x0008
#define LVL_LFB		0x0010
#define LVL_L2		0x0020
#define LVL_L3		0x0040
#define LVL_LOC_RAM	0x0080
#define LVL_REM_RAM1	0x0100
#define LVL_REM_RAM2	0x0200
#define LVL_REM_CCE1	0x0400
#define LVL_REM_CCE2	0x0800
#define LVL_IO		0x1000
#define LVL_UNC		0x2000
#define LVL_LOCAL	(LVL_L1 | LVL_LFB | LVL_L2 | LVL_L3 | LVL_LOC_RAM)
#define LVL_REMOTE	(LVL_REM_RAM1 | LVL_REM_RAM2 | LVL_REM_CCE1 | LVL_REM_CCE2)

/* mem_lvl_num values; 0x7 is unassigned, 0xf is "not available" */
#define LVLNUM_L1	0x1
#define LVLNUM_L2	0x2
#define LVLNUM_L3	0x3
#define LVLNUM_L4	0x4
#define LVLNUM_L2_MHB	0x5
#define LVLNUM_MSC	0x6
#define LVLNUM_UNC	0x8
#define LVLNUM_CXL	0x9
#define LVLNUM_IO	0xa
#define LVLNUM_ANY_CACHE 0xb
#define LVLNUM_LFB	0xc
#define LVLNUM_RAM	0xd
#define LVLNUM_PMEM	0xe

#define NA_BIT		0x1     /* bit 0 of op, lvl, snoop, lock, tlb, blk */
#define LOCK_LOCKED	0x2
#define SNOOPX_FWD	0x1
#define SNOOPX_PEER	0x2
#define HOPS_0		1       /* remote core, same node: not remote */
#define HOPS_MAX	4

static unsigned field(uint64_t raw, unsigned shift, unsigned bits)
{
	return (unsigned)(raw >> shift) & ((1u << bits) - 1);
}

static enum mem_level level_from_num(unsigned num)
{
	switch (num) {
	case LVLNUM_L1: return MEM_LEVEL_L1;
	case LVLNUM_L2: return MEM_LEVEL_L2;
	case LVLNUM_L3: return MEM_LEVEL_L3;
	case LVLNUM_L4: return MEM_LEVEL_L4;
	case LVLNUM_L2_MHB: return MEM_LEVEL_L2_MHB;
	case LVLNUM_MSC: return MEM_LEVEL_MSC;
	case LVLNUM_UNC: return MEM_LEVEL_UNCACHED;
	case LVLNUM_CXL: return MEM_LEVEL_CXL;
	case LVLNUM_IO: return MEM_LEVEL_IO;
	case LVLNUM_ANY_CACHE: return MEM_LEVEL_ANY_CACHE;
	case LVLNUM_LFB: return MEM_LEVEL_LFB;
	case LVLNUM_RAM: return MEM_LEVEL_RAM;
	case LVLNUM_PMEM: return MEM_LEVEL_PMEM;
	}
	return MEM_LEVEL_NA;
}

/* The nearest level the bitmask names: AMD reports "L3 or another core
 * of this CCX" as L3|REM_CCE1, and the data did not leave the CCX. */
static enum mem_level level_from_bits(unsigned lvl)
{
	static const struct { unsigned bit; enum mem_level level; } order[] = {
		{ LVL_L1, MEM_LEVEL_L1 }, { LVL_LFB, MEM_LEVEL_LFB },
		{ LVL_L2, MEM_LEVEL_L2 }, { LVL_L3, MEM_LEVEL_L3 },
		{ LVL_LOC_RAM, MEM_LEVEL_RAM }, { LVL_REM_CCE1, MEM_LEVEL_ANY_CACHE },
		{ LVL_REM_CCE2, MEM_LEVEL_ANY_CACHE }, { LVL_REM_RAM1, MEM_LEVEL_RAM },
		{ LVL_REM_RAM2, MEM_LEVEL_RAM }, { LVL_IO, MEM_LEVEL_IO },
		{ LVL_UNC, MEM_LEVEL_UNCACHED },
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (lvl & order[i].bit)
			return order[i].level;
	return MEM_LEVEL_NA;
}

static enum mem_hit hit_from_bits(unsigned lvl)
{
	bool hit = lvl & LVL_HIT, miss = lvl & LVL_MISS;

	if (hit == miss)
		return MEM_HIT_NA;
	return hit ? MEM_HIT : MEM_MISS;
}

/*
 * Remote: a remote level with no local one beside it (see above), or the
 * remote bit.  POWER sets the remote bit with HOPS_0 for another core of
 * the same node, which is not remote in the sense of NUMA distance.
 */
static bool is_remote(unsigned lvl, unsigned remote_bit, unsigned hops)
{
	if ((lvl & LVL_REMOTE) && !(lvl & LVL_LOCAL))
		return true;
	return remote_bit && hops != HOPS_0;
}

bool data_src_decode(uint64_t raw, struct data_src *out)
{
	unsigned lvl = field(raw, LVL_SHIFT, LVL_BITS);
	unsigned num = field(raw, LVLNUM_SHIFT, LVLNUM_BITS);
	unsigned hops = field(raw, HOPS_SHIFT, HOPS_BITS);
	unsigned snoopx = field(raw, SNOOPX_SHIFT, SNOOPX_BITS);
	unsigned lock = field(raw, LOCK_SHIFT, LOCK_BITS);

	memset(out, 0, sizeof(*out));
	if (!raw)
		return false;
	/* op, snoop, tlb and blk are flag sets over a leading "n/a" bit */
	out->op = field(raw, OP_SHIFT, OP_BITS) >> 1;
	out->snoop = field(raw, SNOOP_SHIFT, SNOOP_BITS) >> 1;
	out->tlb = field(raw, TLB_SHIFT, TLB_BITS) >> 1;
	out->blk = field(raw, BLK_SHIFT, BLK_BITS) >> 1;

	out->level = level_from_num(num);
	if (out->level == MEM_LEVEL_NA)
		out->level = level_from_bits(lvl);
	out->hit = hit_from_bits(lvl);
	out->hops = hops <= HOPS_MAX ? hops : 0;
	out->remote = is_remote(lvl, field(raw, REMOTE_SHIFT, 1), out->hops);
	out->fwd = snoopx & SNOOPX_FWD;
	out->peer = snoopx & SNOOPX_PEER;
	/* perf: lock is "no" unless it says n/a or locked */
	if (lock & NA_BIT)
		out->lock = MEM_LOCK_NA;
	else
		out->lock = lock & LOCK_LOCKED ? MEM_LOCKED : MEM_UNLOCKED;
	return true;
}

const char *mem_level_name(enum mem_level l)
{
	switch (l) {
	case MEM_LEVEL_NA: return "n/a";
	case MEM_LEVEL_L1: return "L1";
	case MEM_LEVEL_LFB: return "LFB";
	case MEM_LEVEL_L2: return "L2";
	case MEM_LEVEL_L2_MHB: return "L2 MHB";
	case MEM_LEVEL_L3: return "L3";
	case MEM_LEVEL_L4: return "L4";
	case MEM_LEVEL_MSC: return "memory-side cache";
	case MEM_LEVEL_ANY_CACHE: return "any cache";
	case MEM_LEVEL_RAM: return "RAM";
	case MEM_LEVEL_PMEM: return "PMEM";
	case MEM_LEVEL_CXL: return "CXL";
	case MEM_LEVEL_IO: return "I/O";
	case MEM_LEVEL_UNCACHED: return "uncached";
	case MEM_LEVEL__COUNT: break;
	}
	return "?";
}

struct describe {
	char *buf;
	size_t len;
	int n;                  /* what snprintf would have written */
};

static void put(struct describe *d, const char *s)
{
	size_t at = (size_t)d->n < d->len ? (size_t)d->n : d->len;
	int w = snprintf(d->buf + at, d->len - at, "%s%s", d->n ? ", " : "", s);

	if (w > 0)
		d->n += w;
}

static void put_flags(struct describe *d, const char *prefix, unsigned flags,
		      const char *const *names, unsigned n_names)
{
	char item[96];
	int at = snprintf(item, sizeof(item), "%s", prefix);

	for (unsigned i = 0; i < n_names; i++)
		if (flags & (1u << i))
			at += snprintf(item + at, sizeof(item) - at, "%s%s",
				       at > (int)strlen(prefix) ? "|" : "", names[i]);
	put(d, item);
}

int data_src_describe(uint64_t raw, char *buf, size_t len)
{
	static const char *const ops[] = { "load", "store", "prefetch", "exec" };
	static const char *const snoops[] = { "none", "hit", "miss", "HITM" };
	static const char *const tlbs[] = { "hit", "miss", "L1", "L2", "walker", "OS" };
	static const char *const blks[] = { "data", "address" };
	struct describe d = { buf, len, 0 };
	struct data_src ds;
	char level[64];

	if (len)
		buf[0] = '\0';
	if (!data_src_decode(raw, &ds)) {
		put(&d, "no data source");
		return d.n;
	}
	if (ds.op)
		put_flags(&d, "", ds.op, ops, 4);
	if (ds.level || ds.hit) {
		snprintf(level, sizeof(level), "%s%s%s", mem_level_name(ds.level),
			 ds.hit == MEM_HIT ? " hit" : ds.hit == MEM_MISS ? " miss" : "",
			 ds.remote ? " (remote)" : "");
		put(&d, level);
	} else if (ds.remote) {
		put(&d, "remote");
	}
	if (ds.hops) {
		snprintf(level, sizeof(level), "hops %u", ds.hops - 1);
		put(&d, level);
	}
	if (ds.snoop)
		put_flags(&d, "snoop ", ds.snoop, snoops, 4);
	if (ds.fwd)
		put(&d, "forwarded");
	if (ds.peer)
		put(&d, "peer");
	if (ds.tlb)
		put_flags(&d, "TLB ", ds.tlb, tlbs, 6);
	if (ds.lock == MEM_LOCKED)
		put(&d, "locked");
	if (ds.blk)
		put_flags(&d, "blocked ", ds.blk, blks, 2);
	if (!d.n)
		put(&d, "not available");
	return d.n;
}

enum coherence data_src_coherence(uint64_t raw)
{
	struct data_src ds;

	if (!data_src_decode(raw, &ds))
		return COHERENCE_NONE;
	if (ds.snoop & DS_SNOOP_HITM)
		return ds.remote ? COHERENCE_HITM_REMOTE : COHERENCE_HITM_LOCAL;
	return ds.peer ? COHERENCE_PEER : COHERENCE_NONE;
}
