/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber_tmpl.h -- the fiber kernel of mttkrp_fiber.c for one element type: included once per type
 * with T (the C type) and SUF (a name suffix) defined. */
#define MF_CAT_(a, b) a##_##b
#define MF_CAT(a, b) MF_CAT_(a, b)
#define MF(name) MF_CAT(name, SUF)

/* Entries are read MF_AHEAD positions ahead of use: the factor rows they name are prefetched then, and
 * (through a permutation) their index rows and values twice as far ahead. */
#define MF_AHEAD 8 /* measured: 8 beats 4, 16 and 32 ([1e4]^3, R 16, factor rows in L2/L3) */

static inline __attribute__((always_inline)) void MF(prefetch)(const spt__mttkrp_job *j, int64_t p, const T *const *F,
                                                               const int64_t R) {
    const int64_t *perm = j->perm;
    if (perm && p + MF_AHEAD < j->n) {
        int64_t q = perm[p + MF_AHEAD];
        __builtin_prefetch(j->ix + q * j->N);
        __builtin_prefetch((const T *)j->vals + q);
    }
    if (p < j->n) {
        const int64_t *row = j->ix + (perm ? perm[p] : p) * j->N;
        for (int64_t m = 0; m < j->N; m++) {
            if (m == j->mode) continue;
            const char *f = (const char *)(F[m] + row[m] * R);
            for (int64_t b = 0; b < R * (int64_t)sizeof(T); b += 64) __builtin_prefetch(f + b);
        }
    }
}

/* out[i] = sum over the fibers of row i of (sum_e v_e F_leaf[ix_e[leaf]]) * prod_{other m} F_m[ix[m]], the
 * fibers in entry order, each fiber's entries in order, the other modes in increasing order. */
static inline __attribute__((always_inline)) void MF(body)(const spt__mttkrp_job *j, int64_t lo, int64_t hi, T *ra,
                                                           T *fa, const int64_t R) {
    const T *v = j->vals;
    const int64_t *ix = j->ix, *perm = j->perm;
    const int64_t N = j->N, mode = j->mode, leaf = j->leaf;
    const T *F[SPT_MAX_RANK];
    int64_t om[SPT_MAX_RANK];
    int K = 0;
    for (int64_t m = 0; m < N; m++) {
        F[m] = j->fd[m];
        if (m != mode && m != leaf) om[K++] = m;
    }
    const T *FL = F[leaf];
    T *o = j->out;
    for (int64_t p = lo; p < lo + MF_AHEAD && p < hi; p++) MF(prefetch)(j, p, F, R);
    int64_t i = lo;
    while (i < hi) {
        int64_t e = perm ? perm[i] : i;
        const int64_t *row = ix + e * N;
        const int64_t orow = row[mode];
        for (int64_t r = 0; r < R; r++) ra[r] = 0;
        bool open = true;
        while (open) {
            const int64_t *frow = row;
            for (int64_t r = 0; r < R; r++) fa[r] = 0;
            for (;;) {
                MF(prefetch)(j, i + MF_AHEAD, F, R);
                const T x = v[e], *fl = FL + row[leaf] * R;
#pragma omp simd
                for (int64_t r = 0; r < R; r++) fa[r] += x * fl[r];
                if (++i == hi) {
                    open = false;
                    break;
                }
                e = perm ? perm[i] : i;
                row = ix + e * N;
                if (row[mode] != orow) {
                    open = false;
                    break;
                }
                bool same = true;
                for (int k = 0; k < K; k++) same &= row[om[k]] == frow[om[k]];
                if (!same) break;
            }
            for (int k = 0; k < K; k++) {
                const T *f = F[om[k]] + frow[om[k]] * R;
#pragma omp simd
                for (int64_t r = 0; r < R; r++) fa[r] *= f[r];
            }
#pragma omp simd
            for (int64_t r = 0; r < R; r++) ra[r] += fa[r];
        }
        T *op = o + orow * R;
        for (int64_t r = 0; r < R; r++) op[r] = ra[r];
    }
}

/* The rank dispatch, compiled once per instruction set (template/mttkrp_fiber_ranks.c): small common
 * ranks get their own unrolled copy with the two accumulators on the stack. */
#define MF_TARGET
#define MF_NAME run_scalar
#include "ops/products/template/mttkrp_fiber_ranks.c"
#if SPT__SIMD_X86
#define MF_TARGET SPT__TARGET_AVX2
#define MF_NAME run_avx2
#include "ops/products/template/mttkrp_fiber_ranks.c"
#define MF_TARGET SPT__TARGET_AVX512
#define MF_NAME run_avx512
#include "ops/products/template/mttkrp_fiber_ranks.c"
#endif

static void MF(run)(const spt__mttkrp_job *j, int64_t lo, int64_t hi, T *scr) {
#if SPT__SIMD_X86
    switch (spt__simd()) {
    case SPT__SIMD_AVX512: MF(run_avx512)(j, lo, hi, scr); return;
    case SPT__SIMD_AVX2: MF(run_avx2)(j, lo, hi, scr); return;
    }
#endif
    MF(run_scalar)(j, lo, hi, scr);
}

#undef MF_AHEAD
#undef MF
#undef MF_CAT
#undef MF_CAT_
