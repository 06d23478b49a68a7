/* SPDX-License-Identifier: Apache-2.0 */
/* sparse_to_dense.c -- tf.sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value,
 * validate_indices), with TensorFlow's checks in TensorFlow's order (tf_semantics.md 3.1). */
#include "core/internal.h"

#include <stdio.h>

static int64_t read_int(const spt_dense *a, int64_t i) {
    return a->dtype == SPT_INT32 ? ((const int32_t *)a->data)[i] : ((const int64_t *)a->data)[i];
}

static void fmt_dims(char *buf, size_t cap, const spt_dense *a) { spt__fmt_index(buf, cap, a->shape, a->rank); }

spt_status spt_sparse_to_dense(const spt_dense *sparse_indices, const spt_dense *output_shape,
                               const spt_dense *sparse_values, const spt_dense *default_value, bool validate_indices,
                               spt_dense **out) {
    static const char fn[] = "spt_sparse_to_dense";
    char a[SPT__IDXBUF], b[SPT__IDXBUF];
    spt_status st;
    spt_tensor *t = NULL;
    spt_dense *d = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!sparse_indices || !output_shape || !sparse_values || !default_value)
        return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    const spt_dense *ix = sparse_indices;
    if (ix->dtype != SPT_INT32 && ix->dtype != SPT_INT64)
        return spt__err(SPT_EDTYPE, "%s: sparse_indices must be int32 or int64, got %s", fn, spt_dtype_name(ix->dtype));
    if (ix->rank > 2) {
        fmt_dims(a, sizeof a, ix);
        return spt__err(SPT_EINVAL, "%s: sparse_indices should be a scalar, vector, or matrix, got shape %s", fn, a);
    }
    if (output_shape->rank != 1) {
        fmt_dims(a, sizeof a, output_shape);
        return spt__err(SPT_EINVAL, "%s: output_shape must be rank 1, got shape %s", fn, a);
    }
    if (output_shape->dtype != SPT_INT32 && output_shape->dtype != SPT_INT64)
        return spt__err(SPT_EDTYPE, "%s: output_shape must be int32 or int64, got %s", fn,
                        spt_dtype_name(output_shape->dtype));
    const int64_t n = ix->rank == 0 ? 1 : ix->shape[0];
    const int64_t r = ix->rank == 2 ? ix->shape[1] : 1;
    if (output_shape->shape[0] != r)
        return spt__err(SPT_EINVAL, "%s: output_shape has incorrect number of elements: %lld should be: %lld", fn,
                        (long long)output_shape->shape[0], (long long)r);
    if (!(sparse_values->rank == 0 || (sparse_values->rank == 1 && sparse_values->shape[0] == n))) {
        fmt_dims(a, sizeof a, sparse_values);
        return spt__err(SPT_EINVAL, "%s: sparse_values has incorrect shape %s, should be [] or [%lld]", fn, a,
                        (long long)n);
    }
    if (default_value->rank != 0) return spt__err(SPT_EINVAL, "%s: default_value should be a scalar.", fn);
    if (default_value->dtype != sparse_values->dtype)
        return spt__err(SPT_EDTYPE, "%s: default_value dtype %s differs from sparse_values dtype %s", fn,
                        spt_dtype_name(default_value->dtype), spt_dtype_name(sparse_values->dtype));
    if (r > SPT_MAX_RANK) return spt__err(SPT_EINVAL, "%s: rank %lld exceeds %d", fn, (long long)r, SPT_MAX_RANK);
    int64_t shape[SPT_MAX_RANK] = {0};
    for (int64_t k = 0; k < r; k++) shape[k] = read_int(output_shape, k);
    int64_t volume;
    SPT__TRY(spt__check_shape(fn, r, shape, &volume));

    /* the entries as a tensor (no order, not yet validated) */
    const spt_dtype dt = sparse_values->dtype;
    const size_t es = spt_dtype_size(dt);
    int64_t order[SPT_MAX_RANK];
    for (int64_t k = 0; k < r; k++) order[k] = k;
    if (volume == 0 && n > 0) {
        spt__fmt_index(a, sizeof a, shape, r);
        return spt__err(SPT_ERANGE, "%s: Indices are not valid (out of bounds).  Shape: %s", fn, a);
    }
    SPT__TRY(spt__tensor_alloc_uninit(fn, dt, r, shape, n, order, &t)); /* every entry written below */
    for (int64_t i = 0; i < n * r; i++) t->indices[i] = read_int(ix, i);
    for (int64_t i = 0; i < n; i++) spt__copy_elem(t->values, i, sparse_values->data, sparse_values->rank ? i : 0, es);
    if (validate_indices) {
        st = spt_indices_valid(t);
        if (st != SPT_OK) {
            /* re-raise under this op's name, keeping the entry and index */
            char msg[1024];
            const char *m = spt_last_error(), *colon = strstr(m, ": ");
            snprintf(msg, sizeof msg, "%s", colon ? colon + 2 : m);
            st = spt__err(st, "%s: %s", fn, msg);
            goto fail;
        }
    } else {
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < r; k++)
                if ((uint64_t)t->indices[i * r + k] >= (uint64_t)shape[k]) {
                    spt__fmt_index(a, sizeof a, shape, r);
                    spt__fmt_index(b, sizeof b, t->indices + i * r, r);
                    st = spt__err(SPT_ERANGE,
                                  "%s: Indices are not valid (out of bounds).  Shape: %s (indices[%lld] = %s)", fn, a,
                                  (long long)i, b);
                    goto fail;
                }
        t->flags |= SPT__F_VALID;
    }
    if (dt == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, n));
    SPT__CHECK(spt__dense_new(fn, dt, r, shape, &d));
    SPT__CHECK(spt_to_dense_into(t, d, true, default_value->data));
    spt_tensor_free(t);
    *out = d;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    spt_dense_free(d);
    return st;
}
