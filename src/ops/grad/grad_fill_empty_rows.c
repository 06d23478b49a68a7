/* SPDX-License-Identifier: Apache-2.0 */
/* grad_fill_empty_rows.c -- spt_fill_empty_rows_grad (TensorFlow's SparseFillEmptyRowsGrad): the
 * gradients of spt_fill_empty_rows' input values and default value from the gradient of its output
 * values, through the reverse index map it returned. */
#include "ops/grad/grad_internal.h"

spt_status spt_fill_empty_rows_grad(const spt_dense *reverse_index_map, const spt_dense *grad_values,
                                    spt_dense **d_values, spt_dense **d_default_value) {
    static const char fn[] = "spt_fill_empty_rows_grad";
    spt_status st = SPT_OK;
    unsigned char *seen = NULL;
    if (!d_values || !d_default_value) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *d_values = *d_default_value = NULL;
    if (!reverse_index_map || !grad_values) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (reverse_index_map->dtype != SPT_INT64 || reverse_index_map->rank != 1)
        return spt__err(SPT_EINVAL, "%s: reverse_index_map must be an int64 vector", fn);
    SPT__TRY(spt__grad_dtype(fn, grad_values->dtype));
    if (grad_values->rank != 1) return spt__err(SPT_EINVAL, "%s: grad_values must be a vector", fn);
    const spt_dtype dt = grad_values->dtype;
    const int64_t n = reverse_index_map->size, m = grad_values->size, *map = reverse_index_map->data;
    for (int64_t i = 0; i < n; i++)
        if (map[i] < 0 || map[i] >= m)
            return spt__err(SPT_ERANGE, "%s: reverse_index_map[%lld] = %lld is not in [0, %lld)", fn, (long long)i,
                            (long long)map[i], (long long)m);
    seen = spt__alloc_array(fn, m, 1, 1, true, &st);
    if (!seen) return st;
    SPT__CHECK(spt__grad_new_vec(dt, n, d_values));
    SPT__CHECK(spt__dense_new(fn, dt, 0, NULL, d_default_value));
    for (int64_t i = 0; i < n; i++) {
        spt__gs(dt, (*d_values)->data, i, spt__gv(dt, grad_values->data, map[i]));
        seen[map[i]] = 1;
    }
    double s = 0;
    for (int64_t j = 0; j < m; j++)
        if (!seen[j]) s += spt__gv(dt, grad_values->data, j);
    spt__gs(dt, (*d_default_value)->data, 0, s);
    spt__free(seen);
    return SPT_OK;
fail:
    spt__free(seen);
    spt_dense_free(*d_values);
    spt_dense_free(*d_default_value);
    *d_values = *d_default_value = NULL;
    return st;
}
