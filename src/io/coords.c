/* SPDX-License-Identifier: Apache-2.0 */
/* coords.c -- the parallel parser of coordinate lines ("i j k value"), shared by .tns and .mtx.
 *
 * The text is cut into one chunk per thread at line starts; a first pass counts the lines of each chunk
 * (an upper bound on its entries, so every chunk writes into its own slice of the output arrays), a
 * second pass parses, and a serial pass closes the gaps left by blank and comment lines. The first
 * error by line number wins, whatever thread found it. */
#include "io.h"

typedef struct chunk {
    const char *beg, *end;
    int64_t lines;    /* line starts in the chunk */
    int64_t line0;    /* lines before the chunk */
    int64_t base;     /* first output slot */
    int64_t count;    /* entries parsed */
    int64_t err_line; /* -1: no error; else the 0-based line within the chunk */
    bool any_float;
    char msg[160];
} chunk;

static const char *tok_end(const char *p, const char *eol) {
    while (p < eol && !spt__is_blank(*p)) p++;
    return p;
}
static const char *skip_blank(const char *p, const char *eol) {
    while (p < eol && spt__is_blank(*p)) p++;
    return p;
}

static int64_t count_fields(const char *p, const char *eol) {
    int64_t n = 0;
    for (p = skip_blank(p, eol); p < eol; p = skip_blank(tok_end(p, eol), eol)) n++;
    return n;
}

/* Parse one line's fields into slot `s`. Returns false with ch->msg set on error. */
static bool parse_line(const spt__coord_spec *sp, const char *line, const char *p, const char *eol,
                       spt__coord_result *res, int64_t s, int64_t *maxidx, chunk *ch) {
    const int64_t R = sp->rank;
    const int64_t nf = R + sp->nval;
    int64_t *ix = res->idx + s * R;
    char tk[64];
    for (int64_t k = 0; k < R; k++) {
        p = skip_blank(p, eol);
        if (p >= eol) goto fields;
        const char *q = p;
        uint64_t x = 0;
        while (q < eol && (unsigned)(*q - '0') <= 9) x = x * 10 + (uint64_t)(*q++ - '0');
        if (q == p || q - p > 18 || (q < eol && !spt__is_blank(*q))) {
            q = tok_end(p, eol);
            int64_t v = 0;
            int r = spt__parse_i64(p, q, &v);
            spt__describe_token(tk, sizeof tk, p, q);
            if (r == 1) snprintf(ch->msg, sizeof ch->msg, "expected an index (a positive integer), found %s", tk);
            else if (r == 2) snprintf(ch->msg, sizeof ch->msg, "expected an index that fits in int64, found %s", tk);
            else if (v < 1 && !sp->zero_based)
                snprintf(ch->msg, sizeof ch->msg, "expected an index >= 1 (indices are 1-based), found %s", tk);
            else if (v < 0)
                snprintf(ch->msg, sizeof ch->msg, "expected an index >= 0 (indices are 0-based), found %s", tk);
            else if (sp->zero_based && v == INT64_MAX)
                snprintf(ch->msg, sizeof ch->msg, "expected a 0-based index below %lld, found %s", (long long)INT64_MAX,
                         tk);
            else {
                x = (uint64_t)v;
                goto ok;
            }
            return false;
        }
        if (x < 1 && !sp->zero_based) {
            spt__describe_token(tk, sizeof tk, p, q);
            snprintf(ch->msg, sizeof ch->msg, "expected an index >= 1 (indices are 1-based), found %s", tk);
            return false;
        }
    ok:
        if (sp->zero_based) x++; /* from here on, as 1-based (x <= INT64_MAX checked above) */
        if (sp->shape && (int64_t)x > sp->shape[k]) {
            spt__describe_token(tk, sizeof tk, p, q);
            if (sp->zero_based)
                snprintf(ch->msg, sizeof ch->msg, "expected an index in 0..%lld for mode %lld, found %s",
                         (long long)sp->shape[k] - 1, (long long)k, tk);
            else
                snprintf(ch->msg, sizeof ch->msg, "expected an index in 1..%lld for mode %lld, found %s",
                         (long long)sp->shape[k], (long long)k, tk);
            return false;
        }
        ix[k] = (int64_t)x - 1;
        if ((int64_t)x > maxidx[k]) maxidx[k] = (int64_t)x;
        p = q;
    }
    for (int j = 0; j < sp->nval; j++) {
        p = skip_blank(p, eol);
        if (p >= eol) goto fields;
        const char *q = tok_end(p, eol);
        int r;
        if (j == 1) {
            double d = 0;
            r = spt__parse_f64(p, q, &d);
            res->v1[s] = d;
        } else if (sp->vkind == SPT__VK_INT) {
            int64_t v = 0;
            r = spt__parse_i64(p, q, &v);
            if (r == 0 && (v < sp->lo || v > sp->hi)) r = 2;
            res->v0[s] = (uint64_t)v;
        } else if (sp->vkind == SPT__VK_UINT64) {
            uint64_t v = 0;
            r = spt__parse_u64(p, q, &v);
            res->v0[s] = v;
        } else if (sp->vkind == SPT__VK_FLOAT) {
            double d = 0;
            r = spt__parse_f64(p, q, &d);
            memcpy(&res->v0[s], &d, 8);
        } else { /* infer: an integer if it is one, else a double */
            int64_t v = 0;
            const char *z = p + (*p == '-' || *p == '+');
            while (z < q && (unsigned)(*z - '0') <= 9) z++;
            r = z == q ? spt__parse_i64(p, q, &v) : 1;
            if (r == 0) {
                res->v0[s] = (uint64_t)v;
                res->isflt[s] = 0;
            } else {
                double d = 0;
                r = spt__parse_f64(p, q, &d);
                memcpy(&res->v0[s], &d, 8);
                res->isflt[s] = 1;
                ch->any_float = true;
            }
        }
        if (r) {
            spt__describe_token(tk, sizeof tk, p, q);
            snprintf(ch->msg, sizeof ch->msg, "expected %s%s, found %s", r == 2 ? "in range " : "",
                     j == 1 ? "an imaginary part" : sp->vname, tk);
            return false;
        }
        p = q;
    }
    p = skip_blank(p, eol);
    if (p < eol) goto fields;
    return true;
fields : {
    int64_t have = count_fields(line, eol);
    snprintf(ch->msg, sizeof ch->msg, "expected %lld fields (%lld ind%s%s), found %lld", (long long)nf, (long long)R,
             R == 1 ? "ex" : "ices",
             sp->nval == 0   ? ""
             : sp->nval == 1 ? " and a value"
                             : " and a complex value as 're im'",
             (long long)have);
    return false;
}
}

