/* decode.c - the architectures contend decodes, one row each.
 *
 * Everything an architecture brings (its decoder, the user registers perf
 * samples for it, how DWARF numbers them) is defined in its decoder file
 * (decode_x86.c for x86-64, decode_arm64.c for AArch64) and reached only
 * through its row here, so a new architecture is one file plus one row.
 * The decoder_*() functions dispatch to the row's operations.
 */
#include "symbolize/decode.h"

#include <elf.h>
#include <stddef.h>

#include "common/util.h"
#include "symbolize/decode_arch.h"

static const struct decode_arch *const arches[] = {
	&decode_arch_x86_64,
	&decode_arch_aarch64,
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

bool decode_uprobe_refuses(const struct decode_arch *arch, const uint8_t *code, size_t len)
{
	return arch->uprobe_refuses && arch->uprobe_refuses(code, len);
}

bool decode_user_address(const struct decode_arch *arch, uint64_t addr)
{
	return addr >= 4096 && addr < arch->user_end;
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

const char *decode_native_regs_names(void)
{
	const struct decode_arch *arch = decode_arch_native();

	return arch && arch->perf_regs_names ? arch->perf_regs_names : "?";
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
		return "no instruction decoder for this architecture (x86-64 and AArch64 only)";
	d = arch->new_decoder();
	if (!d)
		return "the disassembler (Capstone) failed to open";
	decoder_free(d);
	return NULL;
}

_Static_assert(ARRAY_SIZE(arches) <= DECODE_MAX_ARCHES, "raise DECODE_MAX_ARCHES");

struct decoder *decoder_set_get(struct decoder_set *ds, unsigned elf_machine)
{
	if (elf_machine == EM_NONE)
		elf_machine = NATIVE_MACHINE;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		if (arches[i]->elf_machine != elf_machine)
			continue;
		if (!ds->dec[i] && !ds->failed[i]) {
			ds->dec[i] = arches[i]->new_decoder();
			ds->failed[i] = !ds->dec[i];
		}
		return ds->dec[i];
	}
	return NULL;
}

void decoder_set_release(struct decoder_set *ds)
{
	for (size_t i = 0; i < DECODE_MAX_ARCHES; i++) {
		decoder_free(ds->dec[i]);
		ds->dec[i] = NULL;
		ds->failed[i] = false;
	}
}

const struct decode_arch *decoder_arch(const struct decoder *d)
{
	return d->arch;
}

void decoder_free(struct decoder *d)
{
	if (d)
		d->arch->ops->free(d);
}

bool decoder_insn(struct decoder *d, const uint8_t *code, size_t len,
		  uint64_t ip, struct insn_info *out)
{
	return d->arch->ops->insn(d, code, len, ip, out);
}

enum decode_status decoder_access(struct decoder *d, const uint8_t *code,
				  size_t len, uint64_t ip,
				  const struct regs *regs, bool after,
				  struct decoded_access *out)
{
	return d->arch->ops->access(d, code, len, ip, regs, after, out);
}

bool decoder_memory(struct decoder *d, const uint8_t *code, size_t len,
		    uint64_t ip, struct insn_mem *out)
{
	return d->arch->ops->memory(d, code, len, ip, out);
}

bool decoder_reg_flow(struct decoder *d, const uint8_t *code, size_t len,
		      uint64_t ip, int dwarf_reg, struct reg_flow *out)
{
	return d->arch->ops->reg_flow(d, code, len, ip, dwarf_reg, out);
}

bool decoder_value_steers_branch(struct decoder *d, const uint8_t *code, size_t len,
				 uint64_t ip)
{
	const struct decode_ops *ops = d->arch->ops;
	uint64_t read, written, taint;
	struct insn_info info;
	size_t off;

	if (!ops->regs_touched || !ops->insn(d, code, len, ip, &info) ||
	    !ops->regs_touched(d, code, len, ip, &read, &written))
		return false;
	taint = written;          /* the loaded value, or flags set from it */
	off = info.length;
	for (unsigned n = 0; n < DECODE_STEER_WINDOW && taint && off < len; n++) {
		if (!ops->insn(d, code + off, len - off, ip + off, &info) ||
		    !ops->regs_touched(d, code + off, len - off, ip + off, &read, &written))
			return false;
		if (info.is_call || !info.falls_through)
			return false;
		if (info.has_target && (read & taint))   /* a conditional branch */
			return true;
		if (read & taint)
			taint |= written;      /* copied, compared, computed on */
		else
			taint &= ~written;     /* overwritten */
		off += info.length;
	}
	return false;
}

const char *decode_status_name(enum decode_status s)
{
	static const char *const names[DECODE__COUNT] = {
		[DECODE_OK] = "ok",
		[DECODE_INVALID] = "invalid instruction",
		[DECODE_NO_MEMORY] = "no memory operand",
		[DECODE_NOT_ACCESS] = "lea/nop/prefetch",
		[DECODE_STACK] = "stack",
		[DECODE_CLOBBERED] = "base register clobbered",
		[DECODE_SEGMENT] = "fs/gs segment",
		[DECODE_NO_REGS] = "register not sampled",
		[DECODE_UNSUPPORTED] = "unsupported instruction",
	};

	return (unsigned)s < DECODE__COUNT ? names[s] : "?";
}
