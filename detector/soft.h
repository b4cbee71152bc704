/* soft.h - the soft backend: timer samples + decoding = access samples.
 *
 * Works on any Linux machine (VMs, CI runners): per-thread cpu-clock
 * sampling with the interrupted user registers.  A timer sample lands on the
 * instruction after the one that stalled, so soft_access() decodes the
 * previous instruction (boundaries from decoding the enclosing function
 * from its start, cached per function; with fixed-width instructions,
 * AArch64's, simply the word before) and computes its effective address
 * from the registers; an instruction that overwrote its own base/index
 * register, an ambiguous predecessor (the IP follows a jump/call, or is a
 * branch target -- unless it is an if's join after a locked RMW, which
 * outwaits every other path) falls back to the
 * instruction at the IP, whose registers are exact.  Code is decoded as the architecture of the ELF file it lies in
 * says (decode.h's decoder_set), the native one for anonymous code.
 * Every sample that yields no access is counted under a reason.
 */
#ifndef CONTEND_SOFT_H
#define CONTEND_SOFT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "detector/perf_session.h"
#include "detector/sample.h"

struct symbolizer;
struct named_count;
struct soft;

struct soft *soft_new(struct symbolizer *sym);
void soft_free(struct soft *s);

/* The perf_event_attr of the soft backend at freq Hz. */
void soft_event_attr(struct perf_event_attr *attr, unsigned freq, bool callchain);

/* One perf sample in, at most one access out. */
bool soft_access(struct soft *s, const struct perf_sample *ps, struct access_sample *out);

uint64_t soft_samples_seen(const struct soft *s);
uint64_t soft_samples_decoded(const struct soft *s);
/* Reasons samples were dropped, largest first; caller frees with
 * named_counts_free(). */
unsigned soft_drop_counts(const struct soft *s, struct named_count **out);

#endif
