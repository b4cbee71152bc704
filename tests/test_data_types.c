/* test_data_types.c - globals and register-held pointers of fixture_globals
 * resolved to variables, member paths and layouts.
 *
 * The fixture is opened offline with libdwfl, as the symbolizer opens a
 * binary.  Offsets below are the fixture's layouts (see the comments beside
 * its struct fields); x86-64 DWARF registers: 4 rsi, 5 rdi.
 */
#include "symbolize/data_types.h"
#include "tests/tap.h"
#include "common/util.h"

#include <elfutils/libdwfl.h>
#include <unistd.h>

#define REG_RSI 4
#define REG_RDI 5

#define SIZEOF_OUTER 32
#define SIZEOF_STATS 32
#define SIZEOF_KLASS 128

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct fixture {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
};

static bool fixture_open(struct fixture *fx, const char *path)
{
	fx->dwfl = dwfl_begin(&offline_callbacks);
	if (!fx->dwfl)
		return false;
	fx->mod = dwfl_report_offline(fx->dwfl, "fixture", path, -1);
	dwfl_report_end(fx->dwfl, NULL, NULL);
	fx->dw = fx->mod ? dwfl_module_getdwarf(fx->mod, &fx->bias) : NULL;
	return fx->dw != NULL;
}

/* A function-scope static is "hits.0" to GCC, "count_hit.hits" to clang. */
static bool symbol_is(const char *s, const char *name)
{
	size_t len = strlen(name), slen = strlen(s);

	if (!strncmp(s, name, len) && (!s[len] || s[len] == '.'))
		return true;
	return slen > len && s[slen - len - 1] == '.' && !strcmp(s + slen - len, name);
}

/* Absolute address and size of a symbol. */
static uint64_t symbol(struct fixture *fx, const char *name, uint64_t *size)
{
	int n = dwfl_module_getsymtab(fx->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *s = dwfl_module_getsym(fx->mod, i, &sym, NULL);

		if (s && symbol_is(s, name) && sym.st_shndx != SHN_UNDEF) {
			if (size)
				*size = sym.st_size;
			return sym.st_value;
		}
	}
	return 0;
}

static bool any_symbol_covers(struct fixture *fx, uint64_t addr)
{
	int n = dwfl_module_getsymtab(fx->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;

		if (dwfl_module_getsym(fx->mod, i, &sym, NULL) &&
		    sym.st_shndx != SHN_UNDEF &&
		    addr >= sym.st_value && addr < sym.st_value + (sym.st_size ?: 1))
			return true;
	}
	return false;
}

static const struct type_member *find_member(const struct type_layout *l,
					     const char *name)
{
	for (unsigned i = 0; l && i < l->n_members; i++)
		if (l->members[i].name && !strcmp(l->members[i].name, name))
			return &l->members[i];
	return NULL;
}

/* _Alignas(64) on the variable, not its type: the attribution carries it;
 * an array declared without one has none. */
static void test_variable_alignment(struct data_types *dt, struct fixture *fx)
{
	uint64_t aligned = symbol(fx, "aligned_stats", NULL);
	uint64_t plain = symbol(fx, "per_thread", NULL);
	struct data_attribution a;

	CHECK(aligned && aligned % 64 == 0, "aligned_stats is 64-aligned (0x%llx)",
	      (unsigned long long)aligned);
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, aligned + SIZEOF_STATS + 8,
					      8, &a), DT_HIT, "aligned_stats[1].writes");
	CHECK_STR(a.variable, "aligned_stats", "aligned_stats: the variable");
	CHECK_STR(a.path, "[1].writes", "aligned_stats: the member");
	CHECK_EQ_U64(a.variable_align, 64, "aligned_stats: the declaration's alignment");
	CHECK_EQ_U64(a.layout ? a.layout->align : 0, 8, "... while struct stats aligns to 8");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, plain + 8, 8, &a), DT_HIT,
		     "per_thread[0].writes");
	CHECK_EQ_U64(a.variable_align, 0, "per_thread: no alignment declared on it");
}

