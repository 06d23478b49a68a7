/* add.c -- tf.sparse.add of two sparse tensors (SparseAdd): one merge pass over row-major keys. */
#include "kernels/merge.h"

#include <complex.h>

/* Magnitude compared with the threshold, in the value's real type (|.| = modulus for complex). */
#define MAG_INT(T, s) ((s) < 0 ? (double)(0 - (uint64_t)(s)) : (double)(s))
#define MAG_FLOAT(T, s) ((T)fabs((double)(s)))
#define MAG_COMPLEX(T, s) (sizeof(T) == sizeof(float _Complex) ? (double)cabsf((float _Complex)(s)) : cabs((double _Complex)(s)))
#define THR_INT(T) (m->thresh)
#define THR_FLOAT(T) ((T)m->thresh)
#define THR_COMPLEX(T) (sizeof(T) == sizeof(float _Complex) ? (double)(float)m->thresh : m->thresh)
/* A sum of two coinciding entries is kept iff thresh <= |sum|. */
#define KEEP_INT(T, s) (THR_INT(T) <= MAG_INT(T, s))
#define KEEP_FLOAT(T, s) (THR_FLOAT(T) <= MAG_FLOAT(T, s))
#define KEEP_COMPLEX(T, s) (THR_COMPLEX(T) <= MAG_COMPLEX(T, s))

/* SparseAdd's dtypes: float, double, int8..int64, complex64, complex128 (no unsigned, no bool). */
#define OK_BOOL 0
#define OK_INT 1
#define OK_UINT 0
#define OK_FLOAT 1
#define OK_COMPLEX 1
#define OK_STRING 0

#define ID(x) (x)
#define DEF(E, T, KIND)                                                                            \
    static inline T add2_##E(T a, T b) { return SPT__ADD_##KIND(T, a, b); }                        \
    SPT__DEF_MERGE(merge_##E, T, add2_##E, ID, ID, KEEP_##KIND)
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

static const spt__merge_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, [E] = merge_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_add(const spt_tensor *a, const spt_tensor *b, double thresh, spt_tensor **out) {
    static const char fn[] = "spt_add";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (thresh != thresh) return spt__err(SPT_EINVAL, "%s: the magnitude threshold is NaN", fn);
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? table[a->dtype] : NULL;
    return spt__merge2(fn, a, b, thresh, f, out);
}
