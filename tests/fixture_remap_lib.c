/* fixture_remap_lib.c - one of two same-shaped libraries for
 * fixture_remap: built twice, with REMAP_WHICH a and b, into
 * libfixture_remap_a.so and libfixture_remap_b.so.  Same code, same size,
 * so that the second, dlopen()ed after dlclose() of the first, lands at
 * the same address; only the function's name tells them apart.
 */
#define CAT(a, b) a##b
#define NAME(which) CAT(remap_work_, which)

/* add n to *counter, one increment at a time (the false sharing) */
__attribute__((noinline)) void NAME(REMAP_WHICH)(volatile long *counter, long n)
{
	for (long i = 0; i < n; i++)
		(*counter)++;
}
