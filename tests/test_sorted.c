/* Unit tests for common/sorted.h: FIRST_ABOVE on an empty array, before,
 * between, on and after the keys, with duplicates and another field. */
#include "common/sorted.h"
#include "tests/tap.h"

struct span {
	uint32_t tag;
	uint64_t start, end;
};

int main(void)
{
	static const struct span v[] = {
		{ 1, 10, 20 }, { 2, 20, 25 }, { 3, 20, 30 }, { 4, 40, 50 },
	};

	CHECK_EQ_U64(FIRST_ABOVE(v, 0, start, 100), 0, "empty: 0");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, 0), 0, "below every start");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, 10), 1, "on the first start");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, 15), 1, "between");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, 20), 3, "past equal starts");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, 39), 3, "just below the last");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, start, UINT64_MAX), 4, "above all: n");
	CHECK_EQ_U64(FIRST_ABOVE(v, 4, end, 25), 2, "by end: first ending after 25");
	return test_done();
}
