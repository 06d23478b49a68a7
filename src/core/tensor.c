/* SPDX-License-Identifier: Apache-2.0 */
/* tensor.c -- the sparse tensor: construction, wrapping, cloning, accessors. */
#include "core/internal.h"

#include <sys/mman.h>

spt_status spt__check_dims(const char *fn, int64_t rank, const int64_t *shape, int64_t *volume) {
    if (rank < 0 || rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: rank %lld outside [0, %d]", fn, (long long)rank, SPT_MAX_RANK);
    if (rank > 0 && !shape) return spt__err(SPT_EINVAL, "%s: shape is NULL", fn);
    bool zero = false;
    for (int64_t d = 0; d < rank; d++) {
        if (shape[d] < 0)
            return spt__err(SPT_EINVAL, "%s: dim %lld of the shape is negative (%lld)", fn, (long long)d,
                            (long long)shape[d]);
        if (shape[d] == 0) zero = true;
    }
    int64_t v = 1;
    if (zero) v = 0;
    else
        for (int64_t d = 0; d < rank; d++)
            if (spt__mul_i64(v, shape[d], &v)) {
                v = -1; /* larger than INT64_MAX: a valid sparse shape */
                break;
            }
    if (volume) *volume = v;
    return SPT_OK;
}

spt_status spt__check_shape(const char *fn, int64_t rank, const int64_t *shape, int64_t *volume) {
    int64_t v;
    SPT__TRY(spt__check_dims(fn, rank, shape, &v));
    if (v < 0) {
        char buf[SPT__IDXBUF];
        spt__fmt_index(buf, sizeof buf, shape, rank);
        return spt__err(SPT_EOVERFLOW, "%s: the volume of shape %s does not fit in int64 (too large for a dense array)",
                        fn, buf);
    }
    if (volume) *volume = v;
    return SPT_OK;
}

bool spt__order_defined(int64_t rank, const int64_t *order) {
    for (int64_t d = 0; d < rank; d++)
        if (order[d] < 0) return false;
    return true;
}

spt_status spt__check_order(const char *fn, int64_t rank, const int64_t *order) {
    if (!order) return SPT_OK;
    uint64_t seen = 0;
    int64_t undefined = 0;
    for (int64_t d = 0; d < rank; d++) {
        if (order[d] == -1) {
            undefined++;
            continue;
        }
        if (order[d] < 0 || order[d] >= rank)
            return spt__err(SPT_EINVAL, "%s: order[%lld] = %lld is not a dim of a rank-%lld tensor", fn, (long long)d,
                            (long long)order[d], (long long)rank);
        if (seen >> order[d] & 1) return spt__err(SPT_EINVAL, "%s: order repeats dim %lld", fn, (long long)order[d]);
        seen |= 1ull << order[d];
    }
    if (undefined && undefined != rank)
        return spt__err(SPT_EINVAL, "%s: order mixes -1 with dims (all -1 or a permutation)", fn);
    return SPT_OK;
}

/* Structure checks shared by new/alloc/wrap, from the counts alone. */
static spt_status check_parts(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                              const int64_t *order, int64_t *volume) {
    if ((unsigned)dtype >= SPT_NUM_DTYPES) return spt__err(SPT_EDTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    SPT__TRY(spt__check_dims(fn, rank, shape, volume));
    if (nnz < 0) return spt__err(SPT_EINVAL, "%s: nnz is negative (%lld)", fn, (long long)nnz);
    size_t bytes;
    if (spt__bytes3(nnz, rank, sizeof(int64_t), &bytes) || spt__bytes3(nnz, 1, spt_dtype_size(dtype), &bytes))
        return spt__err(SPT_EOVERFLOW, "%s: %lld entries of rank %lld do not fit in memory sizes", fn, (long long)nnz,
                        (long long)rank);
    if (nnz > 0 && *volume == 0) {
        char buf[SPT__IDXBUF];
        spt__fmt_index(buf, sizeof buf, shape, rank);
        return spt__err(SPT_ERANGE, "%s: %lld entries but shape %s has no element", fn, (long long)nnz, buf);
    }
    if (rank == 0 && nnz > 1) {
        /* allowed structurally (duplicates of the scalar), like TF */
    }
    return spt__check_order(fn, rank, order);
}

/* Allocate the struct with shape and order in one block. */
static spt_tensor *tensor_shell(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, const int64_t *order,
                                int64_t volume) {
    spt_tensor *t = spt__calloc(1, sizeof *t);
    if (!t) return NULL;
    t->shape = spt__calloc((size_t)(rank ? 2 * rank : 1), sizeof(int64_t));
    if (!t->shape) {
        spt__free(t);
        return NULL;
    }
    t->order = t->shape + rank;
    for (int64_t d = 0; d < rank; d++) {
        t->shape[d] = shape[d];
        t->order[d] = order ? order[d] : -1;
    }
    t->dtype = dtype;
    t->rank = rank;
    t->nnz = nnz;
    t->volume = volume;
    return t;
}

spt_status spt__tensor_alloc(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                             const int64_t *order, spt_tensor **out) {
    spt_status st;
    int64_t volume;
    *out = NULL;
    SPT__TRY(check_parts(fn, dtype, rank, shape, nnz, order, &volume));
    spt_tensor *t = tensor_shell(dtype, rank, shape, nnz, order, volume);
    if (!t) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    t->owns_buffers = true;
    t->indices = spt__alloc_huge(fn, nnz, rank, sizeof(int64_t), true, &st);
    if (!t->indices) goto fail;
    t->values = spt__alloc_huge(fn, nnz, 1, spt_dtype_size(dtype), true, &st);
    if (!t->values) goto fail;
    if (dtype == SPT_STRING) {
        spt_str *s = t->values;
        for (int64_t i = 0; i < nnz; i++) s[i].data = "";
    }
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}

spt_status spt__tensor_alloc_uninit(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                                    const int64_t *order, spt_tensor **out) {
    spt_status st;
    spt_tensor *t = NULL;
    if (nnz == 0 || dtype == SPT_STRING) return spt__tensor_alloc(fn, dtype, rank, shape, nnz, order, out);
    *out = NULL;
    int64_t volume;
    SPT__TRY(check_parts(fn, dtype, rank, shape, nnz, order, &volume)); /* the checks of spt__tensor_alloc */
    SPT__TRY(spt__tensor_alloc(fn, dtype, rank, shape, 0, order, &t));
    if (t->volume == 0) {
        spt_tensor_free(t);
        return spt__tensor_alloc(fn, dtype, rank, shape, nnz, order, out); /* its error */
    }
    int64_t *ix = spt__alloc_huge(fn, nnz, rank, sizeof(int64_t), false, &st);
    void *v = ix ? spt__alloc_huge(fn, nnz, 1, spt_dtype_size(dtype), false, &st) : NULL;
    if (!v) {
        spt__free(ix);
        spt_tensor_free(t);
        return st;
    }
    spt__free(t->indices);
    spt__free(t->values);
    t->indices = ix;
    t->values = v;
    t->nnz = nnz;
    *out = t;
    return SPT_OK;
}

spt_status spt_tensor_alloc(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_tensor_alloc: out is NULL");
    return spt__tensor_alloc("spt_tensor_alloc", dtype, rank, shape, nnz, NULL, out);
}

spt_status spt_tensor_new(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, const int64_t *indices,
                          const void *values, const int64_t *order, spt_tensor **out) {
    static const char fn[] = "spt_tensor_new";
    spt_status st;
    spt_tensor *t = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    /* every byte is copied in below: no zero fill first */
    SPT__TRY(spt__tensor_alloc_uninit(fn, dtype, rank, shape, nnz, order, &t));
    if (nnz > 0 && ((rank > 0 && !indices) || !values)) {
        st = spt__err(SPT_EINVAL, "%s: NULL indices or values for %lld entries", fn, (long long)nnz);
        goto fail;
    }
    if (nnz > 0 && rank > 0) memcpy(t->indices, indices, (size_t)nnz * (size_t)rank * sizeof(int64_t));
    if (nnz > 0) memcpy(t->values, values, (size_t)nnz * spt_dtype_size(dtype));
    if (dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, nnz));
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}

spt_status spt_tensor_wrap(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, int64_t *indices,
                           void *values, const int64_t *order, spt_release_fn release, void *ctx, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_tensor_wrap: out is NULL");
    return spt__tensor_adopt("spt_tensor_wrap", dtype, rank, shape, nnz, indices, values, order, release, ctx, out);
}

spt_status spt__tensor_adopt(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                             int64_t *indices, void *values, const int64_t *order, spt_release_fn release, void *ctx,
                             spt_tensor **out) {
    int64_t volume;
    *out = NULL;
    SPT__TRY(check_parts(fn, dtype, rank, shape, nnz, order, &volume));
    if (nnz > 0 && ((rank > 0 && !indices) || !values))
        return spt__err(SPT_EINVAL, "%s: NULL indices or values for %lld entries", fn, (long long)nnz);
    if (dtype == SPT_STRING) {
        const spt_str *s = values;
        for (int64_t i = 0; i < nnz; i++)
            if (s[i].len < 0 || (s[i].len > 0 && !s[i].data))
                return spt__err(SPT_EINVAL, "%s: string value %lld is malformed (length %lld)", fn, (long long)i,
                                (long long)s[i].len);
    }
    spt_tensor *t = tensor_shell(dtype, rank, shape, nnz, order, volume);
    if (!t) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    t->indices = indices;
    t->values = values;
    t->release = release;
    t->release_ctx = ctx;
    *out = t;
    return SPT_OK;
}

spt_status spt_tensor_create(const spt_dense *indices, const spt_dense *values, const spt_dense *shape,
                             const spt_dense *order, spt_tensor **out) {
    static const char fn[] = "spt_tensor_create";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!indices || !values || !shape) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (indices->dtype != SPT_INT64)
        return spt__err(SPT_EINVAL, "%s: indices must be type int64 but got: %s", fn, spt_dtype_name(indices->dtype));
    if (values->rank != 1)
        return spt__err(SPT_EINVAL, "%s: vals must be a vec, but got rank %lld", fn, (long long)values->rank);
    if (indices->rank < 1 || indices->shape[0] != values->shape[0])
        return spt__err(SPT_EINVAL,
                        "%s: Number of elements in indices (%lld) and values (%lld) do not match: indices and values "
                        "rows (indexing dimension) must match. (indices = %lld, values = %lld)",
                        fn, (long long)(indices->rank ? indices->shape[0] : 1), (long long)values->shape[0],
                        (long long)(indices->rank ? indices->shape[0] : 1), (long long)values->shape[0]);
    if (indices->rank != 2)
        return spt__err(SPT_EINVAL, "%s: indices must be a matrix, but got rank %lld", fn, (long long)indices->rank);
    int64_t rank = indices->shape[1];
    if (order && (order->rank != 1 || order->shape[0] != rank || order->dtype != SPT_INT64))
        return spt__err(SPT_EINVAL, "%s: Order length must be SparseTensor rank.", fn);
    if (shape->rank != 1 || shape->shape[0] != rank || shape->dtype != SPT_INT64)
        return spt__err(
            SPT_EINVAL,
            "%s: Shape rank must be SparseTensor rank: Index rank (%lld) and shape rank (%lld) do not match", fn,
            (long long)rank, (long long)(shape->rank == 1 ? shape->shape[0] : -1));
    return spt_tensor_new(values->dtype, rank, shape->data, indices->shape[0], indices->data, values->data,
                          order ? order->data : NULL, out);
}

