/* SPDX-License-Identifier: Apache-2.0 */
/* softmax.c -- tf.sparse.softmax (SparseSoftmax) over the innermost dim of a rank >= 2 tensor, stored
 * values only. Entries are taken in row-major order (sorted by a stable radix sort when they are not);
 * groups (all but the last coordinate) are independent, so threads split at group starts. */
#include "ops/reduce/softmax.h"

/* float32 and float64 only (TF: half, float, double). */
#define OK(KIND) SPT__KINDS_FLOAT(KIND)

#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), SPT__DEF_SOFTMAX(softmax_##E, T))
#include "spt_dtypes.def"
#undef X

typedef void (*softmax_fn)(const void *, const int64_t *, int64_t, int64_t, void *);
static const softmax_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = softmax_##E, )
#include "spt_dtypes.def"
#undef X
};

/* Sorted entries i and j (j > i) lie in one softmax group (equal in every dim but the last): from the
 * linear keys, or from the index rows when the keys are dense ranks (keys.h). */
typedef struct {
    const uint64_t *keys;
    uint64_t last;
    bool ordinal;
    const int64_t *ix, *perm;
    int64_t r;
} group_ctx;

static bool same_group(const group_ctx *g, int64_t i, int64_t j) {
    if (!g->ordinal) return g->keys[i] / g->last == g->keys[j] / g->last;
    if (g->keys[i] == g->keys[j]) return true;
    const int64_t *a = g->ix + (g->perm ? g->perm[i] : i) * g->r, *b = g->ix + (g->perm ? g->perm[j] : j) * g->r;
    return memcmp(a, b, (size_t)(g->r - 1) * sizeof(int64_t)) == 0;
}

static bool group_start(const void *ctx, int64_t i) { return !same_group(ctx, i - 1, i); }

spt_status spt_softmax(const spt_tensor *t, spt_tensor **out) {
    static const char fn[] = "spt_softmax";
    spt_status st = SPT_OK;
    uint64_t *keys = NULL;
    int64_t *perm = NULL;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    if (r < 2) {
        char s[SPT__IDXBUF];
        spt__fmt_index(s, sizeof s, t->shape, r);
        return spt__err(SPT_EINVAL, "%s: Input should have rank >= 2, but received shape: %s", fn, s);
    }
    softmax_fn f = table[t->dtype];
    if (!f)
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (float32, float64)", fn, spt_dtype_name(t->dtype));
    bool unique, ordinal;
    SPT__CHECK(spt__sorted_keys(fn, t, &keys, &perm, &unique, &ordinal));
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, r, t->shape, n, NULL, &o));
    if (n > 0) {
        group_ctx g = {keys, (uint64_t)t->shape[r - 1], ordinal, t->indices, perm, r}; /* last > 0: entries exist */
        int nch = spt__nchunks(n, r + 16);
        int64_t bnd[SPT__MAX_CHUNKS + 1];
        spt__chunks(n, nch, bnd, group_start, &g);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
        for (int c = 0; c < nch; c++) {
            for (int64_t i = bnd[c], j; i < bnd[c + 1]; i = j) {
                for (j = i + 1; j < bnd[c + 1] && same_group(&g, i, j);) j++;
                f(t->values, perm, i, j, o->values);
            }
            for (int64_t i = bnd[c]; i < bnd[c + 1]; i++)
                memcpy(o->indices + i * r, t->indices + (perm ? perm[i] : i) * r, (size_t)r * sizeof(int64_t));
        }
    }
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u));
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    spt__free(keys);
    spt__free(perm);
    return st;
}
