/* tap.h - the smallest test harness that can fail loudly.
 *
 * CHECK(cond, fmt, ...) records a failure with file:line and the message;
 * CHECK_EQ_U64/CHECK_STR compare and print both sides.  test_done() prints
 * "N checks, N failed" and returns the exit status for automake's driver
 * (0 pass, 1 fail, 77 skip via test_skip()).
 */
#ifndef CONTEND_TAP_H
#define CONTEND_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

static int tap_checks, tap_failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		tap_checks++;                                                  \
		if (!(cond)) {                                                 \
			tap_failed++;                                          \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

#define CHECK_EQ_U64(a, b, what)                                               \
	do {                                                                   \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);               \
		CHECK(a_ == b_, "%s: got 0x%" PRIx64 " (%" PRIu64 "), want 0x%" PRIx64 " (%" PRIu64 ")", \
		      (what), a_, a_, b_, b_);                                 \
	} while (0)

#define CHECK_STR(a, b, what)                                                  \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		CHECK(a_ && b_ && strcmp(a_, b_) == 0, "%s: got \"%s\", want \"%s\"", \
		      (what), a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
	} while (0)

static inline int test_done(void)
{
	printf("%d checks, %d failed\n", tap_checks, tap_failed);
	return tap_failed ? 1 : 0;
}

static inline int test_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return 77;
}

#endif
