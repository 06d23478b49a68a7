/* SPDX-License-Identifier: Apache-2.0 */
/* template/minmax.c -- spt_maximum's and spt_minimum's merges for one dtype. Not compiled on its own:
 * minmax.c includes it through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it defines
 * mmax_<enum> and mmin_<enum>, two instantiations of template/merge.c, and bmax_<enum> and bmin_<enum>,
 * their blocked forms (template/merge_block.c). An index held by one side only
 * meets an implicit zero; a NaN on either side gives NaN. */

static inline SPT__T SPT__NAME(max2)(SPT__T a, SPT__T b) { return SPT__MAXV_NAN(a, b); }
static inline SPT__T SPT__NAME(min2)(SPT__T a, SPT__T b) { return SPT__MINV_NAN(a, b); }

#define MERGE_KEEP(s) 1
#define MERGE_IDENTITY 0
#define MERGE_FN SPT__NAME(mmax)
#define MERGE_BOTH(x, y) SPT__NAME(max2)(x, y)
#define MERGE_AONLY(x) SPT__NAME(max2)(x, (SPT__T)0)
#define MERGE_BONLY(y) SPT__NAME(max2)((SPT__T)0, y)
#include "ops/elementwise/template/merge.c"
#define MERGE_BLOCK_FN bmax
#define MERGE_VOP                                                                                                      \
    (SPT__E == SPT_FLOAT64  ? SPT__MB_V_MAX_F64                                                                        \
     : SPT__E == SPT_INT64  ? SPT__MB_V_MAX_I64                                                                        \
     : SPT__E == SPT_UINT64 ? SPT__MB_V_ID                                                                             \
                            : SPT__MB_V_NONE)
#include "ops/elementwise/template/merge_block.c"
#undef MERGE_BLOCK_FN
#undef MERGE_VOP
#undef MERGE_FN
#undef MERGE_BOTH
#undef MERGE_AONLY
#undef MERGE_BONLY
#define MERGE_FN SPT__NAME(mmin)
#define MERGE_BOTH(x, y) SPT__NAME(min2)(x, y)
#define MERGE_AONLY(x) SPT__NAME(min2)(x, (SPT__T)0)
#define MERGE_BONLY(y) SPT__NAME(min2)((SPT__T)0, y)
#include "ops/elementwise/template/merge.c"
#define MERGE_BLOCK_FN bmin
#define MERGE_VOP (SPT__E == SPT_FLOAT64 ? SPT__MB_V_MIN_F64 : SPT__E == SPT_INT64 ? SPT__MB_V_MIN_I64 : SPT__MB_V_NONE)
#include "ops/elementwise/template/merge_block.c"
#undef MERGE_BLOCK_FN
#undef MERGE_VOP
#undef MERGE_FN
#undef MERGE_BOTH
#undef MERGE_AONLY
#undef MERGE_BONLY
#undef MERGE_KEEP
#undef MERGE_IDENTITY
