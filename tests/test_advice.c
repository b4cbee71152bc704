/* test_advice.c - layout advice on hand-built report lines with known answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/advice.h"
#include "reports/advice_internal.h"
#include "symbolize/data_types.h"
#include "tap.h"

#define TIDS(...) ((uint32_t[]){ __VA_ARGS__ })

static struct report_thread t101_rw[] = {
	{ .tid = 101, .reads = 150, .writes = 250 },
	{ .tid = 102, .reads = 150, .writes = 250 },
};
static struct report_thread t101_r[] = {
	{ .tid = 101, .reads = 80 },
	{ .tid = 102, .reads = 70 },
};

/* JDK 17's Klass, as far as the layout matters (size 208, align 8). */
static struct report_member klass_members[] = {
	{ "vptr", "void *", 0, 8 },
	{ "layout_helper", "jint", 8, 4 },
	{ "id", "int", 12, 4 },
	{ "modifier_flags", "jint", 16, 4 },
	{ "super_check_offset", "juint", 20, 4, .reads = 60,
	  .readers = TIDS(101, 102), .n_readers = 2 },
	{ "name", "Symbol *", 24, 8 },
	{ "secondary_super_cache", "Klass *", 32, 8, .reads = 300, .writes = 500,
	  .writers = TIDS(101, 102), .n_writers = 2,
	  .readers = TIDS(101, 102), .n_readers = 2 },
	{ "secondary_supers", "Array<Klass*> *", 40, 8, .reads = 150,
	  .readers = TIDS(101, 102), .n_readers = 2 },
	{ "primary_supers", "Klass *[8]", 48, 64 },
	{ "java_mirror", "OopHandle", 112, 8 },
	{ "super", "Klass *", 120, 8 },
	{ "subklass", "Klass *", 128, 8 },
	{ "next_sibling", "Klass *", 136, 8 },
	{ "next_link", "Klass *", 144, 8 },
	{ "class_loader_data", "ClassLoaderData *", 152, 8 },
	{ "vtable_len", "int", 160, 4 },
	{ "access_flags", "AccessFlags", 164, 4 },
	{ "trace_id", "traceid", 168, 8 },
	{ "shared_class_path_index", "jshort", 176, 2 },
	{ "shared_class_flags", "u2", 178, 2 },
	/* 4 bytes hole */
	{ "archived_mirror_index", "void *", 184, 8 },
	{ "vtable_start", "void *", 192, 8 },
	{ "itable_start", "void *", 200, 8 },
};

static struct report_range klass_ranges[] = {
	{ .offset = 20, .size = 4, .member = "super_check_offset",
	  .false_victim = true, .reads = 60, .threads = t101_r, .n_threads = 2 },
	{ .offset = 32, .size = 8, .member = "secondary_super_cache",
	  .true_shared = true, .false_writer = true, .false_victim = true,
	  .reads = 300, .writes = 500, .threads = t101_rw, .n_threads = 2 },
	{ .offset = 40, .size = 8, .member = "secondary_supers",
	  .false_victim = true, .reads = 150, .threads = t101_r, .n_threads = 2 },
};

static struct report_line klass_line(uint64_t object_start)
{
	return (struct report_line){
		.addr = object_start & ~63ULL, .line_size = 64,
		.kind = SHARING_MIXED, .samples = 1010,
		.variable = "sub", .type_name = "Klass",
		.object_start = object_start,
		.ranges = klass_ranges, .n_ranges = ARRAY_SIZE(klass_ranges),
		.members = klass_members, .n_members = ARRAY_SIZE(klass_members),
		.struct_size = 208, .struct_align = 8,
	};
}

