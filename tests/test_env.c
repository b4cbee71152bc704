/* Unit tests for common/env.c: a child's environment is a copy; changing
 * it never changes ours, and a name is set, replaced or removed whole
 * (LD_PRELOAD never matches LD_PRELOAD_X). */
#include "common/env.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>

static size_t count(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

int main(void)
{
	char *base[] = { "A=1", "LD_PRELOAD_X=x", "NOEQUALS", "B=two=2", NULL };
	struct env *e = env_new(base);

	CHECK_EQ_U64(count(env_array(e)), 3, "copied, less the entry without '='");
	CHECK_STR(env_get(e, "B"), "two=2", "a value holding '=' is whole");
	CHECK(!env_get(e, "LD_PRELOAD"), "LD_PRELOAD is not LD_PRELOAD_X");
	env_set(e, "LD_PRELOAD", "/lib/shim.so");
	CHECK_STR(env_get(e, "LD_PRELOAD"), "/lib/shim.so", "set");
	CHECK_STR(env_get(e, "LD_PRELOAD_X"), "x", "its neighbour by prefix kept");
	env_set(e, "A", "3");
	CHECK_STR(env_get(e, "A"), "3", "replaced");
	CHECK_EQ_U64(count(env_array(e)), 4, "replaced, not added twice");
	env_set(e, "A", NULL);
	env_set(e, "GONE", NULL);
	CHECK(!env_get(e, "A"), "removed");
	CHECK_EQ_U64(count(env_array(e)), 3, "removing a name not there changes nothing");
	CHECK_STR(base[0], "A=1", "the base is untouched");
	env_free(e);

	e = env_new(NULL);
	CHECK(env_array(e) && !env_array(e)[0], "no base: an empty array, NULL-terminated");
	for (int i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "V%d", i);
		env_set(e, name, name);
	}
	CHECK_EQ_U64(count(env_array(e)), 100, "grows");
	CHECK_STR(env_get(e, "V99"), "V99", "the last one");
	env_free(e);
	env_free(NULL);
	return test_done();
}
