/* hrrand.h - torch.rand's CPU stream, drawn faster: the replay worker's
 * faithful input draws.
 *
 * Owns: continuing PyTorch's default CPU generator (MT19937, the state
 * torch.get_rng_state() returns) to fill an fp32 tensor exactly as
 * torch.rand does on the CPU: one 32-bit output per element, in memory
 * order, value (y & 0xffffff) * 2^-24; and the state left behind, to hand
 * back with torch.set_rng_state.  Bit-identical values and state are the
 * contract (tests/py/test_rand_torch.py checks them against PyTorch; the
 * worker checks a draw against torch.rand before it uses this at all).
 * On several threads (hrr_rand_f32_par): each thread draws its own part
 * of the stream, from the state there (mtjump.h jumps to it), so the
 * values and the state left are the same as on one.
 *
 * Must not: draw for a state it does not recognise (it returns an error
 * and the caller uses torch), or keep anything between calls but the
 * jump polynomials (mtjump.h).
 *
 * Why: KernelBench draws every input set with torch.rand on the CPU, one
 * stream, one element at a time (a lock, a call per element); a 1.6 G
 * element set takes 8-20 s there, and on large problems that, not the GPU,
 * bounds a faithful replay.  The same stream drawn a 624-word block at a
 * time runs at memory speed.
 */
#ifndef HRRAND_H
#define HRRAND_H

#include <stddef.h>
#include <stdint.h>

#define HRR_ABI 2
#define HRR_MAX_THREADS 64
#define HRR_STATE_BYTES 5056   /* torch.get_rng_state() of a CPU generator */

/* HRR_ABI */
int hrr_abi_version(void);

/* Fill out[0..n) as torch.rand(n) would from the generator state st (the
 * HRR_STATE_BYTES of torch.get_rng_state(), updated in place to the state
 * torch would leave).  Returns 0, or -1 (st untouched, out unspecified)
 * when len is not HRR_STATE_BYTES or the state is not one a seeded
 * generator can be in. */
int hrr_rand_f32(uint8_t *st, size_t len, float *out, uint64_t n);

/* hrr_rand_f32 on up to `threads` threads (at most HRR_MAX_THREADS; one
 * for draws under 8.4 M elements).  Same values, same state, same errors;
 * a thread that cannot start runs its part on the caller's thread, and
 * when a jump fails (out of memory) the whole draw is made again there. */
int hrr_rand_f32_par(uint8_t *st, size_t len, float *out, uint64_t n, int threads);

/* The elements of one part of a split draw: a draw is split only when,
 * after the rest of its first block, at least two parts are left. */
uint64_t hrr_part_elements(void);

#endif
