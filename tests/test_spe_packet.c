/* test_spe_packet.c - the Arm SPE packet and record decoder on hand-built
 * byte streams: every packet type and header form with its fields, whole
 * records, and streams cut short or corrupted (which must give an error,
 * never a read past the bytes: every stream is copied into a buffer of
 * exactly its size, so the sanitizer build catches an overread).
 */
#include <stdlib.h>

#include "tap.h"
#include "common/util.h"
#include "detector/spe_packet.h"

/* --- building streams ---------------------------------------------------------- */

struct bytes {
	uint8_t b[512];
	size_t n;
};

static void put(struct bytes *s, uint8_t v)
{
	if (s->n < sizeof(s->b))
		s->b[s->n++] = v;
}

static void put_le(struct bytes *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(s, (uint8_t)(v >> (8 * i)));
}

static void addr_pkt(struct bytes *s, unsigned index, uint64_t v)
{
	if (index > 7) {
		put(s, (uint8_t)(0x20 | (index >> 3)));
		put(s, (uint8_t)(0xb0 | (index & 7)));
	} else {
		put(s, (uint8_t)(0xb0 | index));
	}
	put_le(s, v, 8);
}

static void counter_pkt(struct bytes *s, unsigned index, uint16_t v)
{
	put(s, (uint8_t)(0x98 | index));
	put_le(s, v, 2);
}

static void op_pkt(struct bytes *s, unsigned cls, uint8_t v)
{
	put(s, (uint8_t)(0x48 | cls));
	put(s, v);
}

static void events_pkt(struct bytes *s, unsigned sz, uint64_t v)
{
	put(s, (uint8_t)(0x42 | sz << 4));
	put_le(s, v, 1u << sz);
}

static void source_pkt(struct bytes *s, unsigned sz, uint64_t v)
{
	put(s, (uint8_t)(0x43 | sz << 4));
	put_le(s, v, 1u << sz);
}

static void context_pkt(struct bytes *s, unsigned el_index, uint32_t v)
{
	put(s, (uint8_t)(0x64 | el_index));
	put_le(s, v, 4);
}

static void ts_pkt(struct bytes *s, uint64_t v)
{
	put(s, 0x71);
	put_le(s, v, 8);
}

/* A copy of exactly n bytes on the heap: reading past it is an error the
 * sanitizers report. */
static uint8_t *exact(const uint8_t *b, size_t n)
{
	uint8_t *p = xcalloc(1, n ? n : 1);

	copy_bytes(p, b, n);
	return p;
}

static int get(const uint8_t *b, size_t n, struct spe_packet *p)
{
	uint8_t *copy = exact(b, n);
	int r = spe_packet_get(copy, n, 0, p);

	free(copy);
	return r;
}

/* --- one packet at a time, from literal bytes -------------------------------------- */

static void check_packet(const uint8_t *b, size_t n, enum spe_packet_type type,
			 unsigned index, uint64_t payload, const char *what)
{
	struct spe_packet p;
	int r = get(b, n, &p);

	CHECK(r == (int)n, "%s: size %d, want %zu", what, r, n);
	CHECK(p.type == type, "%s: type %s, want %s", what, spe_packet_name(p.type),
	      spe_packet_name(type));
	CHECK_EQ_U64(p.index, index, what);
	CHECK_EQ_U64(p.payload, payload, what);
}

