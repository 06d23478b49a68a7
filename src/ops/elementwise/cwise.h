/* SPDX-License-Identifier: Apache-2.0 */
/* cwise.h -- value loops of spt_sparse_dense_cwise_{mul,div,add} and spt_add_dense, instantiated once
 * per supported dtype.
 *
 * SPT__DEF_CWISE(NAME, T, OP) defines
 *   static int64_t NAME(const void *sv, const void *dv, const int64_t *ix, int64_t r, const int64_t *strides,
 *                       int64_t lo, int64_t hi, void *ov)
 * computing ov[i] = OP(T, sv[i], dv[sum_d ix[i,d] * strides[d]], bad) for i in [lo, hi); OP sets
 * `bad = true` for a value it cannot compute (integer division by zero). Returns the first such i, or
 * -1.
 * SPT__DEF_SCATTER_ADD(NAME, T, ADD) defines
 *   static void NAME(const void *vals, const uint64_t *offs, int64_t lo, int64_t hi, void *out)
 * with out[offs[i]] = ADD(T, out[offs[i]], vals[i]) for i in [lo, hi), in that order. */
#ifndef SPT_OPS_ELEMENTWISE_CWISE_H
#define SPT_OPS_ELEMENTWISE_CWISE_H

#include "ops/kernel.h"

#define SPT__DEF_CWISE(NAME, T, OP)                                                                                    \
    static int64_t NAME(const void *sv, const void *dv, const int64_t *ix, int64_t r, const int64_t *strides,          \
                        int64_t lo, int64_t hi, void *ov) {                                                            \
        const T *s_ = sv, *d_ = dv;                                                                                    \
        T *o_ = ov;                                                                                                    \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                                         \
            const int64_t *row_ = ix + i_ * r;                                                                         \
            int64_t off_ = 0;                                                                                          \
            for (int64_t k_ = 0; k_ < r; k_++) off_ += row_[k_] * strides[k_];                                         \
            bool bad_ = false;                                                                                         \
            o_[i_] = OP(T, s_[i_], d_[off_], bad_);                                                                    \
            if (bad_) return i_;                                                                                       \
        }                                                                                                              \
        return -1;                                                                                                     \
    }

#define SPT__DEF_SCATTER_ADD(NAME, T, ADD)                                                                             \
    static void NAME(const void *vals, const uint64_t *offs, int64_t lo, int64_t hi, void *out) {                      \
        const T *v_ = vals;                                                                                            \
        T *o_ = out;                                                                                                   \
        for (int64_t i_ = lo; i_ < hi; i_++) o_[offs[i_]] = ADD(T, o_[offs[i_]], v_[i_]);                              \
    }

#endif /* SPT_OPS_ELEMENTWISE_CWISE_H */
