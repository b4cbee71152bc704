/* hotspot_fieldstream.h - HotSpot's compressed field info, decoded.
 *
 * A JVM whose tables list InstanceKlass::_fieldinfo_stream (and not the
 * older Array<u2> _fields) keeps a class's field info as an Array<u1> of
 * UNSIGNED5 numbers: Pack200's variable-length code, 1 to 5 bytes for a
 * 32-bit value, never a zero byte.  The numbers are: the count of Java
 * fields, the count of fields the VM injected, then for each field its
 * name index, signature index, offset in the object, access flags (the
 * class file's) and HotSpot's field flags, followed by one more number for
 * each field flag that announces an optional item (a ConstantValue
 * initializer, a generic signature, an @Contended group, in that order);
 * a zero byte may end the stream.
 *
 * Contract:
 *  - Pure decoding of bytes already copied out of the target: no reads.
 *  - Which bit is which flag comes from the tables
 *    (FieldInfo::FieldFlags::_ff_*, bit positions); a record with a flag
 *    bit the tables did not name (it might announce an item this decoder
 *    does not know) is malformed: no field is better than a misread one.
 *  - Every read is bounded by the length; malformed input (a value cut
 *    off, a zero byte inside one, counts the bytes cannot hold, an index
 *    or access flags wider than 16 bits, bytes after the last field other
 *    than the zero end) gives -1 / false, never a crash.
 */
#ifndef CONTEND_HOTSPOT_FIELDSTREAM_H
#define CONTEND_HOTSPOT_FIELDSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The field-flag bits, as masks (1 << the tables' bit position). */
struct fieldstream_flags {
	uint32_t initialized;        /* optional item 1: initializer index */
	uint32_t injected;           /* indexes are vmSymbols', not the constant pool's */
	uint32_t generic;            /* optional item 2: generic signature index */
	uint32_t stable;
	uint32_t contended;          /* optional item 3: contention group */
};

/* One field record. */
struct fieldstream_field {
	uint32_t name_index, signature_index;
	uint32_t offset;             /* in the object (static: in the mirror) */
	uint32_t access_flags;       /* ACC_STATIC 0x0008, ... */
	uint32_t field_flags;
	uint32_t initializer_index, generic_signature_index, contention_group;  /* 0: none */
	bool injected;
};

struct fieldstream {
	const uint8_t *buf;
	size_t len, pos;
	uint32_t java_fields, injected_fields;
	uint32_t left;               /* records not yet read */
	struct fieldstream_flags flags;
};

/* One UNSIGNED5 value at buf[*pos]; *pos advanced.  False if it is cut
 * off by len or holds a zero byte. */
bool unsigned5_read(const uint8_t *buf, size_t len, size_t *pos, uint32_t *val);

/* Reads the header (the two counts); false if malformed. */
bool fieldstream_begin(struct fieldstream *s, const uint8_t *buf, size_t len,
		       const struct fieldstream_flags *flags);
/* The next record into *f: 1; 0 at the end of a well-formed stream; -1 if
 * malformed (then stays -1). */
int fieldstream_next(struct fieldstream *s, struct fieldstream_field *f);

#endif
