/* SPDX-License-Identifier: Apache-2.0 */
/* transpose.c -- tf.sparse.transpose: index columns and shape permuted (new[k] = old[perm[k]]),
 * output in row-major order. A sorted input tells the order the output is already sorted in; the
 * core radix sort does the rest (one pass when nothing moves). */
#include "ops/layout/layout_internal.h"

spt_status spt_transpose(const spt_tensor *t, const int64_t *perm, spt_tensor **out) {
    static const char fn[] = "spt_transpose";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    int64_t p[SPT_MAX_RANK], inv[SPT_MAX_RANK], shape[SPT_MAX_RANK];
    for (int64_t k = 0; k < r; k++) inv[k] = -1;
    for (int64_t k = 0; k < r; k++) {
        p[k] = perm ? perm[k] : r - 1 - k;
        if (p[k] < 0 || p[k] >= r) /* an axis outside [0, rank): out of range, as every axis */
            return spt__err(SPT_ERANGE, "%s: perm[%lld] = %lld is outside [0, %lld)", fn, (long long)k, (long long)p[k],
                            (long long)r);
        if (inv[p[k]] >= 0) {
            char a[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, perm, r);
            return spt__err(SPT_EINVAL, "%s: perm %s is not a permutation of the %lld dims", fn, a, (long long)r);
        }
        inv[p[k]] = k;
        shape[k] = t->shape[p[k]];
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, r, shape, n, NULL, &o));
    const int nth SPT__OMP_VAR = spt__threads_for(n * r);
#pragma omp parallel for schedule(static) num_threads(nth)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *src = t->indices + i * r;
        int64_t *dst = o->indices + i * r;
        for (int64_t k = 0; k < r; k++) dst[k] = src[p[k]];
    }
    if (n > 0) memcpy(o->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    SPT__CHECK(spt__layout_own_strings(o));
    o->flags = SPT__F_VALID;
    if (t->flags & SPT__F_SORTED) { /* sorted by order o' with o'[j] = inv[order[j]] */
        for (int64_t j = 0; j < r; j++) o->order[j] = inv[t->order[j]];
        o->flags |= t->flags & (SPT__F_SORTED | SPT__F_UNIQUE);
    }
    SPT__CHECK(spt__reorder(fn, o, NULL));
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
