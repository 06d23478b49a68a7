/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_op.h -- the shared body of reduce_sum.c and reduce_max.c (one op each). Before including it,
 * an op file defines OK(KIND) (its set of dtype kinds, ops/kernel.h), REDUCE_NAME (sum, max: names the
 * kernels), REDUCE_LANES (1 when the reduction over every axis may use several partial results) and
 * REDUCE_OP(KIND), the binary reduction OP(T, acc, x) for that kind. It instantiates the
 * value loops of ops/reduce/reduce.h for every supported dtype of include/spt_dtypes.def and the lookup
 * kernel(t) (NULL = an unsupported dtype, SPT_EDTYPE in spt__reduce) the public functions pass on. */
#ifndef SPT_OPS_REDUCE_OP_H
#define SPT_OPS_REDUCE_OP_H

#include "ops/reduce/reduce.h"

/* Expand REDUCE_NAME before it is pasted into the kernel names. */
#define REDUCE_DEF_(P, E, T, OP) SPT__DEF_REDUCE(P, E, T, OP, REDUCE_LANES)
#define REDUCE_KERNEL_(P, E) &P##_kernel_##E
#define REDUCE_KERNEL(P, E) REDUCE_KERNEL_(P, E)

#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), REDUCE_DEF_(REDUCE_NAME, E, T, REDUCE_OP(KIND)))
#include "spt_dtypes.def"
#undef X

static const spt__reduce_kernel *const table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = REDUCE_KERNEL(REDUCE_NAME, E), )
#include "spt_dtypes.def"
#undef X
};

static const spt__reduce_kernel *kernel(const spt_tensor *t) {
    return t && (unsigned)spt_tensor_dtype(t) < SPT_NUM_DTYPES ? table[spt_tensor_dtype(t)] : NULL;
}

#endif /* SPT_OPS_REDUCE_OP_H */
