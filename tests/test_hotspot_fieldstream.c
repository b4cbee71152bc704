/* Unit tests for symbolize/hotspot_fieldstream.c: UNSIGNED5 values at
 * every length boundary (from bytes written out by hand, and through an
 * encoder written here from the grammar), and field-info streams built
 * here: optional items in each combination and order, an injected field,
 * a 5-byte value, and malformed streams (cut anywhere, unknown flags,
 * bad counts, trailing bytes) that must fail without a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/hotspot_fieldstream.h"
#include "tests/tap.h"

/* The bit positions JDK 25's tables give (FieldInfo::FieldFlags::_ff_*). */
static const struct fieldstream_flags jdk_flags = {
	.initialized = 1u << 0, .injected = 1u << 1, .generic = 1u << 2,
	.stable = 1u << 3, .contended = 1u << 4,
};

/* UNSIGNED5 from its grammar: while the value needs more than a low byte,
 * take off the 191 low codes, emit a high byte (192 + 6 bits), shift. */
static size_t encode(uint32_t v, uint8_t *out)
{
	size_t i = 0;

	while (v >= 191 && i < 4) {
		v -= 191;
		out[i++] = (uint8_t)(192 + (v & 63));
		v >>= 6;
	}
	out[i++] = (uint8_t)(1 + v);
	return i;
}

struct bytes {
	uint8_t b[512];
	size_t n;
};

static void put(struct bytes *s, uint32_t v)
{
	s->n += encode(v, s->b + s->n);
}

static void check_decode(const uint8_t *in, size_t len, uint32_t want, const char *what)
{
	size_t pos = 0;
	uint32_t v = 0;

	CHECK(unsigned5_read(in, len, &pos, &v) && v == want && pos == len,
	      "%s: got 0x%x after %zu bytes, want 0x%x after %zu", what, v, pos, want, len);
}

static void test_unsigned5_by_hand(void)
{
	static const uint8_t zero[] = { 0x01 }, max1[] = { 0xbf }, min2[] = { 0xc0, 0x01 },
		max2[] = { 0xff, 0xbf }, min3[] = { 0xc0, 0xc0, 0x01 },
		min5[] = { 0xc0, 0xc0, 0xc0, 0xc0, 0x01 },
		all_ones[] = { 0xc0, 0xfe, 0xfd, 0xfd, 0xfd };
	static const uint8_t excluded[] = { 0x00 }, cut[] = { 0xc0, 0xff },
		zero_inside[] = { 0xc0, 0x00, 0x01 };
	size_t pos = 0;
	uint32_t v = 7;

	check_decode(zero, sizeof(zero), 0, "0x01");
	check_decode(max1, sizeof(max1), 190, "largest one-byte value");
	check_decode(min2, sizeof(min2), 191, "smallest two-byte value");
	check_decode(max2, sizeof(max2), 0x307e, "largest two-byte value");
	check_decode(min3, sizeof(min3), 0x307f, "smallest three-byte value");
	/* 191 * (1 + 64 + 64^2 + 64^3): four high bytes, then a zero digit */
	check_decode(min5, sizeof(min5), 0x308207f, "smallest five-byte value");
	check_decode(all_ones, sizeof(all_ones), 0xffffffff, "0xffffffff in five bytes");

	CHECK(!unsigned5_read(excluded, sizeof(excluded), &pos, &v) && pos == 0,
	      "a zero byte decoded (pos %zu)", pos);
	CHECK(!unsigned5_read(cut, sizeof(cut), &pos, &v) && pos == 0,
	      "a value cut off by the end decoded");
	CHECK(!unsigned5_read(zero_inside, sizeof(zero_inside), &pos, &v) && pos == 0,
	      "a value with a zero byte inside decoded");
	CHECK(!unsigned5_read(min2, 0, &pos, &v), "read past a zero length");
	CHECK(v == 7, "a failed read set the value");
	/* the fifth byte ends a value even when it is a high byte */
	static const uint8_t five_high[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	CHECK(unsigned5_read(five_high, sizeof(five_high), &pos, &v) && pos == 5,
	      "five high bytes: read %zu bytes", pos);
}

static void test_unsigned5_lengths(void)
{
	static const struct { uint32_t v; size_t len; } cases[] = {
		{ 0, 1 }, { 190, 1 }, { 191, 2 }, { 0x307e, 2 }, { 0x307f, 3 },
		{ 0xc207e, 3 }, { 0xc207f, 4 }, { 0x308207e, 4 }, { 0x308207f, 5 },
		{ 0x7fffffff, 5 }, { 0xffffffff, 5 },
	};
	unsigned bad = 0;
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b[8];
		size_t n = encode(cases[i].v, b);

		CHECK(n == cases[i].len, "0x%x encodes in %zu bytes, want %zu", cases[i].v, n,
		      cases[i].len);
		check_decode(b, n, cases[i].v, "round trip at a length boundary");
	}
	/* and a spread of others, with no zero byte in any encoding */
	for (int i = 0; i < 100000; i++) {
		uint8_t b[8];
		size_t n, pos = 0;
		uint32_t v = 0;

		x = x * 1103515245u + 12345u;
		n = encode(x >> (i % 32), b);
		bad += !unsigned5_read(b, n, &pos, &v) || v != x >> (i % 32) || pos != n ||
		       memchr(b, 0, n) != NULL;
	}
	CHECK(bad == 0, "%u of 100000 values did not round-trip", bad);
}

