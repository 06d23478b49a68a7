/* SPDX-License-Identifier: Apache-2.0 */
/* to_dense.c -- SparseTensor::ToDense (into a caller's array) and tf.sparse.to_dense. */
#include "core/internal.h"

/* Linear offset of every entry in a row-major array of dims `od` (after bounds checks). */
static void scatter_range(const spt_tensor *t, spt_dense *out, int64_t lo, int64_t hi) {
    const int64_t r = t->rank, *od = out->shape;
    const size_t es = spt_dtype_size(t->dtype);
    if (es == 8 && r == 3) { /* the common cases: no per-element memcpy or dim loop */
        const int64_t d1 = od[1], d2 = od[2];
        const int64_t *row = t->indices + lo * 3;
        const uint64_t *v = t->values;
        uint64_t *o = out->data;
        for (int64_t i = lo; i < hi; i++, row += 3) o[(row[0] * d1 + row[1]) * d2 + row[2]] = v[i];
        return;
    }
    if (es == 8 && r == 2) {
        const int64_t d1 = od[1];
        const int64_t *row = t->indices + lo * 2;
        const uint64_t *v = t->values;
        uint64_t *o = out->data;
        for (int64_t i = lo; i < hi; i++, row += 2) o[row[0] * d1 + row[1]] = v[i];
        return;
    }
    for (int64_t i = lo; i < hi; i++) {
        const int64_t *row = t->indices + i * r;
        int64_t off = 0;
        for (int64_t d = 0; d < r; d++) off = off * od[d] + row[d];
        spt__copy_elem(out->data, off, t->values, i, es);
    }
}

/* Duplicates: last write wins, so scatter serially in storage order; a tensor known to hold no
 * repeated index writes disjoint cells, so its entries are scattered in parallel chunks. */
static void scatter(const spt_tensor *t, spt_dense *out) {
    const int64_t n = t->nnz;
    int nth = (t->flags & SPT__F_UNIQUE) ? spt__threads_for(n) : 1;
    if (nth <= 1) {
        scatter_range(t, out, 0, n);
        return;
    }
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int c = 0; c < nth; c++)
        scatter_range(t, out, n / nth * c + n % nth * c / nth, n / nth * (c + 1) + n % nth * (c + 1) / nth);
}
/* The default value is all zero bytes (NULL, a numeric zero, or the empty string). */
static bool zero_value(spt_dtype dtype, const void *value) {
    if (!value) return true;
    if (dtype == SPT_STRING) return ((const spt_str *)value)->len == 0;
    for (size_t b = 0; b < spt_dtype_size(dtype); b++)
        if (((const unsigned char *)value)[b]) return false;
    return true;
}

static void fill(spt_dense *out, const void *value) {
    const size_t es = spt_dtype_size(out->dtype);
    const int64_t n = out->size;
    const bool zero = zero_value(out->dtype, value);
    if (zero) value = spt__zero_elem;
    if (zero && out->dtype != SPT_STRING) { /* in parallel chunks: the first touch of a fresh buffer */
        const size_t bytes = (size_t)n * es;
        int nth = spt__threads_for((int64_t)(bytes / 64));
        if (nth <= 1) {
            memset(out->data, 0, bytes);
            return;
        }
        const size_t part = ((bytes + (size_t)nth - 1) / (size_t)nth + 4095) & ~(size_t)4095; /* covers all */
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int c = 0; c < nth; c++) {
            size_t lo = part * (size_t)c, hi = lo + part;
            if (hi > bytes) hi = bytes;
            if (lo < hi) memset((char *)out->data + lo, 0, hi - lo);
        }
        return;
    }
    if (out->dtype == SPT_STRING && zero) {
        spt_str *s = out->data;
        for (int64_t i = 0; i < n; i++) s[i] = (spt_str){"", 0};
        return;
    }
    for (int64_t i = 0; i < n; i++) memcpy((char *)out->data + (size_t)i * es, value, es);
}

/* Bounds of every entry against `bound`; SPT_ERANGE for the first outside. */
static spt_status check_bounds(const char *fn, const spt_tensor *t, const int64_t *bound) {
    const int64_t r = t->rank;
    for (int64_t i = 0; i < t->nnz; i++) {
        const int64_t *row = t->indices + i * r;
        for (int64_t d = 0; d < r; d++)
            if ((uint64_t)row[d] >= (uint64_t)bound[d]) return spt__oob_error(fn, t, i, bound);
    }
    return SPT_OK;
}

/* Strings written into `out` must be owned by it. */
static spt_status own_strings(spt_dense *out) {
    if (out->dtype != SPT_STRING) return SPT_OK;
    return spt__arena_adopt_all(&out->strings, out->data, out->size);
}

/* Strings into a caller's array: the tensor's strings and the default are first copied into a fresh
 * arena (the only step that can fail), so `out` is written only once nothing can fail any more; then
 * that arena joins out's. Only the strings written are copied, not the whole array again. */