static void parse_chunk(const spt__coord_spec *sp, spt__coord_result *res, chunk *ch, int64_t *maxidx, bool report) {
    const char *p = ch->beg, *end = ch->end;
    int64_t s = ch->base, line = 0;
    const char *next_report = report && sp->progress ? p + (1 << 20) : end + 1;
    ch->err_line = -1;
    for (; p < end; line++) {
        if (p >= next_report) {
            sp->progress((double)(p - ch->beg) / (double)(end - ch->beg), sp->progress_ctx);
            next_report = p + (1 << 20);
        }
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *q = skip_blank(p, eol);
        if (q < eol && *q != sp->comment) {
            if (!parse_line(sp, p, q, eol, res, s, maxidx, ch)) {
                ch->err_line = line;
                break;
            }
            s++;
        }
        p = nl ? nl + 1 : end;
    }
    ch->count = s - ch->base;
}

void spt__coord_result_free(spt__coord_result *res) {
    spt__free(res->idx);
    spt__free(res->v0);
    spt__free(res->v1);
    spt__free(res->isflt);
    spt__free(res->maxidx);
    memset(res, 0, sizeof *res);
}

spt_status spt__parse_coords(const char *fn, const char *buf, size_t len, const spt__coord_spec *sp,
                             spt__coord_result *res) {
    spt_status st = SPT_OK;
    memset(res, 0, sizeof *res);
    const int64_t R = sp->rank;
    int nth = spt__threads_for((int64_t)(len / 16));
    if (nth < 1) nth = 1;
    if (nth > 256) nth = 256;
    chunk *ch = NULL;
    int64_t *tmax = NULL;
    ch = spt__calloc((size_t)nth, sizeof *ch);
    if (!ch) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto fail;
    }
    size_t prev = 0;
    for (int c = 0; c < nth; c++) {
        size_t b = prev, e = c == nth - 1 ? len : (size_t)((double)len * (c + 1) / nth);
        if (e < b) e = b;
        if (e < len) {
            const char *nl = memchr(buf + e, '\n', len - e);
            e = nl ? (size_t)(nl - buf) + 1 : len;
        }
        ch[c].beg = buf + b;
        ch[c].end = buf + e;
        prev = e;
    }
