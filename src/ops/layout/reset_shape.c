/* SPDX-License-Identifier: Apache-2.0 */
/* reset_shape.c -- tf.sparse.reset_shape: a new shape >= the old in every dim, or the tight bounding
 * box (max index + 1 per dim, 0 when there are no entries). Entries unchanged. */
#include "ops/layout/layout_internal.h"

spt_status spt_reset_shape(const spt_tensor *t, const int64_t *new_shape, spt_tensor **out) {
    static const char fn[] = "spt_reset_shape";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    int64_t shape[SPT_MAX_RANK];
    if (new_shape) {
        for (int64_t d = 0; d < r; d++)
            if (new_shape[d] < t->shape[d]) {
                char a[SPT__IDXBUF], b[SPT__IDXBUF];
                spt__fmt_index(a, sizeof a, new_shape, r);
                spt__fmt_index(b, sizeof b, t->shape, r);
                return spt__err(
                    SPT_EINVAL,
                    "%s: Requested new_shape should have dimension sizes >= sp_input.shape: %s vs %s (dim %lld)", fn, a,
                    b, (long long)d);
            }
        SPT__TRY(spt__ensure_valid(fn, t));
        for (int64_t d = 0; d < r; d++) shape[d] = new_shape[d];
    } else {
        SPT__TRY(spt__ensure_valid(fn, t));
        for (int64_t d = 0; d < r; d++) shape[d] = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t d = 0; d < r; d++)
                if (t->indices[i * r + d] + 1 > shape[d]) shape[d] = t->indices[i * r + d] + 1;
    }
    SPT__CHECK(spt__layout_select(fn, t, shape, NULL, n, NULL, out));
    for (int64_t d = 0; d < r; d++) (*out)->order[d] = t->order[d];
    (*out)->flags = t->flags | SPT__F_VALID;
fail:
    return st;
}