static spt_status into_strings(const char *fn, const spt_tensor *t, spt_dense *out, bool initialize,
                               const void *default_value) {
    spt_status st;
    const int64_t n = t->nnz;
    spt_str *tmp = spt__alloc_array(fn, n + 1, 1, sizeof(spt_str), false, &st);
    if (!tmp) return st;
    if (n > 0) memcpy(tmp, t->values, (size_t)n * sizeof(spt_str));
    tmp[n] = default_value ? *(const spt_str *)default_value : (spt_str){"", 0};
    spt__arena fresh = {NULL};
    st = spt__arena_adopt_all(&fresh, tmp, n + 1);
    if (st != SPT_OK) {
        spt__arena_free(&fresh);
        spt__free(tmp);
        return st;
    }
    if (initialize) fill(out, &tmp[n]);
    spt_tensor view = *t; /* the same entries, with values in the fresh arena */
    view.values = tmp;
    scatter(&view, out);
    if (fresh.head) {
        spt__chunk *c = fresh.head;
        while (c->next) c = c->next;
        c->next = out->strings.head;
        out->strings.head = fresh.head;
    }
    spt__free(tmp);
    return SPT_OK;
}

spt_status spt_to_dense_into(const spt_tensor *t, spt_dense *out, bool initialize, const void *default_value) {
    static const char fn[] = "spt_to_dense_into";
    if (!t || !out) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (out->dtype != t->dtype)
        return spt__err(SPT_EDTYPE, "%s: dense dtype %s differs from the tensor's %s", fn, spt_dtype_name(out->dtype),
                        spt_dtype_name(t->dtype));
    if (out->rank != t->rank)
        return spt__err(SPT_EINVAL, "%s: dense rank %lld differs from the tensor's %lld", fn, (long long)out->rank,
                        (long long)t->rank);
    for (int64_t d = 0; d < t->rank; d++)
        if (t->shape[d] > out->shape[d])
            return spt__err(SPT_EINVAL, "%s: dim %lld of the tensor (%lld) exceeds the dense array's (%lld)", fn,
                            (long long)d, (long long)t->shape[d], (long long)out->shape[d]);
    if (!(t->flags & SPT__F_VALID)) SPT__TRY(check_bounds(fn, t, out->shape));
    if (t->dtype == SPT_STRING) return into_strings(fn, t, out, initialize, default_value);
    if (initialize) fill(out, default_value);
    scatter(t, out);
    return SPT_OK;
}

/* A dense array of t's dtype and shape, as spt_dense_new makes it, but a numeric buffer is either left
 * unwritten (fill() then writes every element once) or, with `zeroed`, comes zeroed from spt__zalloc
 * (fresh pages: the kernel zeroes them as the scatter first touches them, no pass of our own). */
static spt_status new_dense(const char *fn, const spt_tensor *t, bool zeroed, spt_dense **out) {
    spt_status st = SPT_OK;
    if (t->volume < 0) { /* a valid sparse shape, but no dense array can hold it */
        char buf[SPT__IDXBUF];
        spt__fmt_index(buf, sizeof buf, t->shape, t->rank);
        return spt__err(SPT_EOVERFLOW, "%s: the dense output of shape %s would have more than INT64_MAX elements", fn,
                        buf);
    }
    if (t->dtype == SPT_STRING || t->volume == 0) return spt__dense_new(fn, t->dtype, t->rank, t->shape, out);
    size_t bytes;
    if (spt__bytes3(t->volume, 1, spt_dtype_size(t->dtype), &bytes))
        return spt__err(SPT_EOVERFLOW, "%s: %lld elements do not fit in size_t bytes", fn, (long long)t->volume);
    void *data = zeroed ? spt__zalloc(bytes) : spt__alloc_array(fn, t->volume, 1, spt_dtype_size(t->dtype), false, &st);
    if (!data) return st != SPT_OK ? st : spt__err(SPT_ENOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
    spt__hint_huge(data, bytes);
    st = spt_dense_wrap(t->dtype, t->rank, t->shape, data, NULL, NULL, out);
    if (st != SPT_OK) {
        spt__free(data);
        return st;
    }
    (*out)->owns_data = true;
    return SPT_OK;
}

spt_status spt_to_dense(const spt_tensor *t, const void *default_value, bool validate_indices, spt_dense **out) {
    static const char fn[] = "spt_to_dense";
    spt_status st;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    if (validate_indices && !(t->flags & SPT__F_UNIQUE && spt_tensor_is_row_major(t, true))) {
        const int64_t r = t->rank;
        for (int64_t i = 1; i < t->nnz; i++) {
            int c = spt__cmp_rows(t->indices + (i - 1) * r, t->indices + i * r, r, NULL);
            if (c >= 0) {
                char a[SPT__IDXBUF];
                spt__fmt_index(a, sizeof a, t->indices + i * r, r);
                return spt__err(SPT_EINVAL,
                                c > 0 ? "%s: indices[%lld] = %s is out of order" : "%s: indices[%lld] = %s is repeated",
                                fn, (long long)i, a);
            }
        }
    }
    spt_dense *d;
    const bool zeroed = t->dtype != SPT_STRING && zero_value(t->dtype, default_value);
    SPT__TRY(new_dense(fn, t, zeroed, &d));
    if (!zeroed) fill(d, default_value);
    scatter(t, d);
    st = own_strings(d);
    if (st != SPT_OK) {
        spt_dense_free(d);
        return st;
    }
    *out = d;
    return SPT_OK;
}