spt_status spt_tensor_clone(const spt_tensor *t, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_tensor_clone: out is NULL");
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "spt_tensor_clone: tensor is NULL");
    spt_status st = spt_tensor_new(t->dtype, t->rank, t->shape, t->nnz, t->indices, t->values, t->order, out);
    if (st == SPT_OK) (*out)->flags = t->flags;
    return st;
}

void spt_tensor_free(spt_tensor *t) {
    if (!t) return;
    spt__rowptr_drop(t);
    if (t->owns_buffers) {
        spt__free(t->indices);
        spt__free(t->values);
    } else if (t->release) {
        t->release(t->release_ctx);
    }
    spt__arena_free(&t->strings);
    spt__free(t->shape);
    spt__free(t);
}

void spt__tensor_truncate(spt_tensor *t, int64_t nnz) {
    if (nnz >= t->nnz) return;
    spt__rowptr_drop(t);
    const int64_t was = t->nnz;
    t->nnz = nnz;
    if (!t->owns_buffers) return;
    /* a large buffer losing at most an eighth is kept whole: no copy, and the next op of this size can
     * reuse it from the block cache when it is freed */
    if ((size_t)was * spt_dtype_size(t->dtype) >= SPT__BC_MIN && nnz >= was - was / 8) return;
    size_t ib = (size_t)nnz * (size_t)t->rank * sizeof(int64_t), vb = (size_t)nnz * spt_dtype_size(t->dtype);
    void *p = spt__realloc(t->indices, ib);
    if (p) t->indices = p;
    p = spt__realloc(t->values, vb);
    if (p) t->values = p;
}

