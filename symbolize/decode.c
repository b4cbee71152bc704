/* decode.c - the architectures contend decodes, one row each.
 *
 * Everything an architecture brings (its decoder, the user registers perf
 * samples for it, how DWARF numbers them) is defined in its decoder file
 * (decode_x86.c for x86-64) and reached only through its row here, so a
 * new architecture is one file plus one row.
 */
#include "symbolize/decode.h"

#include <elf.h>
#include <stddef.h>

#include "common/util.h"

/* Defined by each architecture's decoder file. */
extern const struct decode_arch decode_arch_x86_64;

static const struct decode_arch *const arches[] = {
	&decode_arch_x86_64,
};

/* The ELF machine of the code this binary runs, hence of the processes it
 * samples. */
#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#else
#define NATIVE_MACHINE EM_NONE
#endif

const struct decode_arch *decode_arch_for_machine(unsigned elf_machine)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i]->elf_machine == elf_machine)
			return arches[i];
	return NULL;
}

const struct decode_arch *decode_arch_native(void)
{
	return decode_arch_for_machine(NATIVE_MACHINE);
}

uint64_t decode_native_regs_mask(void)
{
	const struct decode_arch *arch = decode_arch_native();

	return arch ? arch->perf_regs_mask : 0;
}

struct decoder *decoder_new_for_machine(unsigned elf_machine)
{
	const struct decode_arch *arch = decode_arch_for_machine(elf_machine);

	return arch ? arch->new_decoder() : NULL;
}

struct decoder *decoder_new_native(void)
{
	return decoder_new_for_machine(NATIVE_MACHINE);
}

const char *decoder_unavailable(unsigned elf_machine)
{
	const struct decode_arch *arch = decode_arch_for_machine(elf_machine);
	struct decoder *d;

	if (!arch)
		return "no instruction decoder for this architecture (x86-64 only)";
	d = arch->new_decoder();
	if (!d)
		return "the disassembler (Capstone) failed to open";
	decoder_free(d);
	return NULL;
}
