/* lse.c - ARMv8.1 LSE atomics as gcc emits them with -march=armv8.1-a
 * (tests/arm64/regen.sh).  Inline asm where gcc 12 does not: caspal (it
 * calls libatomic), staddl/stsetb (it writes ldadd x1, x1), ldumaxal (no
 * builtin), ldapr (needs +rcpc). */
#include <stdint.h>

int64_t lse_ldadd(int64_t *p, int64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
int32_t lse_ldadd_w(int32_t *p, int32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
uint8_t lse_ldaddb(uint8_t *p) { return __atomic_fetch_add(p, 1, __ATOMIC_ACQUIRE); }
uint16_t lse_ldaddh(uint16_t *p) { return __atomic_fetch_add(p, 1, __ATOMIC_RELEASE); }
void lse_ldadd_unused(int64_t *p) { __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }
void lse_stadd(int64_t *p, int64_t v)         /* gcc 12 writes ldadd x1, x1 */
{
	__asm__ volatile("staddl %0, [%1]" : : "r"(v), "r"(p) : "memory");
}
void lse_stsetb(uint8_t *p, uint8_t v)
{
	__asm__ volatile("stsetb %w0, [%1]" : : "r"(v), "r"(p) : "memory");
}
int64_t lse_ldset(int64_t *p) { return __atomic_fetch_or(p, 4, __ATOMIC_ACQ_REL); }
int64_t lse_ldclr(int64_t *p) { return __atomic_fetch_and(p, ~4L, __ATOMIC_SEQ_CST); }
int64_t lse_ldeor(int64_t *p) { return __atomic_fetch_xor(p, 8, __ATOMIC_SEQ_CST); }
int64_t lse_swp(int64_t *p, int64_t v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
uint8_t lse_swpb(uint8_t *p) { return __atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE); }
int64_t lse_cas(int64_t *p, int64_t o, int64_t n)
{
	__atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return o;
}
int16_t lse_cash(int16_t *p, int16_t o, int16_t n)
{
	__atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return o;
}
__int128 lse_casp(__int128 *p, __int128 o, __int128 n)
{
	__asm__ volatile("caspal %0, %H0, %1, %H1, [%2]" : "+r"(o) : "r"(n), "r"(p) : "memory");
	return o;
}
uint64_t lse_ldumax(uint64_t *p, uint64_t v)   /* no builtin: inline asm */
{
	uint64_t old;
	__asm__ volatile("ldumaxal %1, %0, [%2]" : "=r"(old) : "r"(v), "r"(p) : "memory");
	return old;
}
int64_t rcpc_ldapr(int64_t *p)                 /* ARMv8.3 RCpc: gcc needs +rcpc */
{
	int64_t v;
	__asm__ volatile(".arch_extension rcpc\n\tldapr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
	return v;
}
