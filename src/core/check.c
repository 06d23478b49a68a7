/* SPDX-License-Identifier: Apache-2.0 */
/* check.c -- spt_validate (bounds) and spt_indices_valid (SparseTensor::IndicesValid). */
#include "core/internal.h"


spt_status spt__oob_error(const char *fn, const spt_tensor *t, int64_t i, const int64_t *bound) {
    char a[SPT__IDXBUF], b[SPT__IDXBUF];
    spt__fmt_index(a, sizeof a, t->indices + i * t->rank, t->rank);
    spt__fmt_index(b, sizeof b, bound, t->rank);
    return spt__err(SPT_ERANGE, "%s: indices[%lld] = %s is out of bounds: need 0 <= index < %s", fn, (long long)i, a,
                    b);
}

spt_status spt__ensure_valid(const char *fn, const spt_tensor *t) {
    if (t->flags & SPT__F_VALID) return SPT_OK;
    /* min-reduction with -1 meaning none: use a sentinel-free scan */
    int64_t bad = -1;
    const int64_t r = t->rank, n = t->nnz;
    if (r > 0) {
        int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(spt__threads_for(n *r)) reduction(min : first) if (n * r > 65536)
        for (int64_t i = 0; i < n; i++) {
            const int64_t *row = t->indices + i * r;
            for (int64_t d = 0; d < r; d++)
                if ((uint64_t)row[d] >= (uint64_t)t->shape[d]) {
                    if (i < first) first = i;
                    break;
                }
        }
        if (first != INT64_MAX) bad = first;
    }
    if (bad >= 0) return spt__oob_error(fn, t, bad, t->shape);
    spt__note_valid(t);
    return SPT_OK;
}

spt_status spt_validate(spt_tensor *t) {
    if (!t) return spt__err(SPT_EINVAL, "spt_validate: tensor is NULL");
    return spt__ensure_valid("spt_validate", t);
}

spt_status spt_indices_valid(spt_tensor *t) {
    static const char fn[] = "spt_indices_valid";
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices;
    if (r == 1) { /* vector fast path, before the order check */
        int64_t prev = -1, i = 0;
        for (; i < n; i++) {
            if (ix[i] >= t->shape[0] || ix[i] <= prev) break;
            prev = ix[i];
        }
        if (i == n) {
            t->flags |= SPT__F_VALID;
            if (t->order[0] == 0) t->flags |= SPT__F_SORTED | SPT__F_UNIQUE;
            return SPT_OK;
        }
    }
    if (!spt__order_defined(r, t->order))
        return spt__err(SPT_EPRECONDITION,
                        "%s: Order was not provided.  Provide an order at construction time or run ReorderInPlace", fn);
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * r;
        for (int64_t d = 0; d < r; d++)
            if ((uint64_t)row[d] >= (uint64_t)t->shape[d]) return spt__oob_error(fn, t, i, t->shape);
        if (i == 0) continue;
        int c = spt__cmp_rows(row - r, row, r, t->order);
        if (c > 0 || c == 0) {
            char a[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, row, r);
            if (c > 0)
                return spt__err(SPT_EINVAL,
                                "%s: indices[%lld] = %s is out of order. Many sparse ops require sorted indices.\n"
                                "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                                fn, (long long)i, a);
            return spt__err(SPT_EINVAL, "%s: indices[%lld] = %s is repeated", fn, (long long)i, a);
        }
    }
    t->flags |= SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE;
    return SPT_OK;
}
