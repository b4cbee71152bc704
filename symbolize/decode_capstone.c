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
