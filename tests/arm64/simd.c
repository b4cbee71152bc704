/* simd.c - SIMD loads and stores: q/d/s registers from gcc's vectorizer
 * and intrinsics, LD1/ST1/LD2/LD1R and a lane from arm_neon.h. */
#include <stdint.h>
#include <arm_neon.h>

void vec_add(int32_t *restrict d, const int32_t *restrict a, const int32_t *restrict b)
{
	for (int i = 0; i < 16; i++)
		d[i] = a[i] + b[i];
}
int32x4_t ld_q(const int32x4_t *p) { return p[3]; }
void st_q(int32x4_t *p, int32x4_t v) { p[1] = v; }
uint8x16x2_t ld1_two(const uint8_t *p) { return vld1q_u8_x2(p + 16); }
void st1_two(uint8_t *p, uint8x16x2_t v) { vst1q_u8_x2(p + 32, v); }
int16x8x2_t ld2_h(const int16_t *p) { return vld2q_s16(p); }
float32x4_t ld1r_s(const float *p)           /* gcc: ldr s0 + dup */
{
	float32x4_t v;
	__asm__ volatile("ld1r {%0.4s}, [%1]" : "=w"(v) : "r"(p + 2) : "memory");
	return v;
}
int32x4_t ld1_lane(const int32_t *p, int32x4_t v) { return vld1q_lane_s32(p + 1, v, 3); }
void st4_b(uint8_t *p, uint8x8x4_t v) { vst4_u8(p, v); }
const uint8_t *ld1_post(const uint8_t *p, uint8x16_t *out)
{
	__asm__ volatile("ld1 {%1.16b}, [%0], #16" : "+r"(p), "=w"(*out) : : "memory");
	return p;
}
const uint8_t *ld1_post_reg(const uint8_t *p, long step, uint8x16_t *out)
{
	__asm__ volatile("ld1 {%1.16b}, [%0], %2" : "+r"(p), "=w"(*out) : "r"(step) : "memory");
	return p;
}
void prefetch(const char *p) { __builtin_prefetch(p + 64); }
int64_t literal(void)
{
	int64_t v;
	__asm__ volatile("ldr %0, 1f\n\tb 2f\n1:\t.quad 0x1122334455667788\n2:" : "=r"(v));
	return v;
}
int64_t stack_slot(int64_t v)
{
	volatile int64_t t = v;
	return t;
}