#pragma omp parallel for num_threads(nth) schedule(static, 1)
    for (int c = 0; c < nth; c++) {
        int64_t n = 0;
        const char *p = ch[c].beg, *e = ch[c].end;
        while (p < e) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            n++;
            p = nl ? nl + 1 : e;
        }
        ch[c].lines = n;
    }
    /* A chunk's entries are bounded by its lines and by its bytes: an entry line holds nf fields, at
     * least 2*nf - 1 bytes plus its newline, so blank and comment lines do not inflate the arrays. One
     * slot more: a malformed line after the last entry is written to its slot before it is rejected. */
    const int64_t nf = R + sp->nval;
    int64_t cap = 0, nlines = 0;
    for (int c = 0; c < nth; c++) {
        int64_t most = ch[c].lines;
        if (nf > 0) {
            int64_t by_bytes = (int64_t)(((size_t)(ch[c].end - ch[c].beg) + 1) / (2 * (size_t)nf)) + 1;
            if (by_bytes < most) most = by_bytes;
        }
        ch[c].line0 = nlines;
        ch[c].base = cap;
        nlines += ch[c].lines;
        cap += most;
    }
    res->maxidx = spt__alloc_array(fn, R, 1, sizeof(int64_t), true, &st);
    if (!res->maxidx) goto fail;
    tmax = spt__alloc_array(fn, nth, R, sizeof(int64_t), true, &st);
    if (!tmax) goto fail;
    res->idx = spt__alloc_array(fn, cap, R, sizeof(int64_t), false, &st);
    if (!res->idx) goto fail;
    if (sp->nval >= 1) {
        res->v0 = spt__alloc_array(fn, cap, 1, sizeof(uint64_t), false, &st);
        if (!res->v0) goto fail;
    }
    if (sp->nval == 2) {
        res->v1 = spt__alloc_array(fn, cap, 1, sizeof(double), false, &st);
        if (!res->v1) goto fail;
    }
    if (sp->nval >= 1 && sp->vkind == SPT__VK_INFER) {
        res->isflt = spt__alloc_array(fn, cap, 1, 1, false, &st);
        if (!res->isflt) goto fail;
    }
#pragma omp parallel for num_threads(nth) schedule(static, 1)
    for (int c = 0; c < nth; c++) parse_chunk(sp, res, &ch[c], tmax + (size_t)c * (size_t)R, c == 0);
    for (int c = 0; c < nth; c++)
        if (ch[c].err_line >= 0) {
            st = spt__err(SPT_EPARSE, "%s:%lld: %s", sp->name,
                          (long long)(sp->first_line + ch[c].line0 + ch[c].err_line), ch[c].msg);
            goto fail;
        }
    int64_t n = 0;
    for (int c = 0; c < nth; c++) {
        if (ch[c].base != n && ch[c].count > 0) {
            size_t m = (size_t)ch[c].count;
            memmove(res->idx + n * R, res->idx + ch[c].base * R, m * (size_t)R * sizeof(int64_t));
            if (res->v0) memmove(res->v0 + n, res->v0 + ch[c].base, m * sizeof(uint64_t));
            if (res->v1) memmove(res->v1 + n, res->v1 + ch[c].base, m * sizeof(double));
            if (res->isflt) memmove(res->isflt + n, res->isflt + ch[c].base, m);
        }
        n += ch[c].count;
        res->any_float |= ch[c].any_float;
        for (int64_t k = 0; k < R; k++)
            if (tmax[(size_t)c * (size_t)R + (size_t)k] > res->maxidx[k])
                res->maxidx[k] = tmax[(size_t)c * (size_t)R + (size_t)k];
    }
    res->n = n;
    res->lines = nlines;
    if (sp->progress) sp->progress(1.0, sp->progress_ctx);
    spt__free(ch);
    spt__free(tmax);
    return SPT_OK;