static void advice_free(struct report_advice *a)
{
	advice_release(a);
}

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* The line of text that mentions what, or "" (caller frees). */
static char *line_with(const char *text, const char *what)
{
	const char *hit = text ? strstr(text, what) : NULL;
	const char *b, *e;

	if (!hit)
		return strdup("");
	for (b = hit; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(hit, '\n');
	return strndup(b, e ? (size_t)(e - b) : strlen(b));
}

static void test_placements(void)
{
	unsigned total = 99;

	/* secondary_super_cache [32,40) vs secondary_supers [40,48): only a
	 * start 24 bytes into a line splits them (56..63 | 64..71). */
	CHECK_EQ_U64(advice_shared_placements(8, 64, 32, 8, 40, 8, &total), 7,
		     "Klass placements sharing");
	CHECK_EQ_U64(total, 8, "Klass placements total");
	CHECK_EQ_U64(advice_shared_placements(16, 64, 32, 8, 40, 8, &total), 4,
		     "Klass, malloc alignment");
	CHECK_EQ_U64(total, 4, "Klass, malloc alignment total");

	/* two longs at 0 and 8: only start 56 splits them */
	CHECK_EQ_U64(advice_shared_placements(8, 64, 0, 8, 8, 8, &total), 7,
		     "adjacent longs, align 8");
	CHECK_EQ_U64(advice_shared_placements(16, 64, 0, 8, 8, 8, &total), 4,
		     "adjacent longs, align 16");
	CHECK_EQ_U64(total, 4, "adjacent longs, align 16 total");

	/* 64 bytes apart: never on one line */
	CHECK_EQ_U64(advice_shared_placements(8, 64, 0, 8, 64, 8, &total), 0,
		     "64 apart");
	CHECK_EQ_U64(total, 8, "64 apart total");

	/* alignment beyond the line: one placement */
	CHECK_EQ_U64(advice_shared_placements(128, 64, 0, 8, 8, 8, &total), 1,
		     "over-aligned");
	CHECK_EQ_U64(total, 1, "over-aligned total");
	CHECK_EQ_U64(advice_shared_placements(8, 0, 0, 8, 8, 8, &total), 0,
		     "no line size");
	CHECK_EQ_U64(total, 0, "no line size total");
}

static void test_klass(void)
{
	struct report_line l = klass_line(0x10000);
	struct report_advice *a = &l.advice;
	char *s;

	advice_for_line(&l, false);
	CHECK_STR(a->summary,
		  "move secondary_super_cache to its own cache line, away from "
		  "secondary_supers and super_check_offset; padding does not fix "
		  "the true sharing (threads 101, 102 write the same bytes of "
		  "secondary_super_cache): use per-thread copies (sum on read), "
		  "check before write (skip stores of unchanged values), or "
		  "batch updates", "Klass summary");

	CHECK(starts_with(a->layout_now, "struct Klass {"),
	      "layout_now starts with the struct: %s", a->layout_now);
	CHECK(a->layout_now && strstr(a->layout_now, "/* size 208, align 8 */"),
	      "layout_now header");
	/* primary_supers[8] straddles the boundary, like pahole says it */
	CHECK(a->layout_now && strstr(a->layout_now,
		"\tKlass *           primary_supers[8];       /*    48    64 */\n"
		"\t/* --- cacheline 1 boundary (64 bytes) was 48 bytes ago --- */\n"
		"\tOopHandle         java_mirror;"),
	      "cacheline 1 boundary inside primary_supers[8]: %s", a->layout_now);
	CHECK(a->layout_now && strstr(a->layout_now, "\t/* XXX 4 bytes hole */\n"),
	      "the hole after shared_class_flags");
	s = line_with(a->layout_now, "secondary_super_cache;");
	CHECK(strstr(s, "/*    32     8 */  W: 101 102  R: 101 102  79%"),
	      "secondary_super_cache annotated: \"%s\"", s);
	free(s);
	s = line_with(a->layout_now, "secondary_supers;");
	CHECK(strstr(s, "/*    40     8 */  R: 101 102  15%"),
	      "secondary_supers annotated: \"%s\"", s);
	free(s);
	s = line_with(a->layout_now, "vptr;");
	CHECK(strlen(s) && !strchr(s, '%'), "untouched vptr not annotated: \"%s\"", s);
	free(s);
	CHECK(a->layout_now && strstr(a->layout_now,
		"/* secondary_super_cache and secondary_supers share a 64-byte "
		"line in 7 of 8 placements of struct Klass (8-byte alignment) */"),
	      "placement note: %s", a->layout_now);
	CHECK_EQ_U64(a->placements_sharing, 7, "Klass placements sharing");
	CHECK_EQ_U64(a->placements_total, 8, "Klass placements total");

	/* Everything but the cache keeps its order and closes up (200 bytes);
	 * the cache gets line 4: 256 + 8, rounded to 320. */
	s = line_with(a->layout_proposed, "secondary_super_cache;");
	CHECK(strstr(s, "\t_Alignas(64) Klass * secondary_super_cache;   "
			"/*   256     8 */"),
	      "proposed cache line: \"%s\"", s);
	free(s);
	s = line_with(a->layout_proposed, "secondary_supers;");
	CHECK(strstr(s, "/*    32     8 */") && !strstr(s, "_Alignas"),
	      "proposed secondary_supers: \"%s\"", s);
	free(s);
	CHECK(a->layout_proposed && strstr(a->layout_proposed,
		"/* a line of its own: written by threads 101, 102 */"),
	      "group comment");
	CHECK(a->layout_proposed && strstr(a->layout_proposed,
		"/* size 320, align 64 */"), "proposed header");
	CHECK(a->layout_proposed && strstr(a->layout_proposed,
		"/* cost: +112 bytes per instance (208 -> 320) */"),
	      "proposed cost line");
	CHECK_EQ_U64(a->cost_bytes, 112, "Klass cost");
	advice_free(a);

	/* On the heap, the proposal says how to get the alignment. */
	l = klass_line(0x10000);
	advice_for_line(&l, true);
	CHECK(a->layout_proposed && strstr(a->layout_proposed,
		"aligned_alloc(64, sizeof(struct Klass))"),
	      "heap: aligned_alloc: %s", a->layout_proposed);
	CHECK(a->layout_now && strstr(a->layout_now,
		"; at malloc's 16-byte alignment: 4 of 4 */"),
	      "heap: malloc placements");
	advice_free(a);

}

/* --klass-offset 24: the one placement of eight that splits the cache from
 * secondary_supers.  Only true sharing is left on the line, and the advice
 * says the luck of the placement. */
static void test_klass_offset_24(void)
{
	struct report_range r[] = {
		{ .offset = 56, .size = 8, .member = "secondary_super_cache",
		  .true_shared = true, .reads = 300, .writes = 500,
		  .threads = t101_rw, .n_threads = 2 },
	};
	struct report_line l = klass_line(0x10018);
	struct report_advice *a = &l.advice;

	l.kind = SHARING_TRUE;
	l.ranges = r;
	l.n_ranges = 1;
	advice_for_line(&l, false);
	CHECK(starts_with(a->summary, "padding cannot help: threads 101, 102 "
			  "write the same bytes of secondary_super_cache; "),
	      "offset 24 summary: %s", a->summary);
	CHECK(!a->layout_proposed, "offset 24: no proposal");
	CHECK_EQ_U64(a->placements_sharing, 7, "offset 24 placements sharing");
	CHECK_EQ_U64(a->placements_total, 8, "offset 24 placements total");
	CHECK(a->layout_now && strstr(a->layout_now,
		"/* size 208, align 8 (this instance starts at line offset 24) */"),
	      "instance offset: %s", a->layout_now);
	CHECK(a->layout_now && strstr(a->layout_now,
		"\t/* --- cacheline 1 boundary (40 bytes) --- */\n"
		"\tArray<Klass*> *   secondary_supers;"),
	      "boundary at struct offset 40: %s", a->layout_now);
	CHECK(a->layout_now && strstr(a->layout_now,
		"/* here secondary_super_cache ends the line; in 7 of 8 placements "
		"of struct Klass (8-byte alignment) it shares its 64-byte line "
		"with secondary_supers, next to it */\n"),
	      "offset 24 note: %s", a->layout_now);
	advice_free(a);
}

/* struct pair { long a; long b; }: a written by thread 1, b by thread 2. */
static void test_pair(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 100 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 100 } };
	struct report_member m[] = {
		{ "a", "long", 0, 8, .writes = 100, .writers = TIDS(1), .n_writers = 1 },
		{ "b", "long", 8, 8, .writes = 100, .writers = TIDS(2), .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "p->a", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "p->b", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x2000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "p", .type_name = "struct pair", .object_start = 0x2000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 2,
		.struct_size = 16, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "give each writer its own cache line: a (thread 1), b (thread 2)",
		  "pair summary");
	CHECK_STR(l.advice.layout_proposed,
		  "struct pair {                /* size 128, align 64 */\n"
		  "\t/* a line of its own: written by thread 1 */\n"
		  "\t_Alignas(64) long a; /*     0     8 */\n"
		  "\t/* XXX 56 bytes hole */\n"
		  "\t/* --- cacheline 1 boundary (64 bytes) --- */\n"
		  "\t/* a line of its own: written by thread 2 */\n"
		  "\t_Alignas(64) long b; /*    64     8 */\n"
		  "\t/* XXX 56 bytes tail padding */\n"
		  "};\n"
		  "/* cost: +112 bytes per instance (16 -> 128) */\n",
		  "pair proposal");
	CHECK_EQ_U64(l.advice.cost_bytes, 112, "pair cost");
	CHECK_EQ_U64(l.advice.placements_sharing, 7, "pair placements sharing");
	CHECK_EQ_U64(l.advice.placements_total, 8, "pair placements total");
	advice_free(&l.advice);

	/* a C++ class from new: "class", its members stay private; new
	 * aligns it (C++17), so no allocation call to change */
	l.type_name = "Pair";
	l.cxx = l.cxx_class = true;
	l.alloc = &(struct report_alloc){ .call = "operator new", .size = 16, .start = 0x2000 };
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed &&
	      !strncmp(l.advice.layout_proposed, "class Pair {", 12) &&
	      strstr(l.advice.layout_proposed, "\talignas(64) long a; /*     0     8 */\n") &&
	      strstr(l.advice.layout_proposed, "/* new allocates it at the type's alignment from "
		     "C++17 on: no other change */\n") &&
	      !strstr(l.advice.layout_proposed, "malloc"),
	      "C++ class from new: %s", l.advice.layout_proposed);
	advice_free(&l.advice);

	/* a public member and a private one: each under its label, where
	 * the access changes, after the comment lines of holes and lines;
	 * the class's own default (private) needs none before it */
	m[0].access = MEMBER_PUBLIC;
	m[1].access = MEMBER_PRIVATE;
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "class Pair {                /* size 128, align 64 */\n"
		     "public:\n"
		     "\t/* a line of its own: written by thread 1 */\n"
		     "\talignas(64) long a; /*     0     8 */\n"
		     "\t/* XXX 56 bytes hole */\n"
		     "\t/* --- cacheline 1 boundary (64 bytes) --- */\n"
		     "private:\n"
		     "\t/* a line of its own: written by thread 2 */\n"
		     "\talignas(64) long b; /*    64     8 */\n") &&
	      l.advice.layout_now &&
	      strstr(l.advice.layout_now, "{    /* size 16, align 8 */\npublic:\n\tlong a;") &&
	      strstr(l.advice.layout_now, "50%\nprivate:\n\tlong b;"),
	      "C++ access labels: %s\nnow: %s", l.advice.layout_proposed, l.advice.layout_now);
	advice_free(&l.advice);
	m[1].access = MEMBER_PUBLIC;
	l.cxx_class = false;
	l.type_name = "struct Pair";
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed && !strstr(l.advice.layout_proposed, "public:") &&
	      !strstr(l.advice.layout_proposed, "private:"),
	      "a C++ struct's public members need no label: %s", l.advice.layout_proposed);
	advice_free(&l.advice);
	m[0].access = m[1].access = MEMBER_ACCESS_NONE;
	l.cxx_class = true;
	l.type_name = "Pair";

	/* the same from malloc: aligned_alloc, and sizeof as C++ spells it */
	l.alloc->call = "malloc";
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "aligned_alloc(64, sizeof(Pair))") &&
	      !strstr(l.advice.layout_proposed, "sizeof(class"),
	      "C++ class from malloc: %s", l.advice.layout_proposed);
	advice_free(&l.advice);

	/* read from the heap under attach, the call unknown: new's and
	 * std::vector's alignment first, malloc's remedy after */
	l.alloc->call = NULL;
	l.alloc->walked = true;
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "/* new and std::vector allocate it at the type's "
		     "alignment from C++17 on: no other change; a block from malloc") &&
	      !strstr(l.advice.layout_proposed, "aligns to 16 bytes only"),
	      "C++ class read from the heap: %s", l.advice.layout_proposed);
	advice_free(&l.advice);
}

/* The pair in Rust: Arc<Stats> of two AtomicU64.  A field aligns to
 * nothing of its own, so the proposal is #[repr(C, align(64))] with the
 * hole a field; Arc aligns the block itself. */
