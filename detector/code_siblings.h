/* code_siblings.h - the other words of an object that the code which
 * touched one of them touches too.
 *
 * A timer sample lands on what stalls.  A victim that loads a word of a
 * contended line stalls only while the line is away, and on a busy
 * machine (the threads seldom run at once) it seldom is: the Klass
 * testcase's loads of secondary_supers went unsampled in runs whose
 * threads ran at once 2-27% of the time, and the line came out as true
 * sharing alone.  But the code that made a sampled access usually reaches
 * the object's other members through the same pointer.  In its function,
 * an access with the same base register and no index, at another
 * displacement, touches addr - disp + disp'; a rip-relative one touches
 * its own address.  Those that land on the line, in another word, are
 * its siblings: the watch (watch.h) gives them its free slots, so that a
 * reader sampling missed is counted exactly.  A sibling is a guess (the
 * register may hold another pointer there): a watch counts exactly
 * whatever it was given, so a wrong guess costs a slot, never a count.
 */
#ifndef CONTEND_CODE_SIBLINGS_H
#define CONTEND_CODE_SIBLINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "detector/code_probe.h"

struct symbolizer;
struct decoder_set;

struct code_sibling {
	uint64_t addr;               /* where it would access */
	struct code_site site;       /* the instruction, and the one after it */
	bool writes;
};

/* The siblings of the access to addr by the instruction at ip (the line
 * at line, line_size bytes), one per word other than addr's, in code
 * order; at most max.  0 where ip's function cannot be read or decoded,
 * or its access has an index or no base, or the function is over 16 KiB
 * (an instruction decoded costs about 0.6 us: 16 KiB, some 3 ms). */
unsigned code_siblings(struct symbolizer *sym, struct decoder_set *decs, pid_t pid,
		       uint64_t ip, uint64_t addr, uint64_t line, unsigned line_size,
		       struct code_sibling *out, unsigned max);

#endif
