/* mtjump.c - see mtjump.h.
 *
 * The generator as a linear map A over GF(2) on its 624-word window
 * (x_0 .. x_623): one step appends x_397 ^ twist(x_0, x_1) and drops x_0;
 * a refill is 624 steps.  Its characteristic polynomial phi has degree
 * 19937 (the low 31 bits of x_0 are dead: A maps them to nothing).  Then
 * A^J s = g(A) s with g = t^J mod phi, up to those dead bits, and g(A) s
 * is 19937 steps of Horner's rule.  phi is found as the minimal polynomial
 * of one output bit's sequence (Berlekamp-Massey over 2 * 19937 + 64
 * bits): phi is irreducible, so any such sequence that is not zero has it.
 */
#include "mtjump.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N MTJ_N
#define M MTJ_M
#define DEG 19937
#define PW (DEG / 64 + 1)         /* words of a polynomial of degree < DEG + 31 */
#define SEQ (2 * DEG + 64)        /* bits Berlekamp-Massey reads */
#define SW (SEQ / 64 + 2)
#define CACHE 128                 /* jump polynomials kept (hrrand: one a thread) */

static uint64_t phi_low[PW];      /* phi without its t^DEG term */
static int phi_ok;
static pthread_once_t phi_once = PTHREAD_ONCE_INIT;

static struct {
	uint64_t steps;
	uint64_t used;
	uint64_t g[PW];
} cache[CACHE];
static uint64_t cache_clock;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* One step of the window w, whose x_0 is w[*p]. */
static inline void step(uint32_t *w, unsigned *p)
{
	unsigned i = *p;

	w[i] = w[(i + M) % N] ^ mtj_twist(w[i], w[(i + 1) % N]);
	*p = (i + 1) % N;
}

static inline int bit(const uint64_t *a, uint64_t i)
{
	return (int)(a[i >> 6] >> (i & 63)) & 1;
}

/* 64 bits of a from bit pos on (a has a word to spare past them). */
static inline uint64_t bits_at(const uint64_t *a, uint64_t pos)
{
	unsigned b = pos & 63;
	uint64_t w = pos >> 6;

	return b ? (a[w] >> b) | (a[w + 1] << (64 - b)) : a[w];
}

/* a ^= b * t^shift, b of nb words. */
static void xor_shifted(uint64_t *a, const uint64_t *b, size_t nb, uint64_t shift)
{
	size_t ws = shift >> 6;
	unsigned bs = shift & 63;

	if (!bs) {
		for (size_t k = 0; k < nb; k++)
			a[ws + k] ^= b[k];
		return;
	}
	for (size_t k = 0; k < nb; k++) {
		a[ws + k] ^= b[k] << bs;
		a[ws + k + 1] ^= b[k] >> (64 - bs);
	}
}

/* phi from the low bit of the outputs of the reference seeding (5489). */
static void find_phi(void)
{
	uint64_t *seq = calloc(SW, sizeof(*seq)), *c = calloc(SW, sizeof(*c)),
		 *b = calloc(SW, sizeof(*b)), *tmp = calloc(SW, sizeof(*tmp));
	uint32_t w[N];
	unsigned p = 0;
	uint64_t L = 0, m = 1;

	if (!seq || !c || !b || !tmp)
		goto out;
	w[0] = 5489;
	for (unsigned i = 1; i < N; i++)
		w[i] = 1812433253u * (w[i - 1] ^ (w[i - 1] >> 30)) + i;
	/* seq is stored reversed (bit SEQ-1-k is output k), so that the
	 * discrepancy's sum over the last L outputs reads forward. */
	for (uint64_t k = 0; k < SEQ; k++) {
		step(w, &p);
		if (w[(p + N - 1) % N] & 1)
			seq[(SEQ - 1 - k) >> 6] |= 1ull << ((SEQ - 1 - k) & 63);
	}
	c[0] = b[0] = 1;
	for (uint64_t n = 0; n < SEQ; n++) {
		/* d = s_n + sum_{i=1..L} c_i s_{n-i}; s_{n-i} is seq bit
		 * SEQ-1-n+i. */
		uint64_t d = 0, off = SEQ - 1 - n;

		/* deg c <= L and deg b <= L, both < SEQ / 2 + 1: their words
		 * past PW + 1 are zero. */
		size_t nb = SW - m / 64 - 1 < PW + 1 ? SW - m / 64 - 1 : PW + 1;

		for (uint64_t k = 0; k <= L / 64; k++)
			d ^= c[k] & bits_at(seq, off + 64 * k);
		if (!__builtin_parityll(d)) {
			m++;
		} else if (2 * L <= n) {
			memcpy(tmp, c, SW * sizeof(*c));
			xor_shifted(c, b, nb, m);
			L = n + 1 - L;
			memcpy(b, tmp, SW * sizeof(*b));
			m = 1;
		} else {
			xor_shifted(c, b, nb, m);
			m++;
		}
	}
	/* phi(t) = t^L c(1/t): coefficient of t^i is c_{L-i}. */
	if (L == DEG && bit(c, DEG)) {
		for (uint64_t i = 0; i < DEG; i++)
			if (bit(c, DEG - i))
				phi_low[i >> 6] |= 1ull << (i & 63);
		phi_ok = 1;
	}
out:
	free(seq);
	free(c);
	free(b);
	free(tmp);
}

