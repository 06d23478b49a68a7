/* SPDX-License-Identifier: Apache-2.0 */
/* tns.c -- FROSTT .tns text: read (parallel) and write. */
#include "io.h"

#include <strings.h>

void spt__value_kind(spt_dtype d, spt__coord_spec *sp) {
    sp->nval = 1;
    switch (d) {
    case SPT_BOOL: sp->vkind = SPT__VK_INT, sp->lo = 0, sp->hi = 1, sp->vname = "a bool value (0 or 1)"; break;
    case SPT_INT8: sp->vkind = SPT__VK_INT, sp->lo = INT8_MIN, sp->hi = INT8_MAX, sp->vname = "an int8 value"; break;
    case SPT_INT16: sp->vkind = SPT__VK_INT, sp->lo = INT16_MIN, sp->hi = INT16_MAX, sp->vname = "an int16 value"; break;
    case SPT_INT32: sp->vkind = SPT__VK_INT, sp->lo = INT32_MIN, sp->hi = INT32_MAX, sp->vname = "an int32 value"; break;
    case SPT_INT64: sp->vkind = SPT__VK_INT, sp->lo = INT64_MIN, sp->hi = INT64_MAX, sp->vname = "an int64 value"; break;
    case SPT_UINT8: sp->vkind = SPT__VK_INT, sp->lo = 0, sp->hi = UINT8_MAX, sp->vname = "a uint8 value"; break;
    case SPT_UINT16: sp->vkind = SPT__VK_INT, sp->lo = 0, sp->hi = UINT16_MAX, sp->vname = "a uint16 value"; break;
    case SPT_UINT32: sp->vkind = SPT__VK_INT, sp->lo = 0, sp->hi = UINT32_MAX, sp->vname = "a uint32 value"; break;
    case SPT_UINT64: sp->vkind = SPT__VK_UINT64, sp->vname = "a uint64 value"; break;
    case SPT_FLOAT32: sp->vkind = SPT__VK_FLOAT, sp->vname = "a float32 value"; break;
    case SPT_FLOAT64: sp->vkind = SPT__VK_FLOAT, sp->vname = "a float64 value"; break;
    case SPT_COMPLEX64: sp->vkind = SPT__VK_FLOAT, sp->nval = 2, sp->vname = "a complex real part"; break;
    case SPT_COMPLEX128: sp->vkind = SPT__VK_FLOAT, sp->nval = 2, sp->vname = "a complex real part"; break;
    default: sp->vkind = SPT__VK_INFER, sp->vname = "a number"; break;
    }
}

spt_status spt__tensor_from_coords(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape,
                                   spt__coord_result *res, bool ones, spt_tensor **out) {
    spt_status st;
    spt_tensor *t = NULL;
    const int64_t n = res->n;
    *out = NULL;
    SPT__CHECK(spt__tensor_alloc(fn, dtype, rank, shape, 0, NULL, &t));
    if (n > 0 && t->volume == 0) {
        st = spt__err(SPT_ERANGE, "%s: %lld entries but the shape has no element", fn, (long long)n);
        goto fail;
    }
    size_t bytes;
    if (spt__bytes3(n, 1, spt_dtype_size(dtype), &bytes)) {
        st = spt__err(SPT_EOVERFLOW, "%s: %lld entries do not fit in memory sizes", fn, (long long)n);
        goto fail;
    }
    spt__free(t->indices);
    t->indices = res->idx;
    res->idx = NULL;
    bool adopt = !ones && res->v0 && !res->v1 &&
                 ((dtype == SPT_INT64 || dtype == SPT_UINT64 || dtype == SPT_FLOAT64) && (!res->isflt || dtype == SPT_FLOAT64 || !res->any_float));
    if (adopt) {
        if (res->isflt && dtype == SPT_FLOAT64) {
            for (int64_t i = 0; i < n; i++)
                if (!res->isflt[i]) {
                    double d = (double)(int64_t)res->v0[i];
                    memcpy(&res->v0[i], &d, 8);
                }
        }
        spt__free(t->values);
        t->values = res->v0;
        res->v0 = NULL;
    } else {
        void *v = spt__alloc_array(fn, n, 1, spt_dtype_size(dtype), true, &st);
        if (!v) goto fail;
        spt__free(t->values);
        t->values = v;
        bool vf = spt_dtype_is_float(dtype) || spt_dtype_is_complex(dtype);
        for (int64_t i = 0; i < n; i++) {
            if (ones) {
                double one = 1.0;
                uint64_t b;
                memcpy(&b, &one, 8);
                spt__store_value(dtype, v, i, vf ? b : 1, 0.0, vf);
            } else
                spt__store_value(dtype, v, i, res->v0[i], res->v1 ? res->v1[i] : 0.0,
                                 res->isflt ? res->isflt[i] != 0 : vf);
        }
    }
    t->nnz = n;
    t->flags = SPT__F_VALID;
    /* shrink the adopted buffers to size (never fails) */
    size_t ib = (size_t)n * (size_t)rank * sizeof(int64_t);
    void *p = spt__realloc(t->indices, ib);
    if (p) t->indices = p;
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}

