/* test_store_stream.c - which loops commit a contended line's stores in
 * bursts.  The code is hand-assembled (GNU as, AT&T); the objdump text
 * is beside the bytes.  The five loops are the shapes bench/store-queue.c
 * times. */
#include "tap.h"
#include "symbolize/decode.h"
#include "detector/store_stream.h"

#define BASE 0x401000ULL

static const uint8_t code[] = {
	/* one_line: 0x00 */
	0x31, 0xc0,                     /* xor    %eax,%eax */
	0x48, 0x8b, 0x17,               /* 2: mov (%rdi),%rdx */
	0x48, 0x01, 0xc2,               /* 5: add %rax,%rdx */
	0x48, 0x89, 0x17,               /* 8: mov %rdx,(%rdi) */
	0x48, 0x89, 0x57, 0x08,         /* b: mov %rdx,0x8(%rdi) */
	0x48, 0x83, 0xc0, 0x01,         /* f: add $0x1,%rax */
	0x48, 0x39, 0xc6,               /* 13: cmp %rax,%rsi */
	0x75, 0xea,                     /* 16: jne 2 */
	0xc3,                           /* 18: ret */
	/* stack_store: 0x19 */
	0x31, 0xc0,
	0x48, 0x89, 0x44, 0x24, 0xf8,   /* 1b: mov %rax,-0x8(%rsp) */
	0x48, 0x8b, 0x17,               /* 20: mov (%rdi),%rdx */
	0x48, 0x83, 0xc2, 0x01,         /* 23: add $0x1,%rdx */
	0x48, 0x89, 0x17,               /* 27: mov %rdx,(%rdi) */
	0x48, 0x83, 0xc0, 0x01,
	0x48, 0x39, 0xc6,
	0x75, 0xe8,                     /* 31: jne 1b */
	0xc3,
	/* other_object: 0x34 */
	0x31, 0xc0,
	0x48, 0x89, 0x01,               /* 36: mov %rax,(%rcx) */
	0x48, 0x83, 0x07, 0x01,         /* 39: addq $0x1,(%rdi) */
	0x48, 0x83, 0xc0, 0x01,
	0x48, 0x39, 0xc6,
	0x75, 0xf0,                     /* 44: jne 36 */
	0xc3,
	/* with_call: 0x47 */
	0x31, 0xc0,
	0x48, 0x83, 0x07, 0x01,         /* 49: addq $0x1,(%rdi) */
	0xe8, 0xae, 0xff, 0xff, 0xff,   /* 4d: call 0 */
	0x48, 0x83, 0xc0, 0x01,
	0x48, 0x39, 0xc6,
	0x75, 0xee,                     /* 59: jne 49 */
	0xc3,
	/* no_loop: 0x5c */
	0x48, 0x83, 0x07, 0x01,         /* 5c: addq $0x1,(%rdi) */
	0x48, 0x83, 0x47, 0x08, 0x01,   /* 60: addq $0x1,0x8(%rdi) */
	0xc3,                           /* 65: ret */
};

static enum store_stream at(struct decoder *d, uint64_t start, uint64_t end, uint64_t ip,
			    unsigned line_size)
{
	return store_stream_of(d, code + start, end - start, BASE + start, BASE + ip, line_size);
}

int main(void)
{
	struct decoder *d = decoder_new_for_machine(EM_X86_64);

	if (!d)
		return test_skip("Capstone would not open");
	/* its stores all go within a line of (%rdi): bursts */
	CHECK_EQ_U64(at(d, 0x00, 0x19, 0x08, 64), STORE_STREAM_ONE_LINE, "one_line, the store");
	CHECK_EQ_U64(at(d, 0x00, 0x19, 0x02, 64), STORE_STREAM_ONE_LINE, "one_line, the load");
	/* 0x8(%rdi) is another line when lines are 8 bytes: the test can fail */
	CHECK_EQ_U64(at(d, 0x00, 0x19, 0x08, 8), STORE_STREAM_MIXED, "one_line, 8-byte lines");
	CHECK_EQ_U64(at(d, 0x19, 0x34, 0x27, 64), STORE_STREAM_MIXED, "a stack store in the loop");
	CHECK_EQ_U64(at(d, 0x34, 0x47, 0x39, 64), STORE_STREAM_MIXED, "a store to (%rcx)");
	CHECK_EQ_U64(at(d, 0x47, 0x5c, 0x49, 64), STORE_STREAM_MIXED, "a call in the loop");
	CHECK_EQ_U64(at(d, 0x5c, 0x66, 0x60, 64), STORE_STREAM_MIXED, "no loop: the caller's");
	CHECK_EQ_U64(at(d, 0x00, 0x19, 0x09, 64), STORE_STREAM_UNKNOWN, "inside an instruction");
	CHECK_EQ_U64(at(d, 0x00, 0x19, 0x13, 64), STORE_STREAM_UNKNOWN, "not a memory access");
	decoder_free(d);
	return test_done();
}
