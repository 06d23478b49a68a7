/* SPDX-License-Identifier: Apache-2.0 */
/* mtx.c -- Matrix Market: coordinate (read into sparse, symmetric kinds expanded), array (read into
 * dense), and coordinate general writing. */
#include "io.h"

#include <strings.h>

enum { F_REAL, F_INTEGER, F_COMPLEX, F_PATTERN };
enum { S_GENERAL, S_SYMMETRIC, S_SKEW, S_HERMITIAN };

typedef struct mm {
    bool coordinate;
    int field, sym;
    int64_t m, n, nnz;
    const char *body; /* first byte after the size line */
    int64_t body_line;
    int64_t size_line;
} mm;

/* Next blank-separated token of [*p, eol) into [*b, *e); false at end of line. */
static bool next_tok(const char **p, const char *eol, const char **b, const char **e) {
    const char *q = *p;
    while (q < eol && spt__is_blank(*q)) q++;
    if (q >= eol) {
        *b = *e = eol;
        *p = eol;
        return false;
    }
    *b = q;
    while (q < eol && !spt__is_blank(*q)) q++;
    *e = q;
    *p = q;
    return true;
}

static bool tok_is(const char *b, const char *e, const char *w) {
    size_t n = strlen(w);
    return (size_t)(e - b) == n && !strncasecmp(b, w, n);
}

/* The banner, comments and size line of buf[0..len) into h; `stream`: more text may follow len (the size
 * line's claim is then checked by the parser, not against the bytes present). */
