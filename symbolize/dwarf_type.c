/* dwarf_type.c - reading C types out of DWARF DIEs (see dwarf_type.h). */
#include "symbolize/dwarf_type.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dwarf_scopes.h"
#include "symbolize/symbolizer.h"

#define MAX_DEPTH DWARF_TYPE_MAX_DEPTH

/* ---- DWARF helpers ----------------------------------------------------- */

/* The DIE's type, through abstract origins and specifications. */
bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) &&
	       dwarf_formref_die(&attr, type);
}

const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_name, &attr) ?
	       dwarf_formstring(&attr) : NULL;
}

bool die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, name, &attr) && dwarf_formudata(&attr, val) == 0;
}

unsigned die_decl_line(Dwarf_Die *die)
{
	int line;

	/* dwarf_decl_line follows DW_AT_specification/abstract_origin */
	if (dwarf_decl_line(die, &line) != 0 || line <= 0 || line > 100000000)
		return 0;
	return (unsigned)line;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type ||
	       tag == DW_TAG_immutable_type;
}

bool is_pointer(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* Strip typedefs and qualifiers; false when that ends in void.
 * *typedef_name, if given, gets the name of the last typedef crossed: the
 * only name an anonymous struct has. */
bool peel_type(Dwarf_Die *type, const char **typedef_name)
{
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		int tag = dwarf_tag(type);

		if (tag == DW_TAG_typedef) {
			if (typedef_name)
				*typedef_name = die_name(type);
		} else if (!is_qualifier(tag)) {
			return true;
		}
		if (!die_type(type, type))
			return false;
	}
	return false;
}

/* Strip qualifiers only: "const struct stats" is named "struct stats". */
bool strip_qualifiers(Dwarf_Die *type)
{
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		if (!is_qualifier(dwarf_tag(type)))
			return true;
		if (!die_type(type, type))
			return false;
	}
	return false;
}

uint64_t type_size(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	Dwarf_Word size;

	return dwarf_aggregate_size(&t, &size) == 0 ? size : 0;
}

bool is_complete(Dwarf_Die *type)
{
	Dwarf_Die t = *type;

	if (!peel_type(&t, NULL))
		return false;
	if (is_aggregate(dwarf_tag(&t)) && dwarf_hasattr(&t, DW_AT_declaration))
		return false;
	return type_size(&t) != 0;
}

int die_language(Dwarf_Die *die)
{
	Dwarf_Die cu;

	return dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
}

static bool lang_is_c(Dwarf_Die *die)
{
	switch (die_language(die)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case 0x2c:                 /* DW_LANG_C17, newer than some dwarf.h */
	case DW_LANG_ObjC:
	case -1:
		return true;
	default:
		return false;
	}
}

bool in_cxx_unit(Dwarf_Die *die)
{
	switch (die_language(die)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a:              /* DW_LANG_C_plus_plus_17 (DWARF 6) */
	case 0x2b:              /* DW_LANG_C_plus_plus_20 */
		return true;
	default:
		return false;
	}
}