spt_dtype spt_tensor_dtype(const spt_tensor *t) { return t ? t->dtype : SPT_NUM_DTYPES; }
int64_t spt_tensor_rank(const spt_tensor *t) { return t ? t->rank : 0; }
int64_t spt_tensor_nnz(const spt_tensor *t) { return t ? t->nnz : 0; }
const int64_t *spt_tensor_shape(const spt_tensor *t) { return t ? t->shape : NULL; }
const int64_t *spt_tensor_order(const spt_tensor *t) { return t ? t->order : NULL; }
const int64_t *spt_tensor_indices(const spt_tensor *t) { return t ? t->indices : NULL; }
const void *spt_tensor_values(const spt_tensor *t) { return t ? t->values : NULL; }
int64_t spt_tensor_volume(const spt_tensor *t) { return t ? t->volume : 0; }

int64_t *spt_tensor_indices_mut(spt_tensor *t) {
    if (!t) return NULL;
    t->flags = 0;
    spt__rowptr_drop(t);
    return t->indices;
}

void *spt_tensor_values_mut(spt_tensor *t) {
    if (!t) return NULL;
    return t->values; /* values do not affect validity or order */
}

spt_status spt_tensor_set_string(spt_tensor *t, int64_t i, const char *data, int64_t len) {
    if (!t || t->dtype != SPT_STRING) return spt__err(SPT_EDTYPE, "spt_tensor_set_string: not a string tensor");
    if (i < 0 || i >= t->nnz)
        return spt__err(SPT_ERANGE, "spt_tensor_set_string: entry %lld outside [0, %lld)", (long long)i,
                        (long long)t->nnz);
    const char *p;
    SPT__TRY(spt__arena_store(&t->strings, data, len, &p));
    spt_str *s = t->values;
    s[i].data = p;
    s[i].len = len;
    return SPT_OK;
}