static void test_miss_names(void)
{
	CHECK_STR(data_types_miss_name(DT_HIT), "ok", "miss name");
	CHECK_STR(data_types_miss_name(DT_NO_DWARF), "no debug info", "miss name");
	CHECK_STR(data_types_miss_name(DT_NO_VARIABLE), "no variable", "miss name");
	CHECK_STR(data_types_miss_name(DT_NOT_POINTER), "not a pointer", "miss name");
	CHECK_STR(data_types_miss_name(DT_NO_TYPE), "incomplete type", "miss name");
	CHECK_STR(data_types_miss_name(DT__COUNT), "unknown", "miss name");
}

static void test_scalar_array(struct data_types *dt, struct fixture *fx)
{
	uint64_t counters = symbol(fx, "counters", NULL);
	struct data_attribution a, again;

	CHECK(counters, "symbol counters");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, counters + 8, &a), DT_HIT,
		     "counters[1]");
	CHECK_STR(a.variable, "counters", "counters variable");
	CHECK_STR(a.path, "[1]", "counters path");
	CHECK_STR(a.type_name, "long[4]", "counters type");
	CHECK(!a.via_pointer, "global is not via a pointer");
	CHECK_EQ_U64(a.object_start, counters, "counters object_start");
	CHECK_EQ_U64(a.member_offset, 8, "counters member_offset");
	CHECK_EQ_U64(a.member_size, 8, "counters member_size");
	CHECK_EQ_U64(a.element_index, 1, "counters element_index");
	CHECK(a.layout, "counters has an element layout");
	if (a.layout) {
		CHECK_STR(a.layout->name, "long", "counters layout name");
		CHECK_EQ_U64(a.layout->size, 8, "counters layout size");
		CHECK_EQ_U64(a.layout->align, 8, "counters layout align");
		CHECK_EQ_U64(a.layout->n_members, 0, "counters layout members");
	}
	CHECK_EQ_U64(a.layout_start, counters + 8, "counters layout_start");

	/* An unaligned byte inside the element is the same element, cached. */
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, counters + 13, &again),
		     DT_HIT, "counters + 13");
	CHECK_STR(again.path, "[1]", "counters + 13 path");
	CHECK(again.layout == a.layout, "layouts are shared");
	CHECK(again.variable == a.variable, "strings are interned");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, counters + 31, &a), DT_HIT,
		     "counters last byte");
	CHECK_STR(a.path, "[3]", "counters[3] path");
}

static void test_nested(struct data_types *dt, struct fixture *fx)
{
	uint64_t outers = symbol(fx, "outers", NULL);
	struct data_attribution a;
	const struct type_layout *l;

	CHECK(outers, "symbol outers");
	/* outers[1].in.a[2]: 32 + 4 (in) + 2 * 4 */
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, outers + 44, &a), DT_HIT,
		     "outers[1].in.a[2]");
	CHECK_STR(a.variable, "outers", "outers variable");
	CHECK_STR(a.path, "[1].in.a[2]", "outers path");
	CHECK_STR(a.type_name, "struct outer[2]", "outers type");
	CHECK_EQ_U64(a.element_index, 1, "outers element_index");
	CHECK_EQ_U64(a.member_offset, 44, "outers member_offset");
	CHECK_EQ_U64(a.member_size, 4, "outers member_size");
	CHECK(a.layout && !strcmp(a.layout->name, "struct inner"),
	      "innermost struct is struct inner, got %s", a.layout ? a.layout->name : "NULL");
	CHECK_EQ_U64(a.layout_start, outers + SIZEOF_OUTER + 4, "struct inner instance");
	if (a.layout) {
		CHECK_EQ_U64(a.layout->size, 16, "struct inner size");
		CHECK_EQ_U64(a.layout->align, 4, "struct inner align");
	}

	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, outers + SIZEOF_OUTER + 24, &a),
		     DT_HIT, "outers[1].tail");
	CHECK_STR(a.path, "[1].tail", "tail path");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct outer", "tail layout");
	CHECK_EQ_U64(a.layout_start, outers + SIZEOF_OUTER, "outers[1] instance");

	/* The padding after tag: the hole is the answer, in struct outer. */
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, outers + SIZEOF_OUTER + 2, &a),
		     DT_HIT, "outers[1] padding");
	CHECK_STR(a.path, "[1]", "padding path");
	CHECK_EQ_U64(a.member_offset, SIZEOF_OUTER + 1, "hole offset");
	CHECK_EQ_U64(a.member_size, 3, "hole size");

	l = a.layout;
	CHECK(l && l->n_members == 5, "struct outer: tag, hole, in, hole, tail; got %u",
	      l ? l->n_members : 0);
	if (l && l->n_members == 5) {
		CHECK_STR(l->members[0].name, "tag", "member 0");
		CHECK_STR(l->members[0].type_name, "char", "member 0 type");
		CHECK(l->members[1].name == NULL, "member 1 is padding");
		CHECK_EQ_U64(l->members[1].offset, 1, "hole 1 offset");
		CHECK_EQ_U64(l->members[1].size, 3, "hole 1 size");
		CHECK_STR(l->members[2].type_name, "struct inner", "member 2 type");
		CHECK_EQ_U64(l->members[3].offset, 20, "hole 2 offset");
		CHECK_EQ_U64(l->members[3].size, 4, "hole 2 size");
		CHECK_EQ_U64(l->members[4].offset, 24, "tail offset");
		CHECK_EQ_U64(l->align, 8, "struct outer align");
	}
}

