/* spe_packet.h - Arm SPE packets and records, decoded from AUX-area bytes.
 *
 * The Statistical Profiling Extension writes one record per sampled
 * operation into the AUX area: a run of packets, each a one-byte header
 * (or a two-byte extended header for address and counter packets) and a
 * little-endian payload of 0, 1, 2, 4 or 8 bytes whose size the header
 * says.  A record ends with an END packet, or with a TIMESTAMP packet
 * when timestamps are on; PAD bytes may sit between records.  The format
 * is the Arm ARM's (DDI 0487, "Statistical Profiling Extension"); Linux's
 * tools/perf arm-spe-pkt-decoder reads the same bytes.
 *
 * spe_packet_get() decodes one packet; spe_reader_next() gathers packets
 * into records.  Both read only the bytes they are given: a packet that
 * runs past the end is "truncated", a header no SPE version defines is
 * "bad", and neither ever reads beyond len.  This file knows packets, not
 * what contend does with them (spe.h).
 */
#ifndef CONTEND_SPE_PACKET_H
#define CONTEND_SPE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum spe_packet_type {
	SPE_PKT_PAD,
	SPE_PKT_END,
	SPE_PKT_TIMESTAMP,
	SPE_PKT_ADDRESS,
	SPE_PKT_COUNTER,
	SPE_PKT_CONTEXT,
	SPE_PKT_OP_TYPE,
	SPE_PKT_EVENTS,
	SPE_PKT_DATA_SOURCE,
};

/* Address packet index (header bits, extended headers give 5 bits) */
enum spe_addr_index {
	SPE_ADDR_PC = 0,            /* the sampled instruction */
	SPE_ADDR_BRANCH_TARGET = 1,
	SPE_ADDR_DATA_VIRT = 2,
	SPE_ADDR_DATA_PHYS = 3,
	SPE_ADDR_PREV_BRANCH = 4,   /* previous branch target (SPEv1p2) */
};

/* Counter packet index */
enum spe_counter_index {
	SPE_CNT_TOTAL = 0,          /* cycles from dispatch to completion */
	SPE_CNT_ISSUE = 1,          /* cycles from dispatch to issue */
	SPE_CNT_TRANSLATION = 2,    /* cycles of the address translation */
};

/* Operation type packet class (header bits 1:0) */
enum spe_op_class {
	SPE_OP_CLASS_OTHER = 0,
	SPE_OP_CLASS_LDST = 1,      /* load, store, atomic */
	SPE_OP_CLASS_BRANCH = 2,    /* branch or exception return */
};

/* Events packet bits */
#define SPE_EV_EXCEPTION	(1ULL << 0)
#define SPE_EV_RETIRED		(1ULL << 1)
#define SPE_EV_L1D_ACCESS	(1ULL << 2)
#define SPE_EV_L1D_REFILL	(1ULL << 3)
#define SPE_EV_TLB_ACCESS	(1ULL << 4)
#define SPE_EV_TLB_WALK		(1ULL << 5)
#define SPE_EV_NOT_TAKEN	(1ULL << 6)
#define SPE_EV_MISPREDICT	(1ULL << 7)
#define SPE_EV_LLC_ACCESS	(1ULL << 8)
#define SPE_EV_LLC_MISS		(1ULL << 9)
#define SPE_EV_REMOTE_ACCESS	(1ULL << 10)
#define SPE_EV_ALIGNMENT	(1ULL << 11)

struct spe_packet {
	enum spe_packet_type type;
	uint8_t index;              /* address/counter index, op class, context EL */
	uint8_t size;               /* bytes of the packet, header included */
	uint8_t payload_len;
	uint64_t payload;
};

#define SPE_TRUNCATED	(-1)    /* the packet runs past the end of the bytes */
#define SPE_BAD		(-2)    /* no SPE packet has this header */

