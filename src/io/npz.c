/* SPDX-License-Identifier: Apache-2.0 */
/* npz.c -- .npz archives of pydata/sparse (coords, data, shape, fill_value) and SciPy (coo, csr, csc)
 * sparse arrays, through spt's zip reader and writer (zipread.c, zipwrite.c). */
#include "io.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

/* ---- reading ---------------------------------------------------------------------------------- */

/* The archive being read: its directory, and the file's mapping when the bytes are a mapped file (the
 * tensor may keep a stored member's bytes where they lie). */
typedef struct arch {
    spt__zip z;
    spt__file *f; /* NULL: bytes in memory, never adopted */
} arch;

static bool has_member(const arch *a, const char *m) { return spt__zip_find(&a->z, m) != NULL; }

static spt_status find(const char *name, const arch *a, const char *m, const char **full_out, char *full, size_t fcap,
                       char *label, size_t lcap, const spt__zip_entry **e) {
    snprintf(full, fcap, "%s.npy", m);
    snprintf(label, lcap, "%s[%s]", name, full);
    *full_out = full;
    *e = spt__zip_find(&a->z, full);
    if (!*e) return spt__err(SPT_EPARSE, "%s: expected a member %s, found none", name, full);
    return SPT_OK;
}

spt_status spt__npz_member(const char *fn, const char *name, const spt__zip *z, const char *m, spt_dense **out) {
    char full[64], label[512];
    *out = NULL;
    snprintf(full, sizeof full, "%s.npy", m);
    snprintf(label, sizeof label, "%s[%s]", name, full);
    const spt__zip_entry *e = spt__zip_find(z, full);
    if (!e) return spt__err(SPT_EPARSE, "%s: expected a member %s, found none", name, full);
    const char *p;
    char *own;
    size_t sh;
    SPT__TRY(spt__zip_extract(fn, label, z, e, 0, &p, &own, &sh));
    spt_status st = spt__npy_parse(fn, label, p, (size_t)e->usize, out);
    spt__free(own);
    return st;
}

/* Read member `m` (".npy" appended) into a dense array; SPT_EPARSE when missing or malformed. */
static spt_status member(const char *fn, const char *name, const arch *a, const char *m, spt_dense **out) {
    return spt__npz_member(fn, name, &a->z, m, out);
}

/* Read only the header of member `m` (".npy" appended) and check that the bytes it declares (shape
 * times element size) are what the archive's directory says the member holds: the cheap checks of a
 * member's shape run before anything is inflated or allocated for its data. */
static spt_status peek(const char *fn, const char *name, const arch *a, const char *m, spt__npy_head *h) {
    char full[64], label[512];
    const char *fl;
    const spt__zip_entry *e;
    SPT__TRY(find(name, a, m, &fl, full, sizeof full, label, sizeof label, &e));
    char head[1 << 14];
    size_t got;
    SPT__TRY(spt__zip_head(fn, label, e, head, sizeof head, &got));
    SPT__TRY(spt__npy_head_parse(fn, label, head, got, h));
    if (e->usize < h->hdr || e->usize - h->hdr != h->data) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, h->shape, h->rank);
        return spt__err(
            SPT_EPARSE,
            "%s: expected %lld elements of %zu bytes for shape %s, found %llu bytes of data (the size in the "
            "archive's directory)",
            label, (long long)h->vol, h->isz, sh, (unsigned long long)(e->usize >= h->hdr ? e->usize - h->hdr : 0));
    }
    return SPT_OK;
}

/* A declared rank-1 shape of `len` elements (len < 0: any); `what` names the member. */
static spt_status want_vec(const char *name, const char *m, const spt__npy_head *h, int64_t len) {
    if (h->rank == 1 && (len < 0 || h->shape[0] == len)) return SPT_OK;
    char sh[SPT__IDXBUF];
    spt__fmt_index(sh, sizeof sh, h->shape, h->rank);
    if (len < 0) return spt__err(SPT_EPARSE, "%s[%s.npy]: expected a rank-1 array, found shape %s", name, m, sh);
    return spt__err(SPT_EPARSE, "%s[%s.npy]: expected shape [%lld], found %s", name, m, (long long)len, sh);
}

/* Element i of an integer array as int64; false for non-integers or values beyond int64. */
#define GI_BOOL(T, p, v) false
#define GI_INT(T, p, v) (*(v) = (int64_t)(*(const T *)(p)), true)
#define GI_UINT(T, p, v)                                                                                               \
    ((uint64_t)(*(const T *)(p)) <= (uint64_t)INT64_MAX ? (*(v) = (int64_t)(*(const T *)(p)), true) : false)
#define GI_FLOAT(T, p, v) false
#define GI_COMPLEX(T, p, v) false
#define GI_STRING(T, p, v) false
static bool get_i64(const spt_dense *d, int64_t i, int64_t *v) {
    switch (d->dtype) {
#define X(E, name, T, KIND)                                                                                            \
    case E:                                                                                                            \
        return GI_##KIND(T, (const T *)d->data + i, v);
#include "spt_dtypes.def"
#undef X
    default: return false;
    }
}

static spt_status need_int_vec(const char *name, const char *m, const spt_dense *d, int64_t rank, int64_t len) {
    if (!spt_dtype_is_integer(d->dtype))
        return spt__err(SPT_EPARSE, "%s[%s.npy]: expected an integer array, found %s", name, m,
                        spt_dtype_name(d->dtype));
    if (d->rank != rank || (rank == 1 && len >= 0 && d->shape[0] != len)) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, d->shape, d->rank);
        if (rank == 1 && len >= 0)
            return spt__err(SPT_EPARSE, "%s[%s.npy]: expected shape [%lld], found %s", name, m, (long long)len, sh);
        return spt__err(SPT_EPARSE, "%s[%s.npy]: expected a rank-%lld array, found shape %s", name, m, (long long)rank,
                        sh);
    }
    return SPT_OK;
}

