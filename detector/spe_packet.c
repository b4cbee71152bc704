/* spe_packet.c - Arm SPE packets and records (spe_packet.h).
 *
 * Header forms (byte 0, or byte 1 after an extended header 0b001000xx):
 *   0x00                PAD
 *   0x01                END
 *   0x71                TIMESTAMP, 8 bytes
 *   0b01ss0010          EVENTS, 1 << ss bytes
 *   0b01ss0011          DATA SOURCE, 1 << ss bytes
 *   0b011001ii          CONTEXT, 4 bytes, ii: 0 EL1, 1 EL2
 *   0b010010cc          OPERATION TYPE, 1 byte, cc: class
 *   0b10110iii          ADDRESS, 8 bytes, index iii (+ 2 bits extended)
 *   0b10011iii          COUNTER, 2 bytes, index iii (+ 2 bits extended)
 * Bits 5:4 of every header are the payload size; the fixed forms above
 * fix it.
 */
#include "detector/spe_packet.h"

#include <string.h>

#define HDR_PAD		0x00
#define HDR_END		0x01
#define HDR_TIMESTAMP	0x71
#define HDR_EVENTS	0x42    /* under mask 0xcf */
#define HDR_SOURCE	0x43    /* under mask 0xcf */
#define HDR_CONTEXT	0x64    /* under mask 0xfc */
#define HDR_OP_TYPE	0x48    /* under mask 0xfc */
#define HDR_EXTENDED	0x20    /* under mask 0xfc */
#define HDR_ADDRESS	0xb0    /* under mask 0xf8 */
#define HDR_COUNTER	0x98    /* under mask 0xf8 */

