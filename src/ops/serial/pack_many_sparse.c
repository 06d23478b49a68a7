/* SPDX-License-Identifier: Apache-2.0 */
/* pack_many_sparse.c -- spt's own format, serialize_many_sparse's split: one packed tensor per row of dim 0, each
 * holding that row's entries (in storage order) without their first coordinate. */
#include "ops/serial/serial_internal.h"

void spt_packed_free(void **data, size_t *lens, int64_t n) {
    if (data)
        for (int64_t i = 0; i < n; i++) spt__free(data[i]);
    spt__free(data);
    spt__free(lens);
}

spt_status spt_pack_many_sparse(const spt_tensor *t, void ***data, size_t **lens, int64_t *n) {
    static const char fn[] = "spt_pack_many_sparse";
    spt_status st = SPT_OK;
    int64_t *start = NULL, *keep = NULL;
    void **d = NULL;
    size_t *l = NULL;
    if (!data || !lens || !n) return spt__err(SPT_EINVAL, "%s: data, lens or n is NULL", fn);
    *data = NULL;
    *lens = NULL;
    *n = 0;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (t->rank < 2)
        return spt__err(SPT_EINVAL, "%s: the rank of the input should be > 1, got %lld", fn, (long long)t->rank);
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t rows = t->shape[0];
    SPT__TRY(spt__rows_of(fn, t, &start, &keep));
    d = spt__alloc_array(fn, rows, 1, sizeof(void *), true, &st);
    l = d ? spt__alloc_array(fn, rows, 1, sizeof(size_t), true, &st) : NULL;
    if (!l) goto fail;
    for (int64_t r = 0; r < rows; r++)
        SPT__CHECK(spt__serialize_part(fn, t, keep + start[r], start[r + 1] - start[r], 1, &d[r], &l[r]));
    *data = d;
    *lens = l;
    *n = rows;
    d = NULL;
    l = NULL;
fail:
    spt_packed_free(d, l, rows);
    spt__free(start);
    spt__free(keep);
    return st;
}