/* shape member -> int64 dims */
static spt_status read_shape(const char *name, const spt_dense *s, int64_t *rank, int64_t *shape) {
    SPT__TRY(need_int_vec(name, "shape", s, 1, -1));
    if (s->shape[0] > SPT_MAX_RANK)
        return spt__err(SPT_EPARSE, "%s[shape.npy]: expected at most %d dims, found %lld", name, SPT_MAX_RANK,
                        (long long)s->shape[0]);
    *rank = s->shape[0];
    for (int64_t k = 0; k < *rank; k++)
        if (!get_i64(s, k, &shape[k]) || shape[k] < 0)
            return spt__err(SPT_EPARSE, "%s[shape.npy]: expected dims >= 0, found a bad dim %lld", name, (long long)k);
    return SPT_OK;
}

static spt_status bad_index(const char *name, const char *m, int64_t i, int64_t v, int64_t dim) {
    return spt__err(SPT_EPARSE, "%s[%s.npy]: expected an index in 0..%lld at entry %lld, found %lld", name, m,
                    (long long)dim - 1, (long long)i, (long long)v);
}

/* The order the archive states (member spt_meta.npy, a string "order: ..."), restored when the entries
 * bear it out; a missing or malformed statement changes nothing. */
static void restore_order(const char *fn, const char *name, const arch *z, spt_tensor *t) {
    if (!has_member(z, "spt_meta.npy")) return;
    spt__npy_head h;
    if (peek(fn, name, z, "spt_meta", &h) != SPT_OK || h.vol != 1 || h.dtype != SPT_STRING || h.isz > SPT__META_CAP)
        return;
    spt_dense *d = NULL;
    if (member(fn, name, z, "spt_meta", &d) != SPT_OK) return;
    const spt_str *s = (const spt_str *)d->data;
    spt__order_restore_meta(t, s->data, s->data + s->len);
    spt_dense_free(d);
}

/* fill_value.npy, when present, must be zero (spt's implicit value). */
static spt_status check_fill(const char *fn, const char *name, const arch *z) {
    if (!has_member(z, "fill_value.npy")) return SPT_OK;
    spt_dense *fill = NULL;
    SPT__TRY(member(fn, name, z, "fill_value", &fill));
    bool zero = fill->size == 1 && fill->dtype != SPT_STRING;
    if (zero) {
        size_t es = spt_dtype_size(fill->dtype);
        if (spt_dtype_is_float(fill->dtype) || spt_dtype_is_complex(fill->dtype)) {
            double re = fill->dtype == SPT_FLOAT32     ? *(float *)fill->data
                        : fill->dtype == SPT_FLOAT64   ? *(double *)fill->data
                        : fill->dtype == SPT_COMPLEX64 ? ((float *)fill->data)[0]
                                                       : ((double *)fill->data)[0];
            double im = fill->dtype == SPT_COMPLEX64    ? ((float *)fill->data)[1]
                        : fill->dtype == SPT_COMPLEX128 ? ((double *)fill->data)[1]
                                                        : 0.0;
            zero = re == 0 && im == 0;
        } else zero = !memcmp(fill->data, spt__zero_elem, es);
    } else if (fill->dtype == SPT_STRING && fill->size == 1) zero = ((spt_str *)fill->data)[0].len == 0;
    spt_dense_free(fill);
    if (!zero) return spt__err(SPT_EINVAL, "%s: fill_value is not zero; spt tensors have an implicit zero", name);
    return SPT_OK;
}

/* A big member's bytes (coords, data): where they lie or inflated (own), with its header. */
typedef struct part {
    const char *p; /* the member's first byte */
    char *own;     /* the buffer holding it when inflated */
    size_t len;
    bool stored;
    spt__npy_head h;
} part;

/* One member's extraction (take2), on its own thread or the caller's. */
typedef struct job {
    const char *fn, *name, *m;
    const arch *z;
    const spt__zip_entry *e;
    part *b;
    spt_status st;
    char msg[512]; /* the error, which is recorded on the thread that met it */
} job;
static void *run_job(void *c) {
    job *j = c;
    char label[512];
    size_t sh;
    snprintf(label, sizeof label, "%s[%s.npy]", j->name, j->m);
    j->st = spt__zip_extract(j->fn, label, &j->z->z, j->e, j->b->h.hdr, &j->b->p, &j->b->own, &sh);
    if (j->st != SPT_OK) snprintf(j->msg, sizeof j->msg, "%s", spt_last_error());
    j->b->len = (size_t)j->e->usize;
    j->b->stored = j->e->method == 0;
    return NULL;
}

/* The members m[0], m[1] of the archive extracted at once: m[1] on a second thread when there are two
 * and the members are large (a thread that blocks in join, not one that spins), each inflated by
 * libdeflate with its data 64-byte aligned. */
