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

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/clones.h"
#include "mtjump.h"

#define N MTJ_N
#define M MTJ_M
/* A parallel draw's parts are multiples of this many blocks (4 M outputs). */
#define PART_ROUND 6720

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

/* The refill torch's next_state() does, over the whole block.  Inlined
 * (as temper is) so that each of fill's clones vectorises it for its own
 * target. */
static HR_ALWAYS_INLINE void refill(uint32_t *restrict mt)
{
	int i;

	for (i = 0; i < N - M; i++)
		mt[i] = mt[i + M] ^ mtj_twist(mt[i], mt[i + 1]);
	for (; i < N - 1; i++)
		mt[i] = mt[i + M - N] ^ mtj_twist(mt[i], mt[i + 1]);
	mt[N - 1] = mt[M - 1] ^ mtj_twist(mt[N - 1], mt[0]);
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
 * (docs/benchmarks-history.md, "replay on the H200: faithful draws a
 * block at a time, pinned loads"). */
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

/* The state st holds, checked: mt, the next word's index, the words left
 * in the block. */
static int load_state(const uint8_t *st, size_t len, uint32_t *mt, unsigned *nx,
		      unsigned *remain)
{
	int32_t left, seeded;
	uint64_t next, w;

	if (!st || len != HRR_STATE_BYTES)
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
	*nx = (unsigned)next;
	*remain = (unsigned)left - 1;
	return 0;
}

static void store_state(uint8_t *st, const uint32_t *mt, unsigned nx, unsigned remain)
{
	int32_t left = (int32_t)remain + 1;
	uint64_t next = nx, w;

	memcpy(st + OFF_LEFT, &left, sizeof(left));
	memcpy(st + OFF_NEXT, &next, sizeof(next));
	for (int i = 0; i < N; i++) {
		w = mt[i];
		memcpy(st + OFF_WORDS + 8 * (size_t)i, &w, sizeof(w));
	}
}

/* One thread's part of a parallel draw: from the block `skip` refills
 * after the one it was given, n outputs. */
struct part {
	uint32_t mt[N];
	uint64_t skip;
	float *out;
	uint64_t n;
	unsigned nx, remain;
	int failed;
	pthread_t th;
};

static void *run_part(void *arg)
{
	struct part *pt = arg;

	if (mtj_jump(pt->mt, pt->skip)) {
		pt->failed = 1;
		return NULL;
	}
	pt->nx = N;
	pt->remain = 0;
	fill(pt->mt, &pt->nx, &pt->remain, pt->out, pt->n);
	return NULL;
}

/* Blocks a part makes, for nblocks on up to threads threads: a multiple
 * of PART_ROUND, so that draws of about the same size jump by the same
 * distances (mtjump.c keeps the polynomials it made). */
static uint64_t part_blocks(uint64_t nblocks, int threads)
{
	uint64_t per = (nblocks + (uint64_t)threads - 1) / (uint64_t)threads;

	return (per + PART_ROUND - 1) / PART_ROUND * PART_ROUND;
}

/* The blocks after the current one, n outputs from a block start, on
 * parts of `per` blocks each; the state left is the last part's.  0, or
 * -1 when a part could not be made (out is then partly written, mt and
 * the counts are untouched). */
static int fill_parts(uint32_t *mt, unsigned *nx, unsigned *remain, float *out, uint64_t n,
		      uint64_t per, uint64_t nparts)
{
	struct part *pt = calloc(nparts, sizeof(*pt));
	int rc = 0;

	if (!pt)
		return -1;
	for (uint64_t j = 0; j < nparts; j++) {
		memcpy(pt[j].mt, mt, sizeof(pt[j].mt));
		pt[j].skip = j * per;
		pt[j].out = out + j * per * N;
		pt[j].n = j + 1 < nparts ? per * N : n - j * per * N;
	}
	/* Part 0 here, the others on threads; one that cannot start runs
	 * here too. */
	for (uint64_t j = 1; j < nparts; j++)
		if (pthread_create(&pt[j].th, NULL, run_part, &pt[j]))
			pt[j].th = pthread_self();
	run_part(&pt[0]);
	for (uint64_t j = 1; j < nparts; j++) {
		if (pthread_equal(pt[j].th, pthread_self()))
			run_part(&pt[j]);
		else
			pthread_join(pt[j].th, NULL);
	}
	for (uint64_t j = 0; j < nparts; j++)
		rc |= pt[j].failed ? -1 : 0;
	if (!rc) {
		memcpy(mt, pt[nparts - 1].mt, sizeof(pt[0].mt));
		*nx = pt[nparts - 1].nx;
		*remain = pt[nparts - 1].remain;
	}
	free(pt);
	return rc;
}

int hrr_rand_f32_par(uint8_t *st, size_t len, float *out, uint64_t n, int threads)
{
	uint32_t mt[N];
	unsigned nx, remain;
	uint64_t head, nblocks, per;

	if (load_state(st, len, mt, &nx, &remain) || (n && !out))
		return -1;
	/* The rest of the current block first: then every part starts a
	 * block. */
	head = n < remain ? n : remain;
	fill(mt, &nx, &remain, out, head);
	out += head;
	n -= head;
	nblocks = (n + N - 1) / N;
	if (threads > HRR_MAX_THREADS)
		threads = HRR_MAX_THREADS;
	per = threads > 1 ? part_blocks(nblocks, threads) : nblocks;
	/* fill_parts leaves mt as it was when it fails: one thread, then. */
	if (!(threads > 1 && nblocks >= 2 * PART_ROUND && per < nblocks) ||
	    fill_parts(mt, &nx, &remain, out, n, per, (nblocks + per - 1) / per))
		fill(mt, &nx, &remain, out, n);
	store_state(st, mt, nx, remain);
	return 0;
}

uint64_t hrr_part_elements(void)
{
	return (uint64_t)PART_ROUND * N;
}

int hrr_rand_f32(uint8_t *st, size_t len, float *out, uint64_t n)
{
	return hrr_rand_f32_par(st, len, out, n, 1);
}
