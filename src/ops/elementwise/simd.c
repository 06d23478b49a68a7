/* SPDX-License-Identifier: Apache-2.0 */
/* simd.c -- the run-time choice of the vector instruction set (simd.h). */
#include "ops/elementwise/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int cpu_best(void) {
#if SPT__SIMD_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        return SPT__SIMD_AVX512;
    if (__builtin_cpu_supports("avx2")) return SPT__SIMD_AVX2;
#endif
    return SPT__SIMD_SCALAR;
}

static int env_cap(void) {
    const char *s = getenv("SPT_SIMD");
    if (!s) return SPT__SIMD_AVX512;
    if (!strcmp(s, "scalar")) return SPT__SIMD_SCALAR;
    if (!strcmp(s, "avx2")) return SPT__SIMD_AVX2;
    return SPT__SIMD_AVX512;
}

static _Atomic int level = -1; /* -1: not chosen yet */

static int default_level(void) {
    int b = cpu_best(), c = env_cap();
    return b < c ? b : c;
}

int spt__simd(void) {
    int l = atomic_load_explicit(&level, memory_order_relaxed);
    if (l >= 0) return l;
    l = default_level(); /* every thread computes the same value: a race here is harmless */
    atomic_store_explicit(&level, l, memory_order_relaxed);
    return l;
}

int spt__simd_force(int want) {
    int b = cpu_best(), l = want < 0 ? default_level() : want < b ? want : b;
    atomic_store_explicit(&level, l, memory_order_relaxed);
    return l;
}
