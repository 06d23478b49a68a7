/* SPDX-License-Identifier: Apache-2.0 */
/* softmax.h -- value loop of spt_softmax, instantiated once per supported dtype.
 * SPT__DEF_SOFTMAX(NAME, T) defines
 *   static void NAME(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *ov)
 * ov[i] = exp(v_i - max) / sum_j exp(v_j - max) over the group i in [lo, hi), v_i = vals[perm ? perm[i] : i]
 * (computed in double, rounded to T). */
#ifndef SPT_OPS_REDUCE_SOFTMAX_H
#define SPT_OPS_REDUCE_SOFTMAX_H

#include "ops/kernel.h"

#define SPT__DEF_SOFTMAX(NAME, T)                                                                                      \
    static void NAME(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *ov) {                        \
        const T *v_ = vals;                                                                                            \
        T *o_ = ov;                                                                                                    \
        T mx_ = v_[perm ? perm[lo] : lo];                                                                              \
        for (int64_t i_ = lo + 1; i_ < hi; i_++) mx_ = SPT__MAXV(mx_, v_[perm ? perm[i_] : i_]);                       \
        double sum_ = 0;                                                                                               \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                                         \
            double e_ = exp((double)v_[perm ? perm[i_] : i_] - (double)mx_);                                           \
            o_[i_] = (T)e_;                                                                                            \
            sum_ += e_;                                                                                                \
        }                                                                                                              \
        for (int64_t i_ = lo; i_ < hi; i_++) o_[i_] = (T)(exp((double)v_[perm ? perm[i_] : i_] - (double)mx_) / sum_); \
    }

#endif /* SPT_OPS_REDUCE_SOFTMAX_H */
