/* SPDX-License-Identifier: Apache-2.0 */
/* npz.c -- .npz archives of pydata/sparse (coords, data, shape, fill_value) and SciPy (coo, csr, csc)
 * sparse arrays, through libzip. */
#include "io.h"

#include <math.h>
#include <unistd.h>
#include <zip.h>

/* ---- reading ---------------------------------------------------------------------------------- */

static bool has_member(zip_t *z, const char *m) { return zip_name_locate(z, m, 0) >= 0; }

/* Read member `m` (".npy" appended) into a dense array; SPT_EPARSE when missing or malformed. */
static spt_status member(const char *fn, const char *name, zip_t *z, const char *m, spt_dense **out) {
    spt_status st;
    char full[64], label[512];
    snprintf(full, sizeof full, "%s.npy", m);
    snprintf(label, sizeof label, "%s[%s]", name, full);
    *out = NULL;
    zip_stat_t sb;
    zip_stat_init(&sb);
    if (zip_stat(z, full, 0, &sb) != 0)
        return spt__err(SPT_EPARSE, "%s: expected a member %s, found none", name, full);
    if (!(sb.valid & ZIP_STAT_SIZE) || !(sb.valid & ZIP_STAT_COMP_SIZE))
        return spt__err(SPT_EPARSE, "%s: expected a size for the member, found none", label);
    /* deflate cannot expand more than ~1032:1, so a larger claim is rejected before allocating */
    uint64_t bound = sb.comp_method == ZIP_CM_STORE ? sb.comp_size : sb.comp_size * 1040u + 4096u;
    if (sb.size > bound || sb.size > (uint64_t)INT64_MAX / 2)
        return spt__err(SPT_EPARSE, "%s: expected at most %llu bytes from %llu compressed bytes, found a claim of %llu", label,
                        (unsigned long long)bound, (unsigned long long)sb.comp_size, (unsigned long long)sb.size);
    char *buf = spt__alloc_array(fn, (int64_t)sb.size, 1, 1, false, &st);
    if (!buf) return st;
    zip_file_t *zf = zip_fopen(z, full, 0);
    if (!zf) {
        spt__free(buf);
        return spt__err(SPT_EPARSE, "%s: cannot open the member: %s", label, zip_strerror(z));
    }
    zip_uint64_t got = 0;
    while (got < sb.size) {
        zip_int64_t r = zip_fread(zf, buf + got, sb.size - got);
        if (r <= 0) break;
        got += (zip_uint64_t)r;
    }
    bool bad = got != sb.size;
    char extra;
    if (!bad && zip_fread(zf, &extra, 1) > 0) bad = true;
    if (bad) {
        st = spt__err(SPT_EPARSE, "%s: expected %llu bytes, found %llu (%s)", label, (unsigned long long)sb.size,
                      (unsigned long long)got, zip_file_strerror(zf));
        zip_fclose(zf);
        spt__free(buf);
        return st;
    }
    zip_fclose(zf);
    st = spt__npy_parse(fn, label, buf, (size_t)sb.size, out);
    spt__free(buf);
    return st;
}

/* Read only the header of member `m` (".npy" appended) and check that the bytes it declares (shape
 * times element size) are what the archive's directory says the member holds: the cheap checks of a
 * member's shape run before anything is inflated or allocated for its data. */
