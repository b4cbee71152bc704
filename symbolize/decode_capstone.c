/* decode_capstone.c - the Capstone handle every decoder row is built on.
 * See decode_arch.h. */
#include <stdlib.h>

#include "common/util.h"
#include "symbolize/decode_arch.h"

struct decoder *cs_decoder_new(const struct decode_arch *arch, cs_arch cs_arch, cs_mode mode)
{
	struct cs_decoder *d = xcalloc(1, sizeof(*d));

	d->base.arch = arch;
	if (cs_open(cs_arch, mode, &d->cs) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(d->insn = cs_malloc(d->cs))) {
		cs_close(&d->cs);
		free(d);
		return NULL;
	}
	return &d->base;
}

void cs_decoder_free(struct decoder *base)
{
	struct cs_decoder *d = (struct cs_decoder *)base;

	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

const cs_insn *cs_decoder_one(struct decoder *base, const uint8_t *code, size_t len,
			      uint64_t ip)
{
	struct cs_decoder *d = (struct cs_decoder *)base;

	if (!code || !len)
		return NULL;
	if (!cs_disasm_iter(d->cs, &code, &len, &ip, d->insn))
		return NULL;
	return d->insn;
}

bool cs_regs_masks(struct decoder *d, const cs_insn *insn, int (*reg_bit)(unsigned int reg),
		   uint64_t *read, uint64_t *written)
{
	cs_regs r, w;
	uint8_t nr, nw;

	*read = *written = 0;
	if (cs_regs_access(cs_handle(d), insn, r, &nr, w, &nw) != CS_ERR_OK)
		return false;
	for (uint8_t i = 0; i < nr; i++) {
		int b = reg_bit(r[i]);

		if (b >= 0)
			*read |= 1ULL << b;
	}
	for (uint8_t i = 0; i < nw; i++) {
		int b = reg_bit(w[i]);

		if (b >= 0)
			*written |= 1ULL << b;
	}
	return true;
}
