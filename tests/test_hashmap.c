/* Unit tests for common/hashmap.c: fixed-size keys across growth,
 * caller-matched keys with colliding hashes, iteration, the string set. */
#include "common/hashmap.h"
#include "common/util.h"
#include "tests/tap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct pid_addr {
	uint32_t pid, pad;
	uint64_t addr;
};

static void test_keyed(void)
{
	struct hashmap m = HASHMAP_INIT(sizeof(struct pid_addr));
	unsigned missing = 0, wrong = 0, seen = 0;
	size_t pos = 0;
	const void *key;
	void *val;

	CHECK(hashmap_get(&m, &(struct pid_addr){ 1, 0, 64 }) == NULL, "empty map finds nothing");
	for (uint64_t i = 0; i < 5000; i++) {
		struct pid_addr k = { (uint32_t)(i % 3), 0, i * 64 };

		CHECK(hashmap_put(&m, &k, (void *)(uintptr_t)(i + 1)) == NULL, "fresh key %" PRIu64, i);
	}
	CHECK_EQ_U64(hashmap_count(&m), 5000, "count after 5000 puts");
	for (uint64_t i = 0; i < 5000; i++) {
		struct pid_addr k = { (uint32_t)(i % 3), 0, i * 64 };
		void *v = hashmap_get(&m, &k);

		if (!v)
			missing++;
		else if ((uintptr_t)v != i + 1)
			wrong++;
	}
	CHECK_EQ_U64(missing, 0, "every key found after growth");
	CHECK_EQ_U64(wrong, 0, "every key keeps its value");
	CHECK(hashmap_get(&m, &(struct pid_addr){ 1, 0, 0 }) == NULL,
	      "same address, other pid: absent");
	CHECK((uintptr_t)hashmap_put(&m, &(struct pid_addr){ 0, 0, 0 }, (void *)7) == 1,
	      "put on a present key returns the old value");
	CHECK_EQ_U64(hashmap_count(&m), 5000, "replacing does not add");
	while (hashmap_next(&m, &pos, &key, &val))
		seen++;
	CHECK_EQ_U64(seen, 5000, "iteration visits every entry once");
	hashmap_clear(&m, NULL);
	CHECK_EQ_U64(hashmap_count(&m), 0, "clear empties");
	CHECK(hashmap_get(&m, &(struct pid_addr){ 0, 0, 0 }) == NULL, "cleared key absent");
	hashmap_release(&m, NULL);
}

struct entry {
	const char *name;
	int n;
};

static bool entry_match(const void *val, const void *key)
{
	return !strcmp(((const struct entry *)val)->name, key);
}

static void test_matched(void)
{
	struct hashmap m = HASHMAP_INIT(0);
	struct entry a = { "alpha", 1 }, b = { "beta", 2 }, c = { "gamma", 3 };

	/* one hash for all three: probing must tell them apart by match */
	hashmap_add(&m, 42, &a);
	hashmap_add(&m, 42, &b);
	hashmap_add(&m, 42, &c);
	CHECK(hashmap_lookup(&m, 42, entry_match, "beta") == &b, "collision resolved by match");
	CHECK(hashmap_lookup(&m, 42, entry_match, "gamma") == &c, "third of a chain");
	CHECK(hashmap_lookup(&m, 43, entry_match, "beta") == NULL, "other hash: absent");
	CHECK(hashmap_lookup(&m, 42, entry_match, "delta") == NULL, "absent key");
	for (int i = 0; i < 100; i++)
		hashmap_add(&m, (uint64_t)i * 1000, &a);
	CHECK(hashmap_lookup(&m, 42, entry_match, "beta") == &b, "found after growth");
	hashmap_release(&m, NULL);
}

/* The in-line walk sees every value of a hash and nothing else, after
 * growth and on an empty map. */
static void test_walk(void)
{
	struct hashmap m = HASHMAP_INIT(0);
	int vals[5], other;
	size_t pos = 0;
	unsigned n = 0;
	bool ours = true;

	CHECK(hashmap_first_of(&m, 7, &pos) == NULL, "empty map: nothing");
	for (int i = 0; i < 5; i++)
		hashmap_add(&m, 7, &vals[i]);
	for (int i = 0; i < 200; i++)
		hashmap_add(&m, (uint64_t)i * 64 + 8, &other);   /* neighbours, other hashes */
	for (void *v = hashmap_first_of(&m, 7, &pos); v; v = hashmap_next_of(&m, 7, &pos)) {
		ours &= v != &other;
		n++;
	}
	CHECK_EQ_U64(n, 5, "five values under one hash");
	CHECK(ours, "only values of that hash");
	CHECK(hashmap_first_of(&m, 9, &pos) == NULL, "absent hash: nothing");
	hashmap_release(&m, NULL);
}

