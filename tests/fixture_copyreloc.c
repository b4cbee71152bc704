/* fixture_copyreloc.c - a program using a library's variable directly, so
 * that the linker copies it into the program's .bss (R_X86_64_COPY): the
 * storage is the program's, the program's DWARF only declares it, the
 * library's (tests/fixture_metrics.c) defines it.  Never run by the
 * tests, only opened. */
#include <stdio.h>

struct metrics {
	long hits, misses, evictions;
};

extern struct metrics cache_metrics;
void metrics_hit(void);

int main(void)
{
	metrics_hit();
	printf("%ld %ld\n", cache_metrics.hits, cache_metrics.misses);
	return 0;
}
