/* clones.h - HR_CPU_CLONES: build a function twice where the compiler
 * can, for x86-64-v3 (AVX2; the loader picks it on CPUs that have it) and
 * plain.  Used by the CPU pass of the verify library (verify.c) and by the
 * rand library (replay/hrrand.c).  Not under ASan, whose runtime does not
 * resolve the clones.  A clone's callees are compiled for its target only
 * when inlined into it. */
#ifndef HR_CLONES_H
#define HR_CLONES_H

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__)
#define HR_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef HR_CPU_CLONES
#define HR_CPU_CLONES
#endif

/* For a clone's callees: always inlined, so each clone compiles them for
 * its own target. */
#define HR_ALWAYS_INLINE __attribute__((always_inline)) inline

#endif
