/* SPDX-License-Identifier: Apache-2.0 */
/* minmax.c -- tf.sparse.maximum / tf.sparse.minimum (SparseSparseMaximum/Minimum): one union merge pass;
 * an index held by one side only meets an implicit zero. A NaN on either side gives NaN, as in TF. */
#include "ops/elementwise/merge.h"

/* Real number types only. */
#define OK(KIND) SPT__KINDS_REAL(KIND)

#define KEEP_ALL(T, s) 1
#define DEF(E, T, KIND)                                                                            \
    static inline T max2_##E(T a, T b) { return SPT__MAXV_NAN(a, b); }                             \
    static inline T min2_##E(T a, T b) { return SPT__MINV_NAN(a, b); }                             \
    static inline T max1a_##E(T a) { return max2_##E(a, (T)0); }                                   \
    static inline T max1b_##E(T b) { return max2_##E((T)0, b); }                                   \
    static inline T min1a_##E(T a) { return min2_##E(a, (T)0); }                                   \
    static inline T min1b_##E(T b) { return min2_##E((T)0, b); }                                   \
    SPT__DEF_MERGE(mmax_##E, T, max2_##E, max1a_##E, max1b_##E, KEEP_ALL)                                 \
    SPT__DEF_MERGE(mmin_##E, T, min2_##E, min1a_##E, min1b_##E, KEEP_ALL)
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

static const spt__merge_fn max_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mmax_##E, )
#include "spt_dtypes.def"
#undef X
};
static const spt__merge_fn min_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mmin_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_maximum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? max_table[a->dtype] : NULL;
    return spt__merge2("spt_maximum", a, b, 0.0, f, out);
}

spt_status spt_minimum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? min_table[a->dtype] : NULL;
    return spt__merge2("spt_minimum", a, b, 0.0, f, out);
}
