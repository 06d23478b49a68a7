/* SPDX-License-Identifier: Apache-2.0 */
/* subtract.c -- spt_subtract: a - b of two sparse tensors with a sparse result (the union of their
 * entries), one merge pass over row-major keys through the union merge spt_add uses. */
#include "ops/elementwise/merge.h"

/* spt_add's dtypes: int8..int64, float32/64, complex64/128. */
#define OK(KIND) SPT__KINDS_SIGNED(KIND)

/* Integers wrap (computed in uint64_t); floats and complex follow IEEE. */
#define SUB_INT(T, x, y) ((T)((uint64_t)(x) - (uint64_t)(y)))
#define SUB_FLOAT(T, x, y) ((T)((x) - (y)))
#define SUB_COMPLEX SUB_FLOAT
#define KEEP_ALL(T, s) ((void)(s), true)
#define ID(x) (x)
#define DEF(E, T, KIND)                                                                            \
    static inline T sub2_##E(T x, T y) { return SUB_##KIND(T, x, y); }                             \
    static inline T neg_##E(T y) { return SUB_##KIND(T, 0, y); }                                   \
    SPT__DEF_MERGE(merge_##E, T, sub2_##E, ID, neg_##E, KEEP_ALL)
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

static const spt__merge_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = merge_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_subtract(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? table[a->dtype] : NULL;
    return spt__merge2("spt_subtract", a, b, 0.0, f, out);
}
