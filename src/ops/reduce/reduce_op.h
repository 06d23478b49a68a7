/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_op.h -- the shared body of reduce_sum.c and reduce_max.c (one op each). Before including it,
 * an op file defines OK(KIND) (its set of dtype kinds, ops/kernel.h), REDUCE_NAME (sum, max: names the
 * kernels), REDUCE_LANES (1 when the reduction over every axis may use several partial results) and
 * REDUCE_OP(KIND), the binary reduction OP(T, acc, x) for that kind. It instantiates the
 * value loops of ops/reduce/reduce.h for every supported dtype of include/spt_dtypes.def and the lookup
 * kernel(t) (NULL = an unsupported dtype, SPT_EDTYPE in spt__reduce) the public functions pass on. */
#ifndef SPT_OPS_REDUCE_OP_H
#define SPT_OPS_REDUCE_OP_H

#include "ops/elementwise/simd.h"
#include "ops/reduce/reduce.h"

/* 1 for the float kind (float, double: their sum's lanes are vectors), SPT__KIND expanded first. */
#define SPT__REDUCE_IS_FLOAT(KIND) SPT__KINDS_FLOAT(KIND)
/* X(0) ... X(7) and X(0) ... X(15): the lanes' named vectors. */
#define SPT__REDUCE_REP8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define SPT__REDUCE_REP16(X) SPT__REDUCE_REP8(X) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

/* REDUCE_OP of the instantiation's kind (SPT__KIND expanded before it is pasted). */
#define REDUCE_OP_(KIND) REDUCE_OP(KIND)
#define SPT__TEMPLATE "ops/reduce/template/reduce_kernel.c"
#include "ops/each_dtype.h"

static const spt__reduce_kernel *const table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = &reduce_kernel_##E, )
#include "spt_dtypes.def"
#undef X
};

static const spt__reduce_kernel *kernel(const spt_tensor *t) {
    return t && (unsigned)spt_tensor_dtype(t) < SPT_NUM_DTYPES ? table[spt_tensor_dtype(t)] : NULL;
}

#endif /* SPT_OPS_REDUCE_OP_H */
