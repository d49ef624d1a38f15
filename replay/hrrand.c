/* hrrand.c - torch.rand's CPU stream a block at a time (hrrand.h).
 *
 * PyTorch's CPU generator (ATen/core/MT19937RNGEngine.h, CPUGeneratorImpl
 * at torch 2.11) is the reference MT19937: 624 32-bit words, refilled by
 * the standard twist when `left` counts down to 0, each output tempered.
 * torch.rand on a float tensor takes one output y per element, in memory
 * order, as (y & (2^24 - 1)) * 2^-24 (transformation::uniform_real with
 * from 0, to 1: exact in float).  The state crosses the Python boundary in
 * the legacy layout CPUGeneratorImpl::get_state writes (THGeneratorState,
 * then the float-normal cache): the fields at the offsets below.
 */
#include "hrrand.h"

#include <string.h>

#include "../verify/clones.h"

#define N 624
#define M 397

/* THGeneratorStateNew, as get_state lays it out on x86-64. */
enum {
	OFF_SEED = 0,         /* uint64 the_initial_seed */
	OFF_LEFT = 8,         /* int32 left */
	OFF_SEEDED = 12,      /* int32 seeded */
	OFF_NEXT = 16,        /* uint64 next */
	OFF_WORDS = 24,       /* uint64 state[624] */
};

int hrr_abi_version(void)
{
	return HRR_ABI;
}

static inline uint32_t twist(uint32_t u, uint32_t v)
{
	return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^
	       (-(v & 1u) & 0x9908b0dfu);
}

/* The refill torch's next_state() does, over the whole block.  Inlined
 * (as temper is) so that each of fill's clones vectorises it for its own
 * target. */
static HR_ALWAYS_INLINE void refill(uint32_t *restrict mt)
{
	int i;

	for (i = 0; i < N - M; i++)
		mt[i] = mt[i + M] ^ twist(mt[i], mt[i + 1]);
	for (; i < N - 1; i++)
		mt[i] = mt[i + M - N] ^ twist(mt[i], mt[i + 1]);
	mt[N - 1] = mt[M - 1] ^ twist(mt[N - 1], mt[0]);
}

static HR_ALWAYS_INLINE void temper(const uint32_t *restrict mt, float *restrict out, int k)
{
	for (int i = 0; i < k; i++) {
		uint32_t y = mt[i];

		y ^= y >> 11;
		y ^= (y << 7) & 0x9d2c5680u;
		y ^= (y << 15) & 0xefc60000u;
		y ^= y >> 18;
		out[i] = (float)(int32_t)(y & 0xffffffu) * 0x1p-24f;
	}
}

/* The block loops, vectorised for x86-64-v3 as well (clones.h): 67 M
 * elements in 0.031 s against 0.047 s plain on the development machine
 * (docs/benchmarks.md, "sixth session"). */
HR_CPU_CLONES
static void fill(uint32_t *restrict mt, unsigned *next, unsigned *remain,
		 float *restrict out, uint64_t n)
{
	while (n) {
		uint64_t k;

		if (*remain == 0) {
			refill(mt);
			*next = 0;
			*remain = N;
		}
		k = n < *remain ? n : *remain;
		temper(mt + *next, out, (int)k);
		out += k;
		n -= k;
		*next += (unsigned)k;
		*remain -= (unsigned)k;
	}
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int32_t get32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int hrr_rand_f32(uint8_t *st, size_t len, float *out, uint64_t n)
{
	uint32_t mt[N];
	int32_t left, seeded;
	uint64_t next, w;
	unsigned nx, remain;

	if (!st || len != HRR_STATE_BYTES || (n && !out))
		return -1;
	left = get32(st + OFF_LEFT);
	seeded = get32(st + OFF_SEEDED);
	next = get64(st + OFF_NEXT);
	/* operator() decrements left, refills at 0, then reads state[next++]:
	 * left - 1 words are still unread, and they end the block. */
	if (seeded != 1 || left < 1 || left > N || next > N ||
	    (left > 1 && next + (uint64_t)left - 1 != N))
		return -1;
	for (int i = 0; i < N; i++) {
		w = get64(st + OFF_WORDS + 8 * (size_t)i);
		if (w >> 32)
			return -1;
		mt[i] = (uint32_t)w;
	}
	nx = (unsigned)next;
	remain = (unsigned)left - 1;
	fill(mt, &nx, &remain, out, n);
	left = (int32_t)remain + 1;
	next = nx;
	memcpy(st + OFF_LEFT, &left, sizeof(left));
	memcpy(st + OFF_NEXT, &next, sizeof(next));
	for (int i = 0; i < N; i++) {
		w = mt[i];
		memcpy(st + OFF_WORDS + 8 * (size_t)i, &w, sizeof(w));
	}
	return 0;
}
