/* SPDX-License-Identifier: Apache-2.0 */
/* serialize_many_sparse.c -- tf.io.serialize_many_sparse: a string matrix [shape[0], 3], row i the
 * TensorProtos of the entries whose first coordinate is i, without it (TensorFlow's bytes). */
#include "ops/serial/serial_internal.h"

spt_status spt_serialize_many_sparse(const spt_tensor *t, spt_dense **out) {
    static const char fn[] = "spt_serialize_many_sparse";
    spt_status st = SPT_OK;
    int64_t *start = NULL, *keep = NULL;
    spt_dense *d = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (t->rank < 2)
        return spt__err(SPT_EINVAL, "%s: Rank of input SparseTensor should be > 1, but saw rank: %lld", fn,
                        (long long)t->rank);
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t rows = t->shape[0], oshape[2] = {rows, 3};
    SPT__TRY(spt__rows_of(fn, t, &start, &keep));
    SPT__CHECK(spt__tf_dense_out(fn, SPT_STRING, 2, oshape, &d));
    for (int64_t r = 0; r < rows; r++)
        SPT__CHECK(spt__tf_sparse_put(fn, t, keep + start[r], start[r + 1] - start[r], 1, d, 3 * r));
    *out = d;
    d = NULL;
fail:
    spt_dense_free(d);
    spt__free(start);
    spt__free(keep);
    return st;
}
