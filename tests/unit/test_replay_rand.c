/* test_replay_rand.c - the rand library (replay/hrrand.c) without torch:
 * every output against the textbook MT19937 (itself checked by the C++
 * standard's value: the 10000th output of a generator seeded 5489 is
 * 4123659995) across block ends, the state a draw leaves (one draw of n
 * equals draws that add up to n), and the states it refuses; the jump
 * ahead (replay/mtjump.c) against refills made one by one, and a draw on
 * threads against the same draw on one.  tests/py/test_rand_torch.py
 * compares it with torch itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../replay/hrrand.h"
#include "../../replay/mtjump.h"

/* A state as torch's CPU generator lays it out (get_state) right after
 * manual_seed(seed): the standard init_genrand words, left 1, next 0. */
static void seeded(uint8_t *st, uint32_t seed)
{
	uint32_t w = seed;
	uint64_t v;
	int32_t one = 1;

	memset(st, 0, HRR_STATE_BYTES);
	v = seed;
	memcpy(st, &v, 8);                        /* the_initial_seed */
	memcpy(st + 8, &one, 4);                  /* left */
	memcpy(st + 12, &one, 4);                 /* seeded */
	for (int i = 0; i < 624; i++) {
		if (i)
			w = 1812433253u * (w ^ (w >> 30)) + (uint32_t)i;
		v = w;
		memcpy(st + 24 + 8 * i, &v, 8);
	}
}

/* The textbook generator, one word at a time (Matsumoto and Nishimura's
 * genrand_int32), as the oracle for every output below. */
struct ref {
	uint32_t mt[624];
	int i;
};

static void ref_seed(struct ref *r, uint32_t seed)
{
	r->mt[0] = seed;
	for (int i = 1; i < 624; i++)
		r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) +
			   (uint32_t)i;
	r->i = 624;
}

static uint32_t ref_next(struct ref *r)
{
	uint32_t y;

	if (r->i == 624) {
		for (int k = 0; k < 624; k++) {
			y = (r->mt[k] & 0x80000000u) |
			    (r->mt[(k + 1) % 624] & 0x7fffffffu);
			r->mt[k] = r->mt[(k + 397) % 624] ^ (y >> 1) ^
				   ((y & 1u) ? 0x9908b0dfu : 0);
		}
		r->i = 0;
	}
	y = r->mt[r->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

static void matches_textbook(void **state)
{
	static const uint32_t seeds[] = { 0, 1, 42, 5489, 4294967295u };
	static const uint64_t parts[] = { 5, 619, 1, 1248, 700, 2 };
	uint8_t st[HRR_STATE_BYTES];
	float out[1248];
	struct ref r;

	(void)state;
	ref_seed(&r, 5489);
	for (int i = 0; i < 9999; i++)
		ref_next(&r);
	assert_int_equal(ref_next(&r), 4123659995u);   /* the oracle itself */
	for (size_t k = 0; k < sizeof(seeds) / sizeof(*seeds); k++) {
		seeded(st, seeds[k]);
		ref_seed(&r, seeds[k]);
		for (size_t p = 0; p < sizeof(parts) / sizeof(*parts); p++) {
			assert_int_equal(hrr_rand_f32(st, sizeof(st), out,
						      parts[p]), 0);
			for (uint64_t i = 0; i < parts[p]; i++) {
				float want = (float)(ref_next(&r) & 0xffffffu) *
					     0x1p-24f;

				if (out[i] != want)
					fail_msg("seed %u, part %zu, element %llu: "
						 "%.9g, want %.9g", seeds[k], p,
						 (unsigned long long)i, out[i],
						 want);
			}
		}
	}
}

static void standard_10000th(void **state)
{
	uint8_t st[HRR_STATE_BYTES];
	float *out = malloc(10000 * sizeof(*out));

	(void)state;
	assert_non_null(out);
	seeded(st, 5489);
	assert_int_equal(hrr_abi_version(), HRR_ABI);
	assert_int_equal(hrr_rand_f32(st, sizeof(st), out, 10000), 0);
	/* torch.rand keeps the low 24 bits of each output */
	assert_true(out[9999] == (float)(4123659995u & 0xffffffu) * 0x1p-24f);
	free(out);
}

static void split_draws_continue(void **state)
{
	static const uint64_t parts[] = { 1, 622, 1, 624, 625, 3, 1300 };
	uint8_t a[HRR_STATE_BYTES], b[HRR_STATE_BYTES];
	float whole[3176], piece[3176];
	uint64_t off = 0;

	(void)state;
	seeded(a, 42);
	seeded(b, 42);
	assert_int_equal(hrr_rand_f32(a, sizeof(a), whole, 3176), 0);
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		assert_int_equal(hrr_rand_f32(b, sizeof(b), piece + off, parts[i]), 0);
		off += parts[i];
	}
	assert_int_equal(off, 3176);
	assert_memory_equal(whole, piece, sizeof(whole));
	assert_memory_equal(a, b, sizeof(a));
	for (int i = 0; i < 3176; i++)
		assert_true(whole[i] >= 0.0f && whole[i] < 1.0f);
}

static void refuses_unknown_states(void **state)
{
	uint8_t st[HRR_STATE_BYTES], keep[HRR_STATE_BYTES];
	float out[4];
	int32_t v32;
	uint64_t v64;

	(void)state;
	seeded(st, 7);
	memcpy(keep, st, sizeof(st));
	assert_int_equal(hrr_rand_f32(st, sizeof(st) - 1, out, 4), -1);
	assert_int_equal(hrr_rand_f32(NULL, sizeof(st), out, 4), -1);
	assert_int_equal(hrr_rand_f32(st, sizeof(st), NULL, 4), -1);
	v32 = 0;                                   /* unseeded */
	memcpy(st + 12, &v32, 4);
	assert_int_equal(hrr_rand_f32(st, sizeof(st), out, 4), -1);
	memcpy(st, keep, sizeof(st));
	v32 = 5;                                   /* left 5 but next 0 */
	memcpy(st + 8, &v32, 4);
	assert_int_equal(hrr_rand_f32(st, sizeof(st), out, 4), -1);
	memcpy(st, keep, sizeof(st));
	v64 = 1ull << 32;                          /* a word over 32 bits */
	memcpy(st + 24 + 8 * 300, &v64, 8);
	assert_int_equal(hrr_rand_f32(st, sizeof(st), out, 4), -1);
	memcpy(st + 24 + 8 * 300, keep + 24 + 8 * 300, 8);
	assert_memory_equal(st, keep, sizeof(st));  /* refusals wrote nothing */
	assert_int_equal(hrr_rand_f32(st, sizeof(st), NULL, 0), 0);
	assert_memory_equal(st, keep, sizeof(st));  /* n = 0: nothing drawn */
}

/* The textbook refill (as ref_next's). */
static void refill(uint32_t *mt)
{
	for (int k = 0; k < 624; k++) {
		uint32_t y = (mt[k] & 0x80000000u) | (mt[(k + 1) % 624] & 0x7fffffffu);

		mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0);
	}
}