static spt_status take2(const char *fn, const char *name, const arch *z, const char *const m[2], part b[2]) {
    job j[2];
    for (int k = 0; k < 2; k++) {
        char full[64];
        snprintf(full, sizeof full, "%s.npy", m[k]);
        j[k] = (job){fn, name, m[k], z, spt__zip_find(&z->z, full), &b[k], SPT_OK, ""};
        if (!j[k].e) return spt__err(SPT_EPARSE, "%s: expected a member %s, found none", name, full);
    }
    pthread_t tid;
    const bool two = j[0].e->usize + j[1].e->usize > ((uint64_t)4 << 20) && spt_get_num_threads() > 1 &&
                     (j[0].e->method || j[1].e->method) && pthread_create(&tid, NULL, run_job, &j[1]) == 0;
    run_job(&j[0]);
    if (two) pthread_join(tid, NULL);
    else run_job(&j[1]);
    for (int k = 0; k < 2; k++)
        if (j[k].st != SPT_OK) {
            for (int i = 0; i < 2; i++) spt__free(b[i].own), b[i].own = NULL;
            return spt__err(j[k].st, "%s", j[k].msg);
        }
    return SPT_OK;
}

/* coords (rank x n integers of the file's width, little endian; element (k, i) at k * sk + i * si) into
 * ix (n x rank), or only checked when ix is NULL: each index against its dim, false at the first one
 * outside (found again by the caller). Blocks of entries by the threads; the pages of a mapped file
 * behind each block are dropped (drop). Loads through memcpy: a stored member need not be aligned. */
#define TRANSPOSE(T)                                                                                                   \
    for (int64_t i = i0; i < i1; i++)                                                                                  \
        for (int64_t k = 0; k < R; k++) {                                                                              \
            T v;                                                                                                       \
            memcpy(&v, src + (size_t)(k * sk + i * si) * sizeof(T), sizeof v);                                         \
            if ((uint64_t)(int64_t)v >= (uint64_t)shape[k]) ok = false; /* negative or beyond int64 */                 \
            if (ix) ix[i * R + k] = (int64_t)v;                                                                        \
        }
static bool transpose(const char *src, size_t isz, bool sgn, bool fortran, int64_t R, int64_t n, const int64_t *shape,
                      int64_t *ix, bool drop) {
    const int64_t B = 1 << 14, nb = (n + B - 1) / B, sk = fortran ? 1 : n, si = fortran ? R : 1;
    bool all = true;
    /* a pass of a few milliseconds is not split: the threads' start and their spinning after the region
     * would cost about what they save */
    const int nth SPT__OMP_VAR = n * R < ((int64_t)1 << 22) ? 1 : spt__threads_for(n * R);
#pragma omp parallel for num_threads(nth) schedule(static) reduction(&& : all)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t i0 = b * B, i1 = i0 + B < n ? i0 + B : n;
        bool ok = true;
        if (isz == 8 && sgn) TRANSPOSE(int64_t)
        else if (isz == 8) TRANSPOSE(uint64_t)
        else if (isz == 4 && sgn) TRANSPOSE(int32_t)
        else if (isz == 4) TRANSPOSE(uint32_t)
        else if (isz == 2 && sgn) TRANSPOSE(int16_t)
        else if (isz == 2) TRANSPOSE(uint16_t)
        else if (sgn) TRANSPOSE(int8_t)
        else TRANSPOSE(uint8_t)
        if (drop && fortran) spt__unmap_behind(src + (size_t)(i0 * R) * isz, (size_t)((i1 - i0) * R) * isz);
        else if (drop)
            for (int64_t k = 0; k < R; k++)
                spt__unmap_behind(src + (size_t)(k * n + i0) * isz, (size_t)(i1 - i0) * isz);
        all = all && ok;
    }
    return all;
}
#undef TRANSPOSE

/* What a tensor made here keeps: its index buffer, the buffer its values lie in, the file's mapping. */
typedef struct owner {
    void *ix, *vals;
    spt__map *map;
} owner;
static void owner_release(void *c) {
    owner *k = c;
    spt__free(k->ix);
    spt__free(k->vals);
    spt__map_unref(k->map);
    spt__free(k);
}

/* Whether p[0..n) of a stored member may stay in the file's mapping: the file is mapped, the thread did
 * not ask for copies, and the pages can be made copy-on-write writable; the mapping then belongs to k. */
static bool keep_mapped(const arch *z, const part *b, owner *k, const void *p, size_t n) {
    if (!b->stored || !z->f || spt__read_copy() || (!k->map && !z->f->map)) return false;
    if (!k->map && !(k->map = spt__file_share(z->f))) return false;
    return spt__map_writable(p, n);
}

/* The indices from coords: where they lie when the member holds int64 in spt's layout (Fortran order, as
 * pydata/sparse writes them) aligned, kept mapped or adopted; otherwise converted into a new buffer (*ix).
 * The first index outside the shape is SPT_EPARSE naming its entry. */
