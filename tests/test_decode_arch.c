/* Unit tests for symbolize/decode.c's table of architectures: x86-64 and
 * AArch64 are found by their ELF machine with their register facts,
 * others say why not. */
#include "symbolize/decode.h"
#include "tests/tap.h"

#include <asm/perf_regs.h>

static void test_x86_64_row(void)
{
	const struct decode_arch *arch = decode_arch_for_machine(EM_X86_64);
	struct decoder *d = decoder_new_for_machine(EM_X86_64);

	CHECK(arch != NULL, "x86-64 has a row");
	if (!arch)
		return;
	CHECK_STR(arch->name, "x86-64", "its name");
	CHECK_EQ_U64(arch->perf_regs_mask, 0xff0fffULL, "AX..SS and R8..R15 sampled");
	CHECK_EQ_U64(arch->n_dwarf_regs, 17, "DWARF registers 0..16");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[7], PERF_REG_X86_SP, "DWARF 7 is rsp");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[16], PERF_REG_X86_IP, "DWARF 16 is rip");
	CHECK_EQ_U64(arch->perf_fp, PERF_REG_X86_BP, "frame pointer is rbp");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[arch->dwarf_sp], arch->perf_sp, "dwarf_sp is perf_sp");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[arch->dwarf_fp], arch->perf_fp, "dwarf_fp is perf_fp");
	CHECK(d != NULL, "its decoder opens");
	CHECK(decoder_unavailable(EM_X86_64) == NULL, "no reason against x86-64");
	decoder_free(d);
}

static void test_native(void)
{
#ifdef __x86_64__
	CHECK(decode_arch_native() == decode_arch_for_machine(EM_X86_64), "native is x86-64");
	CHECK_EQ_U64(decode_native_regs_mask(), 0xff0fffULL, "native register mask");
	decoder_free(decoder_new_native());
#endif
}

/* perf's arm64 registers: X0..X30 = 0..30, SP = 31, PC = 32. */
static void test_aarch64_row(void)
{
	const struct decode_arch *arch = decode_arch_for_machine(EM_AARCH64);
	struct decoder *d = decoder_new_for_machine(EM_AARCH64);

	CHECK(arch != NULL, "AArch64 has a row");
	if (!arch)
		return;
	CHECK_STR(arch->name, "AArch64", "its name");
	CHECK_EQ_U64(arch->perf_regs_mask, 0x1ffffffffULL, "X0..X30, SP, PC sampled");
	CHECK(DECODE_MAX_REGS >= 33, "struct regs holds PC (perf 32)");
	CHECK_EQ_U64(arch->insn_width, 4, "fixed 4-byte instructions");
	CHECK_EQ_U64(decode_arch_for_machine(EM_X86_64)->insn_width, 0, "x86: variable");
	CHECK_EQ_U64(arch->n_dwarf_regs, 32, "DWARF x0..x30, sp");
	for (unsigned i = 0; i < arch->n_dwarf_regs; i++)
		if (arch->perf_reg_of_dwarf[i] != i)
			CHECK(0, "DWARF %u is perf %u", i, arch->perf_reg_of_dwarf[i]);
	CHECK_EQ_U64(arch->perf_ip, 32, "PC is perf 32");
	CHECK_EQ_U64(arch->perf_sp, 31, "SP is perf 31");
	CHECK_EQ_U64(arch->perf_fp, 29, "frame pointer is x29");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[arch->dwarf_sp], arch->perf_sp, "dwarf_sp is perf_sp");
	CHECK_EQ_U64(arch->perf_reg_of_dwarf[arch->dwarf_fp], arch->perf_fp, "dwarf_fp is perf_fp");
	CHECK(d != NULL, "its decoder opens");
	CHECK(d && decoder_arch(d) == arch, "the decoder names its row");
	CHECK(decoder_unavailable(EM_AARCH64) == NULL, "no reason against AArch64");
	decoder_free(d);
}

/* One decoder per architecture, opened once, EM_NONE the native one. */
static void test_decoder_set(void)
{
	struct decoder_set ds = { 0 };
	struct decoder *a64 = decoder_set_get(&ds, EM_AARCH64);

	CHECK(a64 && decoder_arch(a64) == decode_arch_for_machine(EM_AARCH64), "AArch64");
	CHECK(decoder_set_get(&ds, EM_AARCH64) == a64, "opened once");
	CHECK(decoder_set_get(&ds, EM_NONE) == decoder_set_get(&ds, decode_arch_native()->elf_machine),
	      "EM_NONE is the native decoder");
	CHECK(decoder_set_get(&ds, EM_RISCV) == NULL, "no RISC-V");
	decoder_set_release(&ds);
	CHECK(ds.dec[0] == NULL && ds.dec[1] == NULL, "released");
}

static void test_unknown_machine(void)
{
	CHECK(decode_arch_for_machine(EM_RISCV) == NULL, "no RISC-V row");
	CHECK(decoder_new_for_machine(EM_RISCV) == NULL, "no RISC-V decoder");
	CHECK(decoder_unavailable(EM_RISCV) != NULL, "a reason for RISC-V");
}

int main(void)
{
	test_x86_64_row();
	test_aarch64_row();
	test_native();
	test_decoder_set();
	test_unknown_machine();
	return test_done();
}
