/* SPDX-License-Identifier: Apache-2.0 */
/* split.c -- SparseSplit / SparseTensor::Split: num_split pieces along an axis; the first
 * size % num_split pieces get one extra slot. Each piece keeps the input's entry order. */
#include "ops/layout/layout_internal.h"

spt_status spt_split(const spt_tensor *t, int64_t axis, int64_t num_split, spt_tensor **outs) {
    static const char fn[] = "spt_split";
    spt_status st = SPT_OK;
    int64_t *piece = NULL, *count = NULL, *fill = NULL;
    if (!outs) return spt__err(SPT_EINVAL, "%s: outs is NULL", fn);
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (num_split < 1)
        return spt__err(SPT_EINVAL, "%s: Input num_split should be at least 1, got %lld", fn, (long long)num_split);
    const int64_t r = t->rank, n = t->nnz;
    int64_t a;
    SPT__TRY(spt__layout_axis(fn, "Input axis", axis, r, &a));
    const int64_t size = t->shape[a];
    if (num_split > size)
        return spt__err(SPT_EINVAL,
                        "%s: Input num_split should be between 1 and the splitting dimension size (%lld), got %lld", fn,
                        (long long)size, (long long)num_split);
    for (int64_t k = 0; k < num_split; k++) outs[k] = NULL;
    SPT__TRY(spt__ensure_valid(fn, t));
    /* res > 0 implies num_split >= 2, so q + 1 and res * (q + 1) <= size cannot overflow */
    const int64_t q = size / num_split, res = size % num_split, big = res ? res * (q + 1) : 0;
    piece = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    count = piece ? spt__alloc_array(fn, num_split, 1, sizeof(int64_t), true, &st) : NULL;
    fill = count ? spt__alloc_array(fn, num_split, 1, sizeof(int64_t), true, &st) : NULL;
    if (!fill) goto fail;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = t->indices[i * r + a];
        int64_t k = c < big ? c / (q + 1) : res + (c - big) / q;
        piece[i] = k;
        count[k]++;
    }
    int64_t shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = t->shape[d];
    for (int64_t k = 0; k < num_split; k++) {
        shape[a] = k < res ? q + 1 : q;
        SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, r, shape, count[k], t->order, &outs[k]));
    }
    const size_t es = spt_dtype_size(t->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t k = piece[i], j = fill[k]++;
        spt_tensor *o = outs[k];
        int64_t *dst = o->indices + j * r;
        const int64_t *src = t->indices + i * r;
        for (int64_t d = 0; d < r; d++) dst[d] = src[d];
        dst[a] -= k < res ? k * (q + 1) : big + (k - res) * q;
        spt__copy_elem(o->values, j, t->values, i, es);
    }
    for (int64_t k = 0; k < num_split; k++) {
        SPT__CHECK(spt__layout_own_strings(outs[k]));
        /* a piece is a subsequence with a monotone shift of one coordinate: the order still holds */
        outs[k]->flags = SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE));
    }
    spt__free(piece);
    spt__free(count);
    spt__free(fill);
    return SPT_OK;
fail:
    for (int64_t k = 0; k < num_split; k++) {
        spt_tensor_free(outs[k]);
        outs[k] = NULL;
    }
    spt__free(piece);
    spt__free(count);
    spt__free(fill);
    return st;
}