static void test_rust_pair(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 100 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 100 } };
	struct report_member m[] = {
		{ "hits", "AtomicU64", 0, 8, .writes = 100, .writers = TIDS(1), .n_writers = 1 },
		{ "misses", "AtomicU64", 8, 8, .writes = 100, .writers = TIDS(2), .n_writers = 1 },
		{ "log", "u8[16]", 16, 16 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "ptr->data.hits", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "ptr->data.misses", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x2000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "ptr", .type_name = "Stats", .object_start = 0x2000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 3,
		.struct_size = 32, .struct_align = 8, .struct_name = "Stats", .rust = true,
	};
	const char *now =
		"struct Stats {             /* size 32, align 8 */\n"
		"\thits:   AtomicU64, /*     0     8 */  W: 1  50%\n"
		"\tmisses: AtomicU64, /*     8     8 */  W: 2  50%\n"
		"\tlog:    [u8; 16],  /*    16    16 */\n"
		"}\n";

	advice_for_line(&l, true);
	CHECK_STR(l.advice.layout_proposed,
		  "#[repr(C, align(64))]\n"
		  "struct Stats {             /* size 192, align 64 */\n"
		  "\tlog:    [u8; 16],  /*     0    16 */\n"
		  "\t_pad1:  [u8; 48],  /*    16    48 */\n"
		  "\t/* --- cacheline 1 boundary (64 bytes) --- */\n"
		  "\t/* a line of its own: written by thread 1 */\n"
		  "\thits:   AtomicU64, /*    64     8 */\n"
		  "\t_pad2:  [u8; 56],  /*    72    56 */\n"
		  "\t/* --- cacheline 2 boundary (128 bytes) --- */\n"
		  "\t/* a line of its own: written by thread 2 */\n"
		  "\tmisses: AtomicU64, /*   128     8 */\n"
		  "\t/* XXX 56 bytes tail padding */\n"
		  "}\n"
		  "/* Box, Arc and Vec allocate it at the type's alignment: no other change */\n"
		  "/* cost: +160 bytes per instance (32 -> 192) */\n",
		  "Rust proposal");
	/* rustc's own order, no attribute: a description, not code to keep */
	CHECK(l.advice.layout_now && !strncmp(l.advice.layout_now, now, strlen(now)),
	      "Rust layout now: %s", l.advice.layout_now);
	{
		static const char *const names[][2] = {
			{ "u8[16]", "[u8; 16]" }, { "u64[2][3]", "[[u64; 3]; 2]" },
			{ "Node *", "*mut Node" }, { "Node *[4]", "[*mut Node; 4]" },
			{ "&[u8]", "&[u8]" }, { "[u8; 4]", "[u8; 4]" },
			{ "Vec<[u8; 4]>", "Vec<[u8; 4]>" }, { "x[]", "x[]" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			char *got = rust_type_name(names[i][0]);

			CHECK(!strcmp(got, names[i][1]), "Rust spelling of %s: %s", names[i][0], got);
			free(got);
		}
	}
	CHECK(!strstr(l.advice.layout_now, "_Alignas") &&
	      !strstr(l.advice.layout_proposed, "_Alignas") &&
	      !strstr(l.advice.layout_proposed, "aligned_alloc"), "no C in the Rust");
	advice_free(&l.advice);
}

/* bigstruct: thread 1 writes rx_packets and rx_bytes together, thread 2
 * tx_packets.  The placement note is about rx against tx: rx_bytes beside
 * rx_packets is no pair, though tx's writes make it a victim too. */
static void test_placement_pair(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 120 } };
	struct report_thread t1b[] = { { .tid = 1, .writes = 100 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 80 } };
	struct report_member m[] = {
		{ "rx_packets", "long", 0, 8, .writes = 120, .writers = TIDS(1), .n_writers = 1 },
		{ "rx_bytes", "long", 8, 8, .writes = 100, .writers = TIDS(1), .n_writers = 1 },
		{ "tx_packets", "long", 24, 8, .writes = 80, .writers = TIDS(2), .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "c->rx_packets", .false_writer = true,
		  .false_victim = true, .writes = 120, .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "c->rx_bytes", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t1b, .n_threads = 1 },
		{ .offset = 24, .size = 8, .member = "c->tx_packets", .false_writer = true,
		  .false_victim = true, .writes = 80, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x2000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "c", .type_name = "struct conn", .object_start = 0x2000,
		.ranges = r, .n_ranges = 3, .members = m, .n_members = 3,
		.struct_size = 32, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now, "rx_packets and tx_packets share"),
	      "the pair is rx against tx: %s", l.advice.layout_now);
	advice_free(&l.advice);
}

static void test_counters(void)
{
	struct report_thread t1[] = { { .tid = 1, .reads = 50, .writes = 50 } };
	struct report_thread t2[] = { { .tid = 2, .reads = 50, .writes = 50 } };
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "counters[0]", .false_writer = true,
		  .false_victim = true, .reads = 50, .writes = 50,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "counters[1]", .false_writer = true,
		  .false_victim = true, .reads = 50, .writes = 50,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x4000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "counters", .type_name = "long[8]", .object_start = 0x4000,
		.ranges = r, .n_ranges = 2, .struct_size = 8, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "pad each element of counters to its own 64-byte line (8 x 64 bytes)",
		  "counters summary");
	CHECK_STR(l.advice.layout_proposed,
		  "struct padded_long {\n"
		  "\t_Alignas(64) long v;\n"
		  "\tchar pad[56];\n"
		  "};\n"
		  "struct padded_long counters[8];\t/* 8 x 64 bytes: +448 bytes */\n",
		  "counters proposal");
	CHECK_EQ_U64(l.advice.cost_bytes, 8 * 56, "counters cost");
	CHECK(!l.advice.layout_now, "no struct layout for an array of scalars");
	CHECK_EQ_U64(l.advice.placements_total, 0, "counters placements n/a");
	advice_free(&l.advice);

	/* struct_size of the whole array: the same element */
	l.struct_size = 64;
	advice_for_line(&l, false);
	CHECK_EQ_U64(l.advice.cost_bytes, 8 * 56, "counters cost, whole size");
	advice_free(&l.advice);

	/* element count unknown */
	l.struct_size = 8;
	l.type_name = "long[]";
	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "pad each element of counters to its own 64-byte line "
		  "(+56 bytes per element)", "counters[] summary");
	CHECK_EQ_U64(l.advice.cost_bytes, 56, "counters[] cost");
	advice_free(&l.advice);
}

/* long hist[16][2] as report_build gives it: one member per scalar
 * element touched, struct_size the scalar's.  The element padded is the
 * row, a long[2] of 16 bytes (p4_omp: the pad was 56, the cost 896). */
static void test_array_of_rows(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 50 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 50 } };
	struct report_member m[] = {
		{ "hist[0][0]", "long", 0, 8, .writes = 50, .writers = TIDS(1),
		  .n_writers = 1 },
		{ "hist[1][0]", "long", 16, 8, .writes = 50, .writers = TIDS(2),
		  .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 32, .size = 8, .member = "hist[0][0]",
		  .false_writer = true, .false_victim = true, .writes = 50,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 48, .size = 8, .member = "hist[1][0]",
		  .false_writer = true, .false_victim = true, .writes = 50,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x4080, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "hist", .type_name = "long[16][2]",
		.object_start = 0x40a0, .ranges = r, .n_ranges = 2,
		.members = m, .n_members = 2, .struct_size = 8, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "pad each element of hist to its own 64-byte line (16 x 64 bytes)",
		  "rows summary");
	CHECK_STR(l.advice.layout_proposed,
		  "struct padded_long_2 {\n"
		  "\t_Alignas(64) long v[2];\n"
		  "\tchar pad[48];\n"
		  "};\n"
		  "struct padded_long_2 hist[16];\t/* 16 x 64 bytes: +768 bytes */\n",
		  "rows proposal");
	CHECK_EQ_U64(l.advice.cost_bytes, 16 * 48, "rows cost");
	advice_free(&l.advice);

	/* struct_size of the whole array: the same row */
	l.struct_size = 256;
	advice_for_line(&l, false);
	CHECK_EQ_U64(l.advice.cost_bytes, 16 * 48, "rows cost, whole size");
	advice_free(&l.advice);
}

/* Pad and cost for elements of 8..72 bytes on 64- and 128-byte lines:
 * rows of longs (long[4][k]) and structs of k longs (struct s[4]). */
