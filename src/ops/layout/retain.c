/* SPDX-License-Identifier: Apache-2.0 */
/* retain.c -- tf.sparse.retain: the entries whose mask is true, in input order, shape unchanged. */
#include "ops/layout/layout_internal.h"

spt_status spt_retain(const spt_tensor *t, const bool *to_retain, int64_t mask_len, spt_tensor **out) {
    static const char fn[] = "spt_retain";
    spt_status st = SPT_OK;
    int64_t *keep = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t n = t->nnz;
    if (mask_len != n)
        return spt__err(SPT_EINVAL, "%s: to_retain has length %lld but the tensor has %lld entries", fn,
                        (long long)mask_len, (long long)n);
    if (n > 0 && !to_retain) return spt__err(SPT_EINVAL, "%s: to_retain is NULL", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    keep = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!keep) return st;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (to_retain[i]) keep[m++] = i;
    SPT__CHECK(spt__layout_select(fn, t, NULL, keep, m, NULL, out));
    for (int64_t d = 0; d < t->rank; d++) (*out)->order[d] = t->order[d];
    (*out)->flags = SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE));
fail:
    spt__free(keep);
    return st;
}
