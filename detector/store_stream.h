/* store_stream.h - do a thread's stores to a contended line wait behind
 * stores to other lines?
 *
 * x86 commits stores in program order.  A loop whose only stores go to one
 * line commits them in bursts: every transfer of the line lets all the
 * stores queued for it commit, so a falsely shared line costs little
 * (measured on this project's VM: 1.1-1.4x, bench/store-queue.c).  A store
 * to another line between them -- a stack slot, a call's return address,
 * another object -- cannot commit before the contended store ahead of it:
 * every transfer then holds the whole queue, and the same line costs 4-6x.
 * The gain model (reports/gain.h) prices the two differently.
 *
 * store_stream_of() decodes the function that holds ip linearly from its
 * start, takes the innermost loop around ip (a direct branch back over
 * it), and looks at that loop's stores.
 */
#ifndef CONTEND_STORE_STREAM_H
#define CONTEND_STORE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/decode.h"

enum store_stream {
	STORE_STREAM_UNKNOWN,     /* not decodable, or ip is no instruction start */
	STORE_STREAM_ONE_LINE,    /* the loop around ip stores only near ip's operand */
	STORE_STREAM_MIXED,       /* it stores elsewhere too (calls, pushes,
	                             other objects), or no loop in the function
	                             holds ip: its caller calls it each time */
};

/* code[0..len): the function's bytes, from address start; ip: the access;
 * near: stores to the same base and index registers within line_size
 * bytes of ip's displacement. */
enum store_stream store_stream_of(struct decoder *d, const uint8_t *code, size_t len,
				  uint64_t start, uint64_t ip, unsigned line_size);

#endif