static void test_typedef_struct(struct data_types *dt, struct fixture *fx)
{
	uint64_t klass = symbol(fx, "klass_c1", NULL);
	const struct type_member *m;
	struct data_attribution a;

	CHECK(klass, "symbol klass_c1");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, klass + 32, &a), DT_HIT,
		     "klass_c1 + 32");
	CHECK_STR(a.variable, "klass_c1", "klass variable");
	CHECK_STR(a.path, ".secondary_super_cache", "klass path");
	CHECK_STR(a.type_name, "Klass", "klass type");
	CHECK_EQ_U64(a.element_index, (uint64_t)-1, "klass is not an array");
	CHECK_EQ_U64(a.member_offset, 32, "klass member_offset");
	CHECK_EQ_U64(a.member_size, 8, "klass member_size");
	CHECK_EQ_U64(a.layout_start, klass, "klass layout_start");
	CHECK(a.layout, "klass layout");
	if (!a.layout)
		return;
	CHECK_STR(a.layout->name, "Klass", "anonymous struct named by its typedef");
	CHECK_EQ_U64(a.layout->size, SIZEOF_KLASS, "Klass size");
	CHECK_EQ_U64(a.layout->align, 8, "Klass align");
	m = find_member(a.layout, "secondary_supers");
	CHECK(m, "Klass lists secondary_supers");
	if (m) {
		CHECK_EQ_U64(m->offset, 40, "secondary_supers offset");
		CHECK_EQ_U64(m->size, 8, "secondary_supers size");
		CHECK_STR(m->type_name, "struct klass_array *", "secondary_supers type");
	}
	m = find_member(a.layout, "primary_supers");
	CHECK(m && m->offset == 48 && m->size == 64, "primary_supers at 48, 64 bytes");
	CHECK_STR(m ? m->type_name : NULL, "const void *[8]", "primary_supers type");
	m = find_member(a.layout, "name");
	CHECK_STR(m ? m->type_name : NULL, "const char *", "name type");

	/* An array inside a struct: the path indexes it, the object is no array. */
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, klass + 48 + 3 * 8 + 4, &a),
		     DT_HIT, "klass_c1.primary_supers[3]");
	CHECK_STR(a.path, ".primary_supers[3]", "primary_supers path");
	CHECK_EQ_U64(a.element_index, (uint64_t)-1, "primary_supers element_index");
	CHECK_EQ_U64(a.member_offset, 72, "primary_supers[3] offset");
	CHECK_STR(a.layout ? a.layout->name : NULL, "Klass", "primary_supers layout");
}

