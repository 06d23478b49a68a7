/* SPDX-License-Identifier: Apache-2.0 */
/* unpack_sparse.c -- a batch of tensors in spt's own format (any batch shape) stacked into one tensor
 * whose leading dims are the batch's and whose other dims are the largest of the items'. */
#include "ops/serial/serial_internal.h"

typedef struct {
    const void *const *data;
    const size_t *lens;
    spt_dtype dtype;
} unpack_ctx;

static spt_status read_item(const char *fn, int64_t k, void *ctx, spt_tensor **out) {
    const unpack_ctx *c = ctx;
    SPT__TRY(spt__deserialize_one(fn, k, c->data[k], c->lens[k], out));
    if ((*out)->dtype != c->dtype) {
        spt_dtype got = (*out)->dtype;
        spt_tensor_free(*out);
        *out = NULL;
        return spt__err(SPT_EDTYPE, "%s: requested a SparseTensor of type %s but serialized[%lld] holds %s", fn,
                        spt_dtype_name(c->dtype), (long long)k, spt_dtype_name(got));
    }
    return SPT_OK;
}

spt_status spt_unpack_sparse(const void *const *data, const size_t *lens, int64_t batch_rank,
                             const int64_t *batch_shape, spt_dtype dtype, spt_tensor **out) {
    static const char fn[] = "spt_unpack_sparse";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (batch_rank < 0 || batch_rank > SPT_MAX_RANK || (batch_rank > 0 && !batch_shape))
        return spt__err(SPT_EINVAL, "%s: bad batch rank %lld", fn, (long long)batch_rank);
    int64_t count = 1;
    for (int64_t d = 0; d < batch_rank; d++) {
        if (batch_shape[d] < 0)
            return spt__err(SPT_EINVAL, "%s: batch_shape[%lld] = %lld is negative", fn, (long long)d,
                            (long long)batch_shape[d]);
        if (spt__mul_i64(count, batch_shape[d], &count))
            return spt__err(SPT_EOVERFLOW, "%s: the batch has more than 2^63-1 items", fn);
    }
    if (count == 0) return spt__err(SPT_EINVAL, "%s: an empty batch has no rank to deserialize", fn);
    if (!data || !lens) return spt__err(SPT_EINVAL, "%s: data or lens is NULL", fn);
    unpack_ctx c = {data, lens, dtype};
    return spt__deserialize_stack(fn, count, batch_rank, batch_shape, read_item, &c, out);
}