bool rust_std_wrapper(Dwarf_Die *type)
{
	static const char *const prefixes[] = { "Atomic", "UnsafeCell<", "SyncUnsafeCell<", "Cell<" };
	const char *name = dwarf_diename(type);

	if (!name || die_language(type) != DW_LANG_Rust)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* An upper bound: DW_FORM_data1/2/4/8 are unsigned here (GCC writes
 * int[256]'s 255 as data1 0xff, which dwarf_formsdata reads as -1). */
static bool bound_value(Dwarf_Attribute *attr, Dwarf_Sword *out)
{
	Dwarf_Word u;

	switch (dwarf_whatform(attr)) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
		if (dwarf_formudata(attr, &u) != 0)
			return false;
		*out = (Dwarf_Sword)u;
		return true;
	default:
		return dwarf_formsdata(attr, out) == 0;
	}
}

/* Lower bound and element count of one array dimension; count 0 when
 * unknown ("long data[]", VLAs). */
void subrange_bounds(Dwarf_Die *sub, int64_t *lower, uint64_t *count)
{
	Dwarf_Attribute attr;
	Dwarf_Sword lo = 0, hi;
	Dwarf_Word n;
	Dwarf_Die cu;

	if (dwarf_attr(sub, DW_AT_lower_bound, &attr)) {
		if (dwarf_formsdata(&attr, &lo) != 0)
			lo = 0;
	} else if (dwarf_diecu(sub, &cu, NULL, NULL)) {
		if (dwarf_default_lower_bound(dwarf_srclang(&cu), &lo) != 0)
			lo = 0;
	}
	*lower = lo;
	*count = 0;
	if (die_udata(sub, DW_AT_count, &n))
		*count = n;
	else if (dwarf_attr(sub, DW_AT_upper_bound, &attr) &&
		 bound_value(&attr, &hi) && hi >= lo)
		*count = (uint64_t)(hi - lo) + 1;
}

/* ---- type names, in C declarator syntax ------------------------------ */

void format_type(Dwarf_Die *type, struct strbuf *out, int depth, struct dwarf_scopes *sc);

static void strbuf_prepend(struct strbuf *sb, const char *s)
{
	struct strbuf tmp = STRBUF_INIT;

	strbuf_addf(&tmp, "%s%s", s, strbuf_str(sb));
	strbuf_release(sb);
	*sb = tmp;
}

/* Does this chain of qualifiers apply to a pointer ("char *const")? */
static bool qualifies_pointer(Dwarf_Die *type)
{
	Dwarf_Die t = *type;

	return strip_qualifiers(&t) &&
	       (is_pointer(dwarf_tag(&t)) || dwarf_tag(&t) == DW_TAG_ptr_to_member_type);
}

static const char *qualifier_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_const_type: return "const";
	case DW_TAG_volatile_type: return "volatile";
	case DW_TAG_restrict_type: return "restrict";
	case DW_TAG_atomic_type: return "_Atomic";
	default: return "immutable";
	}
}