/* Java fields a (volatile long), K (static final, ConstantValue, @Stable,
 * its offset a 5-byte value), names (generic, @Contended group 3), all
 * (initializer, generic, contended: 5, 6, 7 in that order), then one
 * injected field with 2-byte indexes, and the zero end. */
static void build_stream(struct bytes *s, bool end)
{
	const struct fieldstream_flags *f = &jdk_flags;

	memset(s, 0, sizeof(*s));
	put(s, 4);
	put(s, 1);
	put(s, 10); put(s, 11); put(s, 16); put(s, 0x0040); put(s, 0);
	put(s, 12); put(s, 13); put(s, 0x308207f); put(s, 0x0018);
	put(s, f->initialized | f->stable); put(s, 14);
	put(s, 15); put(s, 16); put(s, 24); put(s, 0x0002);
	put(s, f->generic | f->contended); put(s, 17); put(s, 3);
	put(s, 18); put(s, 19); put(s, 32); put(s, 0x0001);
	put(s, f->initialized | f->generic | f->contended); put(s, 5); put(s, 6); put(s, 7);
	put(s, 300); put(s, 301); put(s, 40); put(s, 0x0002); put(s, f->injected);
	if (end)
		s->b[s->n++] = 0;
}

static void test_stream(void)
{
	struct fieldstream_field f[6];
	struct fieldstream s;
	struct bytes b;
	int r = 0;
	size_t n = 0;

	build_stream(&b, true);
	CHECK(fieldstream_begin(&s, b.b, b.n, &jdk_flags), "header");
	CHECK(s.java_fields == 4 && s.injected_fields == 1, "counts %u + %u, want 4 + 1",
	      s.java_fields, s.injected_fields);
	while (n < 6 && (r = fieldstream_next(&s, &f[n])) == 1)
		n++;
	CHECK(n == 5 && r == 0, "%zu records then %d, want 5 then the end", n, r);
	if (n != 5)
		return;
	CHECK(f[0].name_index == 10 && f[0].signature_index == 11 && f[0].offset == 16 &&
	      f[0].access_flags == 0x40 && f[0].field_flags == 0 && !f[0].injected &&
	      !f[0].initializer_index && !f[0].generic_signature_index && !f[0].contention_group,
	      "a: name %u sig %u offset %u access 0x%x", f[0].name_index, f[0].signature_index,
	      f[0].offset, f[0].access_flags);
	CHECK(f[1].name_index == 12 && f[1].offset == 0x308207f && f[1].access_flags == 0x18 &&
	      f[1].initializer_index == 14 && !f[1].generic_signature_index,
	      "K: offset 0x%x (5 bytes), initializer %u", f[1].offset, f[1].initializer_index);
	CHECK(f[2].name_index == 15 && f[2].offset == 24 && !f[2].initializer_index &&
	      f[2].generic_signature_index == 17 && f[2].contention_group == 3,
	      "names: generic %u, group %u", f[2].generic_signature_index, f[2].contention_group);
	CHECK(f[3].name_index == 18 && f[3].offset == 32 && f[3].initializer_index == 5 &&
	      f[3].generic_signature_index == 6 && f[3].contention_group == 7,
	      "all three optional items: %u %u %u, want 5 6 7", f[3].initializer_index,
	      f[3].generic_signature_index, f[3].contention_group);
	CHECK(f[4].injected && f[4].name_index == 300 && f[4].signature_index == 301 &&
	      f[4].offset == 40, "injected: %d name %u offset %u", f[4].injected,
	      f[4].name_index, f[4].offset);
	CHECK(fieldstream_next(&s, &f[5]) == 0, "the end is not sticky");

	/* without the zero end byte: as well-formed */
	build_stream(&b, false);
	n = 0;
	CHECK(fieldstream_begin(&s, b.b, b.n, &jdk_flags), "header, no end byte");
	while ((r = fieldstream_next(&s, &f[0])) == 1)
		n++;
	CHECK(n == 5 && r == 0, "no end byte: %zu records then %d", n, r);

	/* flags on other bits, as other tables may give them */
	struct fieldstream_flags moved = {
		.initialized = 1u << 4, .injected = 1u << 3, .generic = 1u << 2,
		.stable = 1u << 1, .contended = 1u << 0,
	};
	memset(&b, 0, sizeof(b));
	put(&b, 1); put(&b, 0);
	put(&b, 1); put(&b, 2); put(&b, 12); put(&b, 0);
	put(&b, moved.initialized | moved.contended); put(&b, 9); put(&b, 4);
	CHECK(fieldstream_begin(&s, b.b, b.n, &moved) && fieldstream_next(&s, &f[0]) == 1 &&
	      f[0].initializer_index == 9 && f[0].contention_group == 4 &&
	      fieldstream_next(&s, &f[1]) == 0,
	      "flags from the tables: initializer %u, group %u", f[0].initializer_index,
	      f[0].contention_group);
}

