/* SPDX-License-Identifier: Apache-2.0 */
/* simd.h -- which vector instruction set the kernels with several compiled forms use (x86-64: AVX-512,
 * AVX2 or the baseline SSE2 "scalar" form). One binary runs on every x86-64 machine: each form is compiled
 * with a target attribute and chosen at run time from what the processor reports. The forms do the same
 * IEEE operations in the same order on each element (no fused multiply-add, no reassociation), so every
 * form gives the same bytes; tests force each one in turn. */
#ifndef SPT_OPS_SIMD_H
#define SPT_OPS_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__)
#define SPT__SIMD_X86 1
#define SPT__TARGET_AVX2 __attribute__((target("avx2")))
#define SPT__TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#else
#define SPT__SIMD_X86 0
#define SPT__TARGET_AVX2
#define SPT__TARGET_AVX512
#endif

enum { SPT__SIMD_SCALAR = 0, SPT__SIMD_AVX2 = 1, SPT__SIMD_AVX512 = 2 };

/* The form in use: the best the processor supports, lowered (never raised) by the environment variable
 * SPT_SIMD=scalar|avx2|avx512 read on first use, or by spt__simd_force. */
int spt__simd(void);
/* Tests: use `level` (capped at what the processor supports) from now on; -1 returns to the default.
 * Returns the level now in use. Not meant to be called while other threads run kernels. */
int spt__simd_force(int level);

#endif