static spt_status read_banner(const char *name, const char *buf, size_t len, bool stream, mm *h) {
    const char *end = buf + len, *p = buf;
    const char *nl = memchr(p, '\n', len);
    const char *eol = nl ? nl : end;
    const char *b, *e;
    char tk[64];
    memset(h, 0, sizeof *h);
    if (!next_tok(&p, eol, &b, &e) || !tok_is(b, e, "%%MatrixMarket")) {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected '%%%%MatrixMarket', found %s", name, tk);
    }
    if (!next_tok(&p, eol, &b, &e) || !tok_is(b, e, "matrix")) {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected the object 'matrix', found %s", name, tk);
    }
    next_tok(&p, eol, &b, &e);
    if (tok_is(b, e, "coordinate")) h->coordinate = true;
    else if (!tok_is(b, e, "array")) {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected the format 'coordinate' or 'array', found %s", name, tk);
    }
    next_tok(&p, eol, &b, &e);
    if (tok_is(b, e, "real") || tok_is(b, e, "double")) h->field = F_REAL;
    else if (tok_is(b, e, "integer")) h->field = F_INTEGER;
    else if (tok_is(b, e, "complex")) h->field = F_COMPLEX;
    else if (tok_is(b, e, "pattern") && h->coordinate) h->field = F_PATTERN;
    else {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected the field 'real', 'integer', 'complex'%s, found %s", name,
                        h->coordinate ? " or 'pattern'" : "", tk);
    }
    next_tok(&p, eol, &b, &e);
    if (tok_is(b, e, "general")) h->sym = S_GENERAL;
    else if (tok_is(b, e, "symmetric")) h->sym = S_SYMMETRIC;
    else if (tok_is(b, e, "skew-symmetric")) h->sym = S_SKEW;
    else if (tok_is(b, e, "hermitian") && h->field == F_COMPLEX) h->sym = S_HERMITIAN;
    else {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected the symmetry 'general', 'symmetric', 'skew-symmetric'%s, found %s",
                        name, h->field == F_COMPLEX ? " or 'hermitian'" : "", tk);
    }
    if (next_tok(&p, eol, &b, &e)) {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:1: expected the end of the header line, found %s", name, tk);
    }
    /* comments, then the size line */
    int64_t line = 2;
    p = nl ? nl + 1 : end;
    for (; p < end; line++) {
        nl = memchr(p, '\n', (size_t)(end - p));
        eol = nl ? nl : end;
        const char *q = p;
        while (q < eol && spt__is_blank(*q)) q++;
        if (q < eol && *q != '%') break;
        p = nl ? nl + 1 : end;
    }
    if (p >= end)
        return spt__err(SPT_EPARSE, "%s:%lld: expected the size line, found the end of the file", name,
                        (long long)line);
    int64_t v[3];
    int want = h->coordinate ? 3 : 2;
    const char *what[3] = {"the row count", "the column count", "the entry count"};
    for (int k = 0; k < want; k++) {
        if (!next_tok(&p, eol, &b, &e) || spt__parse_i64(b, e, &v[k]) != 0 || v[k] < 0) {
            spt__describe_token(tk, sizeof tk, b, e);
            return spt__err(SPT_EPARSE, "%s:%lld: expected %s (an integer >= 0), found %s", name, (long long)line,
                            what[k], tk);
        }
    }
    if (next_tok(&p, eol, &b, &e)) {
        spt__describe_token(tk, sizeof tk, b, e);
        return spt__err(SPT_EPARSE, "%s:%lld: expected %d numbers on the size line, found more: %s", name,
                        (long long)line, want, tk);
    }
    h->m = v[0];
    h->n = v[1];
    h->nnz = h->coordinate ? v[2] : 0;
    h->size_line = line;
    h->body = nl ? nl + 1 : end;
    h->body_line = line + 1;
    int64_t vol = 0; /* a coordinate matrix may have any size; an array one lists every element */
    if (!h->coordinate && spt__mul_i64(h->m, h->n, &vol))
        return spt__err(SPT_EPARSE, "%s:%lld: expected an array matrix whose size fits in int64, found %lld x %lld",
                        name, (long long)line, (long long)h->m, (long long)h->n);
    if (h->sym != S_GENERAL && h->m != h->n)
        return spt__err(SPT_EPARSE, "%s:%lld: expected a square matrix for a symmetric kind, found %lld x %lld", name,
                        (long long)line, (long long)h->m, (long long)h->n);
    /* every entry needs at least 2 bytes ("1\n"), so a claim beyond that is a lie, rejected before use */
    int64_t avail = (int64_t)((size_t)(end - h->body) / 2 + 1);
    int64_t claim = h->coordinate ? h->nnz : vol;
    if (!h->coordinate && h->sym != S_GENERAL) claim = (vol - h->m) / 2;
    if (claim > avail && !stream)
        return spt__err(SPT_EPARSE,
                        "%s:%lld: expected at most %lld %s for the %lld bytes that follow, found a claim of %lld", name,
                        (long long)line, (long long)avail, h->coordinate ? "entries" : "values",
                        (long long)(end - h->body), (long long)claim);
    return SPT_OK;
}

static spt_dtype field_dtype(int field) {
    return field == F_INTEGER ? SPT_INT64 : field == F_COMPLEX ? SPT_COMPLEX128 : SPT_FLOAT64;
}

static spt_status check_dtype(const char *fn, const mm *h, const spt_read_opts *opts, spt_dtype *dt) {
    *dt = field_dtype(h->field);
    if (opts && opts->has_dtype) {
        spt_dtype d = opts->dtype;
        if ((unsigned)d >= SPT_NUM_DTYPES || d == SPT_STRING)
            return spt__err(SPT_EDTYPE, "%s: Matrix Market files hold numbers, not %s values", fn,
                            spt_dtype_name(d) ? spt_dtype_name(d) : "invalid");
        if (h->field == F_COMPLEX && !spt_dtype_is_complex(d))
            return spt__err(SPT_EDTYPE, "%s: a complex file cannot be read as %s", fn, spt_dtype_name(d));
        if (h->sym == S_SKEW && (d == SPT_BOOL || (!spt_dtype_is_float(d) && !spt_dtype_is_complex(d) &&
                                                   !(spt_dtype_is_integer(d) && d <= SPT_INT64))))
            return spt__err(SPT_EDTYPE, "%s: a skew-symmetric file needs a signed dtype, not %s", fn,
                            spt_dtype_name(d));
        *dt = d;
    }
    return SPT_OK;
}

