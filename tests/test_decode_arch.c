/* Unit tests for symbolize/decode.c's table of architectures: x86-64 is
 * found by its ELF machine with its register facts, others say why not. */
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

static void test_unknown_machine(void)
{
	CHECK(decode_arch_for_machine(EM_AARCH64) == NULL, "no AArch64 row yet");
	CHECK(decoder_new_for_machine(EM_AARCH64) == NULL, "no AArch64 decoder");
	CHECK(decoder_unavailable(EM_AARCH64) != NULL, "a reason for AArch64");
}

int main(void)
{
	test_x86_64_row();
	test_native();
	test_unknown_machine();
	return test_done();
}