static void jump_equals_refills(void **state)
{
	static const uint64_t jumps[] = { 1, 2, 3, 5, 100, 1000, 6720 };
	uint32_t want[624], got[624];
	struct ref r;

	(void)state;
	ref_seed(&r, 20261130);
	memcpy(want, r.mt, sizeof(want));
	refill(want);
	for (size_t j = 0; j < sizeof(jumps) / sizeof(*jumps); j++) {
		memcpy(got, want, sizeof(got));
		for (uint64_t k = 0; k < jumps[j]; k++)
			refill(want);
		assert_int_equal(mtj_jump(got, jumps[j]), 0);
		/* Equal but for the dead low bits of word 0 (mtjump.h); the
		 * next refill, which reads only its top bit, is equal whole. */
		assert_int_equal(got[0] >> 31, want[0] >> 31);
		assert_memory_equal(got + 1, want + 1, sizeof(got) - sizeof(*got));
		{
			uint32_t next[624];

			memcpy(next, want, sizeof(next));
			refill(next);
			refill(got);
			assert_memory_equal(got, next, sizeof(next));
		}
	}
	memcpy(got, want, sizeof(got));
	assert_int_equal(mtj_jump(got, 0), 0);
	assert_memory_equal(got, want, sizeof(got));
}

static void threads_equal_one(void **state)
{
	/* 3 parts (of 6720 blocks) and some, after a skip of 5: the rest of
	 * a block, then parts, the last one short. */
	const uint64_t n = 3 * hrr_part_elements() + 777;
	static const int threads[] = { 2, 3, 7, 100 };
	uint8_t a[HRR_STATE_BYTES], b[HRR_STATE_BYTES];
	float skip[5], *one = malloc(n * sizeof(float)), *many = malloc(n * sizeof(float));

	(void)state;
	assert_int_equal(hrr_part_elements(), 6720 * 624);
	assert_non_null(one);
	assert_non_null(many);
	seeded(a, 42);
	assert_int_equal(hrr_rand_f32(a, sizeof(a), skip, 5), 0);
	memcpy(b, a, sizeof(b));
	assert_int_equal(hrr_rand_f32(a, sizeof(a), one, n), 0);
	for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++) {
		uint8_t c[HRR_STATE_BYTES];

		memcpy(c, b, sizeof(c));
		memset(many, 0, n * sizeof(float));
		assert_int_equal(hrr_rand_f32_par(c, sizeof(c), many, n, threads[t]), 0);
		assert_memory_equal(one, many, n * sizeof(float));
		assert_memory_equal(a, c, sizeof(a));
	}
	free(one);
	free(many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matches_textbook),
		cmocka_unit_test(standard_10000th),
		cmocka_unit_test(split_draws_continue),
		cmocka_unit_test(refuses_unknown_states),
		cmocka_unit_test(jump_equals_refills),
		cmocka_unit_test(threads_equal_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
