/* sample.h - the access sample: the one record that crosses every stage.
 *
 * Every backend (soft, watch, pebs, ibs, spe) turns what it saw into
 * access samples; nothing after the backends knows which backend made one.
 * Fields a backend cannot know are zero (data_src, weight) or -1 (base_reg).
 */
#ifndef CONTEND_SAMPLE_H
#define CONTEND_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/access.h"

/* Could a user-space access of this machine touch this address (x86-64:
 * 47 bits; AArch64: 52)?  The hardware backends drop samples whose address
 * is not one: the null page, kernel addresses.  The soft backend asks the
 * decoded code's architecture instead (decode_user_address()). */
static inline bool user_address(uint64_t a)
{
#if defined(__aarch64__)
	return a >= 4096 && a < (1ULL << 52);
#else
	return a >= 4096 && a < 0x0000800000000000ULL;
#endif
}

/* A store the next instruction fences (mfence, HotSpot's "lock addl
 * $0,(%rsp)" after a volatile store): fixed, it still waits for the store
 * buffer to drain, as a locked RMW does (reports/gain.c prices it so). */
#define ACCESS_SAMPLE_FENCED 1u

struct access_sample {
	uint64_t time;       /* ns, CLOCK_MONOTONIC (perf's default clock) */
	uint32_t pid, tid;
	uint32_t cpu;        /* UINT32_MAX: unknown (perf.data without CPU) */
	uint64_t ip;         /* address of the accessing instruction */
	uint64_t addr;       /* data address */
	uint8_t size;        /* bytes accessed, 1..64 */
	uint8_t kind;        /* enum access_kind */
	int8_t base_reg;     /* DWARF register number of the memory operand's
	                        base register, -1 if none (RIP-relative/absolute) */
	uint8_t flags;       /* ACCESS_SAMPLE_FENCED, below */
	uint32_t weight;     /* latency in cycles when the hardware says, else 0 */
	int64_t base_off;    /* addr - value of the base register */
	uint64_t data_src;   /* raw perf_mem_data_src, 0 if unknown */
	uint32_t chain_id;   /* call-chain id, 0 if none */
	/* Memory shared between processes (shared_mem.h): the object addr
	 * lies in, (device, inode), and addr's offset in it.  obj_ino 0: the
	 * address is private to pid (the line is keyed by pid and addr). */
	uint64_t obj_dev, obj_ino, obj_off;
};

#endif