static spt_status coords_to_ix(const char *fn, const char *name, const arch *z, part *c, int64_t R, int64_t n,
                               const int64_t *shape, owner *k, int64_t **ix) {
    const spt__npy_head *h = &c->h;
    const char *src = c->p + h->hdr;
    spt_dense *d = NULL;
    spt_status st = SPT_OK;
    const bool fortran = h->fortran || R <= 1 || n <= 1, sgn = h->dtype >= SPT_INT8 && h->dtype <= SPT_INT64;
    const size_t bytes = (size_t)n * (size_t)R * sizeof(int64_t);
    *ix = NULL;
    if (!h->swap && fortran && h->dtype == SPT_INT64 && (uintptr_t)src % 8 == 0 && n > 0 &&
        (c->own || keep_mapped(z, c, k, src, bytes)) && transpose(src, 8, true, true, R, n, shape, NULL, false)) {
        *ix = (int64_t *)(void *)src;
        if (c->own) k->ix = c->own, c->own = NULL;
        return SPT_OK;
    }
    int64_t *buf = spt__alloc_array(fn, n ? n : 1, R ? R : 1, sizeof(int64_t), false, &st);
    if (!buf) return st;
    spt__hint_huge(buf, bytes);
    k->ix = buf;
    *ix = buf;
    if (!h->swap && transpose(src, h->isz, sgn, fortran, R, n, shape, buf, z->z.mapped && c->stored)) return SPT_OK;
    /* byte-swapped, or an index outside the shape: entry by entry, naming the first bad one */
    char label[512];
    snprintf(label, sizeof label, "%s[coords.npy]", name);
    SPT__TRY(spt__npy_parse(fn, label, c->p, c->len, &d));
    for (int64_t kk = 0; kk < R && st == SPT_OK; kk++)
        for (int64_t i = 0; i < n; i++) {
            int64_t v;
            if (!get_i64(d, kk * n + i, &v) || v < 0 || v >= shape[kk]) {
                if (!get_i64(d, kk * n + i, &v)) v = -1;
                st = bad_index(name, "coords", i, v, shape[kk]);
                break;
            }
            buf[i * R + kk] = v;
        }
    spt_dense_free(d);
    return st;
}

/* Whether the values can stay where they are: a numeric array in the host's byte order, aligned for its
 * element, bool bytes all 0 or 1. */
static bool in_place(const part *d, int64_t n) {
    const spt__npy_head *h = &d->h;
    if (h->dtype == SPT_STRING || h->swap || h->ucs4 || n == 0) return false;
    size_t es = spt_dtype_size(h->dtype), al = es > 8 ? 8 : es;
    const char *v = d->p + h->hdr;
    if ((uintptr_t)v % al) return false;
    if (h->dtype == SPT_BOOL)
        for (int64_t i = 0; i < n; i++)
            if ((unsigned char)v[i] > 1) return false;
    return true;
}

/* The values of d for the tensor: the inflated buffer adopted, a stored member of a mapped file kept where
 * it lies, otherwise copied (*dd: the parsed array whose strings the tensor adopts). */
static spt_status values_of(const char *fn, const char *name, const arch *z, part *d, int64_t n, owner *k, void **vals,
                            spt_dense **dd) {
    spt_status st = SPT_OK;
    const size_t es = spt_dtype_size(d->h.dtype), vb = (size_t)n * es;
    const char *src = d->p + d->h.hdr;
    *dd = NULL;
    if (in_place(d, n) && (d->own || keep_mapped(z, d, k, src, vb))) {
        *vals = (void *)src;
        if (d->own) k->vals = d->own, d->own = NULL;
        return SPT_OK;
    }
    if (!(k->vals = *vals = spt__alloc_array(fn, n ? n : 1, 1, es, false, &st))) return st;
    if (d->h.dtype != SPT_STRING && !d->h.swap && !d->h.ucs4 && d->h.dtype != SPT_BOOL) {
        const size_t step = (size_t)8 << 20; /* the mapped pages behind the copy given back as it goes */
        for (size_t at = 0; at < vb; at += step) {
            memcpy((char *)*vals + at, src + at, vb - at < step ? vb - at : step);
            if (z->z.mapped && d->stored) spt__unmap_behind(src + at, vb - at < step ? vb - at : step);
        }
        return SPT_OK;
    }
    char label[512];
    snprintf(label, sizeof label, "%s[data.npy]", name);
    SPT__TRY(spt__npy_parse(fn, label, d->p, d->len, dd));
    memcpy(*vals, (*dd)->data, vb);
    return SPT_OK;
}

/* The tensor over the coords and data members (see coords_to_ix and values_of). */
static spt_status make_tensor(const char *fn, const char *name, const arch *z, part b[2], int64_t R,
                              const int64_t *shape, int64_t n, spt_tensor **out) {
    spt_status st;
    spt_dense *dd = NULL;
    owner *k = spt__calloc(1, sizeof *k);
    if (!k) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    int64_t *ix = NULL;
    void *vals = NULL;
    SPT__CHECK(coords_to_ix(fn, name, z, &b[0], R, n, shape, k, &ix));
    spt__free(b[0].own); /* inflated coords, converted */
    b[0].own = NULL;
    SPT__CHECK(values_of(fn, name, z, &b[1], n, k, &vals, &dd));
    st = spt__tensor_adopt(fn, b[1].h.dtype, R, shape, n, ix, vals, NULL, owner_release, k, out);
    if (st != SPT_OK) goto fail;
    k = NULL; /* the tensor's now */
    if (b[1].h.dtype == SPT_STRING && (st = spt__arena_adopt_all(&(*out)->strings, vals, n)) != SPT_OK) {
        spt_tensor_free(*out);
        *out = NULL;
    }
fail:
    if (k) owner_release(k);
    spt_dense_free(dd);
    return st;
}

