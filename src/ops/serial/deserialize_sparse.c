/* SPDX-License-Identifier: Apache-2.0 */
/* deserialize_sparse.c -- tf.io.deserialize_sparse: a batch of serialized tensors (any batch shape)
 * stacked into one tensor whose leading dims are the batch's and whose other dims are the largest of
 * the items'. */
#include "ops/layout/layout_internal.h"
#include "ops/serial/serial_internal.h"

spt_status spt_deserialize_sparse(const void *const *data, const size_t *lens, int64_t batch_rank,
                                  const int64_t *batch_shape, spt_dtype dtype, spt_tensor **out) {
    static const char fn[] = "spt_deserialize_sparse";
    spt_status st = SPT_OK;
    spt_tensor **items = NULL, *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (batch_rank < 0 || batch_rank > SPT_MAX_RANK || (batch_rank > 0 && !batch_shape))
        return spt__err(SPT_EINVAL, "%s: bad batch rank %lld", fn, (long long)batch_rank);
    int64_t count = 1;
    for (int64_t d = 0; d < batch_rank; d++) {
        if (batch_shape[d] < 0)
            return spt__err(SPT_EINVAL, "%s: batch_shape[%lld] = %lld is negative", fn, (long long)d, (long long)batch_shape[d]);
        if (spt__mul_i64(count, batch_shape[d], &count))
            return spt__err(SPT_EOVERFLOW, "%s: the batch has more than 2^63-1 items", fn);
    }
    if (count == 0) return spt__err(SPT_EINVAL, "%s: an empty batch has no rank to deserialize", fn);
    if (!data || !lens) return spt__err(SPT_EINVAL, "%s: data or lens is NULL", fn);
    items = spt__alloc_array(fn, count, 1, sizeof *items, true, &st);
    if (!items) return st;
    int64_t rank = 0, total = 0, shape[SPT_MAX_RANK * 2];
    for (int64_t k = 0; k < count; k++) {
        SPT__CHECK(spt__deserialize_one(fn, k, data[k], lens[k], &items[k]));
        const spt_tensor *it = items[k];
        if (it->dtype != dtype) {
            st = spt__err(SPT_EDTYPE, "%s: requested a SparseTensor of type %s but serialized[%lld] holds %s", fn,
                          spt_dtype_name(dtype), (long long)k, spt_dtype_name(it->dtype));
            goto fail;
        }
        if (k == 0) {
            rank = it->rank;
            if (batch_rank + rank > SPT_MAX_RANK) {
                st = spt__err(SPT_EINVAL, "%s: batch rank %lld + item rank %lld exceeds SPT_MAX_RANK", fn, (long long)batch_rank,
                              (long long)rank);
                goto fail;
            }
            for (int64_t d = 0; d < rank; d++) shape[batch_rank + d] = it->shape[d];
        } else if (it->rank != rank) {
            st = spt__err(SPT_EINVAL, "%s: inconsistent rank across SparseTensors: rank prior to serialized[%lld] was %lld but "
                          "its rank is %lld", fn, (long long)k, (long long)rank, (long long)it->rank);
            goto fail;
        }
        for (int64_t d = 0; d < rank; d++)
            if (it->shape[d] > shape[batch_rank + d]) shape[batch_rank + d] = it->shape[d];
        if (spt__add_i64(total, it->nnz, &total)) {
            st = spt__err(SPT_EOVERFLOW, "%s: the total entry count does not fit in int64", fn);
            goto fail;
        }
    }
    if (batch_rank == 0) {
        *out = items[0];
        items[0] = NULL;
        goto fail; /* frees the (empty) rest */
    }
    for (int64_t d = 0; d < batch_rank; d++) shape[d] = batch_shape[d];
    const int64_t orank = batch_rank + rank;
    SPT__CHECK(spt__tensor_alloc_uninit(fn, dtype, orank, shape, total, NULL, &o));
    const size_t es = spt_dtype_size(dtype);
    int64_t e = 0, bidx[SPT_MAX_RANK] = {0};
    for (int64_t k = 0; k < count; k++) {
        const spt_tensor *it = items[k];
        for (int64_t i = 0; i < it->nnz; i++, e++) {
            int64_t *row = o->indices + e * orank;
            for (int64_t d = 0; d < batch_rank; d++) row[d] = bidx[d];
            for (int64_t d = 0; d < rank; d++) row[batch_rank + d] = it->indices[i * rank + d];
        }
        if (it->nnz) memcpy((char *)o->values + (size_t)(e - it->nnz) * es, it->values, (size_t)it->nnz * es);
        for (int64_t d = batch_rank - 1; d >= 0; d--) { /* next batch multi-index, row-major */
            if (++bidx[d] < batch_shape[d]) break;
            bidx[d] = 0;
        }
    }
    SPT__CHECK(spt__layout_own_strings(o));
    spt__layout_mark_sorted(o);
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    if (items)
        for (int64_t k = 0; k < count; k++) spt_tensor_free(items[k]);
    spt__free(items);
    return st;
}
