/* fixture_metrics.c - a shared library exporting a struct variable, for
 * tests/fixture_copyreloc: built -O2 -g -fPIC -shared, never loaded by the
 * tests, only opened. */
struct metrics {
	long hits;              /*  0  8 */
	long misses;            /*  8  8 */
	long evictions;         /* 16  8 */
};

struct metrics cache_metrics;

void metrics_hit(void)
{
	__atomic_fetch_add(&cache_metrics.hits, 1, __ATOMIC_RELAXED);
}
