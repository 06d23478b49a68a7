/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_sum.c -- tf.sparse.reduce_sum (dense output) and tf.sparse.reduce_sum_sparse (SparseReduceSum,
 * SparseReduceSumSparse). The engine is spt__reduce (reduce.c); the per-dtype value loops and their
 * table come from reduce_op.h. */

/* Sum: every number type (integers wrap), complex included; not bool or string. */
#define OK(KIND) SPT__KINDS_NUMERIC(KIND)
#define REDUCE_LANES 1
#define REDUCE_OP(KIND) SPT__ADD_##KIND
#include "ops/reduce/reduce_op.h"

spt_status spt_reduce_sum(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims, spt_dense **out) {
    return spt__reduce("spt_reduce_sum", t, axes, naxes, keep_dims, kernel(t), out, NULL);
}

spt_status spt_reduce_sum_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                                 spt_tensor **out) {
    return spt__reduce("spt_reduce_sum_sparse", t, axes, naxes, keep_dims, kernel(t), NULL, out);
}