static void append_dims(Dwarf_Die *array, struct strbuf *decl)
{
	Dwarf_Die child;
	int64_t lower;
	uint64_t count;

	if (dwarf_child(array, &child) != 0) {
		strbuf_add(decl, "[]", 2);
		return;
	}
	do {
		if (dwarf_tag(&child) != DW_TAG_subrange_type)
			continue;
		subrange_bounds(&child, &lower, &count);
		if (count)
			strbuf_addf(decl, "[%" PRIu64 "]", count);
		else
			strbuf_add(decl, "[]", 2);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void append_params(Dwarf_Die *fn, struct strbuf *decl, int depth,
			  struct dwarf_scopes *sc)
{
	Dwarf_Die child, type;
	bool first = true;

	strbuf_addch(decl, '(');
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				strbuf_add(decl, ", ", 2);
			first = false;
			if (tag == DW_TAG_unspecified_parameters)
				strbuf_add(decl, "...", 3);
			else
				format_type(die_type(&child, &type) ? &type : NULL,
					    decl, depth + 1, sc);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (first && dwarf_hasattr(fn, DW_AT_prototyped))
		strbuf_add(decl, "void", 4);
	strbuf_addch(decl, ')');
}

/* GCC's spelling of the integer types, and the spelling people write
 * (and clang emits); a longer spelling before any it contains, for the
 * scan of template arguments. */
static const char *const int_spellings[][2] = {
	{ "long long unsigned int", "unsigned long long" },
	{ "long long int", "long long" },
	{ "long unsigned int", "unsigned long" },
	{ "short unsigned int", "unsigned short" },
	{ "long int", "long" },
	{ "short int", "short" },
};

static const char *base_name(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(int_spellings); i++)
		if (!strcmp(name, int_spellings[i][0]))
			return int_spellings[i][1];
	return name;
}

/* A C++ template's name as GCC writes it, "atomic<long int>", with the
 * arguments spelled as people write them: "atomic<long>". */
static void add_template_name(struct strbuf *out, const char *name)
{
	const char *p = name;

	while (*p) {
		size_t i = ARRAY_SIZE(int_spellings), n = 0;

		/* only at a token's start: "ulong int" holds no "long int" */
		if (p == name || strchr("<, ", p[-1]))
			for (i = 0; i < ARRAY_SIZE(int_spellings); i++) {
				n = strlen(int_spellings[i][0]);
				if (!strncmp(p, int_spellings[i][0], n) && p[n] && strchr(">, *&", p[n]))
					break;
			}
		if (i < ARRAY_SIZE(int_spellings)) {
			strbuf_addf(out, "%s", int_spellings[i][1]);
			p += n;
		} else {
			strbuf_addch(out, *p++);
		}
	}
}

/* The name of a type with no declarator part: base, typedef, tagged. */
static void format_base(Dwarf_Die *type, struct strbuf *out, struct dwarf_scopes *sc)
{
	const char *name = type ? dwarf_diename(type) : "void";
	const char *keyword = "", *scope = "";

	if (type && dwarf_tag(type) == DW_TAG_base_type)
		name = base_name(name);
	if (type) {
		switch (dwarf_tag(type)) {
		case DW_TAG_structure_type: keyword = "struct "; break;
		case DW_TAG_union_type: keyword = "union "; break;
		case DW_TAG_enumeration_type: keyword = "enum "; break;
		case DW_TAG_class_type: keyword = "class "; break;
		default: break;
		}
		if (*keyword && name && !lang_is_c(type))
			keyword = "";
		if (name && dwarf_tag(type) != DW_TAG_base_type)
			scope = dwarf_scopes_prefix(sc, type);
	}
	if (name && strchr(name, '<') && type && !lang_is_c(type)) {
		strbuf_addf(out, "%s", keyword);
		add_template_name(out, scope);
		add_template_name(out, name);
		return;
	}
	strbuf_addf(out, "%s%s%s", keyword, name ? scope : "", name ? name : *keyword ? "{...}" : "?");
}

/*
 * A typedef that a library's header declares for the user's own type
 * (std::vector<Stats>'s value_type, an allocator's _Tp) names the
 * library's view of it: the user knows the type as Stats.  *out is the
 * first type past such typedefs when that is a named struct, class,
 * union, enum or typedef the user's code declares.  A library's own
 * types (uint64_t, pthread_mutex_t) keep their names.
 */
static bool library_alias_of_user_type(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die t = *type;
	const char *file;
	int tag;

	for (int depth = 0; dwarf_tag(&t) == DW_TAG_typedef; depth++) {
		file = dwarf_decl_file(&t);
		if (depth >= MAX_DEPTH || !file || !symbolizer_system_source(file))
			break;
		if (!die_type(&t, &t))
			return false;
	}
	tag = dwarf_tag(&t);
	if (!is_aggregate(tag) && tag != DW_TAG_enumeration_type && tag != DW_TAG_typedef)
		return false;
	file = dwarf_decl_file(&t);
	if (!dwarf_diename(&t) || !file || symbolizer_system_source(file) ||
	    dwarf_dieoffset(&t) == dwarf_dieoffset(type))
		return false;
	*out = t;
	return true;
}

/* Declarators wrap outwards: pointers are prepended, array and function
 * suffixes appended, with parentheses where a pointer meets a suffix. */
void format_type(Dwarf_Die *type, struct strbuf *out, int depth, struct dwarf_scopes *sc)
{
	struct strbuf decl = STRBUF_INIT, quals = STRBUF_INIT;
	Dwarf_Die t, *cur = NULL;

	if (type) {
		t = *type;
		cur = &t;
	}
	for (; cur && depth < MAX_DEPTH; depth++) {
		int tag = dwarf_tag(cur);

		if (tag == DW_TAG_pointer_type)
			strbuf_prepend(&decl, "*");
		else if (tag == DW_TAG_reference_type)
			strbuf_prepend(&decl, "&");
		else if (tag == DW_TAG_rvalue_reference_type)
			strbuf_prepend(&decl, "&&");
		else if (tag == DW_TAG_ptr_to_member_type)
			strbuf_prepend(&decl, "::*");
		else if (is_qualifier(tag) && qualifies_pointer(cur)) {
			char q[16];

			snprintf(q, sizeof(q), "%s ", qualifier_keyword(tag));
			strbuf_prepend(&decl, q);
		} else if (is_qualifier(tag)) {
			/* GCC qualifies both an array and its element type
			 * ("volatile long a[4]"): say it once */
			char q[16];

			snprintf(q, sizeof(q), "%s ", qualifier_keyword(tag));
			if (!strstr(strbuf_str(&quals), q))
				strbuf_addf(&quals, "%s", q);
		}
		else if (tag == DW_TAG_typedef && library_alias_of_user_type(cur, &t)) {
			continue;      /* t is the user's type: format it instead */
		}
		else if (tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type) {
			if (decl.len && strchr("*&:", decl.buf[0])) {
				strbuf_prepend(&decl, "(");
				strbuf_addch(&decl, ')');
			}
			if (tag == DW_TAG_array_type)
				append_dims(cur, &decl);
			else
				append_params(cur, &decl, depth, sc);
		} else
			break;
		if (!die_type(cur, &t))
			cur = NULL;
	}
	strbuf_addf(out, "%s", strbuf_str(&quals));
	format_base(cur, out, sc);
	if (decl.len) {
		if (decl.buf[0] != '[')
			strbuf_addch(out, ' ');
		strbuf_addf(out, "%s", decl.buf);
	}
	while (out->len && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	strbuf_release(&decl);
	strbuf_release(&quals);
}

/* ---- alignment ----------------------------------------------------------- */

uint64_t type_align(Dwarf_Die *type, int depth);

/* Largest power of two <= size, capped at 16 (long double, __int128). */
static uint64_t natural_align(uint64_t size)
{
	uint64_t a = 1;

	while (a * 2 <= size && a < 16)
		a *= 2;
	return a;
}

/* Where a member's bits lie, for bitfields; false for ordinary members. */
bool member_bits(Dwarf_Die *member, uint64_t byte_loc,
			uint64_t *bit_start, uint64_t *bit_size)
{
	Dwarf_Word bits, off, storage;
	Dwarf_Die type;

	if (!die_udata(member, DW_AT_bit_size, &bits))
		return false;
	*bit_size = bits;
	if (die_udata(member, DW_AT_data_bit_offset, &off)) {
		*bit_start = off;
	} else if (die_udata(member, DW_AT_bit_offset, &off)) {
		/* DWARF 2/3 count from the storage unit's most significant
		 * bit; on a little-endian target that is its last byte. */
		if (!die_udata(member, DW_AT_byte_size, &storage))
			storage = die_type(member, &type) ? type_size(&type) : 0;
		*bit_start = byte_loc * 8 + storage * 8 - off - bits;
	} else {
		*bit_start = byte_loc * 8;
	}
	return true;
}

bool member_location(Dwarf_Die *member, uint64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(member, DW_AT_data_member_location, &attr)) {
		*off = 0;      /* union members, and bitfields with data_bit_offset */
		return true;
	}
	if (dwarf_formudata(&attr, &w) == 0) {
		*off = w;
		return true;
	}
	/* DWARF 2 spelled it as an expression: DW_OP_plus_uconst N. */
	if (dwarf_getlocation(&attr, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*off = expr[0].number;
		return true;
	}
	return false;
}

bool is_data_member(Dwarf_Die *child)
{
	int tag = dwarf_tag(child);

	/* C++ static members are declarations, not storage. */
	return (tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
	       !dwarf_hasattr(child, DW_AT_declaration) &&
	       !dwarf_hasattr(child, DW_AT_external);
}

/* Without DW_AT_alignment: the largest member alignment, or 1 when a member
 * sits off its natural alignment (the struct was packed). */
uint64_t struct_align(Dwarf_Die *s, int depth)
{
	Dwarf_Die child, type;
	uint64_t align = 1, a, off;
	Dwarf_Word explicit;

	if (dwarf_child(s, &child) != 0)
		return 1;
	do {
		if (!is_data_member(&child) || !die_type(&child, &type))
			continue;
		a = die_udata(&child, DW_AT_alignment, &explicit) ? explicit :
		    type_align(&type, depth + 1);
		if (!dwarf_hasattr(&child, DW_AT_bit_size) &&
		    member_location(&child, &off) && a && off % a)
			return 1;
		if (a > align)
			align = a;
	} while (dwarf_siblingof(&child, &child) == 0);
	return align;
}

uint64_t type_align(Dwarf_Die *type, int depth)
{
	Dwarf_Die t = *type, elem;
	Dwarf_Word a, enc;
	uint64_t size;
	int tag;

	for (;; depth++) {
		if (depth >= MAX_DEPTH)
			return 1;
		if (die_udata(&t, DW_AT_alignment, &a) && a)
			return a;
		tag = dwarf_tag(&t);
		if (tag != DW_TAG_typedef && !is_qualifier(tag))
			break;
		if (!die_type(&t, &t))
			return 1;
	}
	size = type_size(&t);
	switch (tag) {
	case DW_TAG_base_type:
		/* _Complex double aligns like double */
		if (die_udata(&t, DW_AT_encoding, &enc) && enc == DW_ATE_complex_float)
			size /= 2;
		return natural_align(size);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_enumeration_type:
		return natural_align(size ? size : 8);
	case DW_TAG_array_type:
		if (dwarf_hasattr(&t, DW_AT_GNU_vector))
			return size ? size : 1;
		return die_type(&t, &elem) ? type_align(&elem, depth + 1) : 1;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return struct_align(&t, depth);
	default:
		return 1;
	}
}

