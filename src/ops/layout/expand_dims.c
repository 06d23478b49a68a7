/* SPDX-License-Identifier: Apache-2.0 */
/* expand_dims.c -- tf.sparse.expand_dims: a size-1 dim inserted at `axis`, every index gets a 0 there. */
#include "ops/layout/layout_internal.h"

spt_status spt_expand_dims(const spt_tensor *t, int64_t axis, spt_tensor **out) {
    static const char fn[] = "spt_expand_dims";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    if (axis < -r - 1 || axis > r)
        return spt__err(SPT_ERANGE, "%s: axis %lld is outside [-%lld, %lld] for a rank-%lld tensor", fn,
                        (long long)axis, (long long)(r + 1), (long long)r, (long long)r);
    if (r + 1 > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: rank %lld + 1 exceeds SPT_MAX_RANK (%d)", fn, (long long)r, SPT_MAX_RANK);
    const int64_t a = axis < 0 ? axis + r + 1 : axis;
    SPT__TRY(spt__ensure_valid(fn, t));
    int64_t shape[SPT_MAX_RANK + 1], order[SPT_MAX_RANK + 1];
    for (int64_t d = 0, k = 0; d <= r; d++) shape[d] = d == a ? 1 : t->shape[k++];
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, r + 1, shape, n, NULL, &o));
    for (int64_t i = 0; i < n; i++) {
        const int64_t *src = t->indices + i * r;
        int64_t *dst = o->indices + i * (r + 1);
        for (int64_t d = 0; d < a; d++) dst[d] = src[d];
        dst[a] = 0;
        for (int64_t d = a; d < r; d++) dst[d + 1] = src[d];
    }
    if (n > 0) memcpy(o->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    SPT__CHECK(spt__layout_own_strings(o));
    /* The new coordinate is constant, so the input's order (dims at or after `a` shifted by one) with `a`
     * inserted before the first later dim still describes the entries; row-major stays row-major. */
    unsigned flags = SPT__F_VALID;
    if (spt__order_defined(r, t->order)) {
        int64_t k = 0;
        bool placed = false;
        for (int64_t j = 0; j < r; j++) {
            int64_t m = t->order[j] >= a ? t->order[j] + 1 : t->order[j];
            if (!placed && m > a) {
                order[k++] = a;
                placed = true;
            }
            order[k++] = m;
        }
        if (!placed) order[k++] = a;
        for (int64_t d = 0; d <= r; d++) o->order[d] = order[d];
        flags |= t->flags & (SPT__F_SORTED | SPT__F_UNIQUE);
    }
    o->flags = flags;
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