const char *spe_packet_name(enum spe_packet_type t)
{
	static const char *const names[] = {
		[SPE_PKT_PAD] = "PAD", [SPE_PKT_END] = "END", [SPE_PKT_TIMESTAMP] = "TS",
		[SPE_PKT_ADDRESS] = "ADDR", [SPE_PKT_COUNTER] = "LAT",
		[SPE_PKT_CONTEXT] = "CONTEXT", [SPE_PKT_OP_TYPE] = "OP-TYPE",
		[SPE_PKT_EVENTS] = "EVENTS", [SPE_PKT_DATA_SOURCE] = "DATA-SOURCE",
	};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

/* The payload after hdr_len header bytes, little-endian whatever the host. */
static int take_payload(const uint8_t *buf, size_t len, unsigned hdr_len, struct spe_packet *p)
{
	unsigned n = 1u << ((buf[hdr_len - 1] >> 4) & 3);

	if (len < hdr_len + n)
		return SPE_TRUNCATED;
	p->payload = 0;
	for (unsigned i = 0; i < n; i++)
		p->payload |= (uint64_t)buf[hdr_len + i] << (8 * i);
	p->payload_len = (uint8_t)n;
	p->size = (uint8_t)(hdr_len + n);
	return p->size;
}

/*
 * An extended header followed by 0x00 pads to the next boundary of
 * 2^(low nibble + 1) bytes of the stream (Linux's decoder knows this form
 * as alignment).  The boundary is counted from the start of the AUX area.
 */
static int alignment(size_t len, size_t offset, uint8_t h0, struct spe_packet *p)
{
	size_t align = (size_t)1 << ((h0 & 0xf) + 1);
	size_t n = align - (offset & (align - 1));

	if (n < 2)
		n += align;     /* the two header bytes themselves */
	if (len < n)
		return SPE_TRUNCATED;
	p->type = SPE_PKT_PAD;
	p->size = (uint8_t)n;
	return (int)n;
}

int spe_packet_get(const uint8_t *buf, size_t len, size_t offset, struct spe_packet *p)
{
	uint8_t h;
	unsigned hdr_len = 1, ext = 0;

	memset(p, 0, sizeof(*p));
	if (!len)
		return SPE_TRUNCATED;
	h = buf[0];
	if (h == HDR_PAD || h == HDR_END) {
		p->type = h == HDR_PAD ? SPE_PKT_PAD : SPE_PKT_END;
		p->size = 1;
		return 1;
	}
	if (h == HDR_TIMESTAMP) {
		p->type = SPE_PKT_TIMESTAMP;
		return take_payload(buf, len, 1, p);
	}
	if ((h & 0xcf) == HDR_EVENTS || (h & 0xcf) == HDR_SOURCE) {
		p->type = (h & 0xcf) == HDR_EVENTS ? SPE_PKT_EVENTS : SPE_PKT_DATA_SOURCE;
		return take_payload(buf, len, 1, p);
	}
	if ((h & 0xfc) == HDR_CONTEXT || (h & 0xfc) == HDR_OP_TYPE) {
		p->type = (h & 0xfc) == HDR_CONTEXT ? SPE_PKT_CONTEXT : SPE_PKT_OP_TYPE;
		p->index = h & 3;
		return take_payload(buf, len, 1, p);
	}
	if ((h & 0xfc) == HDR_EXTENDED) {
		if (len < 2)
			return SPE_TRUNCATED;
		if (buf[1] == 0)
			return alignment(len, offset, h, p);
		ext = (h & 3u) << 3;
		h = buf[1];
		hdr_len = 2;
	}
	if ((h & 0xf8) == HDR_ADDRESS || (h & 0xf8) == HDR_COUNTER) {
		p->type = (h & 0xf8) == HDR_ADDRESS ? SPE_PKT_ADDRESS : SPE_PKT_COUNTER;
		p->index = (uint8_t)(ext | (h & 7u));
		return take_payload(buf, len, hdr_len, p);
	}
	return SPE_BAD;
}

/* --- records ------------------------------------------------------------- */

void spe_reader_init(struct spe_reader *r, const uint8_t *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = buf ? len : 0;
}

/* Bits 55:0; the top byte from bit 55 (the upper, kernel half of the
 * address space) as the MMU would see it. */
static uint64_t sign_extend_55(uint64_t v)
{
	v &= (1ULL << 56) - 1;
	return v & (1ULL << 55) ? v | 0xff00000000000000ULL : v;
}

static void take_address(struct spe_record *rec, const struct spe_packet *p)
{
	uint64_t v = p->payload;

	switch (p->index) {
	case SPE_ADDR_PC:
		rec->pc = sign_extend_55(v);
		rec->pc_el = (uint8_t)((v >> 61) & 3);
		rec->pc_ns = v >> 63;
		rec->has |= SPE_HAS_PC;
		break;
	case SPE_ADDR_BRANCH_TARGET:
		rec->branch_target = sign_extend_55(v);
		rec->has |= SPE_HAS_BRANCH_TARGET;
		break;
	case SPE_ADDR_DATA_VIRT:
		/* the top byte is the pointer's tag (TBI): not part of the address */
		rec->vaddr = sign_extend_55(v);
		rec->has |= SPE_HAS_VADDR;
		break;
	case SPE_ADDR_DATA_PHYS:
		rec->paddr = v & ((1ULL << 56) - 1);
		rec->has |= SPE_HAS_PADDR;
		break;
	case SPE_ADDR_PREV_BRANCH:
		rec->prev_branch = sign_extend_55(v);
		rec->has |= SPE_HAS_PREV_BRANCH;
		break;
	default:
		break;          /* a later SPE's address kind: not needed */
	}
}

static void take_counter(struct spe_record *rec, const struct spe_packet *p)
{
	uint16_t v = (uint16_t)p->payload;

	switch (p->index) {
	case SPE_CNT_TOTAL:
		rec->total_lat = v;
		rec->has |= SPE_HAS_TOTAL_LAT;
		break;
	case SPE_CNT_ISSUE:
		rec->issue_lat = v;
		rec->has |= SPE_HAS_ISSUE_LAT;
		break;
	case SPE_CNT_TRANSLATION:
		rec->xlat_lat = v;
		rec->has |= SPE_HAS_XLAT_LAT;
		break;
	default:
		break;
	}
}

/*
 * Load/store payload: bit 0 store; an atomic-ish form when bit 1 is set
 * and bits 7:5 clear (bit 2 atomic, 3 exclusive, 4 acquire/release);
 * SVE when bit 3 is set and bit 1 clear; otherwise bits 7:1 name the
 * subclass.
 */
static uint8_t ldst_subclass(uint8_t op)
{
	if ((op & 0xe2) == 0x02)
		return SPE_LDST_ATOMIC;
	if ((op & 0x0a) == 0x08)
		return SPE_LDST_SVE;
	switch (op & 0xfe) {
	case 0x00: return SPE_LDST_GP;
	case 0x04: return SPE_LDST_SIMD_FP;
	case 0x10: return SPE_LDST_UNSPECIFIED;
	case 0x14: return SPE_LDST_MTE_TAG;
	case 0x20: return SPE_LDST_MEMCPY;
	case 0x24: return SPE_LDST_MEMSET;
	case 0x30: return SPE_LDST_NV_SYSREG;
	}
	return SPE_LDST_OTHER;
}

static void take_op(struct spe_record *rec, const struct spe_packet *p)
{
	uint8_t op = (uint8_t)p->payload;

	rec->op_class = p->index;
	rec->op = op;
	rec->has |= SPE_HAS_OP;
	switch (p->index) {
	case SPE_OP_CLASS_LDST:
		rec->store = op & 1;
		rec->subclass = ldst_subclass(op);
		if (rec->subclass == SPE_LDST_ATOMIC) {
			rec->atomic = op & 0x04;
			rec->exclusive = op & 0x08;
			rec->acq_rel = op & 0x10;
		}
		break;
	case SPE_OP_CLASS_BRANCH:
		rec->conditional = op & 1;
		rec->indirect = op & 2;
		break;
	default:
		rec->conditional = op & 1;   /* conditional select or compare */
		break;
	}
}

/* One packet into the record; true when it ends the record. */
static bool take_packet(struct spe_record *rec, const struct spe_packet *p)
{
	switch (p->type) {
	case SPE_PKT_PAD:
		return false;
	case SPE_PKT_END:
		return true;
	case SPE_PKT_TIMESTAMP:
		rec->timestamp = p->payload;
		rec->has |= SPE_HAS_TIMESTAMP;
		return true;
	case SPE_PKT_ADDRESS:
		take_address(rec, p);
		return false;
	case SPE_PKT_COUNTER:
		take_counter(rec, p);
		return false;
	case SPE_PKT_CONTEXT:
		rec->context = (uint32_t)p->payload;
		rec->context_el = (uint8_t)(p->index + 1);
		rec->has |= SPE_HAS_CONTEXT;
		return false;
	case SPE_PKT_OP_TYPE:
		take_op(rec, p);
		return false;
	case SPE_PKT_EVENTS:
		rec->events = p->payload;
		rec->has |= SPE_HAS_EVENTS;
		return false;
	case SPE_PKT_DATA_SOURCE:
		rec->source = (uint16_t)p->payload;
		rec->has |= SPE_HAS_SOURCE;
		return false;
	}
	return false;
}

enum spe_result spe_reader_next(struct spe_reader *r, struct spe_record *rec)
{
	bool started = false;

	memset(rec, 0, sizeof(*rec));
	while (r->pos < r->len) {
		struct spe_packet p;
		int n = spe_packet_get(r->buf + r->pos, r->len - r->pos, r->pos, &p);

		if (n < 0) {
			r->error_at = r->pos;
			if (n == SPE_TRUNCATED) {
				r->pos = r->len;
				return SPE_ERR_TRUNCATED;
			}
			r->pos++;
			return SPE_ERR_BAD;
		}
		r->pos += (size_t)n;
		if (p.type == SPE_PKT_PAD)
			continue;
		/* an END or TIMESTAMP with nothing before it closes an empty record */
		if (take_packet(rec, &p))
			return SPE_RECORD;
		started = true;
	}
	if (started) {
		r->error_at = r->len;
		return SPE_ERR_TRUNCATED;
	}
	return SPE_DONE;
}
