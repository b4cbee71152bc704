/* hotspot.h - HotSpot's own description of its data, read from a live JVM.
 *
 * HotSpot exports, for its Serviceability Agent, tables describing its C++
 * types (gHotSpotVMStructs: fields, gHotSpotVMTypes: types and sizes,
 * gHotSpotVMIntConstants / gHotSpotVMLongConstants) together with the
 * layout of the table entries themselves (gHotSpotVMStructEntry*Offset,
 * ...ArrayStride).  hotspot_open() finds libjvm.so in the target's maps,
 * looks those symbols up in its dynamic symbol table and copies the tables
 * out of the target's memory, so every offset and size below is the one of
 * the JVM that runs, with no version-specific constant in contend.
 *
 * Contract:
 *  - hotspot_open() fails (NULL) with a one-line reason in *err: not a
 *    HotSpot JVM, tables absent, permission denied (ptrace access), the
 *    process gone.  Everything read from the target is data: lengths and
 *    counts are bounded and strings must be printable ASCII, else the open
 *    fails ("table ... malformed") rather than trusting them.
 *  - Returned strings belong to the hotspot handle and live until
 *    hotspot_close().  Lookups never read the target again, except those
 *    that say so (klass names, static values, objects), which re-read it
 *    each call and return false on any failed or implausible read.
 *  - Type names are HotSpot's C++ names ("Klass", "InstanceKlass",
 *    "Symbol"); field names are as the tables spell them ("_name",
 *    "_metadata._compressed_klass").  Lookups of a field in a type also
 *    search its superclasses as the type table links them.
 *  - The target is a 64-bit little-endian JVM like contend (x86-64).
 *  - Cost: hotspot_open ~2000 small reads (6 ms on JDK 17); keep one
 *    handle per JVM.  hotspot_describe: up to 512 candidate starts of 2-3
 *    reads each.  hotspot_flag_bool walks the flag table (~1000 flags).
 *
 * For a report: h = hotspot_open(pid, &err) once, then for a contended
 * address hotspot_describe(h, addr, &line), and hotspot_klass_containing +
 * hotspot_layout(h, "InstanceKlass") to show the neighbouring fields.
 */
#ifndef CONTEND_HOTSPOT_H
#define CONTEND_HOTSPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/util.h"

struct hotspot;

/* One field of a HotSpot type, as gHotSpotVMStructs lists it. */
struct hotspot_field {
	const char *type;          /* the type that declares it: "Klass" */
	const char *name;          /* "_secondary_super_cache" */
	const char *type_string;   /* C++ type: "Klass*", "u2"; NULL: unchecked */
	uint64_t offset;           /* nonstatic: byte offset in the object */
	uint64_t address;          /* static: address of the variable */
	uint64_t size;             /* bytes, 0 if the tables do not say */
	bool is_static;
};

/* Is this mapped path (a /proc/PID/maps name) HotSpot's libjvm.so?  A
 * JVM whose JDK was upgraded under it maps "... libjvm.so (deleted)". */
bool hotspot_is_libjvm_path(const char *path);

/* Whether user uid could have written pid's libjvm.so: it owns the file
 * or the file is group- or world-writable.  Then its HotSpot tables prove
 * nothing to a more privileged reader (jvm_attach.c).  True, to fail
 * closed, when the file cannot be found or opened. */
bool hotspot_libjvm_writable_by(pid_t pid, uid_t uid);

/* Attach to pid's libjvm.so (reads only; the JVM keeps running). */
struct hotspot *hotspot_open(pid_t pid, struct strbuf *err);
void hotspot_close(struct hotspot *h);

pid_t hotspot_pid(const struct hotspot *h);
/* Every entry of gHotSpotVMStructs, in table order: *n set. */
const struct hotspot_field *hotspot_fields(const struct hotspot *h, size_t *n);

/* The field type.field (nonstatic or static), or NULL. */
const struct hotspot_field *hotspot_field(const struct hotspot *h,
					  const char *type, const char *field);
/* Offset of a nonstatic field; -1 if unknown. */
int64_t hotspot_field_offset(const struct hotspot *h, const char *type,
			     const char *field);
/* The nonstatic field of type (or a superclass) that covers byte offset:
 * starts there, or starts before it and its size reaches it.  A field
 * of unknown size, or an array the tables list as its element 0
 * ("_primary_supers[0]"), covers up to the next field.  NULL if none. */
const struct hotspot_field *hotspot_field_at(const struct hotspot *h,
					     const char *type, uint64_t offset);
/* The nonstatic fields of type and its superclasses sorted by offset (a
 * union's members share one): *n set; caller frees the array only. */
const struct hotspot_field **hotspot_layout(const struct hotspot *h,
					    const char *type, size_t *n);

