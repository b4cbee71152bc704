/* hotspot_fields.c - Java objects and their fields, read through HotSpot's
 * tables: the object that holds a heap address, and a class's field layout
 * from its field info and constant pool.
 *
 * The field info comes in the format the tables describe, whichever they
 * list: InstanceKlass::_fields, an Array<u2> of _java_fields_count records
 * of FieldInfo::field_slots u2s, the offset packed in low/high_packed_offset
 * with a tag of FIELDINFO_TAG_SIZE bits (FIELDINFO_TAG_OFFSET: an offset is
 * set); or InstanceKlass::_fieldinfo_stream, an Array<u1> of compressed
 * records (hotspot_fieldstream.h) whose flag bits the tables give as
 * FieldInfo::FieldFlags::_ff_*.  A JVM whose tables list neither, or not
 * all that the format needs, gets no field names, never wrong ones.
 */
#include "symbolize/hotspot_internal.h"
#include "symbolize/hotspot_fieldstream.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define MAX_OBJECT_SCAN 4096      /* bytes back from the address to an object start */
#define MAX_JAVA_FIELDS 4096      /* per class */
#define MAX_FIELD_STREAM (MAX_JAVA_FIELDS * 40)  /* bytes: 8 numbers of 5 bytes per field */
#define MAX_SUPER_DEPTH 64
#define ACC_STATIC 0x0008         /* the class file format's, not HotSpot's */

static bool plausible_pointer(uint64_t p)
{
	return p >= 4096 && p < (1ULL << 47);
}