/* Negate / conjugate value i in place. */
#define NEG_BOOL(T, x) (x)
#define NEG_INT(T, x) ((T)(0 - (x)))
#define NEG_UINT(T, x) ((T)(0 - (x)))
#define NEG_FLOAT(T, x) (-(x))
#define NEG_COMPLEX(T, x) (-(x))
#define NEG_STRING(T, x) (x)
#define CONJ_BOOL(T, x) (x)
#define CONJ_INT(T, x) (x)
#define CONJ_UINT(T, x) (x)
#define CONJ_FLOAT(T, x) (x)
#define CONJ_COMPLEX(T, x) ((T)conj(x))
#define CONJ_STRING(T, x) (x)
static void mirror_value(spt_dtype d, void *v, int64_t i, int sym) {
    switch (d) {
#define X(E, name, T, KIND)                                                                                            \
    case E: {                                                                                                          \
        T *a = v;                                                                                                      \
        if (sym == S_SKEW) a[i] = NEG_##KIND(T, a[i]);                                                                 \
        else if (sym == S_HERMITIAN) a[i] = CONJ_##KIND(T, a[i]);                                                      \
        break;                                                                                                         \
    }
#include "spt_dtypes.def"
#undef X
    default: break;
    }
}

static spt_status expand(const char *fn, spt_tensor *t, int sym, spt_tensor **out) {
    spt_status st;
    spt_tensor *r = NULL;
    *out = NULL;
    int64_t extra = 0;
    for (int64_t i = 0; i < t->nnz; i++) extra += t->indices[2 * i] != t->indices[2 * i + 1];
    SPT__TRY(spt__tensor_alloc(fn, t->dtype, 2, t->shape, t->nnz + extra, NULL, &r));
    size_t es = spt_dtype_size(t->dtype);
    int64_t o = 0;
    for (int64_t i = 0; i < t->nnz; i++) {
        int64_t a = t->indices[2 * i], b = t->indices[2 * i + 1];
        r->indices[2 * o] = a;
        r->indices[2 * o + 1] = b;
        spt__copy_elem(r->values, o, t->values, i, es);
        o++;
        if (a != b) {
            r->indices[2 * o] = b;
            r->indices[2 * o + 1] = a;
            spt__copy_elem(r->values, o, t->values, i, es);
            mirror_value(t->dtype, r->values, o, sym);
            o++;
        }
    }
    r->flags = SPT__F_VALID;
    *out = r;
    return SPT_OK;
    (void)st;
}

/* How a coordinate file's entries are parsed (shape[2] receives the matrix size). */
static spt_status coord_spec(const char *fn, const char *name, const mm *h, const spt_read_opts *opts, spt_dtype *dt,
                             int64_t *shape, spt__coord_spec *sp) {
    SPT__TRY(check_dtype(fn, h, opts, dt));
    *sp = (spt__coord_spec){.name = name, .first_line = h->body_line, .rank = 2, .comment = '%'};
    shape[0] = h->m;
    shape[1] = h->n;
    sp->shape = shape;
    spt__value_kind(*dt, sp);
    if (h->field == F_PATTERN) sp->nval = 0;
    else if (h->field == F_COMPLEX) sp->nval = 2;
    else sp->nval = 1;
    if (h->field == F_REAL && !(opts && opts->has_dtype)) sp->vkind = SPT__VK_FLOAT, sp->vname = "a real value";
    if (h->field == F_INTEGER && !(opts && opts->has_dtype)) sp->vname = "an integer value";
    return SPT_OK;
}