static void test_element_sizes(void)
{
	static const unsigned longs[] = { 1, 2, 3, 5, 8, 9 };
	static char *const names[] = { "m0", "m1", "m2", "m3", "m4",
					"m5", "m6", "m7", "m8" };
	struct report_thread t1[] = { { .tid = 1, .writes = 50 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 50 } };

	for (unsigned L = 64; L <= 128; L += 64) {
		for (unsigned i = 0; i < ARRAY_SIZE(longs); i++) {
			unsigned k = longs[i], esz = 8 * k;
			unsigned padded = (esz + L - 1) / L * L;
			struct report_member sm[9];
			char type[32], want[64], what[64];
			/* element 0 and element 1 written by two threads */
			struct report_range r[] = {
				{ .offset = 0, .size = 8, .false_writer = true,
				  .false_victim = true, .writes = 50,
				  .threads = t1, .n_threads = 1 },
				{ .offset = esz % L, .size = 8,
				  .false_writer = true, .false_victim = true,
				  .writes = 50, .threads = t2, .n_threads = 1 },
			};
			struct report_line l = {
				.addr = 0x10000, .line_size = L,
				.kind = SHARING_FALSE, .variable = "a",
				.type_name = type, .object_start = 0x10000,
				.ranges = r, .n_ranges = 2, .struct_size = 8,
				.struct_align = 8,
			};

			r[0].member = k == 1 ? "a[0]" : "a[0][0]";
			r[1].member = k == 1 ? "a[1]" : "a[1][0]";
			snprintf(type, sizeof(type), k == 1 ? "long[4]" :
				 "long[4][%u]", k);
			snprintf(what, sizeof(what), "%s, %u-byte line", type, L);
			advice_for_line(&l, false);
			CHECK_EQ_U64(l.advice.cost_bytes, 4 * (padded - esz), what);
			snprintf(want, sizeof(want), "\tchar pad[%u];\n",
				 padded - esz);
			CHECK(padded == esz || (l.advice.layout_proposed &&
			      strstr(l.advice.layout_proposed, want)),
			      "%s: want %s in %s", what, want,
			      l.advice.layout_proposed);
			snprintf(want, sizeof(want), "(4 x %u bytes)", padded);
			CHECK(l.advice.summary && strstr(l.advice.summary, want),
			      "%s: %s", what, l.advice.summary);
			advice_free(&l.advice);

			/* the same sizes as structs of k longs */
			for (unsigned j = 0; j < k; j++)
				sm[j] = (struct report_member){ names[j], "long",
								8 * j, 8 };
			sm[0].writes = 100;
			sm[0].writers = TIDS(1, 2);
			sm[0].n_writers = 2;
			r[0].member = "a[0].m0";
			r[1].member = "a[1].m0";
			l.type_name = "struct s[4]";
			l.members = sm;
			l.n_members = k;
			l.struct_size = esz;
			snprintf(what, sizeof(what), "struct of %u bytes, "
				 "%u-byte line", esz, L);
			advice_for_line(&l, false);
			CHECK_EQ_U64(l.advice.cost_bytes, 4 * (padded - esz), what);
			snprintf(want, sizeof(want), "(4 x %u bytes)", padded);
			CHECK(l.advice.summary && strstr(l.advice.summary, want),
			      "%s: %s", what, l.advice.summary);
			advice_free(&l.advice);
		}
	}
}

/* Heap array of 32-byte structs, each thread writing its own element. */
static void test_per_thread_stats(void)
{
	struct report_thread t1[] = { { .tid = 7, .writes = 90 } };
	struct report_thread t2[] = { { .tid = 8, .writes = 80 } };
	struct report_member m[] = {
		{ "reads", "long", 0, 8 },
		{ "writes", "long", 8, 8, .writes = 170, .writers = TIDS(7, 8),
		  .n_writers = 2 },
		{ "misses", "long", 16, 8 },
		{ "id", "int", 24, 4 },
	};
	struct report_range r[] = {
		{ .offset = 8, .size = 8, .member = "[0].writes", .false_writer = true,
		  .false_victim = true, .writes = 90, .threads = t1, .n_threads = 1 },
		{ .offset = 40, .size = 8, .member = "[1].writes", .false_writer = true,
		  .false_victim = true, .writes = 80, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x5000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "stats", .type_name = "struct stats[4]",
		.object_start = 0x5000, .ranges = r, .n_ranges = 2,
		.members = m, .n_members = 4, .struct_size = 32, .struct_align = 8,
	};

	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "pad each element of stats to its own 64-byte line (4 x 64 bytes)",
		  "stats summary");
	CHECK_EQ_U64(l.advice.cost_bytes, 4 * 32, "stats cost");
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"\t_Alignas(64) long reads;  /*     0     8 */\n"
		"\tlong              writes; /*     8     8 */\n"),
	      "element aligned: %s", l.advice.layout_proposed);
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"/* 4 x 64 bytes: +128 bytes */\n"), "stats cost line");
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"aligned_alloc(64, 4 * sizeof(struct stats))"),
	      "stats aligned_alloc: all 4 elements: %s", l.advice.layout_proposed);
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now,
		"/* one element of stats (struct stats[4]) */\n"
		"struct stats {"), "stats layout_now: %s", l.advice.layout_now);
	advice_free(&l.advice);

	/* the same from C++: alignas, and new aligns it */
	l.cxx = true;
	advice_for_line(&l, true);
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"\talignas(64) long reads;  /*     0     8 */\n"
		"\tlong             writes; /*     8     8 */\n") &&
	      !strstr(l.advice.layout_proposed, "_Alignas"),
	      "C++: alignas: %s", l.advice.layout_proposed);
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"/* new aligns it (C++17); malloc to 16 bytes only: use aligned_alloc("),
	      "C++: new aligns: %s", l.advice.layout_proposed);
	advice_free(&l.advice);
}

static void test_true_sharing(void)
{
	struct report_thread t[] = {
		{ .tid = 101, .reads = 10, .writes = 400 },
		{ .tid = 102, .reads = 10, .writes = 380 },
	};
	struct report_member m[] = {
		{ "hits", "long", 0, 8, .reads = 20, .writes = 780,
		  .writers = TIDS(101, 102), .n_writers = 2,
		  .readers = TIDS(101, 102), .n_readers = 2 },
		{ "misses", "long", 8, 8 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "hits", .true_shared = true,
		  .reads = 20, .writes = 780, .threads = t, .n_threads = 2 },
	};
	struct report_line l = {
		.addr = 0x3000, .line_size = 64, .kind = SHARING_TRUE,
		.variable = "g", .type_name = "struct counter", .object_start = 0x3000,
		.ranges = r, .n_ranges = 1, .members = m, .n_members = 2,
		.struct_size = 16, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "padding cannot help: threads 101, 102 write the same bytes of "
		  "hits; use per-thread copies (sum on read), check before write "
		  "(skip stores of unchanged values), or batch updates",
		  "true sharing summary");
	CHECK(!l.advice.layout_proposed, "no proposal for true sharing");
	CHECK_EQ_U64(l.advice.cost_bytes, 0, "true sharing cost");
	CHECK_EQ_U64(l.advice.placements_total, 0, "true sharing placements");
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now, "W: 101 102"),
	      "true sharing still shows the layout");

	advice_free(&l.advice);

	/* one writer, one reader */
	t[1].writes = 0;
	advice_for_line(&l, false);
	CHECK(starts_with(l.advice.summary, "padding cannot help: thread 101 "
			  "writes hits while thread 102 reads it; "),
	      "single writer: %s", l.advice.summary);
	advice_free(&l.advice);
}

/* No type at all: name the bytes. */
/* A ring's head and tail: each written by one thread, read by the other.
 * Padding parts them; what stays is one thread publishing to another,
 * not threads writing the same bytes, and "per-thread copies" would not
 * do for a queue index. */
static void test_publish(void)
{
	struct report_thread th[] = { { .tid = 1, .writes = 30 }, { .tid = 2, .reads = 30 } };
	struct report_thread tt[] = { { .tid = 1, .reads = 30 }, { .tid = 2, .writes = 30 } };
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "rb.head", .true_shared = true,
		  .false_writer = true, .false_victim = true, .reads = 30, .writes = 30,
		  .threads = th, .n_threads = 2 },
		{ .offset = 8, .size = 8, .member = "rb.tail", .true_shared = true,
		  .false_writer = true, .false_victim = true, .reads = 30, .writes = 30,
		  .threads = tt, .n_threads = 2 },
	};
	struct report_line l = {
		.addr = 0x6000, .line_size = 64, .kind = SHARING_TRUE,
		.object = "rb", .ranges = r, .n_ranges = 2,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "padding cannot help: thread 1 writes rb.head while thread 2 reads it; "
		  "thread 2 writes rb.tail while thread 1 reads it; read the other thread's "
		  "value less often (keep a local copy, re-read it only when that runs "
		  "out) or publish in batches", "publish summary");
	advice_free(&l.advice);
}