static spt_status read_pydata(const char *fn, const char *name, const arch *z, spt_tensor **out) {
    spt_status st;
    spt_dense *shp = NULL;
    int64_t rank, shape[SPT_MAX_RANK];
    spt__npy_head hs;
    part b[2];
    memset(b, 0, sizeof b);
    SPT__TRY(peek(fn, name, z, "shape", &hs));
    SPT__TRY(want_vec(name, "shape", &hs, -1));
    if (hs.shape[0] > SPT_MAX_RANK)
        return spt__err(SPT_EPARSE, "%s[shape.npy]: expected at most %d dims, found %lld", name, SPT_MAX_RANK,
                        (long long)hs.shape[0]);
    SPT__TRY(peek(fn, name, z, "data", &b[1].h));
    SPT__TRY(want_vec(name, "data", &b[1].h, -1));
    SPT__TRY(peek(fn, name, z, "coords", &b[0].h));
    const spt__npy_head *hc = &b[0].h;
    const int64_t n = b[1].h.shape[0];
    if (!spt_dtype_is_integer(hc->dtype) || hc->rank != 2 || hc->shape[0] != hs.shape[0] || hc->shape[1] != n) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, hc->shape, hc->rank);
        return spt__err(SPT_EPARSE, "%s[coords.npy]: expected integers of shape [%lld,%lld], found %s %s", name,
                        (long long)hs.shape[0], (long long)n, spt_dtype_name(hc->dtype), sh);
    }
    if (has_member(z, "fill_value.npy")) {
        spt__npy_head hf;
        SPT__TRY(peek(fn, name, z, "fill_value", &hf));
        if (hf.vol != 1)
            return spt__err(SPT_EPARSE, "%s[fill_value.npy]: expected one value, found %lld", name, (long long)hf.vol);
    }
    SPT__CHECK(member(fn, name, z, "shape", &shp));
    SPT__CHECK(read_shape(name, shp, &rank, shape));
    SPT__CHECK(check_fill(fn, name, z));
    int64_t vol;
    SPT__CHECK(spt__check_dims(fn, rank, shape, &vol));
    if (n > 0 && vol == 0) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, shape, rank);
        st = spt__err(SPT_ERANGE, "%s: %lld entries but shape %s has no element", fn, (long long)n, sh);
        goto fail;
    }
    static const char *const names[2] = {"coords", "data"};
    SPT__CHECK(take2(fn, name, z, names, b));
    SPT__CHECK(make_tensor(fn, name, z, b, rank, shape, n, out));
    (*out)->flags = SPT__F_VALID;
    restore_order(fn, name, z, *out);
fail:
    spt__free(b[0].own);
    spt__free(b[1].own);
    spt_dense_free(shp);
    return st;
}

/* The SciPy archive's indices into ix (n x 2): row/col pairs (coo), or expanded from indptr/indices. */
static spt_status fill_scipy(const char *name, bool coo, bool csr, const spt_dense *a, const spt_dense *b,
                             const int64_t *shape, int64_t n, int64_t *ix) {
    if (coo) {
        for (int64_t i = 0; i < n; i++) {
            int64_t r = -1, c = -1;
            if (!get_i64(a, i, &r) || r < 0 || r >= shape[0]) return bad_index(name, "row", i, r, shape[0]);
            if (!get_i64(b, i, &c) || c < 0 || c >= shape[1]) return bad_index(name, "col", i, c, shape[1]);
            ix[2 * i] = r;
            ix[2 * i + 1] = c;
        }
    } else {
        int64_t outer = csr ? shape[0] : shape[1], inner = csr ? shape[1] : shape[0];
        int64_t prev = 0, p0 = -1;
        if (!get_i64(a, 0, &p0) || p0 != 0)
            return spt__err(SPT_EPARSE, "%s[indptr.npy]: expected indptr[0] = 0, found %lld", name, (long long)p0);
        for (int64_t r = 0; r < outer; r++) {
            int64_t e = -1;
            if (!get_i64(a, r + 1, &e) || e < prev || e > n)
                return spt__err(SPT_EPARSE, "%s[indptr.npy]: expected a value in %lld..%lld at %lld, found %lld", name,
                                (long long)prev, (long long)n, (long long)(r + 1), (long long)e);
            for (int64_t i = prev; i < e; i++) {
                int64_t c = -1;
                if (!get_i64(b, i, &c) || c < 0 || c >= inner) return bad_index(name, "indices", i, c, inner);
                ix[2 * i] = csr ? r : c;
                ix[2 * i + 1] = csr ? c : r;
            }
            prev = e;
        }
        if (prev != n)
            return spt__err(SPT_EPARSE, "%s[indptr.npy]: expected the last value %lld (the entry count), found %lld",
                            name, (long long)n, (long long)prev);
    }
    return SPT_OK;
}

