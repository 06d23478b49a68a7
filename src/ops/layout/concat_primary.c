/* SPDX-License-Identifier: Apache-2.0 */
/* concat_primary.c -- SparseTensor::Concat: along the primary dimension order[0], a copy
 * with offsets in O(M), no sort. */
#include "ops/layout/layout_internal.h"

spt_status spt_concat_primary(const spt_tensor *const *inputs, int64_t n, spt_tensor **out) {
    static const char fn[] = "spt_concat_primary";
    spt_status st;
    spt_tensor *t = NULL;
    SPT__TRY(spt__concat_args(fn, inputs, n, out));
    const spt_tensor *t0 = inputs[0];
    const int64_t r = t0->rank;
    if (r < 1) return spt__err(SPT_EINVAL, "%s: inputs must have rank >= 1, got rank 0", fn);
    const int64_t p = t0->order[0];
    bool same_order = true, sorted = true, unique = true;
    int64_t total = 0, dimp = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *x = inputs[i];
        if (x->dtype != t0->dtype)
            return spt__err(SPT_EDTYPE, "%s: input %lld has dtype %s, input 0 has %s", fn, (long long)i,
                            spt_dtype_name(x->dtype), spt_dtype_name(t0->dtype));
        if (x->rank != r)
            return spt__err(SPT_EINVAL, "%s: input %lld has rank %lld, input 0 has rank %lld", fn, (long long)i,
                            (long long)x->rank, (long long)r);
        if (x->order[0] < 0)
            return spt__err(SPT_EPRECONDITION, "%s: input %lld has no order (the primary dim is order[0])", fn,
                            (long long)i);
        if (x->order[0] != p)
            return spt__err(SPT_EINVAL, "%s: inputs 0 and %lld differ in the primary dim order[0] (%lld vs %lld)", fn,
                            (long long)i, (long long)p, (long long)x->order[0]);
        for (int64_t d = 0; d < r; d++) {
            if (x->order[d] != t0->order[d]) same_order = false;
            if (d != p && x->shape[d] != t0->shape[d])
                return spt__err(SPT_EINVAL, "%s: inputs 0 and %lld differ in dim %lld (%lld vs %lld)", fn, (long long)i,
                                (long long)d, (long long)t0->shape[d], (long long)x->shape[d]);
        }
        if (spt__add_i64(dimp, x->shape[p], &dimp))
            return spt__err(SPT_EOVERFLOW, "%s: the sum of dim %lld over the inputs overflows int64", fn, (long long)p);
        if (spt__add_i64(total, x->nnz, &total))
            return spt__err(SPT_EOVERFLOW, "%s: the total number of entries overflows int64", fn);
        SPT__TRY(spt__ensure_valid(fn, x));
        if (!(x->flags & SPT__F_SORTED)) sorted = false;
        if (!(x->flags & SPT__F_UNIQUE)) unique = false;
    }
    int64_t shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = t0->shape[d];
    shape[p] = dimp;
    SPT__TRY(spt__tensor_alloc_uninit(fn, t0->dtype, r, shape, total, same_order ? t0->order : NULL, &t));
    const size_t es = spt_dtype_size(t0->dtype);
    int64_t pos = 0, off = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *x = inputs[i];
        const int64_t m = x->nnz;
        if (m > 0) {
            int64_t *dst = t->indices + pos * r;
            memcpy(dst, x->indices, (size_t)m * (size_t)r * sizeof(int64_t));
            if (off)
                for (int64_t k = 0; k < m; k++) dst[k * r + p] += off;
            memcpy((char *)t->values + (size_t)pos * es, x->values, (size_t)m * es);
        }
        pos += m;
        off += x->shape[p];
    }
    SPT__CHECK(spt__layout_own_strings(t));
    t->flags = SPT__F_VALID;
    /* each input occupies its own range of the primary dim, so sorted inputs give a sorted output */
    if (same_order && sorted) t->flags |= SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u);
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}
