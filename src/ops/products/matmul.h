/* SPDX-License-Identifier: Apache-2.0 */
/* matmul.h -- value loops of spt_sparse_dense_matmul, instantiated once per supported dtype.
 *
 * SPT__DEF_MATMUL(P, T, KIND) defines
 *   static void P_rows(const void *vals, const int64_t *ix, const int64_t *perm, int64_t lo, int64_t hi,
 *                      int mcol, bool conj_a, const void *b, int64_t n, void *out)
 *     for i in [lo, hi), e = perm ? perm[i] : i, m = ix[2e + mcol], k = ix[2e + 1 - mcol]:
 *     out[m, :] += a'_e * b[k, :] (a' = conj(a) if conj_a), n columns, in that order;
 *   static void P_adjb(const void *b, int64_t rows, int64_t cols, void *bt)
 *     bt (cols x rows) = conj(b)^T. */
#ifndef SPT_OPS_PRODUCTS_MATMUL_H
#define SPT_OPS_PRODUCTS_MATMUL_H

#include "ops/kernel.h"

#define SPT__DEF_MATMUL(P, T, KIND)                                                                     \
    static void P##_rows(const void *vals, const int64_t *ix, const int64_t *perm, int64_t lo, int64_t hi, \
                         int mcol, bool conj_a, const void *b, int64_t n, void *out) {                \
        const T *v_ = vals, *b_ = b;                                                                   \
        T *o_ = out;                                                                                   \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                         \
            int64_t e_ = perm ? perm[i_] : i_;                                                         \
            if (i_ + 8 < hi) { /* B rows are random accesses: fetch ahead */                           \
                int64_t f_ = perm ? perm[i_ + 8] : i_ + 8;                                             \
                __builtin_prefetch(b_ + ix[2 * f_ + 1 - mcol] * n);                                    \
            }                                                                                          \
            int64_t m_ = ix[2 * e_ + mcol], k_ = ix[2 * e_ + 1 - mcol];                                \
            T a_ = conj_a ? SPT__CONJ_##KIND(T, v_[e_]) : v_[e_];                                      \
            T *orow_ = o_ + m_ * n;                                                                    \
            const T *brow_ = b_ + k_ * n;                                                              \
            _Pragma("omp simd") for (int64_t j_ = 0; j_ < n; j_++)                                     \
                orow_[j_] = SPT__ADD_##KIND(T, orow_[j_], SPT__MUL_##KIND(T, a_, brow_[j_]));          \
        }                                                                                              \
    }                                                                                                  \
    static void P##_adjb(const void *b, int64_t rows, int64_t cols, void *bt) {                        \
        const T *b_ = b;                                                                               \
        T *t_ = bt;                                                                                    \
        for (int64_t i_ = 0; i_ < rows; i_++)                                                          \
            for (int64_t j_ = 0; j_ < cols; j_++) t_[j_ * rows + i_] = SPT__CONJ_##KIND(T, b_[i_ * cols + j_]); \
    }

#endif /* SPT_OPS_PRODUCTS_MATMUL_H */
