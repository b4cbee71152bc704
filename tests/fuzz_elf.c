/* fuzz_elf - libFuzzer target: the symbolizer on a damaged ELF/DWARF binary.
 *
 * `contend report` opens the binaries a data file names, and those may be
 * anything: truncated, rebuilt, crafted.  The input is written to a file
 * and mapped into a symbolizer as the loader maps it (by its own PT_LOAD
 * headers where they make sense, else as one block), then asked what the
 * report asks, through the real API: the functions and source lines
 * (CU index, line table, inlined scopes) of the code, each instruction
 * of the functions found decoded and its pointer followed to a type
 * (pointer_origin: DWARF locations, CFI, the load that set the register),
 * and the data symbols, variables, member paths and layouts of the data.
 * Addresses come from symbols the seed program defines and from a stride
 * over each segment.  Corpus: tests/fuzz-corpus/elf, three builds of
 * tests/fuzz_elf_seed.c (tests/fuzz_elf_seeds.sh), each a few KiB.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"
#include "symbolize/data_types.h"
#include "symbolize/decode.h"
#include "symbolize/pointer_origin.h"
#include "symbolize/symbolizer.h"

#define FAKE_PID 99999998        /* above pid_max: no /proc/PID/mem to fall back on */
#define PIE_BASE UINT64_C(0x555555554000)
#define PAGE UINT64_C(0x1000)
#define MAX_SEGS 8
#define MAX_SEG_PAGES 16         /* of one segment mapped */
#define STRIDE_POINTS 24         /* addresses looked up per segment */
#define MAX_INSNS 256            /* instructions decoded, all functions together */
#define MAX_FUNC_BYTES 4096
#define REG_VALUE UINT64_C(0x7f0000010000)

static char path[64];
static volatile size_t sink;

static const char *const code_names[] = { "_start", "walk", "fill", "bump", "main" };
static const char *const data_names[] = { "pairs", "words", "head", "total" };

struct seg {
	uint64_t start, end;     /* mapped, absolute */
	bool exec;
};

struct target {
	struct symbolizer *sym;
	struct data_types *dt;
	struct pointer_origins *po;
	struct decoder_set decs;
	struct seg segs[MAX_SEGS + 1];
	unsigned n_segs;
	unsigned n_insns;
	uint64_t funcs[32];      /* starts of the functions walked */
	unsigned n_funcs;
};

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	warnings_quiet = true;
	unsetenv("DEBUGINFOD_URLS");     /* never ask the network for debug info */
	elf_version(EV_CURRENT);
	snprintf(path, sizeof(path), "/tmp/contend-fuzz-elf-%d.elf", (int)getpid());
	atexit(remove_file);
	return 0;
}

static void use(const char *s)
{
	if (s)
		sink += strlen(s);
}

/* ---- mapping the file ---------------------------------------------------- */

static void add_seg(struct target *t, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint32_t prot)
{
	symbolizer_add_mapping(t->sym, FAKE_PID, start, len, pgoff, prot, path);
	if (t->n_segs < MAX_SEGS + 1)
		t->segs[t->n_segs++] = (struct seg){ start, start + len, prot & PROT_EXEC };
}

/* A segment as the loader would map it, page by page (as elf_fixture.h
 * does), when its addresses and offset are ones the kernel accepts. */
static void map_phdr(struct target *t, const GElf_Phdr *ph, uint64_t base)
{
	uint32_t prot = 0;
	uint64_t page, end, pages = 0, first;

	if (ph->p_vaddr >= (UINT64_C(1) << 44) || ph->p_memsz >= (UINT64_C(1) << 32) ||
	    ph->p_offset >= (UINT64_C(1) << 32) ||
	    (ph->p_vaddr & (PAGE - 1)) != (ph->p_offset & (PAGE - 1)) || !ph->p_memsz)
		return;
	prot |= ph->p_flags & PF_R ? PROT_READ : 0;
	prot |= ph->p_flags & PF_W ? PROT_WRITE : 0;
	prot |= ph->p_flags & PF_X ? PROT_EXEC : 0;
	first = page = ph->p_vaddr & ~(PAGE - 1);
	end = ph->p_vaddr + ph->p_memsz;
	for (; page < end && pages < MAX_SEG_PAGES; page += PAGE, pages++)
		symbolizer_add_mapping(t->sym, FAKE_PID, base + page, PAGE,
				       (ph->p_offset & ~(PAGE - 1)) + (page - first), prot, path);
	if (pages && t->n_segs < MAX_SEGS + 1)
		t->segs[t->n_segs++] = (struct seg){ base + first, base + page,
						     (prot & PROT_EXEC) != 0 };
}

static void map_file(struct target *t, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr ehdr;
	size_t n = 0;

	if (elf && gelf_getehdr(elf, &ehdr) && !elf_getphdrnum(elf, &n)) {
		uint64_t base = ehdr.e_type == ET_DYN ? PIE_BASE : 0;
		unsigned loads = 0;

		for (size_t i = 0; i < n && loads < MAX_SEGS; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				map_phdr(t, &ph, base);
				loads++;
			}
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!t->n_segs)         /* no usable program headers: the file as one block */
		add_seg(t, PIE_BASE, (size + PAGE - 1) & ~(PAGE - 1), 0,
			PROT_READ | PROT_EXEC);
}

/* ---- code ------------------------------------------------------------------ */

static void use_attribution(const struct data_attribution *a)
{
	use(a->variable);
	use(a->type_name);
	use(a->path);
	if (a->layout) {
		use(a->layout->name);
		for (unsigned i = 0; i < a->layout->n_members; i++) {
			use(a->layout->members[i].name);
			use(a->layout->members[i].type_name);
		}
	}
}

