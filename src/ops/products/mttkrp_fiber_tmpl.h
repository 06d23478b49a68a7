/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber_tmpl.h -- the fiber kernel of mttkrp_fiber.c for one element type: included once per type
 * with T (the C type) and SUF (a name suffix) defined. */
#define MF_CAT_(a, b) a##_##b
#define MF_CAT(a, b) MF_CAT_(a, b)
#define MF(name) MF_CAT(name, SUF)

/* Entries are read MF_AHEAD positions ahead of use: the factor rows they name (and, in the scatter form,
 * the output row) are prefetched then. */
#define MF_AHEAD 8 /* measured: 8 beats 4, 16 and 32 ([1e4]^3, R 16, factor rows in L2/L3) */

static inline __attribute__((always_inline)) void MF(prefetch)(const spt__mttkrp_job *j, int64_t p, const T *const *F,
                                                               const T *o, const int64_t R) {
    if (p >= j->n) return;
    const int64_t *row = j->ix + p * j->N;
    for (int64_t m = 0; m < j->N; m++) {
        const bool out = m == j->mode;
        if (out && !o) continue;
        const char *f = (const char *)((out ? o : F[m]) + row[m] * R);
        for (int64_t b = 0; b < R * (int64_t)sizeof(T); b += 64) {
            if (out) __builtin_prefetch(f + b, 1);
            else __builtin_prefetch(f + b);
        }
    }
}

/* The modes other than `mode` of a rank-2 or rank-3 job, in increasing order (*m1 = -1 at rank 2). */
static inline void MF(others)(const spt__mttkrp_job *j, int64_t *m0, int64_t *m1) {
    *m0 = j->mode == 0 ? 1 : 0;
    *m1 = j->N == 3 ? 3 - j->mode - *m0 : -1;
}

/* acc[r] += (v_e * F_m0[ix[m0], r]) * F_m1[ix[m1], r] (rank 3) or v_e * F_m0[ix[m0], r] (rank 2): the
 * entry's whole product, formed in registers. At ranks 2 and 3 this per-entry form is faster than
 * summing fibers first (measured on [1e4]^3, 1e7 entries, R 16: mode 0 about 1.5x, the scatter modes
 * about 2x): a fiber saves at most one multiply an entry there, and its partial sums went through
 * memory. */
static inline __attribute__((always_inline)) void MF(term)(const spt__mttkrp_job *j, int64_t i, int64_t m0, int64_t m1,
                                                           const T *const *F, T *acc, const int64_t R) {
    const int64_t *row = j->ix + i * j->N;
    const T x = ((const T *)j->vals)[i], *a = F[m0] + row[m0] * R;
    if (m1 >= 0) {
        const T *b = F[m1] + row[m1] * R;
#pragma omp simd
        for (int64_t r = 0; r < R; r++) acc[r] += x * a[r] * b[r];
    } else {
#pragma omp simd
        for (int64_t r = 0; r < R; r++) acc[r] += x * a[r];
    }
}

/* The fiber starting at position *i (rank 4 and up; the leaf not `mode`): the run of entries equal to it in
 * every index but the leaf, ending at hi. fa = (sum over the run, in order, of v_e F_leaf[ix_e[leaf]]) times
 * the rows of the modes om[0..K) (every mode but `mode` and the leaf) in that order; *i moves past the run. */
static inline __attribute__((always_inline)) void MF(fiber)(const spt__mttkrp_job *j, int64_t *i, int64_t hi,
                                                            const T *const *F, const int64_t *om, int K, const T *po,
                                                            T *fa, const int64_t R) {
    const T *v = j->vals, *FL = F[j->leaf];
    const int64_t N = j->N, *ix = j->ix, *frow = ix + *i * N;
    int64_t p = *i;
    for (int64_t r = 0; r < R; r++) fa[r] = 0;
    for (;;) {
        MF(prefetch)(j, p + MF_AHEAD, F, po, R);
        const int64_t *row = ix + p * N;
        const T x = v[p], *fl = FL + row[j->leaf] * R;
#pragma omp simd
        for (int64_t r = 0; r < R; r++) fa[r] += x * fl[r];
        if (++p == hi) break;
        row = ix + p * N;
        bool same = row[j->mode] == frow[j->mode];
        for (int k = 0; k < K; k++) same &= row[om[k]] == frow[om[k]];
        if (!same) break;
    }
    for (int k = 0; k < K; k++) {
        const T *f = F[om[k]] + frow[om[k]] * R;
#pragma omp simd
        for (int64_t r = 0; r < R; r++) fa[r] *= f[r];
    }
    *i = p;
}

/* One kernel, two forms (`scatter` a constant at each use, so each form compiles to its own loop):
 *  - grouped (scatter false; entries grouped by their index in `mode`): o[i] = the sum over the entries of
 *    row i, in entry order, of their products, each row written once;
 *  - scatter (entries in any order): each product is added to o[row[mode]], o being rows of this chunk's
 *    own.
 * At ranks 2 and 3 each entry's product is whole (term). At rank 4 and up a fiber (a run equal in every
 * index but the leaf) sums its values times the leaf factor's rows first and is then multiplied by the
 * other modes' rows in increasing mode order; in the scatter form, when `mode` is the leaf, a run of
 * entries equal in every other index shares the product of those modes' rows and each entry adds its
 * value times it. ra, fa: R-element accumulators (ra unused by the scatter form). */