static spt_status read_scipy(const char *fn, const char *name, const arch *z, spt_tensor **out) {
    spt_status st;
    spt_dense *fmt = NULL, *data = NULL, *shp = NULL, *a = NULL, *b = NULL;
    spt_tensor *t = NULL;
    int64_t rank, shape[SPT_MAX_RANK];
    char f[8] = "";
    spt__npy_head hh;
    SPT__TRY(peek(fn, name, z, "format", &hh));
    if (hh.vol != 1 || hh.dtype != SPT_STRING || hh.isz > 64)
        return spt__err(
            SPT_EPARSE,
            "%s[format.npy]: expected one short string ('coo', 'csr' or 'csc'), found %lld element(s) of %s", name,
            (long long)hh.vol, spt_dtype_name(hh.dtype));
    SPT__TRY(peek(fn, name, z, "shape", &hh));
    SPT__TRY(want_vec(name, "shape", &hh, 2));
    SPT__TRY(peek(fn, name, z, "data", &hh));
    SPT__TRY(want_vec(name, "data", &hh, -1));
    const int64_t ndecl = hh.shape[0];
    SPT__CHECK(member(fn, name, z, "format", &fmt));
    if (fmt->dtype == SPT_STRING && fmt->size == 1 && ((spt_str *)fmt->data)->len < 8) {
        memcpy(f, ((spt_str *)fmt->data)->data, (size_t)((spt_str *)fmt->data)->len);
        f[((spt_str *)fmt->data)->len] = 0;
    }
    bool coo = !strcmp(f, "coo"), csr = !strcmp(f, "csr"), csc = !strcmp(f, "csc");
    if (!coo && !csr && !csc) {
        st = spt__err(SPT_EPARSE, "%s[format.npy]: expected 'coo', 'csr' or 'csc', found '%s'", name, f);
        goto fail;
    }
    SPT__CHECK(member(fn, name, z, "shape", &shp));
    SPT__CHECK(read_shape(name, shp, &rank, shape));
    if (rank != 2) {
        st = spt__err(SPT_EPARSE, "%s[shape.npy]: expected 2 dims for a SciPy matrix, found %lld", name,
                      (long long)rank);
        goto fail;
    }
    SPT__CHECK(member(fn, name, z, "data", &data));
    if (data->rank != 1) {
        st = spt__err(SPT_EPARSE, "%s[data.npy]: expected a rank-1 array, found rank %lld", name,
                      (long long)data->rank);
        goto fail;
    }
    int64_t n = data->shape[0];
    if (coo) {
        SPT__CHECK(peek(fn, name, z, "row", &hh));
        SPT__CHECK(want_vec(name, "row", &hh, ndecl));
        SPT__CHECK(peek(fn, name, z, "col", &hh));
        SPT__CHECK(want_vec(name, "col", &hh, ndecl));
        SPT__CHECK(member(fn, name, z, "row", &a));
        SPT__CHECK(need_int_vec(name, "row", a, 1, n));
        SPT__CHECK(member(fn, name, z, "col", &b));
        SPT__CHECK(need_int_vec(name, "col", b, 1, n));
    } else {
        int64_t outer_dim = csr ? shape[0] : shape[1], plen;
        if (spt__add_i64(outer_dim, 1, &plen)) {
            st = spt__err(SPT_EPARSE, "%s[shape.npy]: expected a %s count below %lld, found %lld", name,
                          csr ? "row" : "column", (long long)INT64_MAX, (long long)outer_dim);
            goto fail;
        }
        SPT__CHECK(peek(fn, name, z, "indptr", &hh));
        SPT__CHECK(want_vec(name, "indptr", &hh, plen));
        SPT__CHECK(peek(fn, name, z, "indices", &hh));
        SPT__CHECK(want_vec(name, "indices", &hh, ndecl));
        SPT__CHECK(member(fn, name, z, "indptr", &a));
        SPT__CHECK(need_int_vec(name, "indptr", a, 1, plen));
        SPT__CHECK(member(fn, name, z, "indices", &b));
        SPT__CHECK(need_int_vec(name, "indices", b, 1, n));
    }
    SPT__CHECK(spt__tensor_alloc(fn, data->dtype, 2, shape, n, NULL, &t));
    SPT__CHECK(fill_scipy(name, coo, csr, a, b, shape, n, t->indices));
    memcpy(t->values, data->data, (size_t)n * spt_dtype_size(data->dtype));
    if (t->dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, n));
    t->flags = SPT__F_VALID;
    restore_order(fn, name, z, t);
    *out = t;
    t = NULL;
    st = SPT_OK;
fail:
    spt_dense_free(fmt);
    spt_dense_free(data);
    spt_dense_free(shp);
    spt_dense_free(a);
    spt_dense_free(b);
    spt_tensor_free(t);
    return st;
}

static spt_status npz_read(const char *fn, const char *name, const char *data, size_t len, spt__file *f,
                           spt_tensor **out) {
    arch a = {.f = f};
    SPT__TRY(spt__zip_open(fn, name, data, len, f && f->map, &a.z));
    spt_status st;
    if (has_member(&a, "binsparse.npy")) st = spt__binsparse_from_zip(fn, name, &a.z, out);
    else if (has_member(&a, "coords.npy")) st = read_pydata(fn, name, &a, out);
    else if (has_member(&a, "format.npy")) st = read_scipy(fn, name, &a, out);
    else if (has_member(&a, "indptr.npy"))
        st = spt__err(SPT_EPARSE, "%s: expected a COO archive (coords.npy), found a GCXS one (not supported)", name);
    else st = spt__err(SPT_EPARSE, "%s: expected the members coords.npy or format.npy, found neither", name);
    spt__zip_close(&a.z);
    return st;
}

spt_status spt__npz_from_bytes(const char *fn, const char *name, const char *data, size_t len, spt_tensor **out) {
    return npz_read(fn, name, data, len, NULL, out);
}

spt_status spt_read_npz(const char *path, const spt_read_opts *opts, spt_tensor **out) {
    static const char fn[] = "spt_read_npz";
    (void)opts;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__file f;
    /* a stream is spooled to a temporary file: the directory is at the archive's end */
    SPT__TRY(spt__file_load_spooled(fn, path, "PK", 2, "zip (.npz)", &f));
    spt_status st = npz_read(fn, f.name, f.data, f.len, &f, out);
    spt__file_release(&f);
    return st;
}

/* ---- writing ---------------------------------------------------------------------------------- */

/* Member m: the .npy of an array (Fortran order when asked); its data written from where it lies (own: a
 * buffer of the caller's the writer frees), strings laid out in a new buffer. */
