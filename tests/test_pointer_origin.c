/* test_pointer_origin.c - heap accesses no register variable describes,
 * typed by following the base register back to its load, on
 * tests/fixture_globals mapped into a made-up process:
 *  - conn_rx(): mov conn_ptr(%rip),%rdx; addq $1,0x10(%rdx)
 *  - vec_bump(): lea stats_vec(%rip),%rcx; mov (%rcx),%rdx; add %rsi,%rdx;
 *    addq $1,0x8(%rdx)
 *  - vec_sweep(): mov stats_vec(%rip),%rax; loop: addq $1,0x10(%rax);
 *    add $0x20,%rax; jne loop
 *  - conn_rx_debug() (unoptimised): mov -0x18(%rbp),%rax; mov %rdx,0x10(%rax)
 * The access instruction is found by decoding the function, so that the
 * test does not depend on the compiler's exact choice of registers.
 */
#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "elf_fixture.h"
#include "common/util.h"
#include "symbolize/decode.h"
#include "detector/line_table.h"
#include "symbolize/pointer_origin.h"
#include "detector/sample.h"
#include "reports/report.h"
#include "reports/report_finish.h"
#include "symbolize/data_types.h"
#include "symbolize/symbolizer.h"

#define PID 100
#define T1 101
#define T2 102
#define LOAD_BASE 0x555555554000ULL
#define HEAP 0x7f0000100000ULL
#define REG_VALUE 0x7f0000001000ULL   /* every register, to decode with */

/* The fixture's segments at LOAD_BASE. */
static void map_segments(struct elf_file *f, struct symbolizer *sym, const char *path)
{
	elf_fixture_map(f, sym, PID, LOAD_BASE, path);
}

/* The first instruction of fn that writes memory through a register
 * other than rsp/rip/rbp (the stack): its address, base register and
 * displacement. */
struct access_site {
	uint64_t ip;
	int base_reg;
	int64_t disp;
	unsigned size;
};

static bool find_access(struct symbolizer *sym, const char *fn, struct access_site *out)
{
	struct decoder *d = decoder_new_for_machine(EM_X86_64);
	struct data_symbol ds;
	struct func_info fi;
	struct regs regs = { .mask = 0 };
	uint8_t code[4096];
	size_t len;
	bool found = false;

	for (int r = 0; r < DECODE_MAX_REGS; r++) {
		regs.val[r] = REG_VALUE;
		regs.mask |= 1ULL << r;
	}
	if (!d || !symbolizer_find_symbol(sym, PID, fn, &ds) ||
	    !symbolizer_function(sym, PID, ds.start, &fi)) {
		decoder_free(d);
		return false;
	}
	len = symbolizer_read(sym, PID, fi.start, code,
			      fi.end - fi.start < sizeof(code) ? fi.end - fi.start : sizeof(code));
	for (size_t off = 0; off < len && !found;) {
		struct insn_info ii;
		struct decoded_access a;

		if (!decoder_insn(d, code + off, len - off, fi.start + off, &ii))
			break;
		if (decoder_access(d, code + off, len - off, fi.start + off, &regs, false,
				   &a) == DECODE_OK && a.base_reg >= 0 && a.base_reg != 6 &&
		    a.kind != ACCESS_LOAD) {
			*out = (struct access_site){ fi.start + off, a.base_reg, a.base_off,
						     a.size };
			found = true;
		}
		off += ii.length;
	}
	decoder_free(d);
	return found;
}

