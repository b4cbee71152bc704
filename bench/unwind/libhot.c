/* libhot.c - held-out code for bench/unwinders.sh: a shared library built
 * -O2 without debug info or frame pointers (its .eh_frame is all there
 * is), whose hot loop stores to a line two threads share. */
#include <stdatomic.h>

void hot_add(volatile long *slot, long n)
{
	for (long i = 0; i < n; i++)
		*slot += i;
}
