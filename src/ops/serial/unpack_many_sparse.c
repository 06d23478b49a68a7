/* SPDX-License-Identifier: Apache-2.0 */
/* unpack_many_sparse.c -- n tensors in spt's own format stacked along a new first dim (spt_unpack_sparse
 * with the batch shape [n]). */
#include "ops/serial/serial_internal.h"

spt_status spt_unpack_many_sparse(const void *const *data, const size_t *lens, int64_t n, spt_dtype dtype,
                                  spt_tensor **out) {
    if (n < 0) {
        if (out) *out = NULL;
        return spt__err(SPT_EINVAL, "spt_unpack_many_sparse: n = %lld is negative", (long long)n);
    }
    return spt_unpack_sparse(data, lens, 1, &n, dtype, out);
}