static spt_status peek(const char *fn, const char *name, zip_t *z, const char *m, spt__npy_head *h) {
    char full[64], label[512];
    snprintf(full, sizeof full, "%s.npy", m);
    snprintf(label, sizeof label, "%s[%s]", name, full);
    zip_stat_t sb;
    zip_stat_init(&sb);
    if (zip_stat(z, full, 0, &sb) != 0) return spt__err(SPT_EPARSE, "%s: expected a member %s, found none", name, full);
    if (!(sb.valid & ZIP_STAT_SIZE)) return spt__err(SPT_EPARSE, "%s: expected a size for the member, found none", label);
    zip_file_t *zf = zip_fopen(z, full, 0);
    if (!zf) return spt__err(SPT_EPARSE, "%s: cannot open the member: %s", label, zip_strerror(z));
    char head[1 << 14];
    size_t want = sb.size < sizeof head ? (size_t)sb.size : sizeof head, got = 0;
    while (got < want) {
        zip_int64_t r = zip_fread(zf, head + got, want - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    zip_fclose(zf);
    SPT__TRY(spt__npy_head_parse(fn, label, head, got, h));
    if (sb.size < h->hdr || sb.size - h->hdr != h->data) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, h->shape, h->rank);
        return spt__err(SPT_EPARSE,
                        "%s: expected %lld elements of %zu bytes for shape %s, found %llu bytes of data (the size in the "
                        "archive's directory)",
                        label, (long long)h->vol, h->isz, sh, (unsigned long long)(sb.size >= h->hdr ? sb.size - h->hdr : 0));
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
#define GI_UINT(T, p, v) ((uint64_t)(*(const T *)(p)) <= (uint64_t)INT64_MAX ? (*(v) = (int64_t)(*(const T *)(p)), true) : false)
#define GI_FLOAT(T, p, v) false
#define GI_COMPLEX(T, p, v) false
#define GI_STRING(T, p, v) false
static bool get_i64(const spt_dense *d, int64_t i, int64_t *v) {
    switch (d->dtype) {
#define X(E, name, T, KIND)                                                                        \
    case E:                                                                                        \
        return GI_##KIND(T, (const T *)d->data + i, v);
#include "spt_dtypes.def"
#undef X
    default: return false;
    }
}

static spt_status need_int_vec(const char *name, const char *m, const spt_dense *d, int64_t rank, int64_t len) {
    if (!spt_dtype_is_integer(d->dtype))
        return spt__err(SPT_EPARSE, "%s[%s.npy]: expected an integer array, found %s", name, m, spt_dtype_name(d->dtype));
    if (d->rank != rank || (rank == 1 && len >= 0 && d->shape[0] != len)) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, d->shape, d->rank);
        if (rank == 1 && len >= 0)
            return spt__err(SPT_EPARSE, "%s[%s.npy]: expected shape [%lld], found %s", name, m, (long long)len, sh);
        return spt__err(SPT_EPARSE, "%s[%s.npy]: expected a rank-%lld array, found shape %s", name, m, (long long)rank, sh);
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
static void restore_order(const char *fn, const char *name, zip_t *z, spt_tensor *t) {
    if (!has_member(z, "spt_meta.npy")) return;
    spt__npy_head h;
    if (peek(fn, name, z, "spt_meta", &h) != SPT_OK || h.vol != 1 || h.dtype != SPT_STRING || h.isz > SPT__META_CAP) return;
    spt_dense *d = NULL;
    if (member(fn, name, z, "spt_meta", &d) != SPT_OK) return;
    const spt_str *s = (const spt_str *)d->data;
    spt__order_restore_meta(t, s->data, s->data + s->len);
    spt_dense_free(d);
}

static spt_status read_pydata(const char *fn, const char *name, zip_t *z, spt_tensor **out) {
    spt_status st;
    spt_dense *coords = NULL, *data = NULL, *shp = NULL, *fill = NULL;
    spt_tensor *t = NULL;
    int64_t rank, shape[SPT_MAX_RANK];
    spt__npy_head hs, hd, hc, hf;
    SPT__TRY(peek(fn, name, z, "shape", &hs));
    SPT__TRY(want_vec(name, "shape", &hs, -1));
    if (hs.shape[0] > SPT_MAX_RANK)
        return spt__err(SPT_EPARSE, "%s[shape.npy]: expected at most %d dims, found %lld", name, SPT_MAX_RANK,
                        (long long)hs.shape[0]);
    SPT__TRY(peek(fn, name, z, "data", &hd));
    SPT__TRY(want_vec(name, "data", &hd, -1));
    SPT__TRY(peek(fn, name, z, "coords", &hc));
    if (!spt_dtype_is_integer(hc.dtype) || hc.rank != 2 || hc.shape[0] != hs.shape[0] || hc.shape[1] != hd.shape[0]) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, hc.shape, hc.rank);
        return spt__err(SPT_EPARSE, "%s[coords.npy]: expected integers of shape [%lld,%lld], found %s %s", name,
                        (long long)hs.shape[0], (long long)hd.shape[0], spt_dtype_name(hc.dtype), sh);
    }
    if (has_member(z, "fill_value.npy")) {
        SPT__TRY(peek(fn, name, z, "fill_value", &hf));
        if (hf.vol != 1) return spt__err(SPT_EPARSE, "%s[fill_value.npy]: expected one value, found %lld", name, (long long)hf.vol);
    }
    SPT__CHECK(member(fn, name, z, "shape", &shp));
    SPT__CHECK(read_shape(name, shp, &rank, shape));
    SPT__CHECK(member(fn, name, z, "data", &data));
    if (data->rank != 1) {
        st = spt__err(SPT_EPARSE, "%s[data.npy]: expected a rank-1 array, found rank %lld", name, (long long)data->rank);
        goto fail;
    }
    int64_t n = data->shape[0];
    SPT__CHECK(member(fn, name, z, "coords", &coords));
    if (!spt_dtype_is_integer(coords->dtype) || coords->rank != 2 || coords->shape[0] != rank || coords->shape[1] != n) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, coords->shape, coords->rank);
        st = spt__err(SPT_EPARSE, "%s[coords.npy]: expected integers of shape [%lld,%lld], found %s %s", name, (long long)rank,
                      (long long)n, spt_dtype_name(coords->dtype), sh);
        goto fail;
    }
    if (has_member(z, "fill_value.npy")) {
        SPT__CHECK(member(fn, name, z, "fill_value", &fill));
        bool zero = fill->size == 1 && fill->dtype != SPT_STRING;
        if (zero) {
            size_t es = spt_dtype_size(fill->dtype);
            if (spt_dtype_is_float(fill->dtype) || spt_dtype_is_complex(fill->dtype)) {
                double re = fill->dtype == SPT_FLOAT32 ? *(float *)fill->data
                            : fill->dtype == SPT_FLOAT64 ? *(double *)fill->data
                            : fill->dtype == SPT_COMPLEX64 ? ((float *)fill->data)[0] : ((double *)fill->data)[0];
                double im = fill->dtype == SPT_COMPLEX64 ? ((float *)fill->data)[1]
                            : fill->dtype == SPT_COMPLEX128 ? ((double *)fill->data)[1] : 0.0;
                zero = re == 0 && im == 0;
            } else
                zero = !memcmp(fill->data, spt__zero_elem, es);
        } else if (fill->dtype == SPT_STRING && fill->size == 1)
            zero = ((spt_str *)fill->data)[0].len == 0;
        if (!zero) {
            st = spt__err(SPT_EINVAL, "%s: fill_value is not zero; spt tensors have an implicit zero", name);
            goto fail;
        }
    }
    SPT__CHECK(spt__tensor_alloc(fn, data->dtype, rank, shape, n, NULL, &t));
    for (int64_t k = 0; k < rank; k++)
        for (int64_t i = 0; i < n; i++) {
            int64_t v;
            if (!get_i64(coords, k * n + i, &v) || v < 0 || v >= shape[k]) {
                if (!get_i64(coords, k * n + i, &v)) v = -1;
                st = bad_index(name, "coords", i, v, shape[k]);
                goto fail;
            }
            t->indices[i * rank + k] = v;
        }
    memcpy(t->values, data->data, (size_t)n * spt_dtype_size(data->dtype));
    if (t->dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, n));
    t->flags = SPT__F_VALID;
    restore_order(fn, name, z, t);
    spt_dense_free(coords);
    spt_dense_free(data);
    spt_dense_free(shp);
    spt_dense_free(fill);
    *out = t;
    return SPT_OK;