/* conn_ptr->rx.packets: the pointer is loaded from the global each time. */
static void test_global_pointer(struct pointer_origins *po, struct symbolizer *sym)
{
	struct access_site s;
	struct data_attribution a;

	CHECK(find_access(sym, "conn_rx", &s), "an access in conn_rx");
	CHECK_EQ_U64(s.disp, 16, "conn_rx: rx.packets is 16 bytes in");
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, s.base_reg, s.disp, HEAP + 16,
					   s.size, &a), DT_HIT, "conn_rx: typed");
	CHECK_STR(a.variable, "conn_ptr", "conn_rx: named by the global");
	CHECK_STR(a.type_name, "struct conn", "conn_rx: type");
	CHECK_STR(a.path, ".rx.packets", "conn_rx: member");
	CHECK(a.via_pointer, "conn_rx: via pointer");
	CHECK_EQ_U64(a.object_start, HEAP, "conn_rx: object");
	CHECK_EQ_U64(a.element_index, 0, "conn_rx: conn_ptr[0]");

	/* asked again: the same answer, from the cache */
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, s.base_reg, s.disp + 16,
					   HEAP + 32, 8, &a), DT_HIT, "conn_rx again");
	CHECK_STR(a.path, ".tx.packets", "another offset through the same origin");

	/* rcx: nothing in conn_rx sets it, and no variable lives there */
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, 2, 0, HEAP, 8, &a), DT_NO_ORIGIN,
		     "conn_rx rcx: no variable or load");
	CHECK_STR(data_types_miss_name(DT_NO_ORIGIN),
		  "no variable or load found for the base register", "the reason says so");
	CHECK_EQ_U64(pointer_origin_access(po, PID, 0x1000, s.base_reg, 0, HEAP, 8, &a),
		     DT_NO_DWARF, "unmapped code");
}

/* cc->rx.packets unoptimised: cc is reloaded from its stack slot. */
static void test_stack_variable(struct pointer_origins *po, struct symbolizer *sym)
{
	struct access_site s;
	struct data_attribution a;

	CHECK(find_access(sym, "conn_rx_debug", &s), "an access in conn_rx_debug");
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, s.base_reg, s.disp, HEAP + 16,
					   s.size, &a), DT_HIT, "conn_rx_debug: typed");
	CHECK_STR(a.variable, "cc", "conn_rx_debug: named by the local");
	CHECK_STR(a.type_name, "struct conn", "conn_rx_debug: type");
	CHECK_STR(a.path, ".rx.packets", "conn_rx_debug: member");
	CHECK_EQ_U64(a.object_start, HEAP, "conn_rx_debug: object");
}

/* stats_vec.start[id].writes: a member load plus an index register. */
static void test_member_pointer(struct pointer_origins *po, struct symbolizer *sym)
{
	struct access_site s;
	struct data_attribution a;

	CHECK(find_access(sym, "vec_bump", &s), "an access in vec_bump");
	/* the element is unknown: the object is the one holding the access */
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, s.base_reg, s.disp,
					   HEAP + 2 * 32 + 8, s.size, &a),
		     DT_HIT, "vec_bump: typed");
	CHECK_STR(a.variable, "stats_vec.start", "vec_bump: named by the member");
	CHECK_STR(a.type_name, "struct stats", "vec_bump: element type");
	CHECK_STR(a.path, ".writes", "vec_bump: member");
	CHECK_EQ_U64(a.element_index, (uint64_t)-1, "vec_bump: which element is unknown");
	CHECK_EQ_U64(a.object_start, HEAP + 2 * 32, "vec_bump: the element");
	CHECK_STR(a.layout ? a.layout->name : NULL, "struct stats", "vec_bump: layout");
}

/* stats_vec.start[i].misses with i strength-reduced to p += 32 at the end
 * of the loop: the load before the loop is found, but the back edge brings
 * other values of the pointer, so the element is unknown. */
static void test_loop_join(struct pointer_origins *po, struct symbolizer *sym)
{
	struct access_site s;
	struct data_attribution a;

	CHECK(find_access(sym, "vec_sweep", &s), "an access in vec_sweep");
	CHECK_EQ_U64(pointer_origin_access(po, PID, s.ip, s.base_reg, s.disp,
					   HEAP + 3 * 32 + 16, s.size, &a),
		     DT_HIT, "vec_sweep: typed");
	CHECK_STR(a.type_name, "struct stats", "vec_sweep: element type");
	CHECK_STR(a.path, ".misses", "vec_sweep: member");
	CHECK_EQ_U64(a.element_index, (uint64_t)-1,
		     "vec_sweep: the loop moved the pointer: not start[0]");
	CHECK_EQ_U64(a.object_start, HEAP + 3 * 32, "vec_sweep: the element");
}

