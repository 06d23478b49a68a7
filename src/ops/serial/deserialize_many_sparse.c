/* SPDX-License-Identifier: Apache-2.0 */
/* deserialize_many_sparse.c -- tf.io.deserialize_many_sparse: n serialized tensors stacked along a new
 * first dim (spt_deserialize_sparse with the batch shape [n]). */
#include "ops/serial/serial_internal.h"

spt_status spt_deserialize_many_sparse(const void *const *data, const size_t *lens, int64_t n, spt_dtype dtype,
                                       spt_tensor **out) {
    if (n < 0) {
        if (out) *out = NULL;
        return spt__err(SPT_EINVAL, "spt_deserialize_many_sparse: n = %lld is negative", (long long)n);
    }
    return spt_deserialize_sparse(data, lens, 1, &n, dtype, out);
}
