/* fixtures.c - small functions whose -O2 AArch64 code holds the memory
 * access forms tests/test_decode_arm64.c checks.  Not built by the normal
 * build: tests/arm64/regen.sh cross-compiles it and extracts the bytes of
 * each function into fixtures.h.  Inline asm only where gcc does not emit
 * the form (SIMD structure loads, LDNP/STNP, prefetch, literal loads). */
#include <stdint.h>
#include <arm_neon.h>

struct s { int64_t a; int32_t b; int16_t c; int8_t d; uint8_t e; int64_t pair[2]; };

/* --- scalar loads and stores, every width -------------------------------- */
int64_t ld_x(const int64_t *p) { return p[3]; }
int32_t ld_w(const int32_t *p) { return p[5]; }
int64_t ld_b(const uint8_t *p) { return p[7]; }
int64_t ld_h(const uint16_t *p) { return p[9]; }
int64_t ld_sb(const int8_t *p) { return p[11]; }
int64_t ld_sh(const int16_t *p) { return p[13]; }
int64_t ld_sw(const int32_t *p) { return p[15]; }
int64_t ldur_x(const char *p) { return *(const int64_t *)(p - 24); }
int64_t ldur_sw(const char *p) { return *(const int32_t *)(p - 4); }
void st_x(int64_t *p, int64_t v) { p[2] = v; }
void st_w(int32_t *p, int32_t v) { p[4] = v; }
void st_b(uint8_t *p, uint8_t v) { p[6] = v; }
void st_h(uint16_t *p, uint16_t v) { p[8] = v; }
void stur_x(char *p, int64_t v) { *(int64_t *)(p - 16) = v; }
void stur_b(char *p, char v) { p[-1] = v; }
void st_zero(int64_t *p) { p[1] = 0; }
double ld_d(const double *p) { return p[4]; }
float ld_s(const float *p) { return p[6]; }
void st_d(double *p, double v) { p[3] = v; }
__int128 ld_q_pair(const __int128 *p) { return p[2]; }

/* --- register offsets: lsl, sxtw, uxtw ---------------------------------- */
int64_t ld_idx_lsl(const int64_t *p, long i) { return p[i]; }
int32_t ld_idx_sxtw(const int32_t *p, int i) { return p[i]; }
int64_t ld_idx_uxtw(const int64_t *p, unsigned i) { return p[i]; }
uint8_t ld_idx_b(const uint8_t *p, long i) { return p[i]; }
void st_idx_h(int16_t *p, long i, int16_t v) { p[i] = v; }

/* --- pairs --------------------------------------------------------------- */
int64_t ld_pair(const int64_t *p) { return p[4] + p[5]; }
void st_pair(int64_t *p, int64_t a, int64_t b) { p[6] = a; p[7] = b; }
int64_t ld_pair_w(const int32_t *p) { return (int64_t)p[2] * p[3]; }
void st_pair_w(int32_t *p, int32_t a, int32_t b) { p[10] = a; p[11] = b; }
void ldnp_stnp(int64_t *dst, const int64_t *src)
{
	int64_t a, b;
	__asm__ volatile("ldnp %0, %1, [%2, #32]" : "=&r"(a), "=&r"(b) : "r"(src) : "memory");
	__asm__ volatile("stnp %0, %1, [%2, #-16]" : : "r"(a), "r"(b), "r"(dst) : "memory");
}

/* --- writeback: post- and pre-index ------------------------------------ */
int64_t strsum(const char *p)                  /* ldrb w1, [x2], #1 */
{
	int64_t s = 0;
	char c;

	while ((c = *p++))
		s += c;
	return s;
}
void fill(int64_t *p, int64_t *end) { while (p != end) *p++ = 7; }   /* str x2, [x0], #8 */
struct node { struct node *next; long v; };
long walk(const struct node *n)                /* ldp x1, x2, [x1]: loads its base */
{
	long s = 0;

	while (n) {
		s += n->v;
		n = n->next;
	}
	return s;
}
void callee_saves(long *p, void (*f)(void)) { long a = p[0]; f(); p[1] = a; }  /* sp pairs */
int64_t ld_pre(const int64_t **pp) { const int64_t *p = *pp; return *++p + *++p; }
void wb_asm(int64_t *p)
{
	int64_t v;
	__asm__ volatile("ldr %0, [%1], #8\n\tstr %0, [%1, #16]!\n\t"
			 "ldp %0, xzr, [%1, #-32]!\n\tstp %0, %0, [%1], #48"
			 : "=&r"(v), "+r"(p) : : "memory");
}

/* --- exclusives (armv8.0, no outline atomics) --------------------------- */
int64_t llsc_add(int64_t *p) { return __atomic_fetch_add(p, 5, __ATOMIC_SEQ_CST); }
int32_t llsc_cas_w(int32_t *p, int32_t o, int32_t n)
{
	__atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
	return o;
}
uint8_t llsc_xchg_b(uint8_t *p) { return __atomic_exchange_n(p, 1, __ATOMIC_RELAXED); }
uint16_t llsc_or_h(uint16_t *p) { return __atomic_fetch_or(p, 2, __ATOMIC_RELEASE); }
int64_t ld_acquire(int64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void st_release(int32_t *p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
void st_release_b(uint8_t *p) { __atomic_store_n(p, 3, __ATOMIC_RELEASE); }
__int128 llsc_pair(__int128 *p)
{
	__int128 v;
	uint32_t fail;
	__asm__ volatile("1: ldaxp %0, %H0, [%2]\n\tstlxp %w1, %0, %H0, [%2]\n\tcbnz %w1, 1b"
			 : "=&r"(v), "=&r"(fail) : "r"(p) : "memory");
	return v;
}