/* The compact form: items in the caller's array, colliding tags, a
 * rebuild into a larger index as line_table does when its cells grow. */
static uint64_t item_hash(uint64_t key)
{
	/* every 8th key shares one hash: tags and slots collide */
	return key % 8 == 0 ? 0x5555000000000003ULL : hash_u64(key);
}

static uint32_t *index_find(const struct hash_index *x, const uint64_t *items, uint64_t key)
{
	static uint32_t found;
	uint64_t hash = item_hash(key);
	size_t pos;
	uint32_t n;

	for (hash_index_start(x, hash, &pos); hash_index_next(x, hash, &pos, &n);)
		if (items[n] == key)
			return (found = n, &found);
	return NULL;
}

static void test_compact(void)
{
	enum { N = 700 };
	uint64_t items[N] = { 0 };
	uint32_t small[512], big[2048], empty[1];
	struct hash_index x;
	unsigned missing = 0, wrong = 0, phantom = 0;

	hash_index_init(&x, empty, 1);
	CHECK(index_find(&x, items, 42) == NULL, "an index of one empty entry finds nothing");

	hash_index_init(&x, small, 512);
	for (uint32_t n = 0; n < 256; n++) {
		items[n] = n * 977 + 5;
		hash_index_add(&x, item_hash(items[n]), n);
	}
	/* grow: a larger index, every item added again */
	hash_index_init(&x, big, 2048);
	for (uint32_t n = 0; n < N; n++) {
		items[n] = n * 977 + 5;
		hash_index_add(&x, item_hash(items[n]), n);
	}
	for (uint32_t n = 0; n < N; n++) {
		uint32_t *got = index_find(&x, items, items[n]);

		if (!got)
			missing++;
		else if (*got != n)
			wrong++;
	}
	for (uint64_t k = 0; k < 5000; k++)
		if (k % 977 != 5 && index_find(&x, items, k))
			phantom++;
	CHECK_EQ_U64(missing, 0, "every item found after the rebuild");
	CHECK_EQ_U64(wrong, 0, "every key finds its own item, colliding hashes included");
	CHECK_EQ_U64(phantom, 0, "keys never added are not found");
	CHECK_EQ_U64(x.mask, 2047, "mask is entries - 1");
}

static void test_strset(void)
{
	struct strset s = STRSET_INIT;
	char buf[16];
	const char *x = strset_intern(&s, "worker"), *y;

	strcpy(buf, "worker");
	y = strset_intern(&s, buf);
	CHECK(x == y, "one copy of equal strings");
	CHECK(x != buf, "interned string is a copy");
	CHECK(strset_own(&s, strdup("worker")) == x, "own of a present string frees it, returns the copy");
	CHECK(strset_has(&s, "worker") && !strset_has(&s, "main"), "has");
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		strset_intern(&s, buf);
	}
	CHECK(strset_intern(&s, "worker") == x, "stable across growth");
	CHECK_EQ_U64(hashmap_count(&s.map), 1001, "1001 distinct strings");
	strset_release(&s);
}

/* Removing keys in a random order keeps every other key findable: the
 * probe sequences past each hole stay whole (backward shift). */
static void test_remove(void)
{
	struct hashmap m = HASHMAP_INIT(sizeof(uint64_t));
	uint64_t n = 5000, found = 0, absent = 0;

	for (uint64_t k = 0; k < n; k++)
		hashmap_put(&m, &k, (void *)(uintptr_t)(k + 1));
	for (uint64_t k = 0; k < n; k += 3)
		CHECK((uintptr_t)hashmap_remove(&m, &k) == k + 1, "remove %" PRIu64, k);
	CHECK(hashmap_remove(&m, &(uint64_t){ 0 }) == NULL, "a second remove finds nothing");
	for (uint64_t k = 0; k < n; k++) {
		uintptr_t v = (uintptr_t)hashmap_get(&m, &k);

		if (k % 3 == 0)
			absent += v == 0;
		else
			found += v == k + 1;
	}
	CHECK_EQ_U64(absent, (n + 2) / 3, "removed keys are gone");
	CHECK_EQ_U64(found, n - (n + 2) / 3, "every other key is still found");
	CHECK_EQ_U64(hashmap_count(&m), n - (n + 2) / 3, "count follows removals");
	hashmap_release(&m, NULL);
}

int main(void)
{
	test_remove();
	test_keyed();
	test_matched();
	test_walk();
	test_compact();
	test_strset();
	return test_done();
}