static void source_of(struct target *t, uint64_t pc)
{
	struct source_loc loc, in[4];
	unsigned n;

	if (symbolizer_source(t->sym, FAKE_PID, pc, &loc)) {
		use(loc.function);
		use(loc.file);
		use(loc.inlined_into);
		use(loc.via);
		use(loc.module);
		sink += (size_t)loc.line;
	}
	/* the calls that inlined pc's code, as an allocation site's callers */
	n = symbolizer_inline_callers(t->sym, FAKE_PID, pc, in, 4);
	for (unsigned i = 0; i < n; i++) {
		use(in[i].function);
		use(in[i].file);
		sink += (size_t)in[i].line;
	}
}

/* The access an instruction makes, and the type of what it points to, as
 * the report names a sample's data (report_objects.c). */
static void access_of(struct target *t, struct decoder *dec, uint64_t pc,
		      const uint8_t *code, size_t len)
{
	struct regs regs = { .mask = ~UINT64_C(0) };
	struct decoded_access acc;
	struct data_attribution a;

	for (unsigned i = 0; i < DECODE_MAX_REGS; i++)
		regs.val[i] = REG_VALUE + 64 * i;
	if (decoder_access(dec, code, len, pc, &regs, false, &acc) != DECODE_OK ||
	    acc.base_reg < 0 || !t->po)
		return;
	if (pointer_origin_access(t->po, FAKE_PID, pc, acc.base_reg, acc.base_off,
				  acc.addr, acc.size, &a) == DT_HIT)
		use_attribution(&a);
}

/* Every instruction of the function around pc, from its start. */
static void walk_function(struct target *t, uint64_t pc)
{
	static uint8_t code[MAX_FUNC_BYTES];
	struct decoder *dec;
	struct func_info fi;
	size_t len, off = 0;

	if (!symbolizer_function(t->sym, FAKE_PID, pc, &fi))
		return;
	use(fi.name);
	if (fi.end <= fi.start || t->n_funcs == ARRAY_SIZE(t->funcs))
		return;
	for (unsigned i = 0; i < t->n_funcs; i++)
		if (t->funcs[i] == fi.start)
			return;
	t->funcs[t->n_funcs++] = fi.start;
	dec = decoder_set_get(&t->decs, symbolizer_machine(t->sym, FAKE_PID, fi.start));
	len = fi.end - fi.start < MAX_FUNC_BYTES ? fi.end - fi.start : MAX_FUNC_BYTES;
	len = symbolizer_read(t->sym, FAKE_PID, fi.start, code, len);
	while (dec && off < len && t->n_insns < MAX_INSNS) {
		struct insn_info ii;
		size_t n = len - off < DECODE_MAX_INSN ? len - off : DECODE_MAX_INSN;

		if (!decoder_insn(dec, code + off, n, fi.start + off, &ii) || !ii.length)
			break;
		t->n_insns++;
		source_of(t, fi.start + off);
		access_of(t, dec, fi.start + off, code + off, n);
		off += ii.length;
	}
}

static void look_code(struct target *t, uint64_t pc)
{
	source_of(t, pc);
	walk_function(t, pc);
}

/* ---- data ------------------------------------------------------------------ */

static void look_data(struct target *t, uint64_t addr)
{
	struct data_symbol ds;
	struct data_attribution a;
	struct Dwfl_Module *mod;
	uint64_t bias;

	if (symbolizer_data_symbol(t->sym, FAKE_PID, addr, &ds))
		use(ds.name);
	mod = symbolizer_module(t->sym, FAKE_PID, addr, &bias);
	if (!mod)
		return;
	if (data_types_global_access(t->dt, mod, bias, addr, 8, &a) == DT_HIT)
		use_attribution(&a);
	if (data_types_global(t->dt, mod, bias, addr, &a) == DT_HIT)
		use_attribution(&a);
}

static void look_symbols(struct target *t)
{
	struct data_symbol ds;

	for (size_t i = 0; i < ARRAY_SIZE(code_names); i++)
		if (symbolizer_find_symbol(t->sym, FAKE_PID, code_names[i], &ds))
			look_code(t, ds.start);
	for (size_t i = 0; i < ARRAY_SIZE(data_names); i++) {
		if (!symbolizer_find_symbol(t->sym, FAKE_PID, data_names[i], &ds))
			continue;
		look_data(t, ds.start);
		if (ds.size > 1 && ds.size < (UINT64_C(1) << 32)) {
			look_data(t, ds.start + ds.size / 2);
			look_data(t, ds.start + ds.size - 1);
		}
	}
}

static void look_segments(struct target *t)
{
	for (unsigned i = 0; i < t->n_segs; i++) {
		const struct seg *sg = &t->segs[i];
		uint64_t step = (sg->end - sg->start) / STRIDE_POINTS;

		step = step < 8 ? 8 : step & ~UINT64_C(7);
		for (uint64_t a = sg->start; a < sg->end; a += step) {
			if (sg->exec)
				look_code(t, a + 1);
			else
				look_data(t, a);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target t = { 0 };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);

	t.sym = symbolizer_new();
	t.dt = data_types_new();
	t.po = pointer_origins_new(t.sym, t.dt);
	map_file(&t, size);
	symbolizer_sampling_done(t.sym);
	look_symbols(&t);
	look_segments(&t);

	/* as the report frees them: the types with or before the symbolizer */
	pointer_origins_free(t.po);
	data_types_free(t.dt);
	decoder_set_release(&t.decs);
	symbolizer_free(t.sym);
	return 0;
}