spt_status spt_tensor_set_order(spt_tensor *t, const int64_t *order) {
    if (!t) return spt__err(SPT_EINVAL, "spt_tensor_set_order: tensor is NULL");
    SPT__TRY(spt__check_order("spt_tensor_set_order", t->rank, order));
    for (int64_t d = 0; d < t->rank; d++) t->order[d] = order ? order[d] : -1;
    t->flags &= ~(unsigned)(SPT__F_SORTED | SPT__F_UNIQUE);
    spt__rowptr_drop(t);
    return SPT_OK;
}

spt_status spt_tensor_set_shape(spt_tensor *t, const int64_t *shape) {
    int64_t volume;
    if (!t) return spt__err(SPT_EINVAL, "spt_tensor_set_shape: tensor is NULL");
    SPT__TRY(spt__check_dims("spt_tensor_set_shape", t->rank, shape, &volume));
    if (t->nnz > 0 && volume == 0)
        return spt__err(SPT_ERANGE, "spt_tensor_set_shape: %lld entries but the new shape has no element",
                        (long long)t->nnz);
    bool grows = true;
    for (int64_t d = 0; d < t->rank; d++) {
        if (shape[d] < t->shape[d]) grows = false;
        t->shape[d] = shape[d];
    }
    t->volume = volume;
    if (!grows) t->flags &= ~(unsigned)SPT__F_VALID;
    spt__rowptr_drop(t); /* its length is shape[0] + 1 */
    return SPT_OK;
}

