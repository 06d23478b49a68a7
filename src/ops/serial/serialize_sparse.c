/* SPDX-License-Identifier: Apache-2.0 */
/* serialize_sparse.c -- tf.io.serialize_sparse: a string vector [3] of the TensorProtos of indices,
 * values and dense_shape, the bytes TensorFlow writes (serial_tf.c). */
#include "ops/serial/serial_internal.h"

spt_status spt_serialize_sparse(const spt_tensor *t, spt_dense **out) {
    static const char fn[] = "spt_serialize_sparse";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t three = 3;
    spt_dense *d = NULL;
    SPT__TRY(spt_dense_new(SPT_STRING, 1, &three, &d));
    spt_status st = spt__tf_sparse_put(fn, t, NULL, t->nnz, 0, d, 0);
    if (st != SPT_OK) {
        spt_dense_free(d);
        return st;
    }
    *out = d;
    return SPT_OK;
}
