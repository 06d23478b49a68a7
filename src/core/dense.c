/* SPDX-License-Identifier: Apache-2.0 */
/* dense.c -- the minimal dense array: shape + dtype + buffer, with the tensor's ownership rules. */
#include "core/internal.h"

static spt_status dense_shell(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out) {
    int64_t size;
    size_t bytes;
    *out = NULL;
    if ((unsigned)dtype >= SPT_NUM_DTYPES) return spt__err(SPT_EDTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    SPT__TRY(spt__check_shape(fn, rank, shape, &size));
    if (spt__bytes3(size, 1, spt_dtype_size(dtype), &bytes))
        return spt__err(SPT_EOVERFLOW, "%s: %lld elements of %s do not fit in size_t bytes", fn, (long long)size,
                        spt_dtype_name(dtype));
    spt_dense *d = spt__calloc(1, sizeof *d);
    if (!d) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    d->shape = spt__calloc((size_t)(rank ? rank : 1), sizeof(int64_t));
    if (!d->shape) {
        spt__free(d);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    for (int64_t i = 0; i < rank; i++) d->shape[i] = shape[i];
    d->dtype = dtype;
    d->rank = rank;
    d->size = size;
    *out = d;
    return SPT_OK;
}

spt_status spt_dense_new(spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out) {
    return spt__dense_new("spt_dense_new", dtype, rank, shape, out);
}

spt_status spt__dense_new(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out) {
    spt_status st;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    SPT__TRY(dense_shell(fn, dtype, rank, shape, out));
    spt_dense *d = *out;
    d->owns_data = true;
    d->data = spt__alloc_huge(fn, d->size, 1, spt_dtype_size(dtype), true, &st);
    if (!d->data) {
        spt_dense_free(d);
        *out = NULL;
        return st;
    }
    if (dtype == SPT_STRING) {
        spt_str *s = d->data;
        for (int64_t i = 0; i < d->size; i++) s[i].data = "";
    }
    return SPT_OK;
}

spt_status spt_dense_new_from(spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data, spt_dense **out) {
    spt_status st;
    static const char fn[] = "spt_dense_new_from";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    SPT__TRY(dense_shell(fn, dtype, rank, shape, out));
    spt_dense *d = *out;
    d->owns_data = true;
    if (d->size > 0 && !data) {
        st = spt__err(SPT_EINVAL, "%s: data is NULL for %lld elements", fn, (long long)d->size);
        goto fail;
    }
    /* not zero-filled: every element is copied from `data` below */
    d->data = spt__alloc_huge(fn, d->size, 1, spt_dtype_size(dtype), false, &st);
    if (!d->data) goto fail;
    if (d->size > 0) {
        memcpy(d->data, data, (size_t)d->size * spt_dtype_size(dtype));
        if (dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&d->strings, d->data, d->size));
    }
    return SPT_OK;
fail:
    spt_dense_free(d);
    *out = NULL;
    return st;
}

spt_status spt_dense_wrap(spt_dtype dtype, int64_t rank, const int64_t *shape, void *data, spt_release_fn release,
                          void *ctx, spt_dense **out) {
    static const char fn[] = "spt_dense_wrap";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    SPT__TRY(dense_shell(fn, dtype, rank, shape, out));
    if ((*out)->size > 0 && !data) {
        spt_dense_free(*out);
        *out = NULL;
        return spt__err(SPT_EINVAL, "%s: data is NULL", fn);
    }
    if (dtype == SPT_STRING) { /* as spt_tensor_wrap: ops read len bytes at data */
        const spt_str *s = data;
        for (int64_t i = 0; i < (*out)->size; i++)
            if (s[i].len < 0 || (s[i].len > 0 && !s[i].data)) {
                spt_dense_free(*out);
                *out = NULL;
                return spt__err(SPT_EINVAL, "%s: string element %lld is malformed (length %lld)", fn, (long long)i,
                                (long long)s[i].len);
            }
    }
    (*out)->data = data;
    (*out)->release = release;
    (*out)->release_ctx = ctx;
    return SPT_OK;
}

spt_status spt_dense_clone(const spt_dense *d, spt_dense **out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_dense_clone: out is NULL");
    *out = NULL;
    if (!d) return spt__err(SPT_EINVAL, "spt_dense_clone: NULL argument");
    return spt_dense_new_from(d->dtype, d->rank, d->shape, d->data, out);
}

void spt_dense_free(spt_dense *d) {
    if (!d) return;
    if (d->owns_data) spt__free(d->data);
    else if (d->release) d->release(d->release_ctx);
    spt__arena_free(&d->strings);
    spt__free(d->shape);
    spt__free(d);
}

spt_dtype spt_dense_dtype(const spt_dense *d) { return d ? d->dtype : SPT_NUM_DTYPES; }
int64_t spt_dense_rank(const spt_dense *d) { return d ? d->rank : 0; }
const int64_t *spt_dense_shape(const spt_dense *d) { return d ? d->shape : NULL; }
int64_t spt_dense_size(const spt_dense *d) { return d ? d->size : 0; }
const void *spt_dense_data(const spt_dense *d) { return d ? d->data : NULL; }
void *spt_dense_data_mut(spt_dense *d) { return d ? d->data : NULL; }

spt_status spt_dense_set_string(spt_dense *d, int64_t i, const char *data, int64_t len) {
    if (!d || d->dtype != SPT_STRING) return spt__err(SPT_EDTYPE, "spt_dense_set_string: not a string array");
    if (i < 0 || i >= d->size)
        return spt__err(SPT_ERANGE, "spt_dense_set_string: element %lld outside [0, %lld)", (long long)i,
                        (long long)d->size);
    const char *p;
    SPT__TRY(spt__arena_store(&d->strings, data, len, &p));
    spt_str *s = d->data;
    s[i].data = p;
    s[i].len = len;
    return SPT_OK;
}

spt_status spt_shape_volume(int64_t rank, const int64_t *shape, int64_t *volume) {
    int64_t v;
    SPT__TRY(spt__check_shape("spt_shape_volume", rank, shape, &v));
    if (volume) *volume = v;
    return SPT_OK;
}

spt_status spt__tf_dense_out(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out) {
    int64_t vol = 1;
    for (int64_t d = 0; d < rank; d++) {
        if (shape[d] < 0)
            return spt__err(SPT_EINVAL, "%s: output dim %lld is negative (%lld)", fn, (long long)d,
                            (long long)shape[d]);
        if (spt__mul_i64(vol, shape[d], &vol)) {
            char sb[SPT__IDXBUF];
            spt__fmt_index(sb, sizeof sb, shape, rank);
            return spt__err(SPT_EOVERFLOW, "%s: the output shape %s has more than 2^63-1 elements", fn, sb);
        }
    }
    size_t bytes;
    if (spt__bytes3(vol, 1, spt_dtype_size(dtype), &bytes))
        return spt__err(SPT_EOVERFLOW, "%s: the output of %lld %s elements does not fit in size_t bytes", fn,
                        (long long)vol, spt_dtype_name(dtype));
    spt_status st = spt_dense_new(dtype, rank, shape, out);
    if (st == SPT_ENOMEM)
        return spt__err(SPT_ENOMEM, "%s: out of memory for the output of %lld %s elements", fn, (long long)vol,
                        spt_dtype_name(dtype));
    return st;
}