/* The packet at buf[0..len): its size in bytes (> 0), or SPE_TRUNCATED or
 * SPE_BAD.  offset is buf's offset in the stream, for alignment padding. */
int spe_packet_get(const uint8_t *buf, size_t len, size_t offset, struct spe_packet *p);

/* --- records ------------------------------------------------------------- */

/* What a load/store operation type packet says (class LDST). */
enum spe_ldst_subclass {
	SPE_LDST_GP,                /* general-purpose registers */
	SPE_LDST_SIMD_FP,
	SPE_LDST_UNSPECIFIED,       /* the hardware does not say which registers */
	SPE_LDST_SVE,
	SPE_LDST_NV_SYSREG,
	SPE_LDST_MTE_TAG,
	SPE_LDST_MEMCPY,
	SPE_LDST_MEMSET,
	SPE_LDST_ATOMIC,            /* atomic, exclusive or acquire/release form */
	SPE_LDST_OTHER,
};

/* Which packets a record had: bits of spe_record.has */
#define SPE_HAS_PC		0x001
#define SPE_HAS_BRANCH_TARGET	0x002
#define SPE_HAS_VADDR		0x004
#define SPE_HAS_PADDR		0x008
#define SPE_HAS_PREV_BRANCH	0x010
#define SPE_HAS_TOTAL_LAT	0x020
#define SPE_HAS_ISSUE_LAT	0x040
#define SPE_HAS_XLAT_LAT	0x080
#define SPE_HAS_CONTEXT		0x100
#define SPE_HAS_OP		0x200
#define SPE_HAS_EVENTS		0x400
#define SPE_HAS_SOURCE		0x800
#define SPE_HAS_TIMESTAMP	0x1000

struct spe_record {
	unsigned has;               /* SPE_HAS_* */
	uint64_t pc;                /* sign-extended from bit 55 */
	uint8_t pc_el;              /* exception level of the PC: 0 user */
	bool pc_ns;                 /* non-secure */
	uint64_t branch_target, prev_branch;
	uint64_t vaddr;             /* the top byte (tag) cleared unless bit 55 says kernel */
	uint64_t paddr;             /* bits 55:0 */
	uint16_t total_lat, issue_lat, xlat_lat;   /* cycles */
	uint32_t context;           /* CONTEXTIDR: the thread id under Linux */
	uint8_t context_el;         /* 1: CONTEXTIDR_EL1, 2: _EL2 */
	uint8_t op_class;           /* enum spe_op_class */
	uint8_t op;                 /* the raw operation payload */
	/* class LDST */
	bool store;
	uint8_t subclass;           /* enum spe_ldst_subclass */
	bool atomic, exclusive, acq_rel;
	/* class BRANCH (and OTHER's conditional select) */
	bool conditional, indirect;
	uint64_t events;            /* SPE_EV_* */
	uint16_t source;            /* data source, implementation defined */
	uint64_t timestamp;         /* generic timer ticks */
};

/* A cursor over one run of AUX bytes. */
struct spe_reader {
	const uint8_t *buf;
	size_t len, pos;
	size_t error_at;            /* where the last error was found */
};

enum spe_result {
	SPE_RECORD = 1,             /* *rec holds the next record */
	SPE_DONE = 0,               /* no bytes left (padding only) */
	SPE_ERR_TRUNCATED = -1,     /* the bytes end inside a record */
	SPE_ERR_BAD = -2,           /* a byte at error_at is no packet */
};

void spe_reader_init(struct spe_reader *r, const uint8_t *buf, size_t len);
/*
 * The next record.  After an error the reader has moved one byte past
 * error_at, so calling again resynchronises on the next packet that
 * decodes (the partial record is lost): a caller counts the errors and
 * goes on, or stops.
 */
enum spe_result spe_reader_next(struct spe_reader *r, struct spe_record *rec);

const char *spe_packet_name(enum spe_packet_type t);   /* "ADDR", ... */

#endif
