/* SPDX-License-Identifier: Apache-2.0 */
/* tensordot.c -- spt_tensordot: numpy.tensordot of a sparse tensor and a dense array over any paired
 * modes. The dense operand is rearranged (only when needed) into a matrix whose rows are its contracted
 * modes in the pairing's order and whose columns are its free modes; each sparse entry then names one
 * output row (its free modes, row-major) and one matrix row (its contracted modes), and the shared row
 * kernel (contract_common.c) sums the products, threaded by output rows. */
#include "ops/products/contract_internal.h"

/* Normalise and check one operand's axes: each in [-rank, rank) (negative counts from the end, as
 * numpy), none repeated. used[d] marks the contracted modes. */
static spt_status norm_axes(const char *fn, const char *name, const char *what, const int64_t *axes, int64_t naxes,
                            int64_t rank, int64_t *out, bool *used) {
    for (int64_t d = 0; d < rank; d++) used[d] = false;
    for (int64_t k = 0; k < naxes; k++) {
        int64_t x = axes[k];
        if (x < -rank || x >= rank)
            return spt__err(SPT_ERANGE, "%s: %s[%lld] = %lld is out of range for %s of rank %lld (valid: [%lld, %lld))",
                            fn, name, (long long)k, (long long)x, what, (long long)rank, (long long)-rank,
                            (long long)rank);
        if (x < 0) x += rank;
        if (used[x])
            return spt__err(SPT_EINVAL, "%s: %s repeats mode %lld (%s[%lld] = %lld)", fn, name, (long long)x, name,
                            (long long)k, (long long)axes[k]);
        used[x] = true;
        out[k] = x;
    }
    return SPT_OK;
}

spt_status spt_tensordot(const spt_tensor *a, const spt_dense *b, const int64_t *axes_a, const int64_t *axes_b,
                         int64_t naxes, spt_dense **out) {
    static const char fn[] = "spt_tensordot";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: b's dtype %s differs from a's %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    if (!spt__contract_supported(a->dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t N = a->rank, M = b->rank;
    if (naxes < 0 || naxes > N || naxes > M)
        return spt__err(SPT_EINVAL, "%s: naxes = %lld, but a has rank %lld and b rank %lld (0 <= naxes <= both)", fn,
                        (long long)naxes, (long long)N, (long long)M);
    if (naxes > 0 && (!axes_a || !axes_b)) return spt__err(SPT_EINVAL, "%s: axes_a or axes_b is NULL", fn);
    int64_t xa[SPT_MAX_RANK], xb[SPT_MAX_RANK];
    bool ua[SPT_MAX_RANK], ub[SPT_MAX_RANK];
    SPT__TRY(norm_axes(fn, "axes_a", "a", axes_a, naxes, N, xa, ua));
    SPT__TRY(norm_axes(fn, "axes_b", "b", axes_b, naxes, M, xb, ub));
    for (int64_t k = 0; k < naxes; k++)
        if (a->shape[xa[k]] != b->shape[xb[k]])
            return spt__err(SPT_EINVAL,
                            "%s: shape mismatch for the sum: a's mode %lld has size %lld, b's mode %lld has size %lld "
                            "(pair %lld)",
                            fn, (long long)xa[k], (long long)a->shape[xa[k]], (long long)xb[k],
                            (long long)b->shape[xb[k]], (long long)k);
    const int64_t orank = N + M - 2 * naxes;
    if (orank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: the result would have rank %lld, above SPT_MAX_RANK (%d)", fn,
                        (long long)orank, SPT_MAX_RANK);
    /* result shape: a's free modes, then b's; the rearranged b: contracted modes (pair order), free modes */
    int64_t oshape[SPT_MAX_RANK], rdims[SPT_MAX_RANK], to[SPT_MAX_RANK], bshape[SPT_MAX_RANK], nr = 0, F = 1;
    for (int64_t d = 0; d < N; d++)
        if (!ua[d]) {
            rdims[nr] = d;
            oshape[nr++] = a->shape[d];
        }
    bool moved = false;
    for (int64_t k = 0; k < naxes; k++) {
        to[xb[k]] = k;
        bshape[k] = b->shape[xb[k]];
    }
    for (int64_t d = 0, j = naxes, o = nr; d < M; d++)
        if (!ub[d]) {
            to[d] = j;
            bshape[j++] = b->shape[d];
            oshape[o++] = b->shape[d];
        }
    for (int64_t d = 0; d < M; d++) moved |= to[d] != d;
    spt_dense *o = NULL;
    void *bt = NULL;
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__contract_result(fn, a->dtype, orank, oshape, &o));
    if (o->size == 0 || a->nnz == 0) goto done;
    for (int64_t d = nr; d < orank; d++) F *= oshape[d]; /* <= the result's volume */
    const void *bm = b->data;
    if (moved) {
        bt = spt__alloc_array(fn, b->size, 1, spt_dtype_size(b->dtype), true, &st);
        if (!bt) goto fail;
        spt__dense_rearrange(b->dtype, b->data, M, b->shape, to, bt, M, bshape);
        bm = bt;
    }
    SPT__CHECK(spt__contract_rows(fn, a, rdims, nr, xa, naxes, bm, F, o->data));
done:
    spt__free(bt);
    *out = o;
    return SPT_OK;
fail:
    spt__free(bt);
    spt_dense_free(o);
    return st;
}
