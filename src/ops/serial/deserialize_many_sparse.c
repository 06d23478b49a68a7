/* SPDX-License-Identifier: Apache-2.0 */
/* deserialize_many_sparse.c -- tf.io.deserialize_many_sparse: a string matrix [N, 3] of TensorFlow's
 * serialized SparseTensors stacked along a new first dim of size N. */
#include "ops/serial/serial_internal.h"

spt_status spt_deserialize_many_sparse(const spt_dense *serialized, spt_dtype dtype, spt_tensor **out) {
    static const char fn[] = "spt_deserialize_many_sparse";
    if (out) *out = NULL;
    if (serialized && (serialized->rank != 2 || serialized->shape[1] != 3)) {
        char sb[SPT__IDXBUF];
        spt__fmt_index(sb, sizeof sb, serialized->shape, serialized->rank);
        return spt__err(SPT_EINVAL, "%s: Serialized sparse should be a matrix with 3 columns, got shape %s", fn, sb);
    }
    return spt__deserialize_tf(fn, serialized, dtype, out);
}
