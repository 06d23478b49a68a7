/* SPDX-License-Identifier: Apache-2.0 */
/* serial_stack.c -- what the serialization ops of both forms share: the split of a tensor's entries by
 * their row of dim 0 (serialize_many_sparse, pack_many_sparse), and the stacking of a batch of items read
 * one by one into one tensor whose leading dims are the batch's and whose other dims are the largest of
 * the items' (TensorFlow's rule; deserialize_sparse, unpack_sparse). */
#include "ops/layout/layout_internal.h"
#include "ops/serial/serial_internal.h"

spt_status spt__deserialize_stack(const char *fn, int64_t count, int64_t batch_rank, const int64_t *batch_shape,
                                  spt__item_reader read, void *ctx, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor **items = NULL, *o = NULL;
    *out = NULL;
    if (count == 0) return spt__err(SPT_EINVAL, "%s: an empty batch has no rank to deserialize", fn);
    items = spt__alloc_array(fn, count, 1, sizeof *items, true, &st);
    if (!items) return st;
    int64_t rank = 0, total = 0, shape[SPT_MAX_RANK * 2];
    for (int64_t k = 0; k < count; k++) {
        SPT__CHECK(read(fn, k, ctx, &items[k]));
        const spt_tensor *it = items[k];
        if (k == 0) {
            rank = it->rank;
            if (batch_rank + rank > SPT_MAX_RANK) {
                st = spt__err(SPT_EINVAL, "%s: batch rank %lld + item rank %lld exceeds SPT_MAX_RANK", fn,
                              (long long)batch_rank, (long long)rank);
                goto fail;
            }
            for (int64_t d = 0; d < rank; d++) shape[batch_rank + d] = it->shape[d];
        } else if (it->rank != rank) {
            st = spt__err(SPT_EINVAL,
                          "%s: Inconsistent shape across SparseTensors: rank prior to SparseTensor[%lld] was: %lld "
                          "but rank of SparseTensor[%lld] is: %lld",
                          fn, (long long)k, (long long)rank, (long long)k, (long long)it->rank);
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
    const spt_dtype dtype = items[0]->dtype;
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

spt_status spt__rows_of(const char *fn, const spt_tensor *t, int64_t **start_out, int64_t **keep_out) {
    spt_status st = SPT_OK;
    *start_out = *keep_out = NULL;
    const int64_t rows = t->shape[0], m = t->nnz;
    if (rows == INT64_MAX) return spt__err(SPT_EOVERFLOW, "%s: %lld rows cannot be counted", fn, (long long)rows);
    int64_t *start = spt__alloc_array(fn, rows + 1, 1, sizeof(int64_t), true, &st);
    int64_t *keep = start ? spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st) : NULL;
    if (!keep) {
        spt__free(start);
        return st;
    }
    /* a stable counting sort of the entries by their row */
    for (int64_t i = 0; i < m; i++) start[t->indices[i * t->rank]]++;
    start[rows] = spt__scan_exclusive(start, rows);
    for (int64_t i = 0; i < m; i++) keep[start[t->indices[i * t->rank]]++] = i;
    for (int64_t r = rows; r > 0; r--) start[r] = start[r - 1];
    start[0] = 0;
    *start_out = start;
    *keep_out = keep;
    return SPT_OK;
}