/* union tag { long raw; struct { int lo, hi; } parts; } at offset 8. */
static void test_union_member_by_size(struct data_types *dt, struct fixture *fx)
{
	uint64_t conn = symbol(fx, "conn_global", NULL);
	struct data_attribution a;

	CHECK(conn, "symbol conn_global");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, conn + 12, 4, &a),
		     DT_HIT, "4 bytes at 12");
	CHECK_STR(a.path, ".tag.parts.hi", "a 4-byte store at 12 is parts.hi, not raw");
	CHECK_EQ_U64(a.member_offset, 12, "parts.hi offset");
	CHECK_EQ_U64(a.member_size, 4, "parts.hi size");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, conn + 8, 4, &a),
		     DT_HIT, "4 bytes at 8");
	CHECK_STR(a.path, ".tag.parts.lo", "4 bytes at 8: the exact fit");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, conn + 8, 8, &a),
		     DT_HIT, "8 bytes at 8");
	CHECK_STR(a.path, ".tag.raw", "8 bytes at 8: raw fits exactly");
	CHECK_EQ_U64(a.member_size, 8, "raw size");
	/* size unknown: the first member, as before */
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, conn + 12, &a), DT_HIT,
		     "conn_global + 12");
	CHECK_STR(a.path, ".tag.raw", "unknown size: the first member");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, conn + 16, 8, &a),
		     DT_HIT, "rx.packets");
	CHECK_STR(a.path, ".rx.packets", "no overlap, nothing to choose");
}

/* counted_global.hits is an opaque_count_t whose only member, __value,
 * is the implementation's: the access is to hits, in struct counted.
 * lk has two such members, and keeps its path. */
static void test_library_internals(struct data_types *dt, struct fixture *fx)
{
	uint64_t counted = symbol(fx, "counted_global", NULL);
	struct data_attribution a;

	CHECK(counted, "symbol counted_global");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, counted, 8, &a),
		     DT_HIT, "counted_global.hits");
	CHECK_STR(a.path, ".hits", "not .hits.__value");
	CHECK_EQ_U64(a.member_size, 8, "hits size");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct counted",
		  "the layout is the user's struct");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, counted + 8, 8, &a),
		     DT_HIT, "counted_global.misses");
	CHECK_STR(a.path, ".misses", "an ordinary member");
	CHECK_EQ_U64(data_types_global_access(dt, fx->mod, fx->bias, counted + 20, 4, &a),
		     DT_HIT, "counted_global.lk.__owner");
	CHECK_STR(a.path, ".lk.__owner", "two reserved members: the one hit is named");
}

static void test_static_and_misses(struct data_types *dt, struct fixture *fx)
{
	static const char *const ours[] = {
		"build_tag", "counters", "outers", "per_thread",
		"klass_c1", "klass_i1", "klass_i2", "hits", "conn_global",
		"stats_vec", "counted_global",
	};
	uint64_t hits = symbol(fx, "hits", NULL), size;
	struct data_attribution a;
	unsigned gaps = 0;

	CHECK(hits, "symbol hits.*");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, hits + 2, &a), DT_HIT,
		     "function-scope static");
	CHECK_STR(a.variable, "hits", "static variable");
	CHECK_STR(a.path, "", "whole scalar");
	CHECK_STR(a.type_name, "int", "static type");
	CHECK(a.layout == NULL, "a lone scalar has no layout");
	CHECK_EQ_U64(a.member_size, 4, "static size");

	/* The bytes right after one of our objects that no symbol claims. */
	for (size_t i = 0; i < ARRAY_SIZE(ours); i++) {
		uint64_t end = symbol(fx, ours[i], &size) + size;

		if (size && !any_symbol_covers(fx, end)) {
			CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, end, &a),
				     DT_NO_VARIABLE, ours[i]);
			gaps++;
		}
	}
	CHECK(gaps > 0, "the fixture has a gap after build_tag[5]");

	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, symbol(fx, "main", NULL), &a),
		     DT_NO_VARIABLE, "code is no variable");
	CHECK_STR(a.path, "", "a miss clears the path");
	CHECK(a.variable == NULL && a.layout == NULL, "a miss clears the answer");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, 0, &a), DT_NO_VARIABLE,
		     "address 0");
	CHECK_EQ_U64(data_types_global(dt, NULL, 0, hits, &a), DT_NO_DWARF, "no module");
	CHECK_EQ_U64(data_types_in_register(dt, NULL, 0, hits, 5, 0, 0x1000, &a),
		     DT_NO_DWARF, "no module, register");
	CHECK_EQ_U64(data_types_global(dt, fx->mod, fx->bias, ~0ULL, &a), DT_NO_VARIABLE,
		     "address ~0");
}