fail:
    spt_dense_free(coords);
    spt_dense_free(data);
    spt_dense_free(shp);
    spt_dense_free(fill);
    spt_tensor_free(t);
    return st;
}

/* The SciPy archive's indices into ix (n x 2): row/col pairs (coo), or expanded from indptr/indices. */
static spt_status fill_scipy(const char *name, bool coo, bool csr, const spt_dense *a, const spt_dense *b,
                             const int64_t *shape, int64_t n, int64_t *ix) {
    if (coo) {
        for (int64_t i = 0; i < n; i++) {
            int64_t r = -1, c = -1;
            if (!get_i64(a, i, &r) || r < 0 || r >= shape[0])
                return bad_index(name, "row", i, r, shape[0]);
            if (!get_i64(b, i, &c) || c < 0 || c >= shape[1])
                return bad_index(name, "col", i, c, shape[1]);
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
                if (!get_i64(b, i, &c) || c < 0 || c >= inner)
                    return bad_index(name, "indices", i, c, inner);
                ix[2 * i] = csr ? r : c;
                ix[2 * i + 1] = csr ? c : r;
            }
            prev = e;
        }
        if (prev != n)
            return spt__err(SPT_EPARSE, "%s[indptr.npy]: expected the last value %lld (the entry count), found %lld", name,
                            (long long)n, (long long)prev);
    }
    return SPT_OK;
}