/* "# dtype: NAME" and "# shape: d0 d1 ..." comments before the first entry. */
typedef struct header {
    bool has_dtype, has_shape;
    spt_dtype dtype;
    int64_t rank;
    int64_t shape[SPT_MAX_RANK];
} header;

static bool word_at(const char **pp, const char *eol, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(eol - *pp) >= n && !strncasecmp(*pp, w, n)) {
        *pp += n;
        return true;
    }
    return false;
}

static spt_status read_header(const char *fn, const char *name, const char *buf, size_t len, header *h,
                              const char **first_entry, int64_t *first_line) {
    const char *p = buf, *end = buf + len;
    int64_t line = 1;
    char tk[64];
    *first_entry = NULL;
    for (; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *q = p;
        while (q < eol && spt__is_blank(*q)) q++;
        if (q < eol && *q != '#') {
            *first_entry = p;
            *first_line = line;
            return SPT_OK;
        }
        if (q < eol) {
            q++;
            while (q < eol && spt__is_blank(*q)) q++;
            if (word_at(&q, eol, "dtype:")) {
                while (q < eol && spt__is_blank(*q)) q++;
                const char *e = q;
                while (e < eol && !spt__is_blank(*e)) e++;
                char nm[32];
                size_t k = (size_t)(e - q);
                if (k == 0 || k >= sizeof nm || (memcpy(nm, q, k), nm[k] = 0, spt_dtype_from_name(nm, &h->dtype)) != SPT_OK) {
                    spt__describe_token(tk, sizeof tk, q, e);
                    return spt__err(SPT_EPARSE, "%s:%lld: expected a dtype name after '# dtype:', found %s", name,
                                    (long long)line, tk);
                }
                h->has_dtype = true;
            } else if (word_at(&q, eol, "shape:")) {
                h->rank = 0;
                for (;;) {
                    while (q < eol && spt__is_blank(*q)) q++;
                    if (q >= eol) break;
                    const char *e = q;
                    while (e < eol && !spt__is_blank(*e)) e++;
                    int64_t v = -1;
                    if (h->rank >= SPT_MAX_RANK || spt__parse_i64(q, e, &v) != 0 || v < 0) {
                        spt__describe_token(tk, sizeof tk, q, e);
                        return spt__err(SPT_EPARSE, "%s:%lld: expected %s, found %s", name, (long long)line,
                                        h->rank >= SPT_MAX_RANK ? "at most 64 dims" : "a dimension (an integer >= 0)", tk);
                    }
                    h->shape[h->rank++] = v;
                    q = e;
                }
                h->has_shape = true;
            }
        }
        p = nl ? nl + 1 : end;
    }
    (void)fn;
    *first_line = line;
    return SPT_OK;
}