/* The matrix from the parsed entries (res is freed): the count checked, symmetric kinds expanded. */
static spt_status coord_finish(const char *fn, const char *name, const mm *h, spt_dtype dt, const int64_t *shape,
                               spt__coord_result *res, spt_tensor **out) {
    spt_status st;
    spt_tensor *t = NULL;
    if (res->n != h->nnz) {
        st = spt__err(SPT_EPARSE, "%s:%lld: expected %lld entries (the size line's count), found %lld", name,
                      (long long)(h->body_line + res->lines - 1), (long long)h->nnz, (long long)res->n);
        goto fail;
    }
    SPT__CHECK(spt__tensor_from_coords(fn, dt, 2, shape, res, h->field == F_PATTERN, &t));
    spt__coord_result_free(res);
    if (h->sym != S_GENERAL) {
        spt_tensor *r = NULL;
        st = expand(fn, t, h->sym, &r);
        spt_tensor_free(t);
        t = r;
        if (st != SPT_OK) return st;
    }
    *out = t;
    return SPT_OK;
fail:
    spt__coord_result_free(res);
    spt_tensor_free(t);
    return st;
}

static spt_status read_coordinate(const char *fn, const char *name, const char *buf, size_t len, const mm *h,
                                  const spt_read_opts *opts, spt_tensor **out) {
    spt__coord_result res = {0};
    spt_dtype dt;
    int64_t shape[2];
    spt__coord_spec sp;
    SPT__TRY(coord_spec(fn, name, h, opts, &dt, shape, &sp));
    spt__read_progress(&sp.progress, &sp.progress_ctx);
    SPT__TRY(spt__parse_coords(fn, h->body, (size_t)(buf + len - h->body), &sp, &res));
    return coord_finish(fn, name, h, dt, shape, &res, out);
}

static spt_status read_array(const char *fn, const char *name, const char *buf, size_t len, const mm *h,
                             const spt_read_opts *opts, spt_dense **out) {
    spt_status st;
    spt_dense *d = NULL;
    spt_dtype dt;
    SPT__TRY(check_dtype(fn, h, opts, &dt));
    spt__coord_spec sp = {0};
    spt__value_kind(dt, &sp);
    if (h->field == F_REAL && !(opts && opts->has_dtype)) sp.vkind = SPT__VK_FLOAT;
    int64_t shape[2] = {h->m, h->n};
    SPT__TRY(spt_dense_new(dt, 2, shape, &d));
    const char *p = h->body, *end = buf + len;
    int64_t line = h->body_line;
    char tk[64];
    const int64_t M = h->m, N = h->n;
    /* column-major; symmetric kinds list the lower triangle (skew: strictly lower) */
    int nf = h->field == F_COMPLEX ? 2 : 1;
    int64_t want = h->sym == S_GENERAL ? M * N : h->sym == S_SKEW ? M * (M - 1) / 2 : M * (M + 1) / 2;
    for (int64_t j = 0; M > 0 && j < N; j++) /* M = 0: no values, whatever N claims */
        for (int64_t i = h->sym == S_GENERAL ? 0 : h->sym == S_SKEW ? j + 1 : j; i < M; i++) {
            uint64_t v0 = 0;
            double v1 = 0;
            bool isf = false;
            for (int f = 0; f < nf; f++) {
                for (;;) { /* skip blanks, newlines and comment lines */
                    while (p < end && spt__is_blank(*p)) p++;
                    if (p < end && *p == '\n') {
                        p++;
                        line++;
                    } else if (p < end && *p == '%') {
                        while (p < end && *p != '\n') p++;
                    } else break;
                }
                if (p >= end) {
                    st = spt__err(SPT_EPARSE, "%s:%lld: expected %lld values, found the end of the file", name,
                                  (long long)line, (long long)want);
                    goto fail;
                }
                const char *b = p;
                while (p < end && !spt__is_blank(*p) && *p != '\n') p++;
                const char *e = p;
                int r;
                if (f == 1 || sp.vkind == SPT__VK_FLOAT) {
                    double x = 0;
                    r = spt__parse_f64(b, e, &x);
                    if (f == 1) v1 = x;
                    else {
                        memcpy(&v0, &x, 8);
                        isf = true;
                    }
                } else if (sp.vkind == SPT__VK_UINT64) {
                    r = spt__parse_u64(b, e, &v0);
                } else {
                    int64_t x = 0;
                    r = spt__parse_i64(b, e, &x);
                    if (r == 0 && (x < sp.lo || x > sp.hi)) r = 2;
                    v0 = (uint64_t)x;
                }
                if (r) {
                    spt__describe_token(tk, sizeof tk, b, e);
                    st = spt__err(SPT_EPARSE, "%s:%lld: expected %s%s, found %s", name, (long long)line,
                                  r == 2 ? "in range " : "", f == 1 ? "an imaginary part" : sp.vname, tk);
                    goto fail;
                }
            }
            spt__store_value(dt, d->data, i * N + j, v0, v1, isf);
            if (h->sym != S_GENERAL && i != j) {
                spt__store_value(dt, d->data, j * N + i, v0, v1, isf);
                mirror_value(dt, d->data, j * N + i, h->sym);
            }
        }
    /* nothing but blanks and comments may follow */
    for (;;) {
        while (p < end && spt__is_blank(*p)) p++;
        if (p >= end) break;
        if (*p == '\n') {
            p++;
            line++;
            continue;
        }
        if (*p == '%') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        const char *b = p;
        while (p < end && !spt__is_blank(*p) && *p != '\n') p++;
        spt__describe_token(tk, sizeof tk, b, p);
        st = spt__err(SPT_EPARSE, "%s:%lld: expected the end of the file after the matrix's values, found %s", name,
                      (long long)line, tk);
        goto fail;
    }
    *out = d;
    return SPT_OK;
fail:
    spt_dense_free(d);
    return st;
}