static void test_untyped(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 10 } };
	struct report_thread t2[] = { { .tid = 2, .reads = 10 } };
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .false_writer = true, .writes = 10,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 16, .size = 4, .false_victim = true, .reads = 10,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x6000, .line_size = 64, .kind = SHARING_FALSE,
		.object = "[heap]+0x40", .ranges = r, .n_ranges = 2,
	};

	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "move line offset 0 to a 64-byte line of its own, away from "
		  "line offset 16 (no type information for a layout: build with -g)",
		  "untyped summary");
	CHECK(!l.advice.layout_now && !l.advice.layout_proposed,
	      "untyped: no layouts");
	advice_free(&l.advice);

	/* a -g binary whose pointer could not be followed: not "build with -g" */
	l.untyped_why = "no variable or load found for the base register";
	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "move line offset 0 to a 64-byte line of its own, away from "
		  "line offset 16 (no type information for a layout: no variable or "
		  "load found for the base register)", "untyped summary, with DWARF");
	advice_free(&l.advice);
}

/* How report_build gives an array of scalars: one member per element. */
static void test_element_members(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 50 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 50 } };
	struct report_member m[] = {
		{ "counters[0]", "long", 0, 8, .writes = 50, .writers = TIDS(1),
		  .n_writers = 1 },
		{ "counters[1]", "long", 8, 8, .writes = 50, .writers = TIDS(2),
		  .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "counters[0]",
		  .false_writer = true, .false_victim = true, .writes = 50,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "counters[1]",
		  .false_writer = true, .false_victim = true, .writes = 50,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x4000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "counters", .type_name = "long[4]",
		.object_start = 0x4000, .ranges = r, .n_ranges = 2,
		.members = m, .n_members = 2, .struct_size = 8, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "pad each element of counters to its own 64-byte line (4 x 64 bytes)",
		  "element members summary");
	CHECK_EQ_U64(l.advice.cost_bytes, 4 * 56, "element members cost");
	CHECK(!l.advice.layout_now, "elements are not a struct layout");
	advice_free(&l.advice);
}

/* One malloc'd struct per thread, reached through a pointer: the other
 * thread's struct shares the line. */
static void test_heap_neighbour(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 70 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 60 } };
	struct report_member m[] = {
		{ "reads", "long", 0, 8 },
		{ "writes", "long", 8, 8, .writes = 70, .writers = TIDS(1),
		  .n_writers = 1 },
		{ "misses", "long", 16, 8 },
		{ "id", "int", 24, 4 },
	};
	struct report_range r[] = {
		{ .offset = 8, .size = 8, .member = "writes", .false_writer = true,
		  .false_victim = true, .writes = 70, .threads = t1, .n_threads = 1 },
		{ .offset = 40, .size = 8, .member = "writes", .false_writer = true,
		  .false_victim = true, .writes = 60, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x7000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "s", .type_name = "struct stats", .object_start = 0x7000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 4,
		.struct_size = 32, .struct_align = 8,
	};

	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "give each struct stats a 64-byte line of its own: it shares "
		  "one with data other threads use", "neighbour summary");
	CHECK_EQ_U64(l.advice.cost_bytes, 32, "neighbour cost");
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"\t_Alignas(64) long reads;  /*     0     8 */\n"),
	      "neighbour proposal: %s", l.advice.layout_proposed);
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"aligned_alloc(64, sizeof(struct stats))"), "neighbour aligned_alloc");
	CHECK_EQ_U64(l.advice.placements_total, 0, "one member of ours: n/a");
	advice_free(&l.advice);
}

/* The line holds one member of the object, written by thread 2, and a
 * neighbour's data that thread 1 reads; thread 1 writes the object's
 * other member on the line before.  Aligning the object alone would seat
 * both writers on one line: each gets a line of its own, the member off
 * the line too.  A member off the line that a writer of the line writes
 * (rx_bytes beside rx_packets) is left where it is. */
static void test_writer_off_line(void)
{
	struct report_thread t1[] = { { .tid = 1, .reads = 50 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 60 } };
	struct report_member m[] = {
		{ "hits", "long", 0, 8, .writes = 40, .writers = TIDS(1), .n_writers = 1 },
		{ "misses", "long", 8, 8, .writes = 60, .writers = TIDS(2), .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "misses", .false_writer = true,
		  .writes = 60, .threads = t2, .n_threads = 1 },
		{ .offset = 24, .size = 8, .member = "state", .false_victim = true,
		  .reads = 50, .threads = t1, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x7040, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "c", .type_name = "struct counters", .object_start = 0x7038,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 2,
		.struct_size = 16, .struct_align = 8,
	};

	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "give each writer its own cache line: hits (thread 1), misses (thread 2)",
		  "writer off the line: summary");
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "\t_Alignas(64) long hits;   /*     0     8 */\n") &&
	      strstr(l.advice.layout_proposed, "\t_Alignas(64) long misses; /*    64     8 */\n"),
	      "writer off the line: proposal %s", l.advice.layout_proposed);
	advice_free(&l.advice);

	/* thread 2 writes both: hits stays beside misses, the object is
	 * aligned as a whole */
	m[0].writers = TIDS(2);
	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary, "give each struct counters a 64-byte line of its own: it "
		  "shares one with data other threads use", "a line writer's own member off the line");
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "\t_Alignas(64) long hits;   /*     0     8 */\n"
		     "\tlong              misses; /*     8     8 */\n"),
	      "a line writer's own member off the line: proposal %s", l.advice.layout_proposed);
	advice_free(&l.advice);
}

/* A C++ struct with a base class: the base is no member to declare or
 * move.  It stays first, as a comment, and the head names it; a class's
 * public base says so.  Aligned as a whole, the class takes the alignas. */
static void test_base_class(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 100 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 100 } };
	struct report_member m[] = {
		{ NULL, "Base", 0, 16, .base = true, .access = MEMBER_PUBLIC },
		{ "a", "long", 16, 8, .writes = 100, .writers = TIDS(1), .n_writers = 1,
		  .access = MEMBER_PUBLIC },
		{ "b", "long", 24, 8, .writes = 100, .writers = TIDS(2), .n_writers = 1,
		  .access = MEMBER_PUBLIC },
	};
	struct report_range r[] = {
		{ .offset = 16, .size = 8, .member = "d.a", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t1, .n_threads = 1 },
		{ .offset = 24, .size = 8, .member = "d.b", .false_writer = true,
		  .false_victim = true, .writes = 100, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x2000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "d", .type_name = "Derived", .object_start = 0x2000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 3,
		.struct_size = 32, .struct_align = 8, .struct_name = "Derived", .cxx = true,
	};

	advice_for_line(&l, false);
	CHECK(l.advice.layout_proposed &&
	      !strncmp(l.advice.layout_proposed, "struct Derived : Base {", 23) &&
	      strstr(l.advice.layout_proposed, "\t/* base class Base */    ") &&
	      strstr(l.advice.layout_proposed, "/*     0    16 */\n") &&
	      !strstr(l.advice.layout_proposed, "<anonymous>") &&
	      !strstr(l.advice.layout_proposed, "public:") &&
	      strstr(l.advice.layout_proposed, "alignas(64) long a;") &&
	      strstr(l.advice.layout_proposed, "alignas(64) long b;"),
	      "base class: %s", l.advice.layout_proposed);
	CHECK(l.advice.layout_now && !strncmp(l.advice.layout_now, "struct Derived : Base {", 23),
	      "base class now: %s", l.advice.layout_now);
	advice_free(&l.advice);

	/* a class, its base public: "class Derived : public Base", and its
	 * public members under their label */
	l.cxx_class = true;
	advice_for_line(&l, false);
	CHECK(l.advice.layout_proposed &&
	      !strncmp(l.advice.layout_proposed, "class Derived : public Base {", 29) &&
	      strstr(l.advice.layout_proposed, "public:\n"),
	      "public base of a class: %s", l.advice.layout_proposed);
	advice_free(&l.advice);
}

/* p2_class_array: one heap Accumulator, thread i adding to counts[i].
 * Aligning the struct leaves the slots on one line; each slot is padded. */
