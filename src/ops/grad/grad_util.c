/* SPDX-License-Identifier: Apache-2.0 */
/* grad_util.c -- helpers shared by the gradient kernels (internal; see grad_internal.h). */
#include "ops/grad/grad_internal.h"

spt_status spt__grad_dtype(const char *fn, spt_dtype dt) {
    if (dt == SPT_FLOAT32 || dt == SPT_FLOAT64) return SPT_OK;
    return spt__err(SPT_EDTYPE, "%s: gradients are defined for float32 and float64, not %s", fn, spt_dtype_name(dt));
}

spt_status spt__grad_vec(const char *fn, const char *what, const spt_dense *g, spt_dtype dt, int64_t n) {
    if (!g) return spt__err(SPT_EINVAL, "%s: %s is NULL", fn, what);
    if (g->dtype != dt)
        return spt__err(SPT_EDTYPE, "%s: %s has dtype %s, expected %s", fn, what, spt_dtype_name(g->dtype),
                        spt_dtype_name(dt));
    if (g->rank != 1 || g->shape[0] != n)
        return spt__err(SPT_EINVAL, "%s: %s must be a vector of %lld values (rank %lld, size %lld given)", fn, what,
                        (long long)n, (long long)g->rank, (long long)g->size);
    return SPT_OK;
}

spt_status spt__grad_new_vec(spt_dtype dt, int64_t n, spt_dense **out) { return spt_dense_new(dt, 1, &n, out); }

spt_status spt__keyidx_build(const char *fn, const spt_tensor *t, spt__keyidx *k) {
    k->t = t;
    k->n = t->nnz;
    k->keys = NULL;
    k->perm = NULL;
    spt__keyplan_init(&k->kp, t->shape, NULL, t->rank);
    return spt__sorted_keys(fn, t, &k->keys, &k->perm, &k->unique, &k->ordinal);
}

void spt__keyidx_free(spt__keyidx *k) {
    spt__free(k->keys);
    spt__free(k->perm);
    k->keys = NULL;
    k->perm = NULL;
}

/* The sign of (the entry at sorted position p) - row. */
static int keyidx_cmp(const spt__keyidx *k, int64_t p, const int64_t *row, uint64_t key) {
    if (!k->ordinal) return (k->keys[p] > key) - (k->keys[p] < key);
    return spt__keyplan_cmp(&k->kp, k->t->indices + spt__keyidx_entry(k, p) * k->t->rank, row);
}

int64_t spt__keyidx_range(const spt__keyidx *k, const int64_t *row, int64_t *lo) {
    const uint64_t key = k->ordinal ? 0 : spt__keyplan_linear(&k->kp, row);
    int64_t l = 0, h = k->n;
    while (l < h) {
        int64_t mid = l + (h - l) / 2;
        if (keyidx_cmp(k, mid, row, key) < 0) l = mid + 1;
        else h = mid;
    }
    *lo = l;
    while (h < k->n && keyidx_cmp(k, h, row, key) == 0) h++;
    return h;
}

int64_t spt__keyidx_find(const spt__keyidx *k, const int64_t *row) {
    int64_t lo, hi = spt__keyidx_range(k, row, &lo);
    return lo < hi ? spt__keyidx_entry(k, lo) : -1;
}

spt_status spt__grad_binary_args(const char *fn, const spt_tensor *a, const spt_tensor *b, const spt_tensor *c,
                                 const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_val_grad) {
    if (!a_val_grad || !b_val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *a_val_grad = *b_val_grad = NULL;
    if (!a || !b || !c) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, a->dtype));
    if (b->dtype != a->dtype || c->dtype != a->dtype) return spt__err(SPT_EDTYPE, "%s: dtypes differ", fn);
    if (b->rank != a->rank || c->rank != a->rank) return spt__err(SPT_EINVAL, "%s: ranks differ", fn);
    for (int64_t d = 0; d < a->rank; d++)
        if (b->shape[d] != a->shape[d] || c->shape[d] != a->shape[d])
            return spt__err(SPT_EINVAL, "%s: shapes differ in dimension %lld", fn, (long long)d);
    SPT__TRY(spt__grad_vec(fn, "grad", grad, a->dtype, c->nnz));
    return SPT_OK;
}