/* Runs the stream to its end: 0 well-formed, -1 malformed. */
static int run(const uint8_t *buf, size_t len, const struct fieldstream_flags *flags)
{
	struct fieldstream_field f;
	struct fieldstream s;
	int r, guard = 0;

	if (!fieldstream_begin(&s, buf, len, flags))
		return -1;
	while ((r = fieldstream_next(&s, &f)) == 1 && guard++ < 1000)
		;
	return r;
}

static void test_malformed(void)
{
	struct bytes b;
	unsigned accepted = 0;
	struct fieldstream s;
	struct fieldstream_field f;

	/* every cut of the stream fails somewhere (the last byte is the
	 * optional end: the cut before it is well-formed) */
	build_stream(&b, true);
	for (size_t len = 0; len + 1 < b.n; len++)
		accepted += run(b.b, len, &jdk_flags) != -1;
	CHECK(accepted == 0, "%u cut streams accepted", accepted);

	/* a flag bit the tables do not name may announce an unknown item */
	memset(&b, 0, sizeof(b));
	put(&b, 1); put(&b, 0);
	put(&b, 1); put(&b, 2); put(&b, 12); put(&b, 0); put(&b, 1u << 5); put(&b, 9);
	CHECK(run(b.b, b.n, &jdk_flags) == -1, "an unknown flag (bit 5) accepted");

	/* counts the bytes cannot hold */
	memset(&b, 0, sizeof(b));
	put(&b, 100); put(&b, 0);
	put(&b, 1); put(&b, 2); put(&b, 12); put(&b, 0); put(&b, 0);
	CHECK(!fieldstream_begin(&s, b.b, b.n, &jdk_flags), "100 fields in 7 bytes");
	memset(&b, 0, sizeof(b));
	put(&b, 0xffffffff); put(&b, 2);
	CHECK(!fieldstream_begin(&s, b.b, b.n, &jdk_flags), "2^32 - 1 + 2 fields");

	/* an index wider than a u2 */
	memset(&b, 0, sizeof(b));
	put(&b, 1); put(&b, 0);
	put(&b, 0x10000); put(&b, 2); put(&b, 12); put(&b, 0); put(&b, 0);
	CHECK(run(b.b, b.n, &jdk_flags) == -1, "a name index of 0x10000 accepted");

	/* bytes after the last record other than one zero */
	build_stream(&b, true);
	b.b[b.n++] = 0x05;
	CHECK(run(b.b, b.n, &jdk_flags) == -1, "a byte after the end accepted");
	build_stream(&b, false);
	b.b[b.n++] = 0x05;
	CHECK(run(b.b, b.n, &jdk_flags) == -1, "an extra value after the last field accepted");

	/* malformed stays malformed */
	memset(&b, 0, sizeof(b));
	put(&b, 2); put(&b, 0);
	put(&b, 1); put(&b, 2); put(&b, 12); put(&b, 0); put(&b, 1u << 6);
	put(&b, 1); put(&b, 2); put(&b, 20); put(&b, 0); put(&b, 0);
	CHECK(fieldstream_begin(&s, b.b, b.n, &jdk_flags) && fieldstream_next(&s, &f) == -1 &&
	      fieldstream_next(&s, &f) == -1, "a record after a malformed one read");

	/* random bytes: no crash (run under the sanitizers), and the
	 * decoder never reads a record from an empty tail */
	uint32_t x = 1;
	for (int i = 0; i < 20000; i++) {
		uint8_t junk[64];
		size_t len = (size_t)(i % 64);

		for (size_t k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			junk[k] = (uint8_t)(x >> 16);
		}
		run(junk, len, &jdk_flags);
	}
	CHECK(true, "random streams");
}

int main(void)
{
	test_unsigned5_by_hand();
	test_unsigned5_lengths();
	test_stream();
	test_malformed();
	return test_done();
}
