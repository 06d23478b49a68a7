/* SPDX-License-Identifier: Apache-2.0 */
/* fill_empty_rows.c -- SparseFillEmptyRows: every empty row q (of dim 0) gets one entry [q,0,...,0]
 * holding the default value. A stable bucket sort by row (entries of a row keep their input order),
 * or the input unchanged when every row is non-empty and the rows are non-decreasing. */
#include "ops/layout/layout_internal.h"

spt_status spt_fill_empty_rows(const spt_tensor *t, const void *default_value, spt_tensor **out,
                               spt_dense **empty_row_indicator, spt_dense **reverse_index_map) {
    static const char fn[] = "spt_fill_empty_rows";
    spt_status st = SPT_OK;
    int64_t *cur = NULL;
    spt_tensor *o = NULL;
    spt_dense *ind = NULL, *rev = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (empty_row_indicator) *empty_row_indicator = NULL;
    if (reverse_index_map) *reverse_index_map = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t r = t->rank, n = t->nnz;
    if (r < 1) return spt__err(SPT_EINVAL, "%s: Dense shape cannot be empty.", fn);
    const int64_t rows = t->shape[0];
    if (rows == 0 && n != 0)
        return spt__err(SPT_ERANGE, "%s: Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = %lld", fn,
                        (long long)n);
    /* the row column first, with TF's message; then every other column */
    for (int64_t i = 0; i < n; i++) {
        int64_t row = t->indices[i * r];
        if (row < 0 || row >= rows)
            return spt__err(SPT_ERANGE, "%s: indices(%lld, 0) is invalid: %lld >= %lld", fn, (long long)i,
                            (long long)row, (long long)rows);
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    cur = spt__alloc_array(fn, rows, 1, sizeof(int64_t), true, &st);
    if (!cur) return st;
    bool ordered = true;
    for (int64_t i = 0; i < n; i++) {
        int64_t row = t->indices[i * r];
        cur[row]++;
        if (i > 0 && row < t->indices[(i - 1) * r]) ordered = false;
    }
    int64_t empty = 0, total;
    for (int64_t q = 0; q < rows; q++) empty += cur[q] == 0;
    if (spt__add_i64(n, empty, &total)) {
        st = spt__err(SPT_EOVERFLOW, "%s: the output entry count overflows int64", fn);
        goto fail;
    }
    SPT__CHECK(spt__tensor_alloc(fn, t->dtype, r, t->shape, total, NULL, &o));
    if (empty_row_indicator) SPT__CHECK(spt__dense_new(fn, SPT_BOOL, 1, &rows, &ind));
    if (reverse_index_map) SPT__CHECK(spt__dense_new(fn, SPT_INT64, 1, &n, &rev));
    const size_t es = spt_dtype_size(t->dtype);
    int64_t *rmap = rev ? rev->data : NULL;
    if (ordered && empty == 0) { /* pass-through */
        if (n > 0) {
            memcpy(o->indices, t->indices, (size_t)n * (size_t)r * sizeof(int64_t));
            memcpy(o->values, t->values, (size_t)n * es);
        }
        if (rmap)
            for (int64_t i = 0; i < n; i++) rmap[i] = i;
    } else {
        static const spt_str empty_str = {"", 0};
        const void *dv = default_value            ? default_value
                         : t->dtype == SPT_STRING ? (const void *)&empty_str
                                                  : spt__zero_elem;
        bool *ri = ind ? ind->data : NULL;
        /* counts -> first slot of each row; an empty row gets its default entry now */
        int64_t s = 0;
        for (int64_t q = 0; q < rows; q++) {
            int64_t c = cur[q];
            cur[q] = s;
            if (c == 0) {
                o->indices[s * r] = q; /* other columns are 0 (zero-filled) */
                memcpy((char *)o->values + (size_t)s * es, dv, es);
                if (ri) ri[q] = true;
                s++;
            } else {
                s += c;
            }
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t j = cur[t->indices[i * r]]++;
            memcpy(o->indices + j * r, t->indices + i * r, (size_t)r * sizeof(int64_t));
            spt__copy_elem(o->values, j, t->values, i, es);
            if (rmap) rmap[i] = j;
        }
    }
    SPT__CHECK(spt__layout_own_strings(o));
    spt__layout_mark_sorted(o);
    spt__free(cur);
    *out = o;
    if (empty_row_indicator) *empty_row_indicator = ind;
    if (reverse_index_map) *reverse_index_map = rev;
    return SPT_OK;
fail:
    spt__free(cur);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    return st;
}
