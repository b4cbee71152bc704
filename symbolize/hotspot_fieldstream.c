/* hotspot_fieldstream.c - HotSpot's compressed field info, decoded. */
#include "symbolize/hotspot_fieldstream.h"

#include <string.h>

/* UNSIGNED5: byte 0 is never used (excluded); a byte below 1 + 191 is a
 * "low" byte and ends a value, the 64 above it are "high" bytes that carry
 * 6 bits each and continue it; the fifth byte ends a value whatever it is.
 * Byte i adds (b - 1) << (6 * i).  Sums wrap at 32 bits as HotSpot's do. */
#define U5_EXCLUDED 1
#define U5_LOW 191
#define U5_HIGH_BITS 6
#define U5_MAX_BYTES 5

/* the smallest record: five one-byte numbers */
#define MIN_RECORD_BYTES 5

bool unsigned5_read(const uint8_t *buf, size_t len, size_t *pos, uint32_t *val)
{
	uint32_t sum = 0;

	for (unsigned i = 0; i < U5_MAX_BYTES; i++) {
		uint32_t b;

		if (*pos + i >= len || buf[*pos + i] < U5_EXCLUDED)
			return false;
		b = buf[*pos + i];
		sum += (b - U5_EXCLUDED) << (U5_HIGH_BITS * i);
		if (b < U5_EXCLUDED + U5_LOW || i == U5_MAX_BYTES - 1) {
			*pos += i + 1;
			*val = sum;
			return true;
		}
	}
	return false;   /* not reached: the fifth byte always ends a value */
}

bool fieldstream_begin(struct fieldstream *s, const uint8_t *buf, size_t len,
		       const struct fieldstream_flags *flags)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
	s->flags = *flags;
	if (!unsigned5_read(buf, len, &s->pos, &s->java_fields) ||
	    !unsigned5_read(buf, len, &s->pos, &s->injected_fields))
		return false;
	/* counts the remaining bytes cannot hold are not believed */
	if ((uint64_t)s->java_fields + s->injected_fields > (len - s->pos) / MIN_RECORD_BYTES)
		return false;
	s->left = s->java_fields + s->injected_fields;
	return true;
}

static bool read_u16(struct fieldstream *s, uint32_t *val)
{
	return unsigned5_read(s->buf, s->len, &s->pos, val) && *val <= 0xffff;
}

/* The optional item that flag announces, if set; 0 if not. */
static bool read_optional(struct fieldstream *s, uint32_t field_flags, uint32_t flag,
			  uint32_t *val)
{
	*val = 0;
	return !(field_flags & flag) || read_u16(s, val);
}

static int malformed(struct fieldstream *s)
{
	s->left = 0;
	s->pos = s->len + 1;   /* stays malformed */
	return -1;
}

int fieldstream_next(struct fieldstream *s, struct fieldstream_field *f)
{
	const struct fieldstream_flags *fl = &s->flags;
	uint32_t known = fl->initialized | fl->injected | fl->generic | fl->stable | fl->contended;

	if (s->pos > s->len)
		return -1;
	if (!s->left) {
		/* after the last record: nothing, or the zero end byte */
		if (s->pos < s->len && (s->buf[s->pos] != 0 || s->pos + 1 != s->len))
			return malformed(s);
		return 0;
	}
	memset(f, 0, sizeof(*f));
	if (!read_u16(s, &f->name_index) || !read_u16(s, &f->signature_index) ||
	    !unsigned5_read(s->buf, s->len, &s->pos, &f->offset) ||
	    !read_u16(s, &f->access_flags) ||
	    !unsigned5_read(s->buf, s->len, &s->pos, &f->field_flags) ||
	    (f->field_flags & ~known) ||
	    !read_optional(s, f->field_flags, fl->initialized, &f->initializer_index) ||
	    !read_optional(s, f->field_flags, fl->generic, &f->generic_signature_index) ||
	    !read_optional(s, f->field_flags, fl->contended, &f->contention_group))
		return malformed(s);
	f->injected = (f->field_flags & fl->injected) != 0;
	s->left--;
	return 1;
}
