/* SPDX-License-Identifier: Apache-2.0 */
/* serial_tf.c -- one SparseTensor as TensorFlow serializes it: three TensorProtos (indices int64 [N, R],
 * values [N], dense_shape int64 [R]), written byte for byte as TensorFlow writes them and read with every
 * check of TensorFlow's deserializer. Shared by serialize_sparse / serialize_many_sparse and
 * deserialize_sparse / deserialize_many_sparse. */
#include "ops/serial/serial_internal.h"
#include "tf/tf_internal.h"

#include <stdio.h>

spt_status spt__tf_sparse_put(const char *fn, const spt_tensor *t, const int64_t *pick, int64_t n, int64_t drop,
                              spt_dense *d, int64_t base) {
    spt__buf w = {.ok = true};
    spt_status st = SPT_OK;
    const int64_t r = t->rank - drop, vshape[1] = {n};
    for (int part = 0; part < 3 && st == SPT_OK; part++) {
        w.len = 0;
        if (part == 0) spt__tensor_proto_put_index(&w, t->indices, t->rank, drop, r, pick, n);
        else if (part == 1) spt__tensor_proto_put(&w, t->dtype, 1, vshape, t->values, pick, n);
        else spt__tensor_proto_put(&w, SPT_INT64, 1, &r, t->shape + drop, NULL, r);
        if (!w.ok) st = spt__err(SPT_ENOMEM, "%s: out of memory for a serialized TensorProto", fn);
        else st = spt_dense_set_string(d, base + part, (const char *)w.b, (int64_t)w.len);
    }
    spt__free(w.b);
    return st;
}

static spt_status shape_err(const char *fn, int64_t k, int part, const char *expect, const spt__tproto *t) {
    char sb[SPT__IDXBUF];
    spt__fmt_index(sb, sizeof sb, t->shape, t->rank);
    return spt__err(SPT_EINVAL, "%s: Expected serialized_sparse[%lld, %d] to represent %s but received shape %s", fn,
                    (long long)k, part, expect, sb);
}

spt_status spt__tf_sparse_get(const char *fn, int64_t k, const spt_str *parts, spt_dtype dtype, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt__tproto p[3] = {{0}};
    spt_tensor *t = NULL;
    *out = NULL;
    char what[3][64];
    for (int i = 0; i < 3; i++) {
        snprintf(what[i], sizeof what[i], "serialized_sparse[%lld, %d]", (long long)k, i);
        SPT__CHECK(spt__tproto_decode(fn, what[i], parts[i].data, (size_t)parts[i].len, &p[i]));
    }
    char nb[24];
    if (p[0].dtype != SPT_INT64 || p[0].rank != 2) {
        st = p[0].rank != 2 ? shape_err(fn, k, 0, "an index matrix", &p[0])
                            : spt__err(SPT_EINVAL, "%s: serialized_sparse[%lld, 0] holds %s indices, not int64", fn,
                                       (long long)k, spt__tf_dtype_name(p[0].code, nb));
        goto fail;
    }
    if (p[1].rank != 1) {
        st = shape_err(fn, k, 1, "a values vector", &p[1]);
        goto fail;
    }
    if (p[1].dtype != dtype) {
        st = spt__err(SPT_EINVAL, "%s: Requested SparseTensor of type %s but SparseTensor[%lld].values.dtype() == %s",
                      fn, spt__tf_dtype_name(spt__tf_dtype_code(dtype), nb), (long long)k,
                      spt__tf_dtype_name(p[1].code, what[0]));
        goto fail;
    }
    if (p[2].dtype != SPT_INT64 || p[2].rank != 1) {
        st = p[2].rank != 1 ? shape_err(fn, k, 2, "a shape vector", &p[2])
                            : spt__err(SPT_EINVAL, "%s: serialized_sparse[%lld, 2] holds a %s shape, not int64", fn,
                                       (long long)k, spt__tf_dtype_name(p[2].code, nb));
        goto fail;
    }
    const int64_t n = p[0].shape[0], r = p[0].shape[1];
    if (p[1].shape[0] != n || p[2].shape[0] != r) {
        st = spt__err(SPT_EINVAL,
                      "%s: serialized_sparse[%lld]: indices of shape [%lld,%lld] do not match %lld values and a "
                      "rank-%lld dense_shape",
                      fn, (long long)k, (long long)n, (long long)r, (long long)p[1].shape[0], (long long)p[2].shape[0]);
        goto fail;
    }
    if (r > SPT_MAX_RANK) {
        st = spt__err(SPT_EINVAL, "%s: serialized_sparse[%lld]: rank %lld exceeds SPT_MAX_RANK", fn, (long long)k,
                      (long long)r);
        goto fail;
    }
    const int64_t *shape = p[2].data;
    for (int64_t d = 0; d < r; d++)
        if (shape[d] < 0) {
            st = spt__err(SPT_EINVAL, "%s: serialized_sparse[%lld]: dense_shape[%lld] = %lld is negative", fn,
                          (long long)k, (long long)d, (long long)shape[d]);
            goto fail;
        }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, dtype, r, shape, n, NULL, &t));
    const int64_t *ix = p[0].data;
    for (int64_t i = 0; i < n * r; i++) {
        if (ix[i] < 0 || ix[i] >= shape[i % r]) {
            st = spt__err(SPT_ERANGE,
                          "%s: serialized_sparse[%lld]: indices[%lld] = %lld in dim %lld is outside the shape "
                          "(dim %lld)",
                          fn, (long long)k, (long long)(i / r), (long long)ix[i], (long long)(i % r),
                          (long long)shape[i % r]);
            goto fail;
        }
        t->indices[i] = ix[i];
    }
    if (n) memcpy(t->values, p[1].data, (size_t)n * spt_dtype_size(dtype));
    if (dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, n));
    t->flags = SPT__F_VALID;
    *out = t;
    t = NULL;
fail:
    spt_tensor_free(t);
    for (int i = 0; i < 3; i++) spt__tproto_free(&p[i]);
    return st;
}
