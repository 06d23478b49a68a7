/* SPDX-License-Identifier: Apache-2.0 */
/* to_indicator.c -- tf.sparse.to_indicator: a dense bool array of shape shape[:-1] + [vocab_size] ([vocab_size] for rank 0),
 * true at [index[:-1]..., value] for every entry (repeats allowed). The output is dense by contract. */
#include "ops/layout/layout_internal.h"

spt_status spt_to_indicator(const spt_tensor *t, int64_t vocab_size, spt_dense **out) {
    static const char fn[] = "spt_to_indicator";
    spt_status st = SPT_OK;
    int64_t *ids = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    /* rank 0 (TensorFlow: shape[:-1] is empty): a [vocab_size] vector */
    const int64_t n = t->nnz, r = t->rank > 0 ? t->rank : 1;
    if (!spt_dtype_is_integer(t->dtype))
        return spt__err(SPT_EDTYPE, "%s: values must be integer ids, got %s", fn, spt_dtype_name(t->dtype));
    if (vocab_size < 0)
        return spt__err(SPT_EINVAL, "%s: vocab_size must be non-negative, got %lld", fn, (long long)vocab_size);
    int64_t shape[SPT_MAX_RANK];
    for (int64_t k = 0; k < r - 1; k++) shape[k] = t->shape[k];
    shape[r - 1] = vocab_size;
    SPT__TRY(spt__check_shape(fn, r, shape, NULL));
    SPT__TRY(spt__ensure_valid(fn, t));
    ids = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!ids) return st;
    SPT__CHECK(spt__layout_ids(fn, t, vocab_size, ids));
    SPT__CHECK(spt__dense_new(fn, SPT_BOOL, r, shape, out));
    bool *b = (*out)->data;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = t->indices + i * t->rank;
        int64_t off = 0;
        for (int64_t k = 0; k < r - 1; k++) off = off * shape[k] + row[k];
        b[off * vocab_size + ids[i]] = true;
    }
fail:
    spt__free(ids);
    return st;
}
