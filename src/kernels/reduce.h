/* reduce.h -- the value loops of the reductions (spt_reduce_sum / spt_reduce_max and their sparse
 * forms), instantiated once per supported dtype.
 *
 * SPT__DEF_REDUCE(P, E, T, OP) defines P_seg_E, P_combine_E, P_scatter_E (see spt__reduce_kernel in
 * kernels/math.h) where OP(T, acc, x) is the binary reduction (wrapping add, std::max, ...). Values are
 * visited in storage order (through a stable permutation), so a group's result does not depend on the
 * thread count. */
#ifndef SPT_KERNELS_REDUCE_H
#define SPT_KERNELS_REDUCE_H

#include "kernels/math.h"

#define SPT__DEF_REDUCE(P, E, T, OP)                                                                    \
    static void P##_seg_##E(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *acc) {  \
        const T *v_ = vals;                                                                           \
        T a_;                                                                                         \
        if (perm) {                                                                                   \
            a_ = v_[perm[lo]];                                                                        \
            for (int64_t i_ = lo + 1; i_ < hi; i_++) a_ = OP(T, a_, v_[perm[i_]]);                     \
        } else {                                                                                      \
            a_ = v_[lo];                                                                              \
            for (int64_t i_ = lo + 1; i_ < hi; i_++) a_ = OP(T, a_, v_[i_]);                           \
        }                                                                                             \
        *(T *)acc = a_;                                                                               \
    }                                                                                                 \
    static void P##_combine_##E(void *acc, const void *x) { *(T *)acc = OP(T, *(T *)acc, *(const T *)x); } \
    static void P##_scatter_##E(const void *vals, const uint64_t *keys, int64_t lo, int64_t hi, void *out, \
                                unsigned char *seen) {                                                \
        const T *v_ = vals;                                                                           \
        T *o_ = out;                                                                                  \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                        \
            uint64_t k_ = keys[i_];                                                                   \
            if (seen[k_]) o_[k_] = OP(T, o_[k_], v_[i_]);                                             \
            else {                                                                                    \
                o_[k_] = v_[i_];                                                                      \
                seen[k_] = 1;                                                                         \
            }                                                                                         \
        }                                                                                             \
    }                                                                                                 \
    static const spt__reduce_kernel P##_kernel_##E = {P##_seg_##E, P##_combine_##E, P##_scatter_##E};

#endif /* SPT_KERNELS_REDUCE_H */
