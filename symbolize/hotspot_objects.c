/* hotspot_objects.c - names, classes and objects, read through HotSpot's
 * tables (hotspot.c): a Klass's name, an object's class, the Klass that
 * holds an address, and one line describing an address for a report.
 * Every name read from the target is validated before it is returned.
 */
#include "symbolize/hotspot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* ---- names and objects -------------------------------------------------- */

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '$' ||
		c == '+' || c == '-';   /* hidden classes: Foo$$Lambda$14+0x... */
}

/* "java/lang/Object": '/'-separated non-empty identifiers, one letter at
 * least.  Names in other scripts (modified UTF-8) are refused: the price of
 * never printing garbage. */
static bool plausible_binary_name(const char *s, size_t n)
{
	bool letter = false;
	size_t seg = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '/') {
			if (!seg)
				return false;
			seg = 0;
			continue;
		}
		if (!is_ident_char(c))
			return false;
		letter |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		seg++;
	}
	return seg && letter;
}

/* A class name as a Klass's Symbol holds it: a binary name, or an array
 * descriptor ("[I", "[[Ljava/lang/String;"). */
static bool plausible_class_name(const char *s, size_t n)
{
	size_t dims = 0;

	while (dims < n && s[dims] == '[')
		dims++;
	if (!dims)
		return plausible_binary_name(s, n);
	if (dims > 255 || dims == n)
		return false;
	if (n - dims == 1)
		return strchr("ZBCSIJFD", s[dims]) != NULL;
	return s[dims] == 'L' && s[n - 1] == ';' &&
		plausible_binary_name(s + dims + 1, n - dims - 2);
}

/* A pointer that can be a user-space address of the x86-64 target. */
static bool plausible_pointer(uint64_t p)
{
	return p >= 4096 && p < (1ULL << 47);
}

bool hotspot_klass_name(const struct hotspot *h, uint64_t klass_addr,
			char *buf, size_t len)
{
	const struct hotspot_field *lenf = hotspot_field(h, "Symbol", "_length");
	int64_t name_off = hotspot_field_offset(h, "Klass", "_name");
	int64_t body_off = hotspot_field_offset(h, "Symbol", "_body");
	uint64_t sym, n;
	char name[MAX_CLASS_NAME];

	if (len < 2 || !lenf || lenf->is_static || name_off < 0 || body_off < 0 ||
	    !plausible_pointer(klass_addr))
		return false;
	if (!hs_read_u64(h->task, klass_addr + (uint64_t)name_off, &sym) ||
	    !plausible_pointer(sym) ||
	    !hs_read_uint(h->task, sym + lenf->offset, lenf->size ? lenf->size : 2, &n))
		return false;
	if (n < 1 || n > sizeof(name) || n >= len)
		return false;
	if (!hs_read_target(h->task, sym + (uint64_t)body_off, name, n) ||
	    !plausible_class_name(name, n))
		return false;
	copy_bytes(buf, name, n);
	buf[n] = '\0';
	return true;
}

/* The first static field of type whose name ends with suffix: the tables
 * spell CompressedKlassPointers' as "_narrow_klass._base" in JDK 17 and
 * "_base" later; the suffix finds either without naming a version. */
static const struct hotspot_field *static_field_ending(const struct hotspot *h,
							const char *type,
							const char *suffix)
{
	size_t sl = strlen(suffix);

	for (size_t i = 0; i < h->nfields; i++) {
		const struct hotspot_field *f = &h->fields[i];
		size_t nl = strlen(f->name);

		if (f->is_static && !strcmp(f->type, type) && nl >= sl &&
		    !strcmp(f->name + nl - sl, suffix) &&
		    (nl == sl || f->name[nl - sl - 1] == '.' || f->name[nl - sl - 1] == '_'))
			return f;
	}
	return NULL;
}

static bool static_ending_value(const struct hotspot *h, const char *type,
				const char *suffix, uint64_t *val)
{
	const struct hotspot_field *f = static_field_ending(h, type, suffix);

	return f && f->address &&
		hs_read_uint(h->task, f->address, f->size ? f->size : 8, val);
}

