/* fixture_alloc - allocates through every call the shim wraps and prints
 * each address, for tests/test_alloc_shim.c: the same addresses with the
 * shim preloaded as without it (it must not move anything), and a record
 * for each call. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
/* malloc(n) called with rbp pointing at fake_frame, as code built without
 * frame pointers may leave it: at a local whose bytes are no frame. */
void *malloc_with_frame(void *fake_frame, size_t n);
__asm__(".text\n"
	".globl malloc_with_frame\n"
	".type malloc_with_frame, @function\n"
	"malloc_with_frame:\n"
	"\tpush %rbp\n"
	"\tmov %rdi, %rbp\n"
	"\tmov %rsi, %rdi\n"
	"\tcall malloc@PLT\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size malloc_with_frame, .-malloc_with_frame\n");
#endif

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(void)
{
	void *m = malloc(24), *c = calloc(3, 40), *r = malloc(16), *a, *p = NULL, *g;
	char *s = strdup("fixture");
	void *big = malloc(300000);       /* past the mmap threshold */

	printf("malloc %p\ncalloc %p\n", m, c);
	a = aligned_alloc(64, 128);
	printf("aligned_alloc %p\n", a);
	if (posix_memalign(&p, 128, 256))
		return 1;
	printf("posix_memalign %p\n", p);
	g = memalign(32, 100);
	printf("memalign %p\n", g);
	printf("strdup %p\n", (void *)s);
	printf("big %p\n", big);
#if defined(__x86_64__)
	/* "hello wo", "rld, bye": a string where the saved rbp and the
	 * return address would be */
	volatile unsigned long junk[2] = { 0x6f77206f6c6c6568ul, 0x657962202c646c72ul };
	void *j = malloc_with_frame((void *)junk, 72);

	printf("junkframe %p\n", j);
#else
	void *j = NULL;
#endif
	pause_ms(5);                      /* old enough to be reported with its free */
	r = realloc(r, 4000);
	printf("realloc %p\n", r);
	pause_ms(5);
	free(m);
	m = malloc(24);                   /* reuses the freed block */
	printf("again %p\n", m);
	free(j);
	free(big);
	free(c);
	free(a);
	free(p);
	free(g);
	free(s);
	free(r);
	free(m);
	return 0;
}