/* Issue 15: int pointers into the middle of two heap structs.  The
 * elements of the pointee are members of the line's own scalar type,
 * "*red", "[1]": never a struct int { int *red; int [1]; }, nor a
 * struct { int v; } red (red is a pointer, not a variable); with the
 * block known, the block and how to allocate it. */
static void test_heap_scalars(void)
{
	static uint32_t t102[] = { 102 };
	static struct report_member elems[] = {
		{ "*red", "int", 0, 4, .writes = 10, .writers = t102, .n_writers = 1 },
		{ "[1]", "int", 4, 4, .writes = 12, .writers = t102, .n_writers = 1 },
	};
	static struct report_thread w101[] = { { .tid = 101, .writes = 20 } };
	static struct report_thread w102[] = { { .tid = 102, .writes = 22 } };
	static struct report_range ranges[] = {
		{ .offset = 0, .size = 32, .member = "[248]", .false_writer = true,
		  .writes = 20, .threads = w101, .n_threads = 1 },
		{ .offset = 32, .size = 4, .member = "*red", .false_writer = true,
		  .writes = 10, .threads = w102, .n_threads = 1 },
		{ .offset = 36, .size = 4, .member = "[1]", .false_writer = true,
		  .writes = 12, .threads = w102, .n_threads = 1 },
	};
	struct report_alloc block = {
		.start = 0x5000002a0, .size = 6144, .call = "calloc", .count = 2,
		.elem_size = 3072, .site = "main heap_struct_array.c:113",
	};
	struct report_line l = {
		.addr = 0x500000e80, .line_size = 64, .kind = SHARING_FALSE, .samples = 42,
		.variable = "red", .type_name = "int", .object_start = 0x500000ea0,
		.ranges = ranges, .n_ranges = ARRAY_SIZE(ranges),
		.members = elems, .n_members = ARRAY_SIZE(elems),
		.struct_size = 4, .struct_align = 4, .struct_name = "int",
	};
	const char *sum;

	advice_for_line(&l, true);
	sum = l.advice.summary;
	CHECK(sum && !strstr(sum, "struct int") && !strstr(sum, "struct {"),
	      "no struct made of a scalar: %s", sum ? sum : "");
	CHECK(!l.advice.layout_proposed || (!strstr(l.advice.layout_proposed, "struct int") &&
					    !strstr(l.advice.layout_proposed, "struct {")),
	      "no proposed struct: %s", l.advice.layout_proposed ? l.advice.layout_proposed : "");
	CHECK(!l.advice.layout_now || !strstr(l.advice.layout_now, "struct int"),
	      "no current struct int: %s", l.advice.layout_now ? l.advice.layout_now : "");
	CHECK(sum && strstr(sum, "no struct type is known"), "says no struct is known: %s", sum ? sum : "");
	CHECK(sum && strstr(sum, "*red"), "names the ranges to part: %s", sum ? sum : "");
	CHECK(sum && strstr(sum, "of the line, thread 101 writes bytes 0..31, thread 102 "
			    "writes bytes 32..39"), "says which thread writes which bytes: %s", sum ? sum : "");
	advice_free(&l.advice);

	l.alloc = &block;
	advice_for_line(&l, true);
	sum = l.advice.summary;
	CHECK(sum && strstr(sum, "bytes 3040..3103 of the block calloc(2, 3072) allocated in "
			    "main heap_struct_array.c:113"), "names the block: %s", sum ? sum : "");
	CHECK(sum && strstr(sum, "aligned_alloc(64, ...)"), "advises on the allocation: %s", sum ? sum : "");
	CHECK(sum && !strstr(sum, "struct int"), "still no struct int: %s", sum ? sum : "");
	advice_free(&l.advice);
}

static void test_member_array_slots(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 700 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 740 } };
	struct report_member m[] = {
		{ "name", "const char *", 0, 8 },
		{ "flags", "int", 8, 4 },
		{ "counts", "long[4]", 16, 32, .writes = 1440,
		  .writers = TIDS(1, 2), .n_writers = 2 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "counts[0]",
		  .false_writer = true, .false_victim = true, .writes = 700,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "counts[1]",
		  .false_writer = true, .false_victim = true, .writes = 740,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x11ec0, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "this", .type_name = "Accumulator",
		.object_start = 0x11eb0, .ranges = r, .n_ranges = 2,
		.members = m, .n_members = 3, .struct_size = 48,
		.struct_align = 8,
	};

	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "pad each element of counts in struct Accumulator to its own "
		  "64-byte line (4 x 64 bytes): threads contend on different "
		  "elements of it", "slots summary");
	CHECK_STR(l.advice.layout_proposed,
		  "struct Accumulator {                               "
		  "/* size 320, align 64 */\n"
		  "\tconst char *                    name;      /*     0     8 */\n"
		  "\tint                             flags;     /*     8     4 */\n"
		  "\t/* XXX 52 bytes hole */\n"
		  "\t/* --- cacheline 1 boundary (64 bytes) --- */\n"
		  "\tstruct { _Alignas(64) long v; } counts[4]; /*    64   256 */\n"
		  "};\n"
		  "/* malloc aligns to 16 bytes only: allocate with "
		  "aligned_alloc(64, sizeof(struct Accumulator)) */\n"
		  "/* use counts[i].v; cost: +272 bytes per instance (48 -> 320) */\n",
		  "slots proposal");
	CHECK_EQ_U64(l.advice.cost_bytes, 320 - 48, "slots cost");
	CHECK_EQ_U64(l.advice.placements_total, 0,
		     "slots: no placement luck to count");
	CHECK(l.advice.layout_now && !strstr(l.advice.layout_now, "placements"),
	      "slots: no placement note: %s", l.advice.layout_now);
	advice_free(&l.advice);

	/* rows of two longs, 128-byte lines: each row on a line of its own */
	m[2].type_name = "long[2][2]";
	r[0].offset = 64;       /* counts start 64 bytes into the line */
	r[1].offset = 80;
	r[1].member = "counts[1][0]";
	r[0].member = "counts[0][0]";
	l.line_size = 128;
	l.addr = 0x11e80;
	advice_for_line(&l, true);
	CHECK_STR(l.advice.summary,
		  "pad each element of counts in struct Accumulator to its own "
		  "128-byte line (2 x 128 bytes): threads contend on different "
		  "elements of it", "rows summary");
	CHECK(l.advice.layout_proposed && strstr(l.advice.layout_proposed,
		"\tstruct { _Alignas(128) long v[2]; } counts[2]; /*   128   256 */\n"),
	      "rows proposal: %s", l.advice.layout_proposed);
	CHECK_EQ_U64(l.advice.cost_bytes, 384 - 48, "rows cost");
	advice_free(&l.advice);

	/* two elements only read, the victims of a write elsewhere: the
	 * elements do not fight each other, nothing to split */
	for (unsigned i = 0; i < 2; i++) {
		r[i].writes = 0;
		r[i].reads = 100;
		r[i].false_writer = false;
	}
	m[2].writes = 0;
	m[2].n_writers = 0;
	advice_for_line(&l, true);
	CHECK(l.advice.summary && !strstr(l.advice.summary, "each element"),
	      "read elements: %s", l.advice.summary);
	advice_free(&l.advice);
}

