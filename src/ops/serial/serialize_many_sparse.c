/* SPDX-License-Identifier: Apache-2.0 */
/* serialize_many_sparse.c -- tf.io.serialize_many_sparse: one serialized tensor per row of dim 0, each
 * holding that row's entries (in storage order) without their first coordinate. */
#include "ops/serial/serial_internal.h"

void spt_serialized_free(void **data, size_t *lens, int64_t n) {
    if (data)
        for (int64_t i = 0; i < n; i++) spt__free(data[i]);
    spt__free(data);
    spt__free(lens);
}

spt_status spt_serialize_many_sparse(const spt_tensor *t, void ***data, size_t **lens, int64_t *n) {
    static const char fn[] = "spt_serialize_many_sparse";
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
    const int64_t rows = t->shape[0], m = t->nnz;
    /* a stable counting sort of the entries by their row (rows are materialized: one string each) */
    if (rows == INT64_MAX) return spt__err(SPT_EOVERFLOW, "%s: %lld rows cannot be counted", fn, (long long)rows);
    start = spt__alloc_array(fn, rows + 1, 1, sizeof(int64_t), true, &st);
    keep = start ? spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st) : NULL;
    d = keep ? spt__alloc_array(fn, rows, 1, sizeof(void *), true, &st) : NULL;
    l = d ? spt__alloc_array(fn, rows, 1, sizeof(size_t), true, &st) : NULL;
    if (!l) goto fail;
    for (int64_t i = 0; i < m; i++) start[t->indices[i * t->rank]]++;
    start[rows] = spt__scan_exclusive(start, rows);
    for (int64_t i = 0; i < m; i++) keep[start[t->indices[i * t->rank]]++] = i;
    for (int64_t r = rows; r > 0; r--) start[r] = start[r - 1];
    start[0] = 0;
    for (int64_t r = 0; r < rows; r++)
        SPT__CHECK(spt__serialize_part(fn, t, keep + start[r], start[r + 1] - start[r], 1, &d[r], &l[r]));
    *data = d;
    *lens = l;
    *n = rows;
    d = NULL;
    l = NULL;
fail:
    spt_serialized_free(d, l, rows);
    spt__free(start);
    spt__free(keep);
    return st;
}