/* A Symbol's bytes that look like a Java identifier or a descriptor. */
static bool read_symbol(const struct hotspot *h, uint64_t sym, char *buf, size_t len)
{
	const struct hotspot_field *lenf = hotspot_field(h, "Symbol", "_length");
	int64_t body_off = hotspot_field_offset(h, "Symbol", "_body");
	uint64_t n;

	if (!lenf || lenf->is_static || body_off < 0 || !plausible_pointer(sym) ||
	    !hs_read_uint(h->task, sym + lenf->offset, lenf->size ? lenf->size : 2, &n) ||
	    n < 1 || n >= len || !hs_read_target(h->task, sym + (uint64_t)body_off, buf, n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (buf[i] < 0x21 || buf[i] > 0x7e)
			return false;
	buf[n] = '\0';
	return true;
}

/* The Symbol at constant pool index idx. */
static bool cp_symbol(const struct hotspot *h, uint64_t cp, uint64_t idx, char *buf, size_t len)
{
	int64_t len_off = hotspot_field_offset(h, "ConstantPool", "_length");
	uint64_t header, count, sym;

	if (len_off < 0 || !hotspot_type_size(h, "ConstantPool", &header) || !header ||
	    !hs_read_uint(h->task, cp + (uint64_t)len_off, 4, &count) || !idx || idx >= count ||
	    !hs_read_u64(h->task, cp + header + 8 * idx, &sym))
		return false;
	return read_symbol(h, sym, buf, len);
}

/* Bytes of a field of descriptor sig, as the object holds it. */
static uint64_t descriptor_size(const struct hotspot *h, const char *sig)
{
	switch (sig[0]) {
	case 'J': case 'D':
		return 8;
	case 'I': case 'F':
		return 4;
	case 'S': case 'C':
		return 2;
	case 'B': case 'Z':
		return 1;
	case 'L': case '[':
		return h->narrow_oop.known && h->narrow_oop.compressed ? 4 : 8;
	}
	return 0;
}

struct field_info_layout {
	bool stream;                 /* _fieldinfo_stream, else _fields */
	struct fieldstream_flags flags;   /* stream: the field-flag bits */
	int32_t slots, flags_at, name_at, sig_at, low_at, high_at, tag_size, tag_offset;
	int64_t fields_off, count_off, constants_off, data_off, super_off;
};

/* mask: 1 << FieldInfo::FieldFlags::name, the bit position the tables give */
static bool field_flag(const struct hotspot *h, const char *name, uint32_t *mask)
{
	char *full = xasprintf("FieldInfo::FieldFlags::%s", name);
	int32_t pos;
	bool ok = hotspot_int_constant(h, full, &pos) && pos >= 0 && pos < 32;

	free(full);
	*mask = ok ? 1u << pos : 0;
	return ok;
}

/* The compressed format: the stream, its Array<u1> data, and the flags
 * that announce optional items (all of them, on distinct bits). */
static bool stream_layout(const struct hotspot *h, struct field_info_layout *fl)
{
	struct fieldstream_flags *ff = &fl->flags;

	fl->stream = true;
	fl->fields_off = hotspot_field_offset(h, "InstanceKlass", "_fieldinfo_stream");
	fl->data_off = hotspot_field_offset(h, "Array<u1>", "_data");
	if (fl->fields_off < 0 || fl->data_off < 0 ||
	    !field_flag(h, "_ff_initialized", &ff->initialized) ||
	    !field_flag(h, "_ff_injected", &ff->injected) ||
	    !field_flag(h, "_ff_generic", &ff->generic) ||
	    !field_flag(h, "_ff_contended", &ff->contended))
		return false;
	field_flag(h, "_ff_stable", &ff->stable);   /* no item: may be unlisted */
	return __builtin_popcount(ff->initialized | ff->injected | ff->generic |
				  ff->stable | ff->contended) ==
		4 + (ff->stable != 0);
}

static bool field_info_layout(const struct hotspot *h, struct field_info_layout *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->constants_off = hotspot_field_offset(h, "InstanceKlass", "_constants");
	fl->super_off = hotspot_field_offset(h, "Klass", "_super");
	if (fl->constants_off < 0 || fl->super_off < 0)
		return false;
	if (hotspot_field(h, "InstanceKlass", "_fieldinfo_stream"))
		return stream_layout(h, fl);
	fl->fields_off = hotspot_field_offset(h, "InstanceKlass", "_fields");
	fl->count_off = hotspot_field_offset(h, "InstanceKlass", "_java_fields_count");
	fl->data_off = hotspot_field_offset(h, "Array<u2>", "_data");
	return fl->fields_off >= 0 && fl->count_off >= 0 && fl->data_off >= 0 &&
		hotspot_int_constant(h, "FieldInfo::field_slots", &fl->slots) &&
		hotspot_int_constant(h, "FieldInfo::access_flags_offset", &fl->flags_at) &&
		hotspot_int_constant(h, "FieldInfo::name_index_offset", &fl->name_at) &&
		hotspot_int_constant(h, "FieldInfo::signature_index_offset", &fl->sig_at) &&
		hotspot_int_constant(h, "FieldInfo::low_packed_offset", &fl->low_at) &&
		hotspot_int_constant(h, "FieldInfo::high_packed_offset", &fl->high_at) &&
		hotspot_int_constant(h, "FIELDINFO_TAG_SIZE", &fl->tag_size) &&
		hotspot_int_constant(h, "FIELDINFO_TAG_OFFSET", &fl->tag_offset) &&
		fl->slots > 0 && fl->slots <= 16 && fl->tag_size >= 0 && fl->tag_size < 16;
}

/* Appends one named field; false if its name or signature is unreadable. */
static bool add_field(const struct hotspot *h, uint64_t klass, uint64_t cp,
		      uint64_t name_index, uint64_t sig_index, uint64_t offset,
		      struct hotspot_java_field **v, size_t *n, size_t *alloc)
{
	struct hotspot_java_field *f;

	ALLOC_GROW(*v, *n + 1, *alloc);
	f = &(*v)[*n];
	memset(f, 0, sizeof(*f));
	if (!cp_symbol(h, cp, name_index, f->name, sizeof(f->name)) ||
	    !cp_symbol(h, cp, sig_index, f->signature, sizeof(f->signature)))
		return false;
	f->offset = offset;
	f->size = descriptor_size(h, f->signature);
	f->klass = klass;
	(*n)++;
	return true;
}

/* Appends klass's own nonstatic fields, from its Array<u2> _fields. */
static bool class_fields_slots(const struct hotspot *h, const struct field_info_layout *fl,
			       uint64_t klass, uint64_t cp,
			       struct hotspot_java_field **v, size_t *n, size_t *alloc)
{
	uint64_t fields, count, len;
	uint16_t rec[16];

	if (!hs_read_u64(h->task, klass + (uint64_t)fl->fields_off, &fields) ||
	    !hs_read_uint(h->task, klass + (uint64_t)fl->count_off, 2, &count) ||
	    count > MAX_JAVA_FIELDS)
		return false;
	if (!count)
		return true;
	/* Array<u2>: an int length, then the data */
	if (!plausible_pointer(fields) || !hs_read_uint(h->task, fields, 4, &len) ||
	    len < count * (uint64_t)fl->slots)
		return false;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t at = fields + (uint64_t)fl->data_off + 2 * i * (uint64_t)fl->slots;
		uint32_t packed;

		if (!hs_read_target(h->task, at, rec, 2 * (size_t)fl->slots))
			return false;
		packed = (uint32_t)rec[fl->high_at] << 16 | rec[fl->low_at];
		if ((rec[fl->flags_at] & ACC_STATIC) ||
		    (packed & ((1u << fl->tag_size) - 1)) != (uint32_t)fl->tag_offset)
			continue;
		/* an injected field, named by the VM: skipped */
		add_field(h, klass, cp, rec[fl->name_at], rec[fl->sig_at],
			  packed >> fl->tag_size, v, n, alloc);
	}
	return true;
}

/* Appends klass's own nonstatic fields, from its Array<u1> _fieldinfo_stream. */
static bool class_fields_stream(const struct hotspot *h, const struct field_info_layout *fl,
				uint64_t klass, uint64_t cp,
				struct hotspot_java_field **v, size_t *n, size_t *alloc)
{
	struct fieldstream_field f;
	struct fieldstream s;
	uint64_t stream, len;
	uint8_t *buf;
	bool ok;
	int r = -1;

	/* Array<u1>: an int length, then the bytes */
	if (!hs_read_u64(h->task, klass + (uint64_t)fl->fields_off, &stream) ||
	    !plausible_pointer(stream) || !hs_read_uint(h->task, stream, 4, &len) ||
	    len > MAX_FIELD_STREAM)
		return false;
	if (!len)
		return true;   /* a shared empty array: no fields */
	buf = xmalloc(len);
	ok = hs_read_target(h->task, stream + (uint64_t)fl->data_off, buf, len) &&
	     fieldstream_begin(&s, buf, len, &fl->flags) && s.java_fields <= MAX_JAVA_FIELDS;
	while (ok && (r = fieldstream_next(&s, &f)) == 1) {
		/* injected fields are named by the VM's own symbols */
		if ((f.access_flags & ACC_STATIC) || f.injected)
			continue;
		ok = add_field(h, klass, cp, f.name_index, f.signature_index, f.offset,
			       v, n, alloc);
	}
	free(buf);
	return ok && r == 0;
}

/* Appends klass's own nonstatic fields. */
static bool class_fields(const struct hotspot *h, const struct field_info_layout *fl,
			 uint64_t klass, struct hotspot_java_field **v, size_t *n, size_t *alloc)
{
	uint64_t cp;

	if (!hs_read_u64(h->task, klass + (uint64_t)fl->constants_off, &cp) ||
	    !plausible_pointer(cp))
		return false;
	if (fl->stream)
		return class_fields_stream(h, fl, klass, cp, v, n, alloc);
	return class_fields_slots(h, fl, klass, cp, v, n, alloc);
}

static int cmp_java_field(const void *a, const void *b)
{
	const struct hotspot_java_field *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

struct hotspot_java_field *hotspot_java_fields(const struct hotspot *h, uint64_t klass,
					       size_t *n)
{
	struct field_info_layout fl;
	struct hotspot_java_field *v = NULL;
	size_t alloc = 0;

	*n = 0;
	if (!field_info_layout(h, &fl))
		return NULL;
	for (unsigned depth = 0; plausible_pointer(klass) && depth < MAX_SUPER_DEPTH; depth++) {
		if (!class_fields(h, &fl, klass, &v, n, &alloc)) {
			free(v);
			*n = 0;
			return NULL;
		}
		if (!hs_read_u64(h->task, klass + (uint64_t)fl.super_off, &klass))
			break;
	}
	if (*n)
		sort_items(v, *n, sizeof(*v), cmp_java_field);
	return v;
}

uint64_t hotspot_object_containing(const struct hotspot *h, uint64_t addr, uint64_t *klass)
{
	int64_t lh_off = hotspot_field_offset(h, "Klass", "_layout_helper");
	uint64_t start = addr & ~7ULL;

	if (lh_off < 0 || !plausible_pointer(addr))
		return 0;
	/* objects are 8-byte aligned; the nearest start whose class pointer
	 * decodes to a named class, of an instance size that reaches addr */
	for (uint64_t back = 0; back <= MAX_OBJECT_SCAN && back <= start; back += 8) {
		uint64_t obj = start - back, k = hotspot_object_klass(h, obj), lh;

		if (!k || !hs_read_uint(h->task, k + (uint64_t)lh_off, 4, &lh))
			continue;
		/* an instance's layout helper is its size in bytes (bit 0: slow
		 * path); arrays' are negative: not taken */
		if ((int32_t)lh <= 0 || (uint64_t)(lh & ~1ULL) <= addr - obj)
			continue;
		*klass = k;
		return obj;
	}
	return 0;
}