/* A mutex taken in turn, g.flags beside it read by a third thread. */
static void test_lock(void)
{
	struct report_thread takers[] = {
		{ .tid = 101, .reads = 300, .writes = 200 },
		{ .tid = 102, .reads = 280, .writes = 190 },
	};
	struct report_thread reader[] = { { .tid = 103, .reads = 40 } };
	struct report_member m[] = {
		{ "flags", "int", 0, 4, .reads = 40, .readers = TIDS(103),
		  .n_readers = 1 },
		{ "lock", "pthread_mutex_t", 8, 40, .reads = 580, .writes = 390,
		  .writers = TIDS(101, 102), .n_writers = 2 },
	};
	struct report_range r[] = {
		{ .offset = 0, .size = 4, .member = "g.flags", .false_victim = true,
		  .reads = 40, .threads = reader, .n_threads = 1 },
		{ .offset = 8, .size = 40, .member = "g.lock", .true_shared = true,
		  .false_writer = true, .reads = 580, .writes = 390,
		  .threads = takers, .n_threads = 2 },
	};
	struct report_line l = {
		.addr = 0x1000, .line_size = 64, .kind = SHARING_MIXED,
		.variable = "g", .type_name = "struct shared", .object_start = 0x1000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 2,
		.struct_size = 48, .struct_align = 8,
		.lock = { "g.lock", "pthread_mutex_t", 0x1008, 40 },
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "lock contention on g.lock (pthread_mutex_t): threads 101, 102 "
		  "take it in turn, and padding cannot help; shard it (a lock per "
		  "bucket or per group of threads) or the data it protects, hold it "
		  "for less time (work outside it), or give each thread its own "
		  "data and merge at the end; flags shares the lock's line: move "
		  "it to a line of its own", "lock summary");
	CHECK(!l.advice.layout_proposed, "no layout proposed for a lock: %s",
	      l.advice.layout_proposed);
	CHECK_EQ_U64(l.advice.cost_bytes, 0, "lock cost");
	advice_free(&l.advice);

	/* 32 bytes into the line: it straddles two; a pointer's lock has
	 * no member to declare */
	l.addr = 0xfc0;
	l.object_start = 0xfe0;
	l.lock.addr = 0xfe8;
	r[0].offset = 32;
	r[1].offset = 40;
	r[1].size = 24;
	l.n_ranges = 2;
	l.lock.name = "*mutex";
	r[1].member = "*mutex";
	r[0].false_victim = false;
	advice_for_line(&l, false);
	CHECK(l.advice.summary && strstr(l.advice.summary,
		"merge at the end; it straddles two 64-byte lines (40 bytes from "
		"line offset 40): align it to a line to keep it on one"),
	      "straddling lock: %s", l.advice.summary);
	advice_free(&l.advice);
}

/* outers[i].in.a[k]: the members are those of the struct inside. */
static void test_nested(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 40 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 40 } };
	struct report_member m[] = {
		{ "a", "int[3]", 0, 12, .writes = 40, .writers = TIDS(1),
		  .n_writers = 1 },
		{ "b", "short", 12, 2, .writes = 40, .writers = TIDS(2),
		  .n_writers = 1 },
	};
	struct report_range r[] = {
		{ .offset = 8, .size = 4, .member = "outers[0].in.a[1]",
		  .false_writer = true, .false_victim = true, .writes = 40,
		  .threads = t1, .n_threads = 1 },
		{ .offset = 16, .size = 2, .member = "outers[0].in.b",
		  .false_writer = true, .false_victim = true, .writes = 40,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x8000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "outers", .type_name = "struct outer[2]",
		.object_start = 0x8000, .ranges = r, .n_ranges = 2,
		.members = m, .n_members = 2, .struct_size = 16, .struct_align = 4,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary,
		  "give each writer its own cache line: a (thread 1), b (thread 2)",
		  "nested summary");
	CHECK(starts_with(l.advice.layout_now, "struct <type of in> {"),
	      "nested title: %s", l.advice.layout_now);
	advice_free(&l.advice);

	/* the members' struct by its name, when DWARF gives one */
	l.struct_name = "struct inner";
	advice_for_line(&l, false);
	CHECK(starts_with(l.advice.layout_now, "struct inner {"),
	      "nested title by name: %s", l.advice.layout_now);
	l.struct_name = NULL;
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now,
		"(this instance starts at line offset 4)"),
	      "nested instance found from b: %s", l.advice.layout_now);
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now,
		"\tint   a[3]; /*     0    12 */  W: 1  50%\n"),
	      "array member declarator: %s", l.advice.layout_now);
	CHECK_EQ_U64(l.advice.cost_bytes, 128 - 16, "nested cost");
	/* a [0,12) and b [12,14) at 4-byte steps: only start 52 splits them */
	CHECK_EQ_U64(l.advice.placements_sharing, 15, "nested placements");
	CHECK_EQ_U64(l.advice.placements_total, 16, "nested placements total");
	advice_free(&l.advice);
}

/* A struct of 40 longs shows the members around the line only. */
static void test_big_struct(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 10 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 10 } };
	struct report_member m[40];
	char names[40][8];
	struct report_range r[] = {
		{ .offset = 32, .size = 8, .member = "big.m20", .false_writer = true,
		  .false_victim = true, .writes = 10, .threads = t1, .n_threads = 1 },
		{ .offset = 40, .size = 8, .member = "big.m21", .false_writer = true,
		  .false_victim = true, .writes = 10, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x9080, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "big", .type_name = "struct big", .object_start = 0x9000,
		.ranges = r, .n_ranges = 2, .members = m, .n_members = 40,
		.struct_size = 320, .struct_align = 8,
	};

	for (unsigned i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "m%u", i);
		m[i] = (struct report_member){ names[i], "long", 8 * i, 8 };
	}
	m[20].writes = m[21].writes = 10;
	m[20].writers = TIDS(1);
	m[21].writers = TIDS(2);
	m[20].n_writers = m[21].n_writers = 1;

	advice_for_line(&l, false);
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now,
		"\t/* ... 8 members not shown ... */\n"
		"\t/* --- cacheline 1 boundary (64 bytes) --- */\n"
		"\tlong m8;"), "leading members elided: %s", l.advice.layout_now);
	CHECK(l.advice.layout_now && strstr(l.advice.layout_now,
		"\tlong m31; /*   248     8 */\n"
		"\t/* ... 8 members not shown ... */\n};\n"),
	      "trailing members elided");
	CHECK(l.advice.layout_now && !strstr(l.advice.layout_now, " m7;"),
	      "m7 elided");
	/* m20 and m21 move to lines 5 and 6 of a 448-byte struct */
	CHECK_EQ_U64(l.advice.cost_bytes, 448 - 320, "big cost");
	advice_free(&l.advice);
}

static void test_scalar(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 10 } };
	struct report_thread t2[] = { { .tid = 2, .reads = 10 } };
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "hits", .false_writer = true,
		  .writes = 10, .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .false_victim = true, .reads = 10,
		  .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0xa000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "hits", .type_name = "long", .object_start = 0xa000,
		.ranges = r, .n_ranges = 2, .struct_size = 8, .struct_align = 8,
	};

	advice_for_line(&l, false);
	CHECK_STR(l.advice.summary, "give hits a 64-byte line of its own: it "
		  "shares one with data other threads use", "scalar summary");
	CHECK_STR(l.advice.layout_proposed,
		  "struct {\n\t_Alignas(64) long v;\n} hits;\t"
		  "/* was long hits; use hits.v: +56 bytes */\n",
		  "scalar proposal");
	CHECK_EQ_U64(l.advice.cost_bytes, 56, "scalar cost");
	advice_free(&l.advice);
}

/* Nonsense in, advice out: no crash, no hang. */
static void test_bad_input(void)
{
	struct report_thread t[] = { { .tid = 9, .writes = 1 } };
	struct report_member m[] = {
		{ NULL, NULL, 0, 0 },
		{ "x", "int", 1ULL << 40, 4, .writes = 5 },
		{ "y", "char", 3, 1, .reads = 1 },
		{ "z", NULL, 2, 8 },
	};
	struct report_range r[] = {
		{ .offset = 63, .size = 8, .member = "x", .false_writer = true,
		  .writes = 1, .threads = t, .n_threads = 1 },
		{ .offset = 2, .size = 1, .member = "", .false_victim = true },
		{ .offset = 5, .size = 1, .member = "[", .true_shared = true },
	};
	struct report_line l = {
		.addr = 0x100, .kind = SHARING_MIXED, .type_name = "struct odd[x]",
		.object_start = 0x140, .ranges = r, .n_ranges = 3,
		.members = m, .n_members = 4,
	};

	advice_for_line(&l, true);
	CHECK(l.advice.summary != NULL, "odd struct: a summary");
	advice_free(&l.advice);

	l.kind = SHARING_FALSE;
	l.type_name = NULL;
	l.n_members = 0;
	l.object_start = 0;
	advice_for_line(&l, false);
	CHECK(l.advice.summary && !l.advice.layout_proposed,
	      "untyped odd: summary only");
	advice_free(&l.advice);

	l.n_ranges = 0;
	l.kind = SHARING_TRUE;
	advice_for_line(&l, false);
	CHECK(l.advice.summary && strstr(l.advice.summary, "padding cannot help"),
	      "no ranges: %s", l.advice.summary);
	advice_free(&l.advice);
}

/* ---- the layouts as rows ------------------------------------------------ */

static const struct report_layout_row *row_named(const struct report_layout *lay,
						 const char *member)
{
	for (unsigned i = 0; i < lay->n_rows; i++)
		if (lay->rows[i].member && !strcmp(lay->rows[i].member, member))
			return &lay->rows[i];
	return NULL;
}

