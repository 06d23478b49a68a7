/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_max.c -- tf.sparse.reduce_max (dense output) and tf.sparse.reduce_max_sparse (SparseReduceMax,
 * SparseReduceMaxSparse): implicit zeros never take part; empty dense cells stay 0. The engine is
 * spt__reduce (reduce.c); the per-dtype value loops and their table come from reduce_op.h. */

/* Max: real number types; a NaN anywhere in the cell gives NaN, whatever the entry order (TF's
 * SparseReduceMax depends on the order there; tf.math.reduce_max and numpy propagate NaN). */
#define MAXOP(T, a, b) SPT__MAXV_NAN(a, b)
#define OK(KIND) SPT__KINDS_REAL(KIND)
#define REDUCE_LANES 0
#define REDUCE_OP(KIND) MAXOP
#include "ops/reduce/reduce_op.h"

spt_status spt_reduce_max(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims, spt_dense **out) {
    return spt__reduce("spt_reduce_max", t, axes, naxes, keep_dims, kernel(t), out, NULL);
}

spt_status spt_reduce_max_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                                 spt_tensor **out) {
    return spt__reduce("spt_reduce_max_sparse", t, axes, naxes, keep_dims, kernel(t), NULL, out);
}