static spt_status parse_tns(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int base,
                            spt_tensor **out) {
    static const char fn[] = "spt_read_tns";
    spt_status st;
    spt__coord_result res = {0};
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!buf && len) return spt__err(SPT_EINVAL, "%s: buffer is NULL", fn);
    if (!name) name = "<memory>";
    spt__skip_bom(&buf, &len);
    static const spt_read_opts none = {0};
    if (!opts) opts = &none;
    header h = {0};
    const char *first = NULL;
    int64_t first_line = 1;
    SPT__TRY(read_header(fn, name, buf, len, &h, &first, &first_line));
    if (opts->has_dtype && h.has_dtype && opts->dtype != h.dtype) /* complex would read two columns as one value */
        return spt__err(SPT_EINVAL, "%s: %s: the header says dtype %s, but %s was asked for", fn, name,
                        spt_dtype_name(h.dtype),
                        spt_dtype_name(opts->dtype) ? spt_dtype_name(opts->dtype) : "an invalid dtype");
    bool has_dtype = opts->has_dtype || h.has_dtype;
    spt_dtype dtype = opts->has_dtype ? opts->dtype : h.dtype;
    if (has_dtype && ((unsigned)dtype >= SPT_NUM_DTYPES || dtype == SPT_STRING))
        return spt__err(SPT_EDTYPE, "%s: .tns files hold numbers, not %s values", fn,
                        spt_dtype_name(dtype) ? spt_dtype_name(dtype) : "invalid");
    if (base != 0 && base != 1) return spt__err(SPT_EINVAL, "%s: the index base must be 0 or 1, not %d", fn, base);
    spt__coord_spec sp = {.name = name, .first_line = 1, .comment = '#', .zero_based = base == 0};
    spt__read_progress(&sp.progress, &sp.progress_ctx);
    spt__value_kind(has_dtype ? dtype : SPT_NUM_DTYPES, &sp);
    const int64_t *shape = NULL;
    int64_t rank;
    if (opts->shape) {
        SPT__TRY(spt__check_dims(fn, opts->rank, opts->shape, NULL));
        shape = opts->shape;
        rank = opts->rank;
    } else if (h.has_shape) {
        shape = h.shape;
        rank = h.rank;
    } else if (first) {
        const char *nl = memchr(first, '\n', (size_t)(buf + len - first));
        const char *eol = nl ? nl : buf + len;
        int64_t nf = 0;
        for (const char *p = first; p < eol;) {
            while (p < eol && spt__is_blank(*p)) p++;
            if (p >= eol) break;
            nf++;
            while (p < eol && !spt__is_blank(*p)) p++;
        }
        rank = nf - sp.nval;
        if (rank < 0 || rank > SPT_MAX_RANK) {
            if (rank < 0)
                return spt__err(SPT_EPARSE, "%s:%lld: expected at least %d field%s (indices then the value), found %lld",
                                name, (long long)first_line, sp.nval, sp.nval == 1 ? "" : "s", (long long)nf);
            return spt__err(SPT_EPARSE, "%s:%lld: expected at most %d indices, found %lld fields", name,
                            (long long)first_line, SPT_MAX_RANK, (long long)nf);
        }
    } else
        rank = 0;
    if (shape) SPT__TRY(spt__check_dims(fn, rank, shape, NULL));
    sp.rank = rank;
    sp.shape = shape;
    SPT__CHECK(spt__parse_coords(fn, buf, len, &sp, &res));
    if (!has_dtype) dtype = res.any_float ? SPT_FLOAT64 : SPT_INT64;
    if (!shape) {
        if (res.n == 0 && rank > 0) {
            /* no entries and no shape: every dim 0 */
            for (int64_t k = 0; k < rank; k++) res.maxidx[k] = 0;
        }
        shape = res.maxidx;
    }
    SPT__CHECK(spt__tensor_from_coords(fn, dtype, rank, shape, &res, false, out));
    spt__coord_result_free(&res);
    spt__order_restore_header(*out, buf, len, "#"); /* a stated order, verified */
    return SPT_OK;
fail:
    spt__coord_result_free(&res);
    return st;
}

spt_status spt_parse_tns(const char *buf, size_t len, const char *name, const spt_read_opts *opts,
                         spt_tensor **out) {
    return parse_tns(buf, len, name, opts, 1, out);
}

