/* SPDX-License-Identifier: Apache-2.0 */
/* concat.c -- distributed tf.sparse.concat: every rank shifts its own entries of each input along the
 * axis by the preceding inputs' dims (replicated shapes, no communication), then one sample-sort
 * exchange restores row-major key ranges. */
#include "priv/mpi_priv.h"

spt_status spt_dtensor_concat(const spt_dtensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                              spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_concat";
    spt_status st = SPT_OK;
    spt_tensor *loc = NULL, *res = NULL;
    if (out) *out = NULL;
    /* without a first input there is no context to agree on: a local error */
    if (n < 1 || !inputs || !inputs[0])
        return spt__err(SPT_EINVAL, "%s: need at least one input (n = %lld%s)", fn, (long long)n,
                        n >= 1 && inputs ? ", input 0 is NULL" : "");
    spt_mpi_ctx *ctx = inputs[0]->ctx;
    /* the other argument errors are agreed (one rank returning early would leave the others waiting) */
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    for (int64_t i = 1; i < n && st == SPT_OK; i++)
        if (!inputs[i]) st = spt__err(SPT_EINVAL, "%s: input %lld is NULL", fn, (long long)i);
    const spt_tensor *t0 = inputs[0]->local;
    const int64_t R = t0->rank;
    int64_t shape[SPT_MAX_RANK], ax = axis < 0 ? axis + R : axis;
    /* the checks use replicated metadata only: every rank decides the same (agreed all the same) */
    for (int64_t i = 1; i < n && st == SPT_OK; i++)
        if (inputs[i]->ctx != ctx)
            st = spt__err(SPT_EINVAL, "%s: input %lld belongs to another context", fn, (long long)i);
    if (st == SPT_OK && (axis < -R || axis >= R))
        st = spt__err(SPT_ERANGE, "%s: Concat dimension must be in range [%lld, %lld), got %lld", fn, (long long)-R,
                      (long long)R, (long long)axis);
    for (int64_t i = 1; i < n && st == SPT_OK; i++) {
        const spt_tensor *ti = inputs[i]->local;
        if (ti->dtype != t0->dtype)
            st = spt__err(SPT_EDTYPE, "%s: input %lld has dtype %s, input 0 %s", fn, (long long)i,
                          spt_dtype_name(ti->dtype), spt_dtype_name(t0->dtype));
        else if (ti->rank != R)
            st = spt__err(SPT_EINVAL,
                          "%s: Ranks of all input tensors must match: expected %lld but got %lld at position %lld", fn,
                          (long long)R, (long long)ti->rank, (long long)i);
        else if (!expand_nonconcat_dim)
            for (int64_t d = 0; d < R && st == SPT_OK; d++)
                if (d != ax && ti->shape[d] != t0->shape[d])
                    st = spt__err(
                        SPT_EINVAL,
                        "%s: Input shapes must match: expected %lld for dimension %lld but got %lld at position %lld",
                        fn, (long long)t0->shape[d], (long long)d, (long long)ti->shape[d], (long long)i);
    }
    int64_t total = 0;
    if (st == SPT_OK) {
        for (int64_t d = 0; d < R; d++) shape[d] = d == ax ? 0 : t0->shape[d];
        for (int64_t i = 0; i < n && st == SPT_OK; i++) {
            const spt_tensor *ti = inputs[i]->local;
            for (int64_t d = 0; d < R; d++)
                if (d != ax && ti->shape[d] > shape[d]) shape[d] = ti->shape[d];
            if (spt__add_i64(shape[ax], ti->shape[ax], &shape[ax]) || spt__add_i64(total, ti->nnz, &total))
                st = spt__err(SPT_EOVERFLOW, "%s: the concat dim overflows int64 at input %lld", fn, (long long)i);
        }
    }
    /* the local union, shifted */
    if (st == SPT_OK) st = spt__tensor_alloc(fn, t0->dtype, R, shape, total, NULL, &loc);
    if (st == SPT_OK) {
        const size_t es = spt_dtype_size(t0->dtype);
        int64_t k = 0, shift = 0;
        for (int64_t i = 0; i < n; i++) {
            const spt_tensor *ti = inputs[i]->local;
            if (R) memcpy(loc->indices + k * R, ti->indices, (size_t)(ti->nnz * R) * 8);
            for (int64_t e = 0; e < ti->nnz; e++) loc->indices[(k + e) * R + ax] += shift;
            if (ti->nnz) memcpy((char *)loc->values + (size_t)k * es, ti->values, (size_t)ti->nnz * es);
            k += ti->nnz;
            shift += ti->shape[ax];
        }
        loc->flags |= SPT__F_VALID;
        /* string values still point into the inputs' arenas: only read during the exchange */
    }
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_sort(ctx, fn, loc, NULL, false, &res));
    spt__set_row_major(res, res->flags);
    st = spt__dtensor_make(ctx, fn, res, out);
fail:
    spt_tensor_free(loc);
    return st;
}