static void test_packets(void)
{
	static const uint8_t pad[] = { 0x00 }, end[] = { 0x01 };
	static const uint8_t ts[] = { 0x71, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	/* PC 0x400abc at EL0, non-secure (bit 63) */
	static const uint8_t pc[] = { 0xb0, 0xbc, 0x0a, 0x40, 0, 0, 0, 0, 0x80 };
	static const uint8_t target[] = { 0xb1, 0x00, 0x10, 0x40, 0, 0, 0, 0, 0x80 };
	/* data VA 0xffff8000601040 under tag 0x5a */
	static const uint8_t va[] = { 0xb2, 0x40, 0x10, 0x60, 0x00, 0x80, 0xff, 0x00, 0x5a };
	static const uint8_t pa[] = { 0xb3, 0x00, 0x20, 0x34, 0x12, 0, 0, 0, 0x80 };
	static const uint8_t prev[] = { 0xb4, 0x00, 0x11, 0x40, 0, 0, 0, 0, 0 };
	/* extended header: 0b001000ii then the short header, index ii:iii */
	static const uint8_t ext_va[] = { 0x20, 0xb2, 0x48, 0x10, 0x60, 0, 0, 0, 0, 0 };
	static const uint8_t ext_idx9[] = { 0x21, 0xb1, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t total[] = { 0x98, 0x2c, 0x01 };
	static const uint8_t issue[] = { 0x99, 0x07, 0x00 };
	static const uint8_t xlat[] = { 0x9a, 0x15, 0x00 };
	static const uint8_t ext_cnt[] = { 0x20, 0x98, 0x10, 0x27 };
	static const uint8_t ctx_el1[] = { 0x64, 0x65, 0x00, 0x00, 0x00 };
	static const uint8_t ctx_el2[] = { 0x65, 0x01, 0x02, 0x00, 0x00 };
	static const uint8_t op_other[] = { 0x48, 0x01 };
	static const uint8_t op_ldst[] = { 0x49, 0x06 };
	static const uint8_t op_branch[] = { 0x4a, 0x02 };
	static const uint8_t ev1[] = { 0x42, 0x0e };
	static const uint8_t ev2[] = { 0x52, 0x06, 0x04 };
	static const uint8_t ev4[] = { 0x62, 0x02, 0x00, 0x06, 0x00 };
	static const uint8_t ev8[] = { 0x72, 0x02, 0, 0, 0, 0, 0, 0, 0x80 };
	static const uint8_t src1[] = { 0x43, 0x09 };
	static const uint8_t src2[] = { 0x53, 0x0d, 0x00 };

	check_packet(pad, sizeof(pad), SPE_PKT_PAD, 0, 0, "pad");
	check_packet(end, sizeof(end), SPE_PKT_END, 0, 0, "end");
	check_packet(ts, sizeof(ts), SPE_PKT_TIMESTAMP, 0, 0x1122334455667788ULL, "timestamp");
	check_packet(pc, sizeof(pc), SPE_PKT_ADDRESS, SPE_ADDR_PC, 0x8000000000400abcULL, "pc");
	check_packet(target, sizeof(target), SPE_PKT_ADDRESS, SPE_ADDR_BRANCH_TARGET,
		     0x8000000000401000ULL, "branch target");
	check_packet(va, sizeof(va), SPE_PKT_ADDRESS, SPE_ADDR_DATA_VIRT,
		     0x5a00ff8000601040ULL, "data va");
	check_packet(pa, sizeof(pa), SPE_PKT_ADDRESS, SPE_ADDR_DATA_PHYS,
		     0x8000000012342000ULL, "data pa");
	check_packet(prev, sizeof(prev), SPE_PKT_ADDRESS, SPE_ADDR_PREV_BRANCH, 0x401100,
		     "previous branch target");
	check_packet(ext_va, sizeof(ext_va), SPE_PKT_ADDRESS, SPE_ADDR_DATA_VIRT, 0x601048,
		     "extended data va");
	check_packet(ext_idx9, sizeof(ext_idx9), SPE_PKT_ADDRESS, 9, 0x0807060504030201ULL,
		     "extended index 9");
	check_packet(total, sizeof(total), SPE_PKT_COUNTER, SPE_CNT_TOTAL, 300, "total latency");
	check_packet(issue, sizeof(issue), SPE_PKT_COUNTER, SPE_CNT_ISSUE, 7, "issue latency");
	check_packet(xlat, sizeof(xlat), SPE_PKT_COUNTER, SPE_CNT_TRANSLATION, 21,
		     "translation latency");
	check_packet(ext_cnt, sizeof(ext_cnt), SPE_PKT_COUNTER, SPE_CNT_TOTAL, 10000,
		     "extended counter");
	check_packet(ctx_el1, sizeof(ctx_el1), SPE_PKT_CONTEXT, 0, 101, "context el1");
	check_packet(ctx_el2, sizeof(ctx_el2), SPE_PKT_CONTEXT, 1, 0x201, "context el2");
	check_packet(op_other, sizeof(op_other), SPE_PKT_OP_TYPE, SPE_OP_CLASS_OTHER, 1, "op other");
	check_packet(op_ldst, sizeof(op_ldst), SPE_PKT_OP_TYPE, SPE_OP_CLASS_LDST, 6, "op ldst");
	check_packet(op_branch, sizeof(op_branch), SPE_PKT_OP_TYPE, SPE_OP_CLASS_BRANCH, 2,
		     "op branch");
	check_packet(ev1, sizeof(ev1), SPE_PKT_EVENTS, 0, 0x0e, "events, 1 byte");
	check_packet(ev2, sizeof(ev2), SPE_PKT_EVENTS, 0, 0x0406, "events, 2 bytes");
	check_packet(ev4, sizeof(ev4), SPE_PKT_EVENTS, 0, 0x060002, "events, 4 bytes");
	check_packet(ev8, sizeof(ev8), SPE_PKT_EVENTS, 0, 0x8000000000000002ULL,
		     "events, 8 bytes");
	check_packet(src1, sizeof(src1), SPE_PKT_DATA_SOURCE, 0, 9, "data source, 1 byte");
	check_packet(src2, sizeof(src2), SPE_PKT_DATA_SOURCE, 0, 0xd, "data source, 2 bytes");
}

/* The alignment form pads to a boundary of the stream, not of memory. */
static void test_alignment(void)
{
	uint8_t b[16] = { 0x21, 0x00 };   /* 2^(1+1) = 4-byte boundary */
	struct spe_packet p;

	CHECK_EQ_U64(spe_packet_get(b, sizeof(b), 0, &p), 4, "align at 0: to 4");
	CHECK(p.type == SPE_PKT_PAD, "alignment is padding");
	CHECK_EQ_U64(spe_packet_get(b, sizeof(b), 1, &p), 3, "align at 1: to 4");
	CHECK_EQ_U64(spe_packet_get(b, sizeof(b), 3, &p), 5, "align at 3: past the header, to 8");
	CHECK_EQ_U64(spe_packet_get(b, 3, 0, &p), SPE_TRUNCATED, "alignment past the end");
}

/* --- records ------------------------------------------------------------------------ */

/* A load of a peer core's line: every packet a load record can hold. */
static void load_record(struct bytes *s)
{
	addr_pkt(s, SPE_ADDR_PC, 0x8000000000401100ULL);
	addr_pkt(s, SPE_ADDR_DATA_VIRT, 0x3c00000000601048ULL);     /* tag 0x3c */
	addr_pkt(s, SPE_ADDR_DATA_PHYS, 0x8000000081234048ULL);
	counter_pkt(s, SPE_CNT_TOTAL, 412);
	counter_pkt(s, SPE_CNT_ISSUE, 12);
	counter_pkt(s, SPE_CNT_TRANSLATION, 3);
	context_pkt(s, 0, 102);
	op_pkt(s, SPE_OP_CLASS_LDST, 0x00);                           /* LD, GP */
	events_pkt(s, 1, SPE_EV_RETIRED | SPE_EV_L1D_ACCESS | SPE_EV_L1D_REFILL |
		   SPE_EV_TLB_ACCESS | SPE_EV_LLC_ACCESS);
	source_pkt(s, 1, 0x9);
	ts_pkt(s, 123456789);
}

static enum spe_result read_one(const struct bytes *s, struct spe_record *rec)
{
	uint8_t *copy = exact(s->b, s->n);
	struct spe_reader r;
	enum spe_result res;

	spe_reader_init(&r, copy, s->n);
	res = spe_reader_next(&r, rec);
	free(copy);
	return res;
}

static void test_load_record(void)
{
	struct bytes s = { .n = 0 };
	struct spe_record rec;

	load_record(&s);
	CHECK(read_one(&s, &rec) == SPE_RECORD, "a load record");
	CHECK_EQ_U64(rec.has, SPE_HAS_PC | SPE_HAS_VADDR | SPE_HAS_PADDR | SPE_HAS_TOTAL_LAT |
		     SPE_HAS_ISSUE_LAT | SPE_HAS_XLAT_LAT | SPE_HAS_CONTEXT | SPE_HAS_OP |
		     SPE_HAS_EVENTS | SPE_HAS_SOURCE | SPE_HAS_TIMESTAMP, "load: packets");
	CHECK_EQ_U64(rec.pc, 0x401100, "load: pc");
	CHECK(rec.pc_ns && rec.pc_el == 0, "load: pc at EL0, non-secure");
	CHECK_EQ_U64(rec.vaddr, 0x601048, "load: data va without its tag");
	CHECK_EQ_U64(rec.paddr, 0x81234048, "load: data pa without NS");
	CHECK(rec.total_lat == 412 && rec.issue_lat == 12 && rec.xlat_lat == 3,
	      "load: latencies %u %u %u", rec.total_lat, rec.issue_lat, rec.xlat_lat);
	CHECK(rec.context == 102 && rec.context_el == 1, "load: context %u el%u", rec.context,
	      rec.context_el);
	CHECK(rec.op_class == SPE_OP_CLASS_LDST && !rec.store && rec.subclass == SPE_LDST_GP &&
	      !rec.atomic && !rec.exclusive && !rec.acq_rel, "load: GP load");
	CHECK_EQ_U64(rec.events, SPE_EV_RETIRED | SPE_EV_L1D_ACCESS | SPE_EV_L1D_REFILL |
		     SPE_EV_TLB_ACCESS | SPE_EV_LLC_ACCESS, "load: events");
	CHECK_EQ_U64(rec.source, 9, "load: data source (Neoverse peer core)");
	CHECK_EQ_U64(rec.timestamp, 123456789, "load: timestamp ends the record");
}

/* Kernel-half addresses keep their top byte; EL and the branch target. */
static void test_kernel_and_branch(void)
{
	struct bytes s = { .n = 0 };
	struct spe_record rec;

	addr_pkt(&s, SPE_ADDR_PC, 0x20ff800010001234ULL);     /* EL1, bit 55 set */
	addr_pkt(&s, SPE_ADDR_BRANCH_TARGET, 0x0000000000402000ULL);
	addr_pkt(&s, SPE_ADDR_PREV_BRANCH, 0x00ff800010000000ULL);
	op_pkt(&s, SPE_OP_CLASS_BRANCH, 0x03);                /* conditional, indirect */
	events_pkt(&s, 0, SPE_EV_RETIRED | SPE_EV_MISPREDICT);
	put(&s, 0x01);
	CHECK(read_one(&s, &rec) == SPE_RECORD, "a branch record ending in END");
	CHECK_EQ_U64(rec.pc, 0xffff800010001234ULL, "kernel pc sign-extended from bit 55");
	CHECK_EQ_U64(rec.pc_el, 1, "pc at EL1");
	CHECK(!rec.pc_ns, "secure bit clear");
	CHECK_EQ_U64(rec.branch_target, 0x402000, "branch target");
	CHECK_EQ_U64(rec.prev_branch, 0xffff800010000000ULL, "previous branch target");
	CHECK(rec.op_class == SPE_OP_CLASS_BRANCH && rec.conditional && rec.indirect,
	      "conditional indirect branch");
	CHECK(!(rec.has & SPE_HAS_TIMESTAMP), "END: no timestamp");
	CHECK_EQ_U64(rec.events, SPE_EV_RETIRED | SPE_EV_MISPREDICT, "branch events");
}

/* Every load/store subclass and the atomic, exclusive, acquire/release forms. */
static void test_ldst_forms(void)
{
	static const struct {
		uint8_t op;
		bool store, atomic, exclusive, acq_rel;
		enum spe_ldst_subclass sub;
		const char *what;
	} forms[] = {
		{ 0x00, false, false, false, false, SPE_LDST_GP, "LDR" },
		{ 0x01, true, false, false, false, SPE_LDST_GP, "STR" },
		{ 0x04, false, false, false, false, SPE_LDST_SIMD_FP, "LDR q0" },
		{ 0x05, true, false, false, false, SPE_LDST_SIMD_FP, "STR q0" },
		{ 0x10, false, false, false, false, SPE_LDST_UNSPECIFIED, "load, registers unspecified" },
		{ 0x11, true, false, false, false, SPE_LDST_UNSPECIFIED, "store, registers unspecified" },
		{ 0x08, false, false, false, false, SPE_LDST_SVE, "SVE LD1" },
		{ 0x79, true, false, false, false, SPE_LDST_SVE, "SVE ST1, EVL 256" },
		{ 0x14, false, false, false, false, SPE_LDST_MTE_TAG, "LDG" },
		{ 0x20, false, false, false, false, SPE_LDST_MEMCPY, "CPYF load" },
		{ 0x25, true, false, false, false, SPE_LDST_MEMSET, "SETP" },
		{ 0x30, false, false, false, false, SPE_LDST_NV_SYSREG, "NV sysreg" },
		{ 0x06, false, true, false, false, SPE_LDST_ATOMIC, "LDADD (load side)" },
		{ 0x07, true, true, false, false, SPE_LDST_ATOMIC, "LDADD (store side)" },
		{ 0x16, false, true, false, true, SPE_LDST_ATOMIC, "LDADDAL / CASAL" },
		{ 0x0a, false, false, true, false, SPE_LDST_ATOMIC, "LDXR" },
		{ 0x1b, true, false, true, true, SPE_LDST_ATOMIC, "STLXR" },
		{ 0x12, false, false, false, true, SPE_LDST_ATOMIC, "LDAR" },
		{ 0x13, true, false, false, true, SPE_LDST_ATOMIC, "STLR" },
		{ 0x40, false, false, false, false, SPE_LDST_OTHER, "a subclass of a later SPE" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		struct bytes s = { .n = 0 };
		struct spe_record rec;

		addr_pkt(&s, SPE_ADDR_DATA_VIRT, 0x601000);
		op_pkt(&s, SPE_OP_CLASS_LDST, forms[i].op);
		put(&s, 0x01);
		CHECK(read_one(&s, &rec) == SPE_RECORD, "%s: record", forms[i].what);
		CHECK(rec.op == forms[i].op && rec.store == forms[i].store &&
		      rec.atomic == forms[i].atomic && rec.exclusive == forms[i].exclusive &&
		      rec.acq_rel == forms[i].acq_rel && rec.subclass == forms[i].sub,
		      "%s (0x%02x): store %d atomic %d excl %d ar %d subclass %u, want %d %d %d %d %u",
		      forms[i].what, forms[i].op, rec.store, rec.atomic, rec.exclusive,
		      rec.acq_rel, rec.subclass, forms[i].store, forms[i].atomic,
		      forms[i].exclusive, forms[i].acq_rel, forms[i].sub);
	}
}

static void test_other_op(void)
{
	struct bytes s = { .n = 0 };
	struct spe_record rec;

	addr_pkt(&s, SPE_ADDR_PC, 0x401000);
	op_pkt(&s, SPE_OP_CLASS_OTHER, 0x01);                 /* CSEL */
	counter_pkt(&s, SPE_CNT_TOTAL, 2);
	ts_pkt(&s, 5);
	CHECK(read_one(&s, &rec) == SPE_RECORD, "other record");
	CHECK(rec.op_class == SPE_OP_CLASS_OTHER && rec.conditional && !(rec.has & SPE_HAS_VADDR),
	      "conditional select, no data address");
}

/* Records follow each other, padding between them is skipped. */
static void test_stream(void)
{
	struct bytes s = { .n = 0 };
	struct spe_record rec;
	struct spe_reader r;
	uint8_t *copy;
	int records = 0;
	enum spe_result res;

	put(&s, 0x00);
	load_record(&s);
	put(&s, 0x00);
	put(&s, 0x00);
	addr_pkt(&s, SPE_ADDR_DATA_VIRT, 0x601040);
	op_pkt(&s, SPE_OP_CLASS_LDST, 0x01);
	put(&s, 0x01);
	put(&s, 0x01);                                        /* an empty record */
	for (int i = 0; i < 6; i++)
		put(&s, 0x00);
	copy = exact(s.b, s.n);
	spe_reader_init(&r, copy, s.n);
	while ((res = spe_reader_next(&r, &rec)) == SPE_RECORD) {
		records++;
		if (records == 2)
			CHECK(rec.store && rec.vaddr == 0x601040, "second record: the store");
		if (records == 3)
			CHECK_EQ_U64(rec.has, 0, "third record: empty");
	}
	CHECK(res == SPE_DONE && records == 3, "stream: %d records, end %d", records, res);
	CHECK_EQ_U64(r.pos, s.n, "every byte read");
	free(copy);
}

/* --- broken streams -------------------------------------------------------------------- */

/* Every prefix of a record: a truncated packet or record, never a record. */
static void test_truncated(void)
{
	struct bytes s = { .n = 0 };
	int wrong = 0;

	load_record(&s);
	for (size_t n = 1; n < s.n; n++) {
		uint8_t *copy = exact(s.b, n);
		struct spe_reader r;
		struct spe_record rec;
		enum spe_result res;

		spe_reader_init(&r, copy, n);
		res = spe_reader_next(&r, &rec);
		if (res != SPE_ERR_TRUNCATED || r.pos > n)
			wrong++;
		CHECK(spe_reader_next(&r, &rec) == SPE_DONE, "after truncation: done");
		free(copy);
	}
	CHECK(wrong == 0, "%d of %zu prefixes not reported as truncated", wrong, s.n - 1);
	/* each packet alone, one byte short */
	{
		static const uint8_t addr7[] = { 0xb2, 1, 2, 3, 4, 5, 6, 7 };
		static const uint8_t ext1[] = { 0x20 };
		static const uint8_t cnt1[] = { 0x98, 0x01 };
		static const uint8_t ev_short[] = { 0x62, 1, 2, 3 };
		static const uint8_t ts_short[] = { 0x71, 1, 2, 3, 4, 5, 6, 7 };
		struct spe_packet p;

		CHECK_EQ_U64(get(addr7, sizeof(addr7), &p), (uint64_t)SPE_TRUNCATED, "address, 7 bytes");
		CHECK_EQ_U64(get(ext1, sizeof(ext1), &p), (uint64_t)SPE_TRUNCATED, "extended header alone");
		CHECK_EQ_U64(get(cnt1, sizeof(cnt1), &p), (uint64_t)SPE_TRUNCATED, "counter, 1 byte");
		CHECK_EQ_U64(get(ev_short, sizeof(ev_short), &p), (uint64_t)SPE_TRUNCATED,
			     "events, 3 of 4 bytes");
		CHECK_EQ_U64(get(ts_short, sizeof(ts_short), &p), (uint64_t)SPE_TRUNCATED,
			     "timestamp, 7 bytes");
		CHECK_EQ_U64(spe_packet_get(NULL, 0, 0, &p), (uint64_t)SPE_TRUNCATED, "nothing");
	}
}

/* Headers no SPE defines, and what the reader does after one. */
static void test_corrupt(void)
{
	static const uint8_t bad_headers[] = { 0x02, 0x03, 0x04, 0x08, 0x10, 0x40, 0x44,
					       0x80, 0xa0, 0xc0, 0xff };
	static const uint8_t ext_bad[] = { 0x20, 0x42, 0, 0 };   /* extended events: no */
	struct bytes s = { .n = 0 };
	struct spe_packet p;
	struct spe_record rec;
	struct spe_reader r;
	uint8_t *copy;

	for (size_t i = 0; i < sizeof(bad_headers); i++) {
		uint8_t b[16] = { bad_headers[i] };

		CHECK(spe_packet_get(b, sizeof(b), 0, &p) == SPE_BAD, "header 0x%02x is bad",
		      bad_headers[i]);
	}
	CHECK(get(ext_bad, sizeof(ext_bad), &p) == SPE_BAD, "extended header before events");

	/* a record, a bad byte in the middle of the next, another record */
	load_record(&s);
	addr_pkt(&s, SPE_ADDR_DATA_VIRT, 0x601000);
	put(&s, 0x02);
	addr_pkt(&s, SPE_ADDR_DATA_VIRT, 0x602000);
	op_pkt(&s, SPE_OP_CLASS_LDST, 0x01);
	put(&s, 0x01);
	copy = exact(s.b, s.n);
	spe_reader_init(&r, copy, s.n);
	CHECK(spe_reader_next(&r, &rec) == SPE_RECORD && rec.vaddr == 0x601048, "first record");
	CHECK(spe_reader_next(&r, &rec) == SPE_ERR_BAD, "the bad byte");
	CHECK_EQ_U64(r.error_at, s.n - 1 - 2 - 9 - 1, "error at the bad byte");
	CHECK(spe_reader_next(&r, &rec) == SPE_RECORD && rec.vaddr == 0x602000 && rec.store,
	      "resynchronised on the next record: 0x%" PRIx64, rec.vaddr);
	CHECK(spe_reader_next(&r, &rec) == SPE_DONE, "then done");
	free(copy);
}

/*
 * Mutated streams (a small fuzz loop, deterministic): flipped bytes, cut
 * ends, random headers.  The reader must end every one, never read past
 * it (the sanitizer build checks), and keep pos within the bytes.
 */
static void test_mutations(void)
{
	struct bytes base = { .n = 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	unsigned bad = 0;

	load_record(&base);
	addr_pkt(&base, 9, 0x1234);
	counter_pkt(&base, 5, 77);
	load_record(&base);
	for (int iter = 0; iter < 20000; iter++) {
		struct bytes m = base;
		struct spe_reader r;
		struct spe_record rec;
		uint8_t *copy;
		int steps = 0;

		for (int k = 0; k < 4; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			m.b[(seed >> 33) % m.n] = (uint8_t)(seed >> 17);
		}
		m.n -= (size_t)((seed >> 40) % 16);
		copy = exact(m.b, m.n);
		spe_reader_init(&r, copy, m.n);
		while (spe_reader_next(&r, &rec) != SPE_DONE && steps++ < 1000)
			if (r.pos > m.n)
				bad++;
		if (steps >= 1000 || r.pos != m.n)
			bad++;
		free(copy);
	}
	CHECK(bad == 0, "%u mutated streams misread", bad);
}

int main(void)
{
	test_packets();
	test_alignment();
	test_load_record();
	test_kernel_and_branch();
	test_ldst_forms();
	test_other_op();
	test_stream();
	test_truncated();
	test_corrupt();
	test_mutations();
	return test_done();
}