spt_status spt_parse_tns_base(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int index_base,
                              spt_tensor **out) {
    return parse_tns(buf, len, name, opts, index_base, out);
}

spt_status spt_read_tns_base(const char *path, const spt_read_opts *opts, int index_base, spt_tensor **out) {
    static const char fn[] = "spt_read_tns";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__file f;
    SPT__TRY(spt__file_load(fn, path, &f));
    spt_status st = parse_tns(f.data, f.len, spt__display_name(path), opts, index_base, out);
    spt__file_release(&f);
    return st;
}

spt_status spt_read_tns(const char *path, const spt_read_opts *opts, spt_tensor **out) {
    return spt_read_tns_base(path, opts, 1, out);
}

/* Decimal digits of v into the end of a buffer; returns the start. */
static char *utoa_rev(char *end, uint64_t v) {
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* Format entries [b, e) as lines into buf; returns the bytes written. */
static size_t format_lines(const spt_tensor *t, int64_t b, int64_t e, int base, char *buf) {
    const int64_t R = t->rank;
    char *w = buf;
    for (int64_t i = b; i < e; i++) {
        for (int64_t k = 0; k < R; k++) {
            char tmp[24];
            char *s = utoa_rev(tmp + sizeof tmp, (uint64_t)t->indices[i * R + k] + (uint64_t)base);
            size_t m = (size_t)(tmp + sizeof tmp - s);
            memcpy(w, s, m);
            w += m;
            *w++ = ' ';
        }
        int m = spt__fmt_value(w, 100, t->dtype, t->values, i);
        w += m > 0 ? m : 0;
        *w++ = '\n';
    }
    return (size_t)(w - buf);
}

spt_status spt_write_tns(const spt_tensor *t, const char *path) { return spt_write_tns_base(t, path, 1); }

spt_status spt_write_tns_base(const spt_tensor *t, const char *path, int index_base) {
    static const char fn[] = "spt_write_tns";
    spt_status st = SPT_OK;
    spt__out o;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (index_base != 0 && index_base != 1)
        return spt__err(SPT_EINVAL, "%s: the index base must be 0 or 1, not %d", fn, index_base);
    if (t->dtype == SPT_STRING) return spt__err(SPT_EDTYPE, "%s: .tns files hold numbers, not strings", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    /* blocks of lines are formatted in parallel into per-thread buffers, then written in order */
    const int64_t R = t->rank, n = t->nnz;
    const int64_t linecap = R * 21 + 110;
    int64_t block = (4 << 20) / linecap;
    if (block < 1) block = 1;
    int nth = spt__threads_for(n * 4);
    if (nth < 1) nth = 1;
    char *buf = spt__alloc_array(fn, nth, block * linecap, 1, false, &st);
    if (!buf) return st;
    size_t *len = spt__calloc((size_t)nth, sizeof *len);
    if (!len) {
        spt__free(buf);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    st = spt__out_open(fn, path, true, &o);
    if (st != SPT_OK) {
        spt__free(buf);
        spt__free(len);
        return st;
    }
    FILE *fp = o.fp;
    fprintf(fp, "# dtype: %s\n# shape:", spt_dtype_name(t->dtype));
    for (int64_t k = 0; k < R; k++) fprintf(fp, " %lld", (long long)t->shape[k]);
    fputc('\n', fp);
    char meta[SPT__META_CAP];
    if (spt__order_meta_format(t, meta, sizeof meta)) fprintf(fp, "# %s\n", meta);
    for (int64_t start = 0; start < n; start += (int64_t)nth * block) {
#pragma omp parallel for num_threads(nth) schedule(static, 1)
        for (int c = 0; c < nth; c++) {
            int64_t b = start + (int64_t)c * block, e = b + block;
            if (b > n) b = n;
            if (e > n) e = n;
            len[c] = format_lines(t, b, e, index_base, buf + (size_t)c * (size_t)(block * linecap));
        }
        for (int c = 0; c < nth; c++) fwrite(buf + (size_t)c * (size_t)(block * linecap), 1, len[c], fp);
    }
    spt__free(buf);
    spt__free(len);
    return spt__out_commit(fn, &o);
}