bool hotspot_flag_bool(const struct hotspot *h, const char *flag, bool *val)
{
	const struct hotspot_field *namef = hotspot_field(h, "JVMFlag", "_name");
	const struct hotspot_field *addrf = hotspot_field(h, "JVMFlag", "_addr");
	uint64_t flags, count, size;

	if (!namef || !addrf || !hotspot_type_size(h, "JVMFlag", &size) || !size ||
	    !hotspot_static_value(h, "JVMFlag", "flags", &flags) ||
	    !hotspot_static_value(h, "JVMFlag", "numFlags", &count) ||
	    !plausible_pointer(flags) || count > MAX_FLAGS)
		return false;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t entry = flags + i * size, name_addr, addr;
		char name[128];
		uint8_t b;

		if (!hs_read_u64(h->task, entry + namef->offset, &name_addr) || !name_addr ||
		    hs_read_cstr(h->task, name_addr, name, sizeof(name)) < 0 ||
		    strcmp(name, flag))
			continue;
		if (!hs_read_u64(h->task, entry + addrf->offset, &addr) ||
		    !hs_read_target(h->task, addr, &b, 1))
			return false;
		*val = b != 0;
		return true;
	}
	return false;
}

/* A compressed-pointer scheme: the flag, and if on, the static base and
 * shift of type (CompressedOops, CompressedKlassPointers). */
void hotspot_read_narrow(struct hotspot *h, const char *flag, const char *type,
			struct narrow_ptr *np)
{
	np->known = false;
	if (!hotspot_flag_bool(h, flag, &np->compressed))
		return;
	if (np->compressed &&
	    (!static_ending_value(h, type, "_base", &np->base) ||
	     !static_ending_value(h, type, "_shift", &np->shift) || np->shift > 32))
		return;
	np->known = true;
}

/* A pointer field at addr, full or compressed as np says; 0 if unknown. */
static uint64_t read_pointer_field(const struct hotspot *h, const struct narrow_ptr *np,
				   uint64_t addr)
{
	uint64_t v;

	if (!np->known)
		return 0;
	if (!np->compressed)
		return hs_read_u64(h->task, addr, &v) ? v : 0;
	if (!hs_read_uint(h->task, addr, 4, &v) || !v)
		return 0;
	return np->base + (v << np->shift);
}

bool hotspot_read_oop(const struct hotspot *h, uint64_t addr, uint64_t *oop)
{
	*oop = read_pointer_field(h, &h->narrow_oop, addr);
	return *oop != 0;
}

uint64_t hotspot_object_klass(const struct hotspot *h, uint64_t obj)
{
	char name[MAX_CLASS_NAME];
	uint64_t klass;
	int64_t off;

	if (!plausible_pointer(obj))
		return 0;
	if (h->compact_headers) {
		/* compact headers: the narrow class pointer is the mark word's top bits */
		const struct narrow_ptr *nk = &h->narrow_klass;
		uint64_t mark, narrow;

		off = hotspot_field_offset(h, "oopDesc", "_mark");
		if (off < 0 || !h->mark_klass_shift || !nk->known || !nk->compressed ||
		    !hs_read_u64(h->task, obj + (uint64_t)off, &mark) ||
		    !(narrow = mark >> h->mark_klass_shift))
			return 0;
		klass = nk->base + (narrow << nk->shift);
		return hotspot_klass_name(h, klass, name, sizeof(name)) ? klass : 0;
	}
	off = hotspot_field_offset(h, "oopDesc", h->narrow_klass.compressed ?
				   "_metadata._compressed_klass" : "_metadata._klass");
	if (off < 0)
		return 0;
	klass = read_pointer_field(h, &h->narrow_klass, obj + (uint64_t)off);
	return hotspot_klass_name(h, klass, name, sizeof(name)) ? klass : 0;
}

uint64_t hotspot_vm_class(const struct hotspot *h, const char *id)
{
	uint64_t k;

	for (size_t i = 0; i < h->nfields; i++) {
		const struct hotspot_field *f = &h->fields[i];

		/* vmClasses::_klasses[...Object_klass_knum)]; older JDKs kept
		 * them in SystemDictionary::_well_known_klasses */
		if (f->is_static && f->address && strstr(f->name, id) &&
		    (!strcmp(f->type, "vmClasses") || !strcmp(f->type, "SystemDictionary")) &&
		    hs_read_u64(h->task, f->address, &k) && plausible_pointer(k))
			return k;
	}
	return 0;
}

