/* SPDX-License-Identifier: Apache-2.0 */
/* merge.c -- tf.sparse.merge(sp_ids, sp_values, vocab_size, already_sorted): indices = the first id
 * tensor's indices without their last column, followed by one column of ids per id tensor; values =
 * sp_values' values; shape = shape[:-1] + vocab sizes; then row-major order unless already_sorted. */
#include "ops/layout/layout_internal.h"

spt_status spt_merge(const spt_tensor *const *sp_ids, int64_t n_ids, const spt_tensor *sp_values,
                     const int64_t *vocab_sizes, int64_t n_vocab, bool already_sorted, spt_tensor **out) {
    static const char fn[] = "spt_merge";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    int64_t *ids = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (n_ids < 1 || !sp_ids)
        return spt__err(SPT_EINVAL, "%s: need at least one id tensor, got %lld", fn, (long long)n_ids);
    if (n_vocab != n_ids)
        return spt__err(SPT_EINVAL, "%s: sp_ids and vocab_size have to have equal lengths (%lld vs %lld)", fn,
                        (long long)n_ids, (long long)n_vocab);
    if (!vocab_sizes || !sp_values) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (n_ids > SPT_MAX_RANK) /* before any arithmetic on n_ids: the output rank exceeds the limit anyway */
        return spt__err(SPT_EINVAL, "%s: %lld id tensors exceed the rank limit %d", fn, (long long)n_ids, SPT_MAX_RANK);
    for (int64_t k = 0; k < n_ids; k++)
        if (!sp_ids[k]) return spt__err(SPT_EINVAL, "%s: id tensor %lld is NULL", fn, (long long)k);
    const spt_tensor *t0 = sp_ids[0];
    const int64_t r = t0->rank, n = t0->nnz;
    if (r < 1) return spt__err(SPT_EINVAL, "%s: the id tensors must have rank >= 1", fn);
    const int64_t nr = r - 1 + n_ids;
    if (nr > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: the output rank %lld exceeds %d", fn, (long long)nr, SPT_MAX_RANK);
    for (int64_t k = 0; k < n_ids; k++) {
        if (!spt_dtype_is_integer(sp_ids[k]->dtype))
            return spt__err(SPT_EDTYPE, "%s: id tensor %lld has dtype %s, need integer ids", fn, (long long)k,
                            spt_dtype_name(sp_ids[k]->dtype));
        if (sp_ids[k]->nnz != n)
            return spt__err(SPT_EINVAL, "%s: id tensor %lld has %lld entries, id tensor 0 has %lld", fn, (long long)k,
                            (long long)sp_ids[k]->nnz, (long long)n);
        if (vocab_sizes[k] < 0)
            return spt__err(SPT_EINVAL, "%s: vocab_size[%lld] = %lld is negative", fn, (long long)k,
                            (long long)vocab_sizes[k]);
    }
    if (sp_values->nnz != n)
        return spt__err(SPT_EINVAL, "%s: sp_values has %lld entries but sp_ids has %lld", fn, (long long)sp_values->nnz,
                        (long long)n);
    int64_t shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r - 1; d++) shape[d] = t0->shape[d];
    for (int64_t k = 0; k < n_ids; k++) shape[r - 1 + k] = vocab_sizes[k];
    SPT__TRY(spt__ensure_valid(fn, t0));
    SPT__CHECK(spt__tensor_alloc_uninit(fn, sp_values->dtype, nr, shape, n, NULL, &o));
    ids = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!ids) goto fail;
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = 0; d < r - 1; d++) o->indices[i * nr + d] = t0->indices[i * r + d];
    for (int64_t k = 0; k < n_ids; k++) {
        SPT__CHECK(spt__layout_ids(fn, sp_ids[k], vocab_sizes[k], ids));
        for (int64_t i = 0; i < n; i++) o->indices[i * nr + r - 1 + k] = ids[i];
    }
    if (n > 0) memcpy(o->values, sp_values->values, (size_t)n * spt_dtype_size(sp_values->dtype));
    SPT__CHECK(spt__layout_own_strings(o));
    o->flags = SPT__F_VALID;
    if (already_sorted) spt__layout_mark_sorted(o);
    else SPT__CHECK(spt__reorder(fn, o, NULL));
    spt__free(ids);
    *out = o;
    return SPT_OK;
fail:
    spt__free(ids);
    spt_tensor_free(o);
    return st;
}
