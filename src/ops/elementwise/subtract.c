/* SPDX-License-Identifier: Apache-2.0 */
/* subtract.c -- spt_subtract: a - b of two sparse tensors with a sparse result (the union of their
 * entries), one merge pass over row-major keys through the union merge spt_add uses (the blocked engine of
 * merge_blocks.h when both operands are canonical). */
#include "ops/elementwise/merge.h"
#include "ops/elementwise/merge_blocks.h"

/* spt_add's dtypes: int8..int64, float32/64, complex64/128. */
#define OK(KIND) SPT__KINDS_SIGNED(KIND)

/* Integers wrap (computed in uint64_t); floats and complex follow IEEE. */
#define SUB_INT(T, x, y) ((T)((uint64_t)(x) - (uint64_t)(y)))
#define SUB_FLOAT(T, x, y) ((T)((x) - (y)))
#define SUB_COMPLEX SUB_FLOAT
#define SUB_(K) SUB__(K)
#define SUB__(K) SUB_##K
#define MERGE_FN SPT__NAME(merge)
#define MERGE_BOTH(x, y) SUB_(SPT__KIND)(SPT__T, x, y)
#define MERGE_AONLY(x) (x)
#define MERGE_BONLY(y) SUB_(SPT__KIND)(SPT__T, 0, y)
#define MERGE_KEEP(s) ((void)(s), true)
#define SPT__TEMPLATE "ops/elementwise/template/merge.c"
#include "ops/each_dtype.h"
/* b's entries alone are negated (0 - y): in the vector lane for the 8-byte dtypes */
#define MERGE_BLOCK_FN block
#define MERGE_IDENTITY 0
#define MERGE_VOP                                                                                                      \
    (SPT__E == SPT_FLOAT64     ? SPT__MB_V_NEGB_F64                                                                    \
     : SPT__E == SPT_INT64     ? SPT__MB_V_NEGB_I64                                                                    \
     : SPT__E == SPT_COMPLEX64 ? SPT__MB_V_NEGB_C64                                                                    \
                               : SPT__MB_V_NONE)
#define SPT__TEMPLATE "ops/elementwise/template/merge_block.c"
#include "ops/each_dtype.h"

static const spt__merge_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = merge_##E, )
#include "spt_dtypes.def"
#undef X
};

static const spt__mb_fn block_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = block_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_subtract(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? table[a->dtype] : NULL;
    if (out && f && spt__mb_eligible(a, b)) return spt__mb_union("spt_subtract", a, b, 0.0, block_table[a->dtype], out);
    return spt__merge2("spt_subtract", a, b, 0.0, f, out);
}