/* sizeof(type) as the JVM has it; false if the type is unknown. */
bool hotspot_type_size(const struct hotspot *h, const char *type, uint64_t *size);
/* The type's superclass name, or NULL. */
const char *hotspot_type_super(const struct hotspot *h, const char *type);
/* gHotSpotVMIntConstants / gHotSpotVMLongConstants entries. */
bool hotspot_int_constant(const struct hotspot *h, const char *name, int32_t *val);
bool hotspot_long_constant(const struct hotspot *h, const char *name, uint64_t *val);

/* Reads the target (re-read each call). */
bool hotspot_read(const struct hotspot *h, uint64_t addr, void *buf, size_t len);
/* The value of a static field of size 1, 2, 4 or 8 (zero-extended). */
bool hotspot_static_value(const struct hotspot *h, const char *type,
			  const char *field, uint64_t *val);

/* The name of the class whose Klass is at klass_addr, read through
 * Klass::_name -> Symbol::_length/_body ("java/lang/Object",
 * "[Ljava/lang/String;").  False unless the bytes look like a class name
 * (printable ASCII, sane length, '/'-separated identifiers), so a wrong
 * guess of a Klass address never yields garbage.  len >= 2. */
bool hotspot_klass_name(const struct hotspot *h, uint64_t klass_addr,
			char *buf, size_t len);

/* The Klass of the Java heap object at obj: the class pointer after the
 * mark word, compressed or not as UseCompressedClassPointers says, decoded
 * with CompressedKlassPointers' base and shift (flags and base read once,
 * at open).  The result is checked with hotspot_klass_name(); 0 if
 * anything fails. */
uint64_t hotspot_object_klass(const struct hotspot *h, uint64_t obj);
/* The oop stored in the field at addr (narrow if UseCompressedOops);
 * false if null or unreadable. */
bool hotspot_read_oop(const struct hotspot *h, uint64_t addr, uint64_t *oop);

/* A Klass of vmClasses' table whose slot name contains id ("Object_klass",
 * "Class_klass"); 0 if none. */
uint64_t hotspot_vm_class(const struct hotspot *h, const char *id);
/* The loaded class named name ("java/lang/String"), found by walking the
 * subclass tree from java/lang/Object (bounded; the first of several
 * loaders' classes of that name); 0 if not found. */
uint64_t hotspot_find_klass(const struct hotspot *h, const char *name);
/* The class's java.lang.Class object (Klass::_java_mirror); 0 if unknown. */
uint64_t hotspot_klass_mirror(const struct hotspot *h, uint64_t klass);

/* The Klass that metadata address addr lies in: the nearest start found
 * scanning back in 8-byte steps (at most 4 KiB) where Klass::_primary_supers[0]
 * is java/lang/Object's Klass and _name looks like a class name.  0 if
 * none: addr is not in a Klass (heap objects are not searched). */
uint64_t hotspot_klass_containing(const struct hotspot *h, uint64_t addr);
/* Appends one line naming addr inside a Klass, for a report:
 * "InstanceKlass TypeCheck$C0+32 Klass::_secondary_super_cache (Klass*,
 * 8 bytes at +32)".  False (nothing appended) if addr is in no Klass. */
bool hotspot_describe(const struct hotspot *h, uint64_t addr, struct strbuf *out);

/* One nonstatic field of a Java class (hotspot_fields.c). */
struct hotspot_java_field {
	char name[128];            /* "hits" */
	char signature[128];       /* its descriptor: "J", "Ljava/lang/String;" */
	uint64_t offset, size;     /* in the object; size 0 if unknown */
	uint64_t klass;            /* the class that declares it */
};

/* The nonstatic fields of the class at klass and of its superclasses,
 * sorted by offset, read from the field info and the constant pool as the
 * tables describe them: InstanceKlass::_fields (Array<u2> records) or
 * InstanceKlass::_fieldinfo_stream (compressed, hotspot_fieldstream.h),
 * whichever they list.  NULL with *n 0 on a JVM whose tables describe
 * neither fully, or on any failed or malformed read.  Caller frees. */
struct hotspot_java_field *hotspot_java_fields(const struct hotspot *h, uint64_t klass,
					       size_t *n);
/* The start of the Java heap object (an instance, not an array) holding
 * addr: the nearest 8-byte aligned start at most 4 KiB back whose class
 * pointer decodes to a named class (hotspot_object_klass) whose instance
 * size reaches addr; *klass set.  0 if none. */
uint64_t hotspot_object_containing(const struct hotspot *h, uint64_t addr, uint64_t *klass);

/* The value of a boolean -XX flag (JVMFlag table); false if not found. */
bool hotspot_flag_bool(const struct hotspot *h, const char *flag, bool *val);

#endif
