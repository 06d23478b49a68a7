/* reduce_sum.c -- tf.sparse.reduce_sum (dense output) and tf.sparse.reduce_sum_sparse (SparseReduceSum,
 * SparseReduceSumSparse). The engine is spt__reduce (reduce.c); this file holds the per-dtype value loops. */
#include "kernels/reduce.h"

/* Sum: every number type (integers wrap), complex included; not bool or string. */
#define OK_BOOL 0
#define OK_INT 1
#define OK_UINT 1
#define OK_FLOAT 1
#define OK_COMPLEX 1
#define OK_STRING 0

#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, SPT__DEF_REDUCE(sum, E, T, SPT__ADD_##KIND))
#include "spt_dtypes.def"
#undef X

static const spt__reduce_kernel *const table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, [E] = &sum_kernel_##E, )
#include "spt_dtypes.def"
#undef X
};

static const spt__reduce_kernel *kernel(const spt_tensor *t) {
    return t && (unsigned)spt_tensor_dtype(t) < SPT_NUM_DTYPES ? table[spt_tensor_dtype(t)] : NULL;
}

spt_status spt_reduce_sum(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims, spt_dense **out) {
    return spt__reduce("spt_reduce_sum", t, axes, naxes, keep_dims, kernel(t), out, NULL);
}

spt_status spt_reduce_sum_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                                 spt_tensor **out) {
    return spt__reduce("spt_reduce_sum_sparse", t, axes, naxes, keep_dims, kernel(t), NULL, out);
}