spt_status spt__npz_add(const char *fn, spt__zipw *z, const char *m, spt_dtype dt, int64_t rank, const int64_t *shape,
                        const void *data, bool fortran, void *own) {
    char head[SPT__NPY_HDR_CAP];
    size_t hlen, isz, body;
    spt_status st = spt__npy_header(fn, dt, rank, shape, data, fortran, head, &hlen, &isz, &body);
    if (st != SPT_OK) {
        spt__free(own);
        return st;
    }
    if (dt != SPT_STRING) return spt__zipw_add(fn, z, m, head, hlen, data, body, own);
    char *b = NULL;
    size_t len = 0;
    st = spt__npy_build(fn, dt, rank, shape, data, &b, &len);
    spt__free(own);
    if (st != SPT_OK) return st;
    return spt__zipw_add(fn, z, m, "", 0, b, len, b);
}
static spt_status add_member(const char *fn, spt__zipw *z, const char *m, spt_dtype dt, int64_t rank,
                             const int64_t *shape, const void *data) {
    return spt__npz_add(fn, z, m, dt, rank, shape, data, false, NULL);
}

/* The member spt_meta.npy: the order statement (order.c) as a NumPy bytes scalar; SciPy and
 * pydata/sparse ignore members they do not know. */
static spt_status add_meta(const char *fn, spt__zipw *z, const char *meta) {
    spt_str s = {meta, (int64_t)strlen(meta)};
    return add_member(fn, z, "spt_meta.npy", SPT_STRING, 0, NULL, &s);
}

/* The member format.npy = 'coo' as NumPy unicode ('<U3'), as pydata/sparse 0.15 and later write it and
 * their load_npz requires (it names the class to build); older versions ignore it. */
static spt_status add_format_coo(const char *fn, spt__zipw *z) {
    static const char dict[] = "{'descr': '<U3', 'fortran_order': False, 'shape': (), }";
    const size_t pre = 10, dl = sizeof dict - 1, hl = (pre + dl + 1 + 63) / 64 * 64 - pre;
    char b[128];
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (char)(hl & 0xff);
    b[9] = (char)(hl >> 8);
    memcpy(b + pre, dict, dl);
    memset(b + pre + dl, ' ', hl - dl - 1);
    b[pre + hl - 1] = '\n';
    static const char coo[12] = {'c', 0, 0, 0, 'o', 0, 0, 0, 'o', 0, 0, 0}; /* UCS-4, little endian */
    return spt__zipw_add(fn, z, "format.npy", b, pre + hl, coo, sizeof coo, NULL);
}

/* coords.npy (rank x n, in Fortran order: the bytes of spt's indices as they are), data.npy, shape.npy,
 * fill_value.npy and the order: pydata/sparse's COO. */
static spt_status write_pydata(const char *fn, const spt_tensor *t, spt__zipw *z) {
    const int64_t n = t->nnz, R = t->rank;
    char meta[SPT__META_CAP];
    int64_t cs[2] = {R, n}, ds[1] = {n}, shp1[1] = {R};
    static const spt_str empty = {"", 0};
    SPT__TRY(spt__npz_add(fn, z, "coords.npy", SPT_INT64, 2, cs, t->indices, true, NULL));
    SPT__TRY(add_member(fn, z, "data.npy", t->dtype, 1, ds, t->values));
    SPT__TRY(add_member(fn, z, "shape.npy", SPT_INT64, 1, shp1, t->shape));
    SPT__TRY(add_member(fn, z, "fill_value.npy", t->dtype, 0, NULL,
                        t->dtype == SPT_STRING ? (const void *)&empty : spt__zero_elem));
    SPT__TRY(add_format_coo(fn, z));
    if (spt__order_meta_format(t, meta, sizeof meta)) SPT__TRY(add_meta(fn, z, meta));
    return SPT_OK;
}

/* The entries of a matrix sorted row-major into new arrays (*six: n x 2 indices, *vals). */
static spt_status sorted_rows(const char *fn, const spt_tensor *t, int64_t **six, void **vals) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz;
    size_t es = spt_dtype_size(t->dtype);
    *six = NULL;
    *vals = NULL;
    int64_t *perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!perm) return st;
    SPT__CHECK(spt_argsort(t, NULL, perm));
    if (!(*six = spt__alloc_array(fn, n, 2, sizeof(int64_t), false, &st))) goto fail;
    if (!(*vals = spt__alloc_array(fn, n, 1, es, false, &st))) goto fail;
    for (int64_t i = 0; i < n; i++) {
        (*six)[2 * i] = t->indices[2 * perm[i]];
        (*six)[2 * i + 1] = t->indices[2 * perm[i] + 1];
        spt__copy_elem(*vals, i, t->values, perm[i], es);
    }
    spt__free(perm);
    return SPT_OK;
fail:
    spt__free(perm);
    spt__free(*six);
    spt__free(*vals);
    *six = NULL;
    *vals = NULL;
    return st;
}