spt_status spt__mtx_from_bytes(const char *fn, const char *name, const char *data, size_t len,
                               const spt_read_opts *opts, spt_tensor **out) {
    mm h;
    spt__skip_bom(&data, &len);
    SPT__TRY(read_banner(name, data, len, false, &h));
    if (h.coordinate) {
        SPT__TRY(read_coordinate(fn, name, data, len, &h, opts, out));
        spt__order_restore_header(*out, data, len, "% spt"); /* a stated order, verified */
        return SPT_OK;
    }
    spt_dense *d = NULL;
    spt_status st = read_array(fn, name, data, len, &h, opts, &d);
    if (st == SPT_OK) st = spt_from_dense(d, NULL, out);
    spt_dense_free(d);
    return st;
}

/* ---- a stream ------------------------------------------------------------------------------- */

/* Whether buf[0..len) holds the whole banner, the comments and the size line (with its end of line). */
static bool head_complete(const char *buf, size_t len) {
    const char *p = buf, *end = buf + len, *nl = memchr(p, '\n', len);
    if (!nl) return false;
    for (p = nl + 1; p < end; p = nl + 1) {
        if (!(nl = memchr(p, '\n', (size_t)(end - p)))) return false;
        const char *q = p;
        while (q < nl && spt__is_blank(*q)) q++;
        if (q < nl && *q != '%') return true;
    }
    return false;
}

static spt_status mtx_stream_coords(const char *fn, spt__stream *s, spt__pieces *b, const mm *h,
                                    const spt_read_opts *opts, spt_tensor **out) {
    spt__coord_result acc = {0};
    spt_dtype dt;
    int64_t shape[2];
    spt__coord_spec sp;
    size_t hlen = (size_t)(h->body - b->p);
    char *hdr = spt__malloc(hlen ? hlen : 1); /* kept for an order statement */
    if (!hdr) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(hdr, b->p, hlen);
    spt_status st = coord_spec(fn, s->name, h, opts, &dt, shape, &sp);
    if (st == SPT_OK) {
        memmove(b->p, h->body, b->len - hlen);
        b->len -= hlen;
        st = spt__pieces_parse(fn, s, b, &sp, h->body_line, &acc);
    }
    if (st == SPT_OK) st = coord_finish(fn, s->name, h, dt, shape, &acc, out);
    else spt__coord_result_free(&acc);
    if (st == SPT_OK) spt__order_restore_header(*out, hdr, hlen, "% spt");
    spt__free(hdr);
    return st;
}