bool spt_tensor_known_valid(const spt_tensor *t) { return t && (t->flags & SPT__F_VALID); }
bool spt_tensor_known_sorted(const spt_tensor *t) { return t && (t->flags & SPT__F_SORTED); }

bool spt_tensor_is_row_major(const spt_tensor *t, bool sorted) {
    if (!t) return false;
    for (int64_t d = 0; d < t->rank; d++)
        if (t->order[d] != d) return false;
    return !sorted || (t->flags & SPT__F_SORTED);
}

void spt__set_row_major(spt_tensor *t, unsigned flags) {
    for (int64_t d = 0; d < t->rank; d++) t->order[d] = d;
    t->flags = flags;
    spt__rowptr_drop(t);
}

void *spt__alloc_huge(const char *fn, int64_t a, int64_t b, size_t c, bool zero, spt_status *st) {
    void *p = spt__alloc_array(fn, a, b, c, false, st);
    if (p) {
        const size_t bytes = (size_t)a * (size_t)b * c; /* checked by spt__alloc_array */
        spt__hint_huge(p, bytes);
        if (zero) memset(p, 0, bytes);
    }
    return p;
}

void spt__hint_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    const uintptr_t H = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), e = ((uintptr_t)p + bytes) & ~(H - 1);
    if (p && bytes >= 4 * H && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

/* ---- the cached row pointer (internal.h) ---------------------------------------------------------- */

bool spt__rowptr_eligible(const spt_tensor *t) {
    const unsigned need = SPT__F_VALID | SPT__F_SORTED;
    return t->rank == 2 && t->nnz > 0 &&
           (atomic_load_explicit(&((spt_tensor *)t)->flags, memory_order_relaxed) & need) == need && t->order[0] == 0 &&
           t->order[1] == 1 && t->shape[0] < t->nnz / 4 /* rows + 1 <= nnz / 4 */ &&
           t->nnz <= (int64_t)UINT32_MAX; /* 32-bit slots */
}

const spt__rowptr *spt__rowptr_get(const spt_tensor *t) {
    const spt__rowptr *r = atomic_load_explicit(&((spt_tensor *)t)->rowptr, memory_order_acquire);
    if (r && (!spt__rowptr_eligible(t) || r->rows != t->shape[0] || r->nnz != t->nnz || r->indices != t->indices))
        return NULL; /* every mutation drops it; this only guards against a path that forgot */
    return r;
}

spt__rowptr *spt__rowptr_new(const spt_tensor *t) {
    size_t bytes;
    if (spt__bytes3(t->shape[0] + 1, 1, sizeof(uint32_t), &bytes) || spt__add_sz(bytes, sizeof(spt__rowptr), &bytes))
        return NULL;
    spt__rowptr *r = spt__malloc(bytes);
    if (!r) return NULL;
    r->rows = t->shape[0];
    r->nnz = t->nnz;
    r->indices = t->indices;
    return r;
}

const spt__rowptr *spt__rowptr_publish(const spt_tensor *t, spt__rowptr *r) {
    spt__rowptr *expected = NULL;
    /* release: p[] is written before the pointer; acquire on failure: the winner's p[] is visible */
    if (atomic_compare_exchange_strong_explicit(&((spt_tensor *)t)->rowptr, &expected, r, memory_order_acq_rel,
                                                memory_order_acquire))
        return r;
    spt__free(r);
    return expected;
}

void spt__rowptr_drop(spt_tensor *t) {
    if (!t) return;
    spt__free(atomic_exchange_explicit(&t->rowptr, NULL, memory_order_acq_rel));
}