/* p (2 * PW + 1 words, degree < 2 * DEG) := p mod phi. */
static void reduce(uint64_t *p)
{
	for (uint64_t d = 2 * (uint64_t)DEG - 1; d >= DEG; d--) {
		if (bit(p, d)) {
			p[d >> 6] ^= 1ull << (d & 63);
			xor_shifted(p, phi_low, PW, d - DEG);
		}
	}
}

static uint64_t spread32(uint32_t x)
{
	uint64_t v = x;

	v = (v | (v << 16)) & 0x0000ffff0000ffffull;
	v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
	v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
	v = (v | (v << 2)) & 0x3333333333333333ull;
	v = (v | (v << 1)) & 0x5555555555555555ull;
	return v;
}

/* g := t^J mod phi. */
static void power_of_t(uint64_t J, uint64_t g[PW])
{
	uint64_t p[2 * PW + 1];
	int top = 63 - __builtin_clzll(J);

	memset(p, 0, sizeof(p));
	p[0] = 1;
	for (int i = top; i >= 0; i--) {
		for (int k = PW - 1; k >= 0; k--) {        /* square */
			uint64_t w = p[k];

			p[2 * k + 1] = spread32((uint32_t)(w >> 32));
			p[2 * k] = spread32((uint32_t)w);
		}
		if ((J >> i) & 1) {                         /* times t */
			for (int k = 2 * PW; k > 0; k--)
				p[k] = (p[k] << 1) | (p[k - 1] >> 63);
			p[0] <<= 1;
		}
		reduce(p);
	}
	memcpy(g, p, PW * sizeof(*g));
}

/* g for `steps`, from the cache or made (outside the lock: two threads
 * that miss on the same steps both make it, and that is all). */
static void jump_poly(uint64_t steps, uint64_t g[PW])
{
	int hit = -1, old = 0;

	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < CACHE; i++)
		if (cache[i].used && cache[i].steps == steps)
			hit = i;
	if (hit >= 0) {
		cache[hit].used = ++cache_clock;
		memcpy(g, cache[hit].g, PW * sizeof(*g));
	}
	pthread_mutex_unlock(&cache_lock);
	if (hit >= 0)
		return;
	power_of_t(steps, g);
	pthread_mutex_lock(&cache_lock);
	for (int i = 1; i < CACHE; i++)
		if (cache[i].used < cache[old].used)
			old = i;
	cache[old].steps = steps;
	cache[old].used = ++cache_clock;
	memcpy(cache[old].g, g, PW * sizeof(*g));
	pthread_mutex_unlock(&cache_lock);
}

int mtj_jump(uint32_t block[N], uint64_t blocks)
{
	uint64_t g[PW];
	uint32_t r[N];
	unsigned p = 0;
	int top;

	if (!blocks)
		return 0;
	pthread_once(&phi_once, find_phi);
	if (!phi_ok)
		return -1;
	jump_poly(blocks * N, g);
	memset(r, 0, sizeof(r));
	for (top = DEG - 1; top >= 0 && !bit(g, (uint64_t)top); top--)
		;
	/* Horner: r := A r + g_i s, from the top coefficient down. */
	for (int i = top; i >= 0; i--) {
		step(r, &p);
		if (bit(g, (uint64_t)i)) {
			unsigned k, head = N - p;

			for (k = 0; k < head; k++)
				r[p + k] ^= block[k];
			for (; k < N; k++)
				r[k - head] ^= block[k];
		}
	}
	for (unsigned k = 0; k < N; k++)
		block[k] = r[(p + k) % N];
	return 0;
}