/* Ask at every byte of fn (location lists are address ranges, so that is
 * every instruction and then some); return how many resolved, the last
 * answer in *a and the most specific miss in *miss. */
static unsigned resolve_in(struct data_types *dt, struct fixture *fx, const char *fn,
			   int reg, int64_t off, uint64_t addr,
			   struct data_attribution *a, enum data_types_miss *miss)
{
	uint64_t size, start = symbol(fx, fn, &size);
	struct data_attribution tmp;
	unsigned hits = 0;

	CHECK(start && size, "function %s has code", fn);
	*miss = DT__COUNT;
	for (uint64_t pc = start; pc < start + size; pc++) {
		enum data_types_miss m = data_types_in_register(dt, fx->mod, fx->bias,
								pc, reg, off, addr, &tmp);
		if (m == DT_HIT) {
			*a = tmp;
			hits++;
		} else if (*miss == DT__COUNT || m > *miss) {
			*miss = m;
		}
	}
	return hits;
}

static void test_pointer_params(struct data_types *dt, struct fixture *fx)
{
	const uint64_t obj = 0x7f0000001000ULL;
	struct data_attribution a;
	enum data_types_miss miss;

	/* bump(): addq $1, 8(%rdi) */
	memset(&a, 0, sizeof(a));
	CHECK(resolve_in(dt, fx, "bump", REG_RDI, 8, obj + 8, &a, &miss) > 0,
	      "s in rdi somewhere in bump");
	CHECK_STR(a.variable, "s", "bump variable");
	CHECK(a.via_pointer, "bump via pointer");
	CHECK_STR(a.path, ".writes", "bump path");
	CHECK_STR(a.type_name, "struct stats", "bump pointee type");
	CHECK_EQ_U64(a.object_start, obj, "bump object_start");
	CHECK_EQ_U64(a.member_offset, 8, "bump member_offset");
	CHECK_EQ_U64(a.member_size, 8, "bump member_size");
	CHECK_EQ_U64(a.element_index, 0, "bump element_index");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct stats", "bump layout");
	CHECK_EQ_U64(a.layout_start, obj, "bump layout_start");
	CHECK_EQ_U64(a.layout ? a.layout->size : 0, SIZEOF_STATS, "struct stats size");

	CHECK(resolve_in(dt, fx, "bump", REG_RSI, 8, obj + 8, &a, &miss) == 0,
	      "nothing lives in rsi in bump");
	CHECK_EQ_U64(miss, DT_NO_VARIABLE, "bump rsi miss");
	CHECK(resolve_in(dt, fx, "bump", REG_RDI, -8, obj - 8, &a, &miss) == 0,
	      "negative offsets are not guessed");
	CHECK_EQ_U64(miss, DT_NO_VARIABLE, "negative offset miss");

	/* is_subtype(): cmp %rsi, 0x20(%rdi) */
	memset(&a, 0, sizeof(a));
	CHECK(resolve_in(dt, fx, "is_subtype", REG_RDI, 32, obj + 32, &a, &miss) > 0,
	      "sub in rdi in is_subtype");
	CHECK_STR(a.variable, "sub", "is_subtype variable");
	CHECK_STR(a.path, ".secondary_super_cache", "is_subtype path");
	CHECK_STR(a.type_name, "Klass", "is_subtype pointee type");
	CHECK_STR(a.layout ? a.layout->name : NULL, "Klass", "is_subtype layout");
	CHECK_EQ_U64(a.member_size, 8, "is_subtype member_size");

	memset(&a, 0, sizeof(a));
	CHECK(resolve_in(dt, fx, "is_subtype", REG_RSI, 40, obj + 40, &a, &miss) > 0,
	      "super in rsi in is_subtype");
	CHECK_STR(a.variable, "super", "second parameter");
	CHECK_STR(a.path, ".secondary_supers", "super path");

	/* sum_stats(arr, n): arr[2].reads is element 2 through the pointer;
	 * p[0] has no index in its path (bump above: ".writes"). */
	memset(&a, 0, sizeof(a));
	CHECK(resolve_in(dt, fx, "sum_stats", REG_RDI, 2 * SIZEOF_STATS, obj + 64, &a,
			 &miss) > 0, "arr in rdi in sum_stats");
	CHECK_STR(a.variable, "arr", "sum_stats variable");
	CHECK_STR(a.path, "[2].reads", "an element past p[0] is indexed");
	CHECK_EQ_U64(a.element_index, 2, "sum_stats element_index");
	CHECK_EQ_U64(a.object_start, obj, "object is arr[0]");
	CHECK_EQ_U64(a.member_offset, 2 * SIZEOF_STATS, "arr[2].reads offset");
	CHECK_EQ_U64(a.layout_start, obj + 2 * SIZEOF_STATS, "arr[2] instance");

	memset(&a, 0, sizeof(a));
	CHECK(resolve_in(dt, fx, "sum_stats", REG_RDI, 3 * SIZEOF_STATS + 24 + 2,
			 obj + 3 * SIZEOF_STATS + 26, &a, &miss) > 0, "arr[3].id");
	CHECK_STR(a.path, "[3].id", "arr[3].id path");
	CHECK_EQ_U64(a.element_index, 3, "arr[3] index");
	CHECK_EQ_U64(a.member_offset, 3 * SIZEOF_STATS + 24, "arr[3].id offset");
	CHECK_EQ_U64(a.member_size, 4, "arr[3].id size");

	/* n is an int in esi at entry: in a register, but not a pointer. */
	CHECK(resolve_in(dt, fx, "sum_stats", REG_RSI, 0, obj, &a, &miss) == 0,
	      "n is no pointer");
	CHECK_EQ_U64(miss, DT_NOT_POINTER, "sum_stats rsi miss");

	/* zero_word(void *p): a pointer to nothing in particular. */
	CHECK(resolve_in(dt, fx, "zero_word", REG_RDI, 0, obj, &a, &miss) == 0,
	      "void * does not resolve");
	CHECK_EQ_U64(miss, DT_NO_TYPE, "zero_word rdi miss");
}