uint64_t hotspot_klass_mirror(const struct hotspot *h, uint64_t klass)
{
	int64_t mirror_off = hotspot_field_offset(h, "Klass", "_java_mirror");
	int64_t obj_off = hotspot_field_offset(h, "OopHandle", "_obj");
	uint64_t handle, mirror;

	if (mirror_off < 0 || !plausible_pointer(klass))
		return 0;
	if (obj_off < 0)   /* before OopHandle (JDK < 16) the field was the oop */
		return hs_read_u64(h->task, klass + (uint64_t)mirror_off, &mirror) ? mirror : 0;
	if (!hs_read_u64(h->task, klass + (uint64_t)mirror_off, &handle) ||
	    !plausible_pointer(handle) ||
	    !hs_read_u64(h->task, handle + (uint64_t)obj_off, &mirror))
		return 0;
	return plausible_pointer(mirror) ? mirror : 0;
}

#define MAX_KLASS_WALK 1000000

uint64_t hotspot_find_klass(const struct hotspot *h, const char *name)
{
	int64_t sub_off = hotspot_field_offset(h, "Klass", "_subklass");
	int64_t sib_off = hotspot_field_offset(h, "Klass", "_next_sibling");
	int64_t super_off = hotspot_field_offset(h, "Klass", "_super");
	uint64_t root = hotspot_vm_class(h, "Object_klass"), k = root;
	char buf[MAX_CLASS_NAME];

	if (!root || sub_off < 0 || sib_off < 0 || super_off < 0)
		return 0;
	/* depth first through _subklass / _next_sibling, back up through
	 * _super; the tree changes under us, so every step is bounded */
	for (unsigned steps = 0; k && steps < MAX_KLASS_WALK; steps++) {
		uint64_t next = 0;

		if (hotspot_klass_name(h, k, buf, sizeof(buf)) && !strcmp(buf, name))
			return k;
		if (hs_read_u64(h->task, k + (uint64_t)sub_off, &next) && plausible_pointer(next)) {
			k = next;
			continue;
		}
		while (k && k != root) {
			if (hs_read_u64(h->task, k + (uint64_t)sib_off, &next) && plausible_pointer(next))
				break;
			next = 0;
			if (!hs_read_u64(h->task, k + (uint64_t)super_off, &k) || !plausible_pointer(k))
				return 0;
		}
		if (!next)
			return 0;
		k = next;
	}
	return 0;
}

#define MAX_KLASS_SCAN 4096   /* InstanceKlass ~470 bytes, then vtable/itable */

/* Is there a Klass at k?  Every class's first primary super is
 * java/lang/Object (Object's is itself), and its name must look like one. */
static bool is_klass_at(const struct hotspot *h, uint64_t k, int64_t primary_off)
{
	char name[MAX_CLASS_NAME];
	uint64_t first;

	return hs_read_u64(h->task, k + (uint64_t)primary_off, &first) &&
		first == h->object_klass && hotspot_klass_name(h, k, name, sizeof(name));
}

uint64_t hotspot_klass_containing(const struct hotspot *h, uint64_t addr)
{
	int64_t primary_off = hotspot_field_offset(h, "Klass", "_primary_supers[0]");

	if (!h->object_klass || primary_off < 0 || !plausible_pointer(addr))
		return 0;
	for (uint64_t back = addr & 7; back <= MAX_KLASS_SCAN && back <= addr; back += 8)
		if (is_klass_at(h, addr - back, primary_off))
			return addr - back;
	return 0;
}

bool hotspot_describe(const struct hotspot *h, uint64_t addr, struct strbuf *out)
{
	uint64_t klass = hotspot_klass_containing(h, addr), off, lh;
	int64_t lh_off = hotspot_field_offset(h, "Klass", "_layout_helper");
	const struct hotspot_field *f;
	const char *type = "InstanceKlass";
	char name[MAX_CLASS_NAME];

	if (!klass || !hotspot_klass_name(h, klass, name, sizeof(name)))
		return false;
	/* a negative layout helper marks an array class */
	if (lh_off >= 0 && hs_read_uint(h->task, klass + (uint64_t)lh_off, 4, &lh) && (int32_t)lh < 0)
		type = "ArrayKlass";
	off = addr - klass;
	strbuf_addf(out, "%s %s+%llu", type, name, (unsigned long long)off);
	f = hotspot_field_at(h, type, off);
	if (f)
		strbuf_addf(out, " %s::%s (%s, %llu bytes at +%llu)", f->type, f->name,
			    f->type_string ? f->type_string : "?",
			    (unsigned long long)f->size, (unsigned long long)f->offset);
	else
		strbuf_addf(out, " (past %s: vtable, itable or oop maps)", type);
	return true;
}
