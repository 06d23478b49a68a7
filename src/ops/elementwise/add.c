/* SPDX-License-Identifier: Apache-2.0 */
/* add.c -- tf.sparse.add of two sparse tensors (SparseAdd): one merge pass over row-major keys. */
#include "ops/elementwise/merge.h"
#include "ops/elementwise/merge_blocks.h"

#include <complex.h>

/* Magnitude compared with the threshold, in the value's real type (|.| = modulus for complex). */
#define MAG_FLOAT(T, s) ((T)fabs((double)(s)))
#define MAG_COMPLEX(T, s)                                                                                              \
    (sizeof(T) == sizeof(float _Complex) ? (double)cabsf((float _Complex)(s)) : cabs((double _Complex)(s)))
/* integers: thresh (a double, integral, checked by spt_add) <= |s| decided exactly, |s| never rounded */
static inline bool keep_int(double thresh, uint64_t mag) {
    if (!(thresh > 0)) return true;
    if (thresh >= 18446744073709551616.0) return false;
    return (uint64_t)thresh <= mag;
}
#define THR_FLOAT(T) ((T)m->thresh)
#define THR_COMPLEX(T) (sizeof(T) == sizeof(float _Complex) ? (double)(float)m->thresh : m->thresh)
/* A sum of two coinciding entries is kept iff thresh <= |sum|. */
#define KEEP_INT(T, s) keep_int(m->thresh, (s) < 0 ? 0 - (uint64_t)(s) : (uint64_t)(s))
#define KEEP_FLOAT(T, s) (THR_FLOAT(T) <= MAG_FLOAT(T, s))
#define KEEP_COMPLEX(T, s) (THR_COMPLEX(T) <= MAG_COMPLEX(T, s))

/* SparseAdd's dtypes: float, double, int8..int64, complex64, complex128 (no unsigned, no bool). */
#define OK(KIND) SPT__KINDS_SIGNED(KIND)

#define KEEP_(K) KEEP__(K)
#define KEEP__(K) KEEP_##K
#define MERGE_FN SPT__NAME(merge)
#define MERGE_BOTH(x, y) SPT__KOP(ADD)(SPT__T, x, y)
#define MERGE_AONLY(x) (x)
#define MERGE_BONLY(y) (y)
#define MERGE_KEEP(s) KEEP_(SPT__KIND)(SPT__T, s)
#define SPT__TEMPLATE "ops/elementwise/template/merge.c"
#include "ops/each_dtype.h"
/* one-sided values are moved as they are: the vector lane takes every 8-byte dtype */
#define MERGE_BLOCK_FN block
#define MERGE_IDENTITY 1
#define MERGE_VOP (sizeof(SPT__T) == 8 ? SPT__MB_V_ID : SPT__MB_V_NONE)
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

spt_status spt_add(const spt_tensor *a, const spt_tensor *b, double thresh, spt_tensor **out) {
    static const char fn[] = "spt_add";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? table[a->dtype] : NULL;
    /* integer values take an integer threshold (TensorFlow converts it to the values' dtype and refuses
     * 0.5 or inf); NaN is refused for every dtype by spt__merge2 */
    if (f && spt_dtype_is_integer(a->dtype) && thresh == thresh && (isinf(thresh) || thresh != floor(thresh)))
        return spt__err(SPT_EINVAL, "%s: threshold %g is not an integer, as the %s values need", fn, thresh,
                        spt_dtype_name(a->dtype));
    /* both operands canonical (and every check of spt__merge2 passing): the one-pass row merge */
    if (f && thresh == thresh && spt__mb_eligible(a, b))
        return spt__mb_union(fn, a, b, thresh, block_table[a->dtype], out);
    return spt__merge2(fn, a, b, thresh, f, out);
}
