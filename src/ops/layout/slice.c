/* SPDX-License-Identifier: Apache-2.0 */
/* slice.c -- SparseSlice / SparseTensor::Slice: the entries inside [start, start+size), shifted by -start,
 * in input order; the output dims are clipped to the input as TF does, without overflow. */
#include "ops/layout/layout_internal.h"

spt_status spt_slice(const spt_tensor *t, const int64_t *start, const int64_t *size, spt_tensor **out) {
    static const char fn[] = "spt_slice";
    spt_status st = SPT_OK;
    int64_t *keep = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    if (r > 0 && (!start || !size)) return spt__err(SPT_EINVAL, "%s: start or size is NULL", fn);
    int64_t shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) {
        const int64_t dim = t->shape[d];
        if (start[d] < 0)
            return spt__err(SPT_EINVAL, "%s: start[%lld] = %lld must be non-negative", fn, (long long)d,
                            (long long)start[d]);
        /* TF clips first: a negative size is refused only where it would be the output dim, i.e. when
         * start < dim - size; from dim - size on the slice is empty (computed without overflow) */
        if (size[d] < 0) {
            if (start[d] < dim || (uint64_t)(start[d] - dim) < (uint64_t)0 - (uint64_t)size[d])
                return spt__err(SPT_EINVAL, "%s: size[%lld] = %lld must be non-negative (start %lld, dim %lld)", fn,
                                (long long)d, (long long)size[d], (long long)start[d], (long long)dim);
            shape[d] = 0;
            continue;
        }
        /* TF: size if start < dim - size; else dim - start if start < dim; else 0 (no start+size) */
        shape[d] = start[d] < dim - size[d] ? size[d] : start[d] < dim ? dim - start[d] : 0;
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    keep = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!keep) return st;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = t->indices + i * r;
        bool in = true;
        for (int64_t d = 0; d < r && in; d++) in = row[d] >= start[d] && row[d] - start[d] < shape[d];
        if (in) keep[m++] = i;
    }
    SPT__CHECK(spt__layout_select(fn, t, shape, keep, m, r > 0 ? start : NULL, out));
    /* a filter with a constant shift keeps any order */
    for (int64_t d = 0; d < r; d++) (*out)->order[d] = t->order[d];
    (*out)->flags = SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE));
fail:
    spt__free(keep);
    return st;
}