/* conn_ptr (struct conn *) and stats_vec.start (struct stats *): pointers
 * no register variable holds, followed from the globals they are loaded
 * from, as symbolize/pointer_origin.c does. */
static void test_pointer_chains(struct data_types *dt, struct fixture *fx)
{
	const uint64_t obj = 0x7f0000002000ULL;
	uint64_t conn_ptr = symbol(fx, "conn_ptr", NULL);
	uint64_t vec = symbol(fx, "stats_vec", NULL);
	uint64_t per_thread = symbol(fx, "per_thread", NULL);
	const struct dt_pointer *g, *p, *again;
	struct data_attribution a;
	int64_t off;

	CHECK(conn_ptr && vec && per_thread, "symbols conn_ptr, stats_vec, per_thread");
	CHECK_EQ_U64(data_types_global_address(dt, fx->mod, fx->bias, conn_ptr, &g, &off),
		     DT_HIT, "&conn_ptr");
	CHECK_EQ_U64(off, 0, "conn_ptr offset");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, off, false, &p), DT_HIT,
		     "the pointer stored in conn_ptr");
	CHECK_EQ_U64(data_types_through_pointer(dt, p, 16, false, obj + 16, 8, &a), DT_HIT,
		     "conn_ptr->rx.packets");
	CHECK_STR(a.variable, "conn_ptr", "named by the global it was loaded from");
	CHECK_STR(a.type_name, "struct conn", "conn type");
	CHECK_STR(a.path, ".rx.packets", "conn path");
	CHECK(a.via_pointer, "conn via pointer");
	CHECK_EQ_U64(a.object_start, obj, "conn object_start");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct half", "conn layout");
	CHECK_EQ_U64(a.layout_start, obj + 16, "rx instance");
	CHECK_EQ_U64(data_types_through_pointer(dt, p, 12, false, obj + 12, 4, &a), DT_HIT,
		     "conn_ptr->tag.parts.hi");
	CHECK_STR(a.path, ".tag.parts.hi", "through a pointer, the union member fits too");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, 0, false, &again), DT_HIT, "again");
	CHECK(again == p, "pointers are cached and shared");

	/* stats_vec.start[id].writes: lea stats_vec; mov (%rcx),%rdx; add %rsi,%rdx */
	CHECK_EQ_U64(data_types_global_address(dt, fx->mod, fx->bias, vec, &g, &off),
		     DT_HIT, "&stats_vec");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, 0, false, &p), DT_HIT,
		     "stats_vec.start");
	CHECK_EQ_U64(data_types_through_pointer(dt, p, SIZEOF_STATS + 8, true,
						obj + SIZEOF_STATS + 8, 8, &a),
		     DT_HIT, "some element's writes");
	CHECK_STR(a.variable, "stats_vec.start", "member pointer name");
	CHECK_STR(a.type_name, "struct stats", "element type");
	CHECK_STR(a.path, ".writes", "an unknown element has no index");
	CHECK_EQ_U64(a.element_index, (uint64_t)-1, "index unknown");
	CHECK_EQ_U64(a.object_start, obj + SIZEOF_STATS, "the object is the element");
	CHECK_EQ_U64(a.layout_start, obj + SIZEOF_STATS, "element instance");
	CHECK_EQ_U64(data_types_through_pointer(dt, p, 8 - SIZEOF_STATS, true, obj + 8, 8, &a),
		     DT_HIT, "below the pointer, some element");
	CHECK_STR(a.path, ".writes", "negative offsets are modulo the element too");
	CHECK_EQ_U64(data_types_through_pointer(dt, p, -8, false, obj, 8, &a),
		     DT_NO_VARIABLE, "below a known pointer: not guessed");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, 4, false, &again), DT_NOT_POINTER,
		     "a load from inside a pointer member");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, 16, false, &again), DT_NO_VARIABLE,
		     "past stats_vec");

	/* An array decays to a pointer to its first element. */
	CHECK_EQ_U64(data_types_global_address(dt, fx->mod, fx->bias, per_thread + 40, &g,
					       &off), DT_HIT, "&per_thread[1].writes");
	CHECK_EQ_U64(off, 40, "per_thread offset");
	CHECK_EQ_U64(data_types_through_pointer(dt, g, off, false, per_thread + 40, 8, &a),
		     DT_HIT, "per_thread[1].writes");
	CHECK_STR(a.path, "[1].writes", "decayed array path");
	CHECK_EQ_U64(a.object_start, per_thread, "decayed array object");
	CHECK_EQ_U64(data_types_member_pointer(dt, g, 8, false, &again), DT_NOT_POINTER,
		     "writes is a long");
	CHECK_EQ_U64(data_types_member_pointer(dt, NULL, 0, false, &again), DT_NO_VARIABLE,
		     "no pointer");
}