static spt_status read_scipy(const char *fn, const char *name, zip_t *z, spt_tensor **out) {
    spt_status st;
    spt_dense *fmt = NULL, *data = NULL, *shp = NULL, *a = NULL, *b = NULL;
    spt_tensor *t = NULL;
    int64_t rank, shape[SPT_MAX_RANK];
    char f[8] = "";
    spt__npy_head hh;
    SPT__TRY(peek(fn, name, z, "format", &hh));
    if (hh.vol != 1 || hh.dtype != SPT_STRING || hh.isz > 64)
        return spt__err(SPT_EPARSE, "%s[format.npy]: expected one short string ('coo', 'csr' or 'csc'), found %lld element(s) of %s",
                        name, (long long)hh.vol, spt_dtype_name(hh.dtype));
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
        st = spt__err(SPT_EPARSE, "%s[shape.npy]: expected 2 dims for a SciPy matrix, found %lld", name, (long long)rank);
        goto fail;
    }
    SPT__CHECK(member(fn, name, z, "data", &data));
    if (data->rank != 1) {
        st = spt__err(SPT_EPARSE, "%s[data.npy]: expected a rank-1 array, found rank %lld", name, (long long)data->rank);
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

spt_status spt__npz_from_bytes(const char *fn, const char *name, const char *data, size_t len, spt_tensor **out) {
    spt_status st;
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(len ? data : "", len, 0, &ze);
    zip_t *z = NULL;
    if (src) {
        z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
        if (!z) zip_source_free(src);
    }
    if (!z) {
        st = spt__err(SPT_EPARSE, "%s: expected a zip archive (.npz), found something else: %s", name, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return st;
    }
    zip_error_fini(&ze);
    if (has_member(z, "binsparse.npy")) st = spt__binsparse_from_bytes(fn, name, data, len, out);
    else if (has_member(z, "coords.npy")) st = read_pydata(fn, name, z, out);
    else if (has_member(z, "format.npy")) st = read_scipy(fn, name, z, out);
    else if (has_member(z, "indptr.npy"))
        st = spt__err(SPT_EPARSE, "%s: expected a COO archive (coords.npy), found a GCXS one (not supported)", name);
    else st = spt__err(SPT_EPARSE, "%s: expected the members coords.npy or format.npy, found neither", name);
    zip_discard(z);
    return st;
}

spt_status spt_read_npz(const char *path, const spt_read_opts *opts, spt_tensor **out) {
    static const char fn[] = "spt_read_npz";
    (void)opts;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__file f;
    SPT__TRY(spt__file_load_magic(fn, path, "PK", 2, "zip (.npz)", &f));
    spt_status st = spt__npz_from_bytes(fn, f.name, f.data, f.len, out);
    spt__file_release(&f);
    return st;
}

/* ---- writing ---------------------------------------------------------------------------------- */

typedef struct bufs {
    char *b[8];
    int n;
} bufs;

static spt_status add_member(const char *fn, zip_t *z, bufs *keep, const char *m, spt_dtype dt, int64_t rank,
                             const int64_t *shape, const void *data) {
    char *b = NULL;
    size_t len = 0;
    SPT__TRY(spt__npy_build(fn, dt, rank, shape, data, &b, &len));
    keep->b[keep->n++] = b;
    zip_source_t *s = zip_source_buffer(z, b, len, 0);
    if (!s) return spt__err(SPT_ENOMEM, "%s: cannot add %s: %s", fn, m, zip_strerror(z));
    zip_int64_t at = zip_file_add(z, m, s, ZIP_FL_OVERWRITE);
    if (at < 0) {
        zip_source_free(s);
        return spt__err(SPT_EIO, "%s: cannot add %s: %s", fn, m, zip_strerror(z));
    }
    /* deflate at level 1: several times faster than the default, for most of the size gain */
    (void)zip_set_file_compression(z, (zip_uint64_t)at, ZIP_CM_DEFLATE, 1);
    return SPT_OK;
}

/* The member spt_meta.npy: the order statement (order.c) as a NumPy bytes scalar; SciPy and
 * pydata/sparse ignore members they do not know. */
static spt_status add_meta(const char *fn, zip_t *z, bufs *keep, const char *meta) {
    spt_str s = {meta, (int64_t)strlen(meta)};
    return add_member(fn, z, keep, "spt_meta.npy", SPT_STRING, 0, NULL, &s);
}

/* The member format.npy = 'coo' as NumPy unicode ('<U3'), as pydata/sparse 0.15 and later write it and
 * their load_npz requires (it names the class to build); older versions ignore it. */
static spt_status add_format_coo(const char *fn, zip_t *z, bufs *keep) {
    static const char dict[] = "{'descr': '<U3', 'fortran_order': False, 'shape': (), }";
    const size_t pre = 10, dl = sizeof dict - 1, hl = (pre + dl + 1 + 63) / 64 * 64 - pre, len = pre + hl + 12;
    char *b = spt__malloc(len);
    if (!b) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (char)(hl & 0xff);
    b[9] = (char)(hl >> 8);
    memcpy(b + pre, dict, dl);
    memset(b + pre + dl, ' ', hl - dl - 1);
    b[pre + hl - 1] = '\n';
    static const unsigned char coo[12] = {'c', 0, 0, 0, 'o', 0, 0, 0, 'o', 0, 0, 0}; /* UCS-4, little endian */
    memcpy(b + pre + hl, coo, sizeof coo);
    keep->b[keep->n++] = b;
    zip_source_t *src = zip_source_buffer(z, b, len, 0);
    if (!src) return spt__err(SPT_ENOMEM, "%s: cannot add format.npy: %s", fn, zip_strerror(z));
    if (zip_file_add(z, "format.npy", src, ZIP_FL_OVERWRITE) < 0) {
        zip_source_free(src);
        return spt__err(SPT_EIO, "%s: cannot add format.npy: %s", fn, zip_strerror(z));
    }
    return SPT_OK;
}

/* Write the finished in-memory archive `mem` to `path`. */
static spt_status copy_out(const char *fn, zip_source_t *mem, const char *path) {
    spt__out o;
    SPT__TRY(spt__out_open(fn, path, false, &o));
    if (zip_source_open(mem) != 0) {
        spt__out_abort(&o);
        return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, path, zip_error_strerror(zip_source_error(mem)));
    }
    char buf[1 << 14];
    zip_int64_t r;
    while ((r = zip_source_read(mem, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)r, o.fp) != (size_t)r) break;
    zip_source_close(mem);
    if (r != 0) {
        spt__out_abort(&o);
        return spt__err(SPT_EIO, "%s: cannot write %s", fn, path);
    }
    return spt__out_commit(fn, &o);
}

/* coords.npy (rank x n), data.npy, shape.npy, fill_value.npy and the order: pydata/sparse's COO. */
static spt_status write_pydata(const char *fn, const spt_tensor *t, zip_t *z, bufs *keep) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, R = t->rank;
    char meta[SPT__META_CAP];
    int64_t *ix = spt__alloc_array(fn, R, n, sizeof(int64_t), false, &st);
    if (!ix) return st;
    for (int64_t k = 0; k < R; k++)
        for (int64_t i = 0; i < n; i++) ix[k * n + i] = t->indices[i * R + k];
    int64_t cs[2] = {R, n}, ds[1] = {n}, shp1[1] = {R};
    static const spt_str empty = {"", 0};
    SPT__CHECK(add_member(fn, z, keep, "coords.npy", SPT_INT64, 2, cs, ix));
    SPT__CHECK(add_member(fn, z, keep, "data.npy", t->dtype, 1, ds, t->values));
    SPT__CHECK(add_member(fn, z, keep, "shape.npy", SPT_INT64, 1, shp1, t->shape));
    SPT__CHECK(add_member(fn, z, keep, "fill_value.npy", t->dtype, 0, NULL,
                          t->dtype == SPT_STRING ? (const void *)&empty : spt__zero_elem));
    SPT__CHECK(add_format_coo(fn, z, keep));
    if (spt__order_meta_format(t, meta, sizeof meta)) SPT__CHECK(add_meta(fn, z, keep, meta));
fail:
    spt__free(ix);
    return st;
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
static spt_status write_scipy(const char *fn, const spt_tensor *t, spt_format flavour, zip_t *z, bufs *keep) {
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
        SPT__CHECK(add_member(fn, z, keep, "row.npy", it, 1, ds, ix));
        SPT__CHECK(add_member(fn, z, keep, "col.npy", it, 1, ds, (char *)ix + (size_t)n * is));
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
        SPT__CHECK(add_member(fn, z, keep, "indices.npy", it, 1, ds, ix));
        SPT__CHECK(add_member(fn, z, keep, "indptr.npy", it, 1, ps, ptr));
    }
    static const spt_str fcoo = {"coo", 3}, fcsr = {"csr", 3};
    SPT__CHECK(add_member(fn, z, keep, "format.npy", SPT_STRING, 0, NULL,
                          flavour == SPT_FORMAT_NPZ_SCIPY_COO ? &fcoo : &fcsr));
    int64_t ss[1] = {2};
    SPT__CHECK(add_member(fn, z, keep, "shape.npy", SPT_INT64, 1, ss, t->shape));
    SPT__CHECK(add_member(fn, z, keep, "data.npy", t->dtype, 1, ds, vsrc));
    if (flavour == SPT_FORMAT_NPZ_SCIPY_CSR) /* the entries went out sorted row-major */
        snprintf(meta, sizeof meta, "order: 0 1 sorted%s", (t->flags & SPT__F_UNIQUE) ? " unique" : "");
    else spt__order_meta_format(t, meta, sizeof meta);
    if (meta[0]) SPT__CHECK(add_meta(fn, z, keep, meta));
fail:
    spt__free(ix);
    spt__free(six);
    spt__free(ptr);
    spt__free(vals);
    return st;
}