/* The report types the heap line the same way, and says why not where
 * it cannot. */
static void test_report_types(struct symbolizer *sym, struct data_types *dt)
{
	struct line_table *t = line_table_new(64, 100000);
	struct run_facts header = { .command = "fixture", .backend = "soft" };
	struct classify_config cfg;
	struct access_site s;
	struct report *r;
	uint64_t now = 0;

	CHECK(find_access(sym, "conn_rx", &s), "an access in conn_rx");
	for (int i = 0; i < 100; i++) {
		struct access_sample rx = {
			.time = now += 1000, .pid = PID, .tid = T1, .ip = s.ip,
			.addr = HEAP + 16, .size = 8, .kind = ACCESS_RMW,
			.base_reg = (int8_t)s.base_reg, .base_off = 16,
		};
		struct access_sample tx = rx;

		tx.time = now += 1000;
		tx.tid = T2;
		tx.addr = HEAP + 32;
		tx.base_off = 32;
		line_table_add(t, &rx);
		line_table_add(t, &tx);
		/* another line, through rcx, which nothing in conn_rx sets
		 * (at other offsets: not an instance of the first one) */
		rx.base_reg = tx.base_reg = 2;
		rx.addr += 0x1000 + 8;
		tx.addr += 0x1000 + 8;
		line_table_add(t, &rx);
		line_table_add(t, &tx);
	}
	classify_config_default(&cfg);
	r = report_build(&header, t, &cfg, 0, sym, dt);
	CHECK(r->n_lines == 2, "two contended lines, got %u", r->n_lines);
	for (unsigned i = 0; i < r->n_lines; i++) {
		const struct report_line *l = &r->lines[i];

		if (l->addr == HEAP + 0x1000) {
			CHECK_EQ_U64(l->typed, 0, "report: rcx untyped");
			CHECK_STR(l->untyped_why, "no variable or load found for the base register",
				  "report: the line says why, and not 'no debug info'");
			continue;
		}
		CHECK_STR(l->variable, "conn_ptr", "report: variable");
		CHECK_STR(l->type_name, "struct conn", "report: type");
		CHECK_STR(l->struct_name, "struct half", "report: the members' struct");
		CHECK_EQ_U64(l->untyped, 0, "report: all typed");
		CHECK(l->untyped_why == NULL, "report: nothing to explain");
		CHECK(l->n_ranges == 2, "report: two ranges");
		if (l->n_ranges == 2) {
			CHECK_STR(l->ranges[0].member, "rx.packets", "report: rx");
			CHECK_STR(l->ranges[1].member, "tx.packets", "report: tx");
		}
	}
	report_free(r);
	line_table_free(t);
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char *path = argc > 1 ? xstrdup(argv[1]) :
		     xasprintf("%s/tests/fixture_globals", top ? top : ".");
	struct symbolizer *sym;
	struct data_types *dt;
	struct pointer_origins *po;
	struct elf_file f;

	if (access(path, R_OK) || !elf_file_open(&f, path)) {
		free(path);
		return test_skip("tests/fixture_globals not built");
	}
	sym = symbolizer_new();
	dt = data_types_new();
	map_segments(&f, sym, path);
	elf_file_close(&f);
	symbolizer_add_mapping(sym, PID, HEAP, 0x21000, 0, PROT_READ | PROT_WRITE, "[heap]");
	po = pointer_origins_new(sym, dt);
	if (!po) {
		free(path);
		return test_skip("Capstone cannot open x86-64");
	}

	test_global_pointer(po, sym);
	test_stack_variable(po, sym);
	test_member_pointer(po, sym);
	test_loop_join(po, sym);
	test_report_types(sym, dt);

	pointer_origins_free(po);
	data_types_free(dt);
	symbolizer_free(sym);
	free(path);
	return test_done();
}