/*
 * tests/fixture_copyreloc uses cache_metrics of tests/libfixture_metrics.so
 * directly: the linker copied it into the program's .bss.  The program's
 * DWARF declares it (with its type), the library's defines it.
 */
static void test_copy_relocation(const char *top)
{
	/* its own: a data_types must not outlive the Dwfl it has read */
	struct data_types *dt = data_types_new();
	char *exe_path = xasprintf("%s/tests/fixture_copyreloc", top);
	char *lib_path = xasprintf("%s/tests/libfixture_metrics.so", top);
	struct fixture exe = { 0 }, lib = { 0 };
	struct data_attribution a;
	uint64_t metrics;

	exe.dwfl = dwfl_begin(&offline_callbacks);
	exe.mod = exe.dwfl ? dwfl_report_offline(exe.dwfl, "exe", exe_path, -1) : NULL;
	lib.mod = exe.mod ? dwfl_report_offline(exe.dwfl, "lib", lib_path, -1) : NULL;
	if (exe.dwfl)
		dwfl_report_end(exe.dwfl, NULL, NULL);
	CHECK(exe.mod && lib.mod, "open %s and %s", exe_path, lib_path);
	if (!exe.mod || !lib.mod)
		goto out;
	exe.dw = dwfl_module_getdwarf(exe.mod, &exe.bias);
	metrics = symbol(&exe, "cache_metrics", NULL);
	if (!metrics) {
		printf("# no copy relocation in %s: the compiler used the GOT\n", exe_path);
		goto out;
	}
	CHECK_EQ_U64(data_types_global_access(dt, exe.mod, exe.bias, metrics + 8, 8, &a),
		     DT_HIT, "the copy, by the program's declaration");
	CHECK_STR(a.variable, "cache_metrics", "declared variable");
	CHECK_STR(a.type_name, "struct metrics", "declared type");
	CHECK_STR(a.path, ".misses", "declared member");
	CHECK_EQ_U64(a.object_start, metrics, "the copy's address");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct metrics", "copy layout");

	CHECK_EQ_U64(data_types_global_elsewhere(dt, exe.mod, metrics + 16, 8, lib.mod, &a),
		     DT_HIT, "the copy, by the library's definition");
	CHECK_STR(a.variable, "cache_metrics", "defined variable");
	CHECK_STR(a.path, ".evictions", "defined member");
	CHECK_EQ_U64(a.object_start, metrics, "the copy, not the library's own");
	CHECK_EQ_U64(data_types_global_elsewhere(dt, exe.mod, symbol(&exe, "main", NULL), 8,
						 lib.mod, &a),
		     DT_NO_VARIABLE, "code is no data symbol");
out:
	data_types_free(dt);
	if (exe.dwfl)
		dwfl_end(exe.dwfl);
	free(exe_path);
	free(lib_path);
}