static bool tids_are(const uint32_t *tid, unsigned n, uint32_t a, uint32_t b)
{
	return n == 2 && tid[0] == a && tid[1] == b;
}

/* The rows say what the text says: testcases/klass_secondary_supers.c's
 * Klass, the cache moved to a line of its own. */
static void test_klass_rows(void)
{
	struct report_line l = klass_line(0x10000);
	const struct report_layout *now = &l.advice.current;
	const struct report_layout *fix = &l.advice.proposed;
	const struct report_layout_row *r;
	char *text;

	advice_for_line(&l, false);
	CHECK_STR(now->title, "struct Klass", "current title");
	CHECK_EQ_U64(now->n_rows, ARRAY_SIZE(klass_members), "a row per member");
	CHECK_EQ_U64(now->size, 208, "current size");
	CHECK(now->placed && now->line_offset == 0, "current placed at 0");

	r = row_named(now, "secondary_super_cache");
	CHECK(r != NULL, "current row secondary_super_cache");
	if (r) {
		CHECK_EQ_U64(r->offset, 32, "cache offset");
		CHECK_EQ_U64(r->size, 8, "cache size");
		CHECK_EQ_U64(r->align, 8, "cache align");
		CHECK_EQ_U64(r->padding_before, 0, "cache padding");
		CHECK_EQ_U64((uint64_t)r->line, 0, "cache on line 0");
		CHECK(tids_are(r->writers, r->n_writers, 101, 102), "cache writers");
		CHECK(tids_are(r->readers, r->n_readers, 101, 102), "cache readers");
		CHECK_EQ_U64(r->accesses, 800, "cache accesses");
		CHECK(r->share > 0.79 && r->share < 0.80, "cache share %g", r->share);
	}
	r = row_named(now, "primary_supers");
	CHECK(r && r->offset == 48 && r->size == 64 && r->line == 0,
	      "primary_supers [48, 112) from line 0");
	r = row_named(now, "archived_mirror_index");
	CHECK(r && r->offset == 184 && r->padding_before == 4 && r->line == 2,
	      "the 4-byte hole before archived_mirror_index");
	CHECK_EQ_U64(now->tail_padding, 0, "no tail padding now");
	CHECK_EQ_U64(l.advice.placements_sharing, 7, "placements sharing");
	CHECK_EQ_U64(l.advice.placements_total, 8, "placements total");

	CHECK_STR(fix->title, "struct Klass", "proposed title");
	CHECK_EQ_U64(fix->size, 320, "proposed size");
	CHECK_EQ_U64(fix->align, 64, "proposed align");
	CHECK_EQ_U64(fix->tail_padding, 56, "proposed tail padding");
	r = row_named(fix, "secondary_super_cache");
	CHECK(r != NULL, "proposed row secondary_super_cache");
	if (r) {
		CHECK_EQ_U64(r->offset, 256, "cache moved to 256");
		CHECK_EQ_U64(r->size, 8, "cache size kept");
		CHECK_EQ_U64(r->align, 64, "cache line-aligned");
		CHECK(r->line_aligned, "cache _Alignas(64)");
		CHECK_EQ_U64(r->padding_before, 56, "56 bytes before the cache");
		CHECK_EQ_U64((uint64_t)r->line, 4, "cache on line 4");
		CHECK_STR(r->comment, "a line of its own: written by threads 101, 102",
			  "cache group comment");
	}
	/* alone on its line: every other member ends before it */
	for (unsigned i = 0; i < fix->n_rows; i++) {
		const struct report_layout_row *o = &fix->rows[i];

		if (o != r && o->offset + o->size > 256)
			CHECK(false, "%s shares the cache's line", o->member);
	}
	r = row_named(fix, "secondary_supers");
	CHECK(r && r->offset == 32 && r->size == 8 && r->padding_before == 0 &&
	      !r->line_aligned, "secondary_supers closes up to 32");
	r = row_named(fix, "itable_start");
	CHECK(r && r->offset == 192, "the rest keeps its order: itable_start at 192");
	CHECK_EQ_U64(l.advice.cost_bytes, 112, "cost from the rows' size");

	/* the text is the rows printed */
	text = advice_layout_text(fix);
	CHECK_STR(text, l.advice.layout_proposed, "proposed text from the rows");
	free(text);
	text = advice_layout_text(now);
	CHECK_STR(text, l.advice.layout_now, "current text from the rows");
	free(text);
	advice_free(&l.advice);
}

/* testcases/false_sharing_counters.c: volatile long counters[64], one per
 * thread; the element padded to a line. */
static void test_counters_rows(void)
{
	struct report_thread t1[] = { { .tid = 1, .writes = 90 } };
	struct report_thread t2[] = { { .tid = 2, .writes = 90 } };
	struct report_range r[] = {
		{ .offset = 0, .size = 8, .member = "counters[0]", .false_writer = true,
		  .false_victim = true, .writes = 90, .threads = t1, .n_threads = 1 },
		{ .offset = 8, .size = 8, .member = "counters[1]", .false_writer = true,
		  .false_victim = true, .writes = 90, .threads = t2, .n_threads = 1 },
	};
	struct report_line l = {
		.addr = 0x4000, .line_size = 64, .kind = SHARING_FALSE,
		.variable = "counters", .type_name = "volatile long[64]",
		.object_start = 0x4000, .ranges = r, .n_ranges = 2,
		.struct_size = 8, .struct_align = 8,
	};
	const struct report_layout *fix = &l.advice.proposed;
	const struct report_layout_row *v;

	advice_for_line(&l, false);
	CHECK(!l.advice.current.title && !l.advice.current.n_rows,
	      "no current layout for an array of scalars");
	CHECK_STR(fix->title, "struct padded_volatile_long", "element title");
	CHECK_EQ_U64(fix->n_rows, 1, "one member: v");
	v = row_named(fix, "v");
	CHECK(v != NULL, "row v");
	if (v) {
		CHECK_STR(v->type_name, "volatile long", "v's type");
		CHECK_EQ_U64(v->offset, 0, "v at 0");
		CHECK_EQ_U64(v->size, 8, "v 8 bytes");
		CHECK_EQ_U64(v->align, 64, "v aligned to the line");
		CHECK(v->line_aligned, "v _Alignas(64)");
		CHECK_EQ_U64(v->padding_before, 0, "nothing before v");
	}
	CHECK_EQ_U64(fix->size, 64, "element size");
	CHECK_EQ_U64(fix->align, 64, "element align");
	CHECK_EQ_U64(fix->tail_padding, 56, "56 bytes of padding after v");
	CHECK_EQ_U64(l.advice.cost_bytes, 64 * 56, "cost");
	CHECK_EQ_U64(l.advice.placements_total, 0, "no placement note");
	advice_free(&l.advice);

	/* C++ spells the rows' C, not the rows */
	l.cxx = true;
	advice_for_line(&l, false);
	CHECK(fix->rows && fix->rows[0].align == 64 && fix->tail_padding == 56,
	      "C++: same rows");
	CHECK(l.advice.layout_proposed &&
	      strstr(l.advice.layout_proposed, "\talignas(64) volatile long v;\n"),
	      "C++: alignas: %s", l.advice.layout_proposed);
	advice_free(&l.advice);

	/* Rust: a static [AtomicU64; 64] */
	l.cxx = false;
	l.rust = true;
	l.type_name = "AtomicU64[64]";
	advice_for_line(&l, false);
	CHECK_STR(l.advice.layout_proposed,
		  "#[repr(C, align(64))]\n"
		  "struct padded_AtomicU64 {\n"
		  "\tv: AtomicU64,\n"
		  "}\n"
		  "static counters: [padded_AtomicU64; 64];\t/* 64 x 64 bytes: +3584 bytes */\n",
		  "Rust: padded element");
	advice_free(&l.advice);
}

int main(void)
{
	test_placements();
	test_klass();
	test_klass_offset_24();
	test_pair();
	test_rust_pair();
	test_placement_pair();
	test_counters();
	test_array_of_rows();
	test_element_sizes();
	test_per_thread_stats();
	test_true_sharing();
	test_untyped();
	test_publish();
	test_element_members();
	test_heap_neighbour();
	test_writer_off_line();
	test_base_class();
	test_member_array_slots();
	test_heap_scalars();
	test_lock();
	test_nested();
	test_big_struct();
	test_scalar();
	test_bad_input();
	test_klass_rows();
	test_counters_rows();
	return test_done();
}
