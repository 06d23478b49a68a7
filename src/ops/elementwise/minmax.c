/* SPDX-License-Identifier: Apache-2.0 */
/* minmax.c -- tf.sparse.maximum / tf.sparse.minimum (SparseSparseMaximum/Minimum): one union merge pass
 * (the blocked engine of merge_blocks.h when both operands are canonical); an index held by one side only
 * meets an implicit zero. A NaN on either side gives NaN, as in TF. */
#include "ops/elementwise/merge.h"
#include "ops/elementwise/merge_blocks.h"

/* Real number types only. */
#define OK(KIND) SPT__KINDS_REAL(KIND)

#define SPT__TEMPLATE "ops/elementwise/template/minmax.c"
#include "ops/each_dtype.h"

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

static const spt__mb_fn bmax_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = bmax_##E, )
#include "spt_dtypes.def"
#undef X
};
static const spt__mb_fn bmin_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = bmin_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_maximum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? max_table[a->dtype] : NULL;
    if (out && f && spt__mb_eligible(a, b)) return spt__mb_union("spt_maximum", a, b, 0.0, bmax_table[a->dtype], out);
    return spt__merge2("spt_maximum", a, b, 0.0, f, out);
}

spt_status spt_minimum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? min_table[a->dtype] : NULL;
    if (out && f && spt__mb_eligible(a, b)) return spt__mb_union("spt_minimum", a, b, 0.0, bmin_table[a->dtype], out);
    return spt__merge2("spt_minimum", a, b, 0.0, f, out);
}