static void test_uncovered_code(struct data_types *dt, struct fixture *fx)
{
	uint64_t start = symbol(fx, "_start", NULL);
	Dwarf_Die cudie;
	struct data_attribution a;

	if (!start || dwarf_addrdie(fx->dw, start - fx->bias, &cudie))
		return;    /* crt1.o built with debug info here */
	CHECK_EQ_U64(data_types_in_register(dt, fx->mod, fx->bias, start, REG_RDI, 0,
					    0x1000, &a), DT_NO_DWARF, "_start has no DWARF");
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char *path = argc > 1 ? xstrdup(argv[1]) :
		     xasprintf("%s/tests/fixture_globals", top ? top : ".");
	struct fixture fx = { 0 };
	struct data_types *dt;

	test_miss_names();
	if (access(path, R_OK)) {
		free(path);
		return test_skip("tests/fixture_globals not built");
	}
	CHECK(fixture_open(&fx, path), "open %s with DWARF: %s", path, dwfl_errmsg(-1));
	if (!fx.dw) {
		free(path);
		dwfl_end(fx.dwfl);
		return test_done();
	}

	dt = data_types_new();
	test_scalar_array(dt, &fx);
	test_nested(dt, &fx);
	test_typedef_struct(dt, &fx);
	test_union_member_by_size(dt, &fx);
	test_library_internals(dt, &fx);
	test_static_and_misses(dt, &fx);
	test_pointer_params(dt, &fx);
	test_pointer_chains(dt, &fx);
	test_uncovered_code(dt, &fx);
	test_variable_alignment(dt, &fx);
	data_types_free(dt);
	test_copy_relocation(top ? top : ".");

	dwfl_end(fx.dwfl);
	free(path);
	return test_done();
}
