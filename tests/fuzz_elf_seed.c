/* fuzz_elf_seed.c - the program whose binaries seed fuzz_elf
 * (tests/fuzz-corpus/elf, built by tests/fuzz_elf_seeds.sh).
 *
 * What the symbolizer reads in a real target, in a few KiB: a struct
 * with padding and a self pointer, a global array of it, a union, a
 * static, a pointer parameter walked in a loop (a register pointer and
 * its load), a function inlined into another.  No libc: the DWARF is all
 * of this file and the binary stays small enough to mutate.
 */
struct pair {
	long hits;
	int misses;
	char tag;
	struct pair *next;
};

union word {
	long l;
	int i[2];
};

struct pair pairs[4];
union word words[2];
static long total;
struct pair *head = &pairs[0];

static inline void bump(struct pair *p, long n)
{
	p->hits += n;
	p->misses ^= (int)n;
}

__attribute__((noinline)) long walk(struct pair *p)
{
	long sum = 0;

	for (; p; p = p->next) {
		bump(p, 1);
		sum += p->hits;
	}
	return sum;
}

__attribute__((noinline)) void fill(union word *w, int n)
{
	for (int i = 0; i < n; i++)
		w[i].i[1] = i + (int)total;
}

void _start(void)
{
	pairs[0].next = &pairs[1];
	total = walk(head);
	fill(words, 2);
	for (;;)
		__asm__ volatile("" ::: "memory");
}