spt_status spt_write_npz(const spt_tensor *t, const char *path, spt_format flavour) {
    static const char fn[] = "spt_write_npz";
    spt_status st = SPT_OK;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (!strcmp(path, "-")) return spt__err(SPT_EINVAL, "%s: .npz cannot be written to stdout", fn);
    if (flavour == SPT_FORMAT_AUTO) flavour = SPT_FORMAT_NPZ;
    if (flavour != SPT_FORMAT_NPZ && flavour != SPT_FORMAT_NPZ_SCIPY_COO && flavour != SPT_FORMAT_NPZ_SCIPY_CSR)
        return spt__err(SPT_EINVAL, "%s: %s is not an .npz flavour", fn, spt_format_name(flavour));
    if (flavour != SPT_FORMAT_NPZ && t->rank != 2)
        return spt__err(SPT_EINVAL, "%s: SciPy archives hold matrices; the tensor has rank %lld", fn, (long long)t->rank);
    SPT__TRY(spt__ensure_valid(fn, t));
    zip_t *z = NULL;
    zip_source_t *mem = NULL;
    bufs keep = {{0}, 0};
    /* the archive is built in memory, then written through the common output path (spt__out) */
    zip_error_t zerr;
    zip_error_init(&zerr);
    mem = zip_source_buffer_create(NULL, 0, 0, &zerr);
    if (mem) {
        z = zip_open_from_source(mem, ZIP_TRUNCATE, &zerr);
        if (z) zip_source_keep(mem);
    }
    if (!z) {
        st = spt__err(SPT_ENOMEM, "%s: cannot start the archive for %s: %s", fn, path, zip_error_strerror(&zerr));
        zip_error_fini(&zerr);
        goto fail;
    }
    zip_error_fini(&zerr);
    if (flavour == SPT_FORMAT_NPZ) SPT__CHECK(write_pydata(fn, t, z, &keep));
    else SPT__CHECK(write_scipy(fn, t, flavour, z, &keep));
    if (zip_close(z) != 0) {
        st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, path, zip_strerror(z));
        goto fail;
    }
    z = NULL;
    st = copy_out(fn, mem, path);
fail:
    if (z) zip_discard(z);
    if (mem) zip_source_free(mem);
    for (int i = 0; i < keep.n; i++) spt__free(keep.b[i]);
    return st;
}
