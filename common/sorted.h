/* sorted.h - binary search in an array sorted by a uint64_t field.
 *
 * FIRST_ABOVE(v, n, field, key) is the index of the first of v[0..n)
 * whose field is above key, n if none; v must be sorted by field,
 * ascending.  With start addresses, the element before that index is the
 * last one starting at or below key: the only candidate to hold it.
 */
#ifndef CONTEND_SORTED_H
#define CONTEND_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t first_above_u64(const void *base, size_t n, size_t size,
				     size_t field_off, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t val;

		memcpy(&val, b + mid * size + field_off, sizeof(val));
		if (val <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The field must be 64 bits wide: the sizeof of a negative-length array
 * stops the build otherwise. */
#define FIRST_ABOVE(v, n, field, key)						\
	((void)sizeof(char[sizeof((v)->field) == sizeof(uint64_t) ? 1 : -1]),	\
	 first_above_u64((v), (n), sizeof(*(v)),				\
			 offsetof(__typeof__(*(v)), field), (key)))

#endif