fail:
    spt__free(ch);
    spt__free(tmax);
    spt__coord_result_free(res);
    return st;
}

/* ---- a stream's pieces, one after another ------------------------------------------------------ */

/* Reallocate *p to c elements of `es` bytes (a failure leaves *p as it was). */
static bool grow_to(void **p, int64_t c, size_t es) {
    size_t bytes;
    if (spt__bytes3(c, 1, es, &bytes)) return false;
    void *q = spt__realloc(*p, bytes ? bytes : 1);
    if (!q) return false;
    *p = q;
    return true;
}

spt_status spt__coord_result_append(const char *fn, const spt__coord_spec *sp, spt__coord_result *acc,
                                    spt__coord_result *part) {
    spt_status st = SPT_OK;
    const int64_t R = sp->rank, n = acc->n, m = part->n;
    if (!acc->maxidx) { /* the first piece: taken over whole */
        *acc = *part;
        acc->cap = acc->n;
        memset(part, 0, sizeof *part);
        return SPT_OK;
    }
    int64_t need, cap = acc->cap;
    if (spt__add_i64(n, m, &need) || need > INT64_MAX / (R > 0 ? R : 1)) {
        st = spt__err(SPT_EOVERFLOW, "%s: %lld + %lld entries do not fit in memory sizes", fn, (long long)n,
                      (long long)m);
        goto done;
    }
    if (need > cap) {
        int64_t c = cap < 4096 ? 4096 : cap;
        while (c < need) c = c > INT64_MAX / 2 ? need : c * 2;
        bool ok = grow_to((void **)&acc->idx, c, (size_t)(R > 0 ? R : 1) * sizeof(int64_t)) &&
                  (!acc->v0 || grow_to((void **)&acc->v0, c, sizeof(uint64_t))) &&
                  (!acc->v1 || grow_to((void **)&acc->v1, c, sizeof(double))) &&
                  (!acc->isflt || grow_to((void **)&acc->isflt, c, 1));
        if (!ok) {
            st = spt__err(SPT_ENOMEM, "%s: out of memory for %lld entries", fn, (long long)need);
            goto done;
        }
        acc->cap = c;
    }
    if (m > 0) {
        memcpy(acc->idx + n * R, part->idx, (size_t)m * (size_t)R * sizeof(int64_t));
        if (acc->v0) memcpy(acc->v0 + n, part->v0, (size_t)m * sizeof(uint64_t));
        if (acc->v1) memcpy(acc->v1 + n, part->v1, (size_t)m * sizeof(double));
        if (acc->isflt) memcpy(acc->isflt + n, part->isflt, (size_t)m);
    }
    acc->n = need;
    acc->lines += part->lines;
    acc->any_float |= part->any_float;
    for (int64_t k = 0; k < R; k++)
        if (part->maxidx[k] > acc->maxidx[k]) acc->maxidx[k] = part->maxidx[k];
done:
    spt__coord_result_free(part);
    return st;
}

/* ---- from parsed coordinates to a tensor --------------------------------------------------------- */

void spt__value_kind(spt_dtype d, spt__coord_spec *sp) {
    sp->nval = 1;
    switch (d) {
    case SPT_BOOL: sp->vkind = SPT__VK_INT, sp->lo = 0, sp->hi = 1, sp->vname = "a bool value (0 or 1)"; break;
    case SPT_INT8: sp->vkind = SPT__VK_INT, sp->lo = INT8_MIN, sp->hi = INT8_MAX, sp->vname = "an int8 value"; break;
    case SPT_INT16:
        sp->vkind = SPT__VK_INT, sp->lo = INT16_MIN, sp->hi = INT16_MAX, sp->vname = "an int16 value";
        break;
    case SPT_INT32:
        sp->vkind = SPT__VK_INT, sp->lo = INT32_MIN, sp->hi = INT32_MAX, sp->vname = "an int32 value";
        break;
    case SPT_INT64:
        sp->vkind = SPT__VK_INT, sp->lo = INT64_MIN, sp->hi = INT64_MAX, sp->vname = "an int64 value";
        break;
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
                 ((dtype == SPT_INT64 || dtype == SPT_UINT64 || dtype == SPT_FLOAT64) &&
                  (!res->isflt || dtype == SPT_FLOAT64 || !res->any_float));
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