/* SciPy's coo (row.npy, col.npy) or csr (indptr.npy, indices.npy) with format, shape and data. */
/* The buffers made here are handed to the writer z, which frees them after writing. */
static spt_status write_scipy(const char *fn, const spt_tensor *t, spt_format flavour, spt__zipw *z) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz;
    int64_t *ix = NULL, *six = NULL, *ptr = NULL;
    void *vals = NULL;
    char meta[SPT__META_CAP];
    bool i32 = t->shape[0] <= INT32_MAX && t->shape[1] <= INT32_MAX && n <= INT32_MAX;
    spt_dtype it = i32 ? SPT_INT32 : SPT_INT64;
    size_t is = spt_dtype_size(it);
    const int64_t *src = t->indices;
    const void *vsrc = t->values;
    if (flavour == SPT_FORMAT_NPZ_SCIPY_CSR && !spt_tensor_is_row_major(t, true)) {
        SPT__CHECK(sorted_rows(fn, t, &six, &vals));
        src = six;
        vsrc = vals;
    }
    ix = spt__alloc_array(fn, 2, n, is, false, &st);
    if (!ix) goto fail;
    int64_t ds[1] = {n};
    if (flavour == SPT_FORMAT_NPZ_SCIPY_COO) {
        for (int64_t i = 0; i < n; i++)
            for (int k = 0; k < 2; k++) {
                if (i32) ((int32_t *)ix)[k * n + i] = (int32_t)src[2 * i + k];
                else ix[k * n + i] = src[2 * i + k];
            }
        const char *col = (char *)ix + (size_t)n * is;
        st = spt__npz_add(fn, z, "row.npy", it, 1, ds, ix, false, ix);
        ix = NULL;
        if (st != SPT_OK) goto fail;
        SPT__CHECK(add_member(fn, z, "col.npy", it, 1, ds, col));
    } else {
        int64_t M = t->shape[0], M1;
        if (spt__add_i64(M, 1, &M1)) {
            st = spt__err(SPT_EOVERFLOW, "%s: %lld rows do not fit a CSR indptr", fn, (long long)M);
            goto fail;
        }
        ptr = spt__alloc_array(fn, M1, 1, sizeof(int64_t), true, &st);
        if (!ptr) goto fail;
        for (int64_t i = 0; i < n; i++) ptr[src[2 * i]]++;
        ptr[M] = spt__scan_exclusive(ptr, M);
        if (i32)
            for (int64_t r = 0; r <= M; r++) ((int32_t *)ptr)[r] = (int32_t)ptr[r];
        for (int64_t i = 0; i < n; i++) {
            if (i32) ((int32_t *)ix)[i] = (int32_t)src[2 * i + 1];
            else ix[i] = src[2 * i + 1];
        }
        int64_t ps[1] = {M1};
        st = spt__npz_add(fn, z, "indices.npy", it, 1, ds, ix, false, ix);
        ix = NULL;
        if (st != SPT_OK) goto fail;
        st = spt__npz_add(fn, z, "indptr.npy", it, 1, ps, ptr, false, ptr);
        ptr = NULL;
        if (st != SPT_OK) goto fail;
    }
    static const spt_str fcoo = {"coo", 3}, fcsr = {"csr", 3};
    SPT__CHECK(
        add_member(fn, z, "format.npy", SPT_STRING, 0, NULL, flavour == SPT_FORMAT_NPZ_SCIPY_COO ? &fcoo : &fcsr));
    int64_t ss[1] = {2};
    SPT__CHECK(add_member(fn, z, "shape.npy", SPT_INT64, 1, ss, t->shape));
    st = spt__npz_add(fn, z, "data.npy", t->dtype, 1, ds, vsrc, false, vals);
    vals = NULL;
    if (st != SPT_OK) goto fail;
    if (flavour == SPT_FORMAT_NPZ_SCIPY_CSR) /* the entries went out sorted row-major */
        snprintf(meta, sizeof meta, "order: 0 1 sorted%s", (t->flags & SPT__F_UNIQUE) ? " unique" : "");
    else spt__order_meta_format(t, meta, sizeof meta);
    if (meta[0]) SPT__CHECK(add_meta(fn, z, meta));
fail:
    spt__free(ix);
    spt__free(six);
    spt__free(ptr);
    spt__free(vals);
    return st;
}

spt_status spt_write_npz_level(const spt_tensor *t, const char *path, spt_format flavour, int level) {
    static const char fn[] = "spt_write_npz";
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (!strcmp(path, "-")) return spt__err(SPT_EINVAL, "%s: .npz cannot be written to stdout", fn);
    if (level < 0 || level > 12) return spt__err(SPT_EINVAL, "%s: compression level %d outside [0, 12]", fn, level);
    if (flavour == SPT_FORMAT_AUTO) flavour = SPT_FORMAT_NPZ;
    if (flavour != SPT_FORMAT_NPZ && flavour != SPT_FORMAT_NPZ_SCIPY_COO && flavour != SPT_FORMAT_NPZ_SCIPY_CSR)
        return spt__err(SPT_EINVAL, "%s: %s is not an .npz flavour", fn, spt_format_name(flavour));
    if (flavour != SPT_FORMAT_NPZ && t->rank != 2)
        return spt__err(SPT_EINVAL, "%s: SciPy archives hold matrices; the tensor has rank %lld", fn,
                        (long long)t->rank);
    SPT__TRY(spt__ensure_valid(fn, t));
    spt__zipw *z = spt__calloc(1, sizeof *z);
    if (!z) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    z->level = level;
    spt_status st = flavour == SPT_FORMAT_NPZ ? write_pydata(fn, t, z) : write_scipy(fn, t, flavour, z);
    return spt__npz_save(fn, z, path, st);
}

spt_status spt__npz_save(const char *fn, spt__zipw *z, const char *path, spt_status st) {
    spt__out o;
    if (st == SPT_OK && (st = spt__out_open(fn, path, false, &o)) == SPT_OK) {
        /* written straight through the common output path (spt__out): no archive image in memory */
        st = spt__zipw_write(fn, z, o.fp);
        if (st == SPT_OK) st = spt__out_commit(fn, &o);
        else spt__out_abort(&o);
    }
    spt__zipw_free(z);
    spt__free(z);
    return st;
}

spt_status spt_write_npz(const spt_tensor *t, const char *path, spt_format flavour) {
    return spt_write_npz_level(t, path, flavour, 1);
}