spt_status spt__mtx_stream(const char *fn, spt__stream *s, const spt_read_opts *opts, spt_tensor **out) {
    spt_status st;
    spt__pieces b = {spt__malloc(SPT__PIECE), 0, SPT__PIECE, false};
    if (!b.p) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    SPT__CHECK(spt__pieces_fill(fn, s, &b, false));
    const char *nb = b.p;
    size_t nl = b.len;
    spt__skip_bom(&nb, &nl);
    if (nl != b.len) memmove(b.p, nb, b.len = nl); /* a byte-order mark before the banner: dropped */
    while (!b.eof && !head_complete(b.p, b.len)) SPT__CHECK(spt__pieces_fill(fn, s, &b, true)); /* long comments */
    mm h;
    SPT__CHECK(read_banner(s->name, b.p, b.len, !b.eof, &h));
    if (h.coordinate) st = mtx_stream_coords(fn, s, &b, &h, opts, out);
    else { /* an array file lists every element: the text whole, then as from a file */
        while (!b.eof) SPT__CHECK(spt__pieces_fill(fn, s, &b, true));
        st = spt__mtx_from_bytes(fn, s->name, b.p, b.len, opts, out);
    }
fail:
    spt__free(b.p);
    return st;
}

spt_status spt_read_mtx(const char *path, const spt_read_opts *opts, spt_tensor **out) {
    static const char fn[] = "spt_read_mtx";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__stream s;
    spt__file f;
    bool loaded;
    SPT__TRY(spt__stream_open(fn, path, &s, &f, &loaded));
    spt_status st;
    if (loaded) { /* a regular file (mapped) or a tar member */
        st = spt__mtx_from_bytes(fn, f.name, f.data, f.len, opts, out);
        spt__file_release(&f);
    } else {
        st = spt__mtx_stream(fn, &s, opts, out);
        spt__stream_close(&s);
    }
    return st;
}

spt_status spt_read_mtx_dense(const char *path, const spt_read_opts *opts, spt_dense **out) {
    static const char fn[] = "spt_read_mtx_dense";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__file f;
    SPT__TRY(spt__file_load(fn, path, &f));
    const char *name = f.name, *data = f.data;
    size_t len = f.len;
    spt__skip_bom(&data, &len);
    mm h;
    spt_status st = read_banner(name, data, len, false, &h);
    if (st == SPT_OK) {
        if (h.coordinate)
            st = spt__err(SPT_EPARSE, "%s:1: expected the format 'array', found 'coordinate' (use spt_read_mtx)", name);
        else st = read_array(fn, name, data, len, &h, opts, out);
    }
    spt__file_release(&f);
    return st;
}

spt_status spt_write_mtx(const spt_tensor *t, const char *path) {
    static const char fn[] = "spt_write_mtx";
    spt__out o;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (t->rank != 2)
        return spt__err(SPT_EINVAL, "%s: Matrix Market holds matrices; the tensor has rank %lld", fn,
                        (long long)t->rank);
    if (t->dtype == SPT_STRING) return spt__err(SPT_EDTYPE, "%s: Matrix Market files hold numbers, not strings", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    SPT__TRY(spt__out_open(fn, path, true, &o));
    const char *field = spt_dtype_is_complex(t->dtype) ? "complex" : spt_dtype_is_float(t->dtype) ? "real" : "integer";
    char meta[SPT__META_CAP];
    fprintf(o.fp, "%%%%MatrixMarket matrix coordinate %s general\n", field);
    if (spt__order_meta_format(t, meta, sizeof meta)) fprintf(o.fp, "%% spt %s\n", meta);
    fprintf(o.fp, "%lld %lld %lld\n", (long long)t->shape[0], (long long)t->shape[1], (long long)t->nnz);
    spt_status st = spt__write_entry_lines(fn, t, 1, o.fp);
    if (st != SPT_OK) {
        spt__out_abort(&o);
        return st;
    }
    return spt__out_commit(fn, &o);
}