static inline __attribute__((always_inline)) void MF(kernel)(const spt__mttkrp_job *j, int64_t lo, int64_t hi, T *o,
                                                             T *ra, T *fa, const int64_t R, const bool scatter) {
    const T *v = j->vals;
    const int64_t *ix = j->ix;
    const int64_t N = j->N, mode = j->mode, leaf = j->leaf;
    const T *F[SPT_MAX_RANK];
    int64_t om[SPT_MAX_RANK];
    int K = 0;
    for (int64_t m = 0; m < N; m++) {
        F[m] = j->fd[m];
        if (m != mode && m != leaf) om[K++] = m;
    }
    T *po = scatter ? o : NULL; /* output rows to prefetch */
    for (int64_t p = lo; p < lo + MF_AHEAD && p < hi; p++) MF(prefetch)(j, p, F, po, R);
    int64_t i = lo;
    if (N <= 3) {
        int64_t m0, m1;
        MF(others)(j, &m0, &m1);
        if (scatter) {
            for (; i < hi; i++) {
                MF(prefetch)(j, i + MF_AHEAD, F, po, R);
                MF(term)(j, i, m0, m1, F, o + ix[i * N + mode] * R, R);
            }
        } else {
            while (i < hi) {
                const int64_t orow = ix[i * N + mode];
                for (int64_t r = 0; r < R; r++) ra[r] = 0;
                for (; i < hi && ix[i * N + mode] == orow; i++) {
                    MF(prefetch)(j, i + MF_AHEAD, F, po, R);
                    MF(term)(j, i, m0, m1, F, ra, R);
                }
                T *op = o + orow * R;
                for (int64_t r = 0; r < R; r++) op[r] = ra[r];
            }
        }
        return;
    }
    if (scatter) {
        if (mode == leaf) { /* om: every mode but `mode` (K >= 3) */
            while (i < hi) {
                const int64_t *frow = ix + i * N;
                const T *f0 = F[om[0]] + frow[om[0]] * R;
                for (int64_t r = 0; r < R; r++) fa[r] = f0[r];
                for (int k = 1; k < K; k++) {
                    const T *f = F[om[k]] + frow[om[k]] * R;
#pragma omp simd
                    for (int64_t r = 0; r < R; r++) fa[r] *= f[r];
                }
                bool same = true;
                while (same) {
                    MF(prefetch)(j, i + MF_AHEAD, F, po, R);
                    const T x = v[i];
                    T *op = o + ix[i * N + mode] * R;
#pragma omp simd
                    for (int64_t r = 0; r < R; r++) op[r] += x * fa[r];
                    if (++i == hi) break;
                    const int64_t *row = ix + i * N;
                    for (int k = 0; k < K; k++) same &= row[om[k]] == frow[om[k]];
                }
            }
            return;
        }
        while (i < hi) {
            const int64_t orow = ix[i * N + mode];
            MF(fiber)(j, &i, hi, F, om, K, po, fa, R);
            T *op = o + orow * R;
#pragma omp simd
            for (int64_t r = 0; r < R; r++) op[r] += fa[r];
        }
        return;
    }
    while (i < hi) {
        const int64_t orow = ix[i * N + mode];
        for (int64_t r = 0; r < R; r++) ra[r] = 0;
        while (i < hi && ix[i * N + mode] == orow) {
            MF(fiber)(j, &i, hi, F, om, K, po, fa, R);
#pragma omp simd
            for (int64_t r = 0; r < R; r++) ra[r] += fa[r];
        }
        T *op = o + orow * R;
        for (int64_t r = 0; r < R; r++) op[r] = ra[r];
    }
}

/* out[x] += b[0][x] + ... in that order (b[k] = bufs + k * stride) for x in [lo, hi). */
static void MF(combine)(T *out, const T *bufs, int64_t nb, int64_t stride, int64_t lo, int64_t hi) {
    for (int64_t k = 0; k < nb; k++) {
        const T *b = bufs + k * stride;
#pragma omp simd
        for (int64_t x = lo; x < hi; x++) out[x] += b[x];
    }
}

/* The rank dispatch, compiled once per instruction set (template/mttkrp_fiber_ranks.c): small common
 * ranks get their own unrolled copy with the two accumulators on the stack. */
#define MF_SCATTER false
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
#undef MF_SCATTER
#define MF_SCATTER true
#define MF_TARGET
#define MF_NAME scat_scalar
#include "ops/products/template/mttkrp_fiber_ranks.c"
#if SPT__SIMD_X86
#define MF_TARGET SPT__TARGET_AVX2
#define MF_NAME scat_avx2
#include "ops/products/template/mttkrp_fiber_ranks.c"
#define MF_TARGET SPT__TARGET_AVX512
#define MF_NAME scat_avx512
#include "ops/products/template/mttkrp_fiber_ranks.c"
#endif
#undef MF_SCATTER

/* The grouped or the scatter form into the rows o, for the best instruction set. */
static void MF(run)(const spt__mttkrp_job *j, bool scatter, int64_t lo, int64_t hi, T *o, T *scr) {
#if SPT__SIMD_X86
    switch (spt__simd()) {
    case SPT__SIMD_AVX512: scatter ? MF(scat_avx512)(j, lo, hi, o, scr) : MF(run_avx512)(j, lo, hi, o, scr); return;
    case SPT__SIMD_AVX2: scatter ? MF(scat_avx2)(j, lo, hi, o, scr) : MF(run_avx2)(j, lo, hi, o, scr); return;
    }
#endif
    scatter ? MF(scat_scalar)(j, lo, hi, o, scr) : MF(run_scalar)(j, lo, hi, o, scr);
}

#undef MF_AHEAD
#undef MF
#undef MF_CAT
#undef MF_CAT_
