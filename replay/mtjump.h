/* mtjump.h - MT19937 jump ahead: the state a number of outputs later,
 * without making the outputs in between.
 *
 * Owns: the generator's characteristic polynomial (found once per process
 * by Berlekamp-Massey from the generator's own output), the polynomials
 * t^J mod it (a small cache), and applying one to a state (Horner's rule
 * over the generator's one-word step).  The method is the one of Haramoto,
 * Matsumoto, Nishimura, Panneton and L'Ecuyer, "Efficient jump ahead for
 * F2-linear random number generators" (INFORMS J. Computing 20(3), 2008).
 *
 * A "block" is the generator's 624 words just after a refill (torch's
 * CPUGeneratorImpl mt[] when next = 624): the next refill makes the next
 * 624 outputs from it.  mtj_jump moves a block `blocks` refills ahead.
 * The low 31 bits of the result's first word may differ from the true
 * block's: no later output depends on them (the refill reads only that
 * word's top bit), and the caller refills before it outputs anything.
 *
 * Must not: be used for output words of the jumped block itself (see
 * above).  Thread-safe.
 *
 * Why: it lets the rand library (hrrand.h) draw one torch.rand stream on
 * many threads, each from its own place in it.
 */
#ifndef MTJUMP_H
#define MTJUMP_H

#include <stdint.h>

#define MTJ_N 624
#define MTJ_M 397

/* The generator's twist: the word made from x_0's top bit and x_1's
 * others (XORed with x_397 to give the next word).  Linear over GF(2). */
static inline uint32_t mtj_twist(uint32_t u, uint32_t v)
{
	return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^
	       (-(v & 1u) & 0x9908b0dfu);
}

/* block[0..624) := the block `blocks` refills after it (see above).
 * Returns 0, or -1 when the polynomial could not be found (out of memory):
 * block is then untouched. */
int mtj_jump(uint32_t block[MTJ_N], uint64_t blocks);

#endif
