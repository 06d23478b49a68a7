/* SPDX-License-Identifier: Apache-2.0 */
/* tns.c -- FROSTT .tns text: read (parallel) and write. */
#include "io.h"

#include <strings.h>

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
                if (k == 0 || k >= sizeof nm ||
                    (memcpy(nm, q, k), nm[k] = 0, spt_dtype_from_name(nm, &h->dtype)) != SPT_OK) {
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
                                        h->rank >= SPT_MAX_RANK ? "at most 64 dims" : "a dimension (an integer >= 0)",
                                        tk);
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

/* What the header, the options and the first entry line settle before the entries are parsed. */
typedef struct tns_plan {
    header h;
    bool has_dtype;
    spt_dtype dtype;
    int64_t rank;
    const int64_t *shape; /* NULL: the largest index per mode */
    spt__coord_spec sp;
} tns_plan;

/* The fields of the entry line at `first` (up to its end of line or `end`). */
static int64_t count_fields(const char *first, const char *end) {
    const char *nl = memchr(first, '\n', (size_t)(end - first));
    const char *eol = nl ? nl : end;
    int64_t nf = 0;
    for (const char *p = first; p < eol;) {
        while (p < eol && spt__is_blank(*p)) p++;
        if (p >= eol) break;
        nf++;
        while (p < eol && !spt__is_blank(*p)) p++;
    }
    return nf;
}

/* Settle the plan from the text's start buf[0..len). When `more` is non-NULL (a stream) and the header
 * or the first entry line may go on past len, *more is set and nothing else is done. */
static spt_status tns_plan_make(const char *fn, const char *name, const char *buf, size_t len,
                                const spt_read_opts *opts, int base, tns_plan *pl, bool *more, const char **first) {
    int64_t first_line = 1;
    memset(pl, 0, sizeof *pl);
    SPT__TRY(read_header(fn, name, buf, len, &pl->h, first, &first_line));
    if (more) {
        *more = !*first || !memchr(*first, '\n', (size_t)(buf + len - *first));
        if (*more) return SPT_OK;
    }
    /* a requested dtype converts the header's (checked value by value), except between real and complex:
     * a complex value takes two columns, so the file's last index would be read as a value or the reverse */
    if (opts->has_dtype && pl->h.has_dtype && (unsigned)opts->dtype < SPT_NUM_DTYPES &&
        spt_dtype_is_complex(opts->dtype) != spt_dtype_is_complex(pl->h.dtype))
        return spt__err(SPT_EINVAL,
                        "%s: %s: the header says dtype %s, but %s was asked for (a complex value takes two "
                        "columns, a real one)",
                        fn, name, spt_dtype_name(pl->h.dtype), spt_dtype_name(opts->dtype));
    pl->has_dtype = opts->has_dtype || pl->h.has_dtype;
    pl->dtype = opts->has_dtype ? opts->dtype : pl->h.dtype;
    if (pl->has_dtype && ((unsigned)pl->dtype >= SPT_NUM_DTYPES || pl->dtype == SPT_STRING))
        return spt__err(SPT_EDTYPE, "%s: .tns files hold numbers, not %s values", fn,
                        spt_dtype_name(pl->dtype) ? spt_dtype_name(pl->dtype) : "invalid");
    if (base != 0 && base != 1) return spt__err(SPT_EINVAL, "%s: the index base must be 0 or 1, not %d", fn, base);
    spt__coord_spec *sp = &pl->sp;
    *sp = (spt__coord_spec){.name = name, .first_line = 1, .comment = '#', .zero_based = base == 0};
    spt__value_kind(pl->has_dtype ? pl->dtype : SPT_NUM_DTYPES, sp);
    if (opts->shape) {
        SPT__TRY(spt__check_dims(fn, opts->rank, opts->shape, NULL));
        pl->shape = opts->shape;
        pl->rank = opts->rank;
    } else if (pl->h.has_shape) {
        pl->shape = pl->h.shape;
        pl->rank = pl->h.rank;
    } else if (*first) {
        int64_t nf = count_fields(*first, buf + len);
        pl->rank = nf - sp->nval;
        if (pl->rank < 0)
            return spt__err(SPT_EPARSE, "%s:%lld: expected at least %d field%s (indices then the value), found %lld",
                            name, (long long)first_line, sp->nval, sp->nval == 1 ? "" : "s", (long long)nf);
        if (pl->rank > SPT_MAX_RANK)
            return spt__err(SPT_EPARSE, "%s:%lld: expected at most %d indices, found %lld fields", name,
                            (long long)first_line, SPT_MAX_RANK, (long long)nf);
    }
    if (pl->shape) SPT__TRY(spt__check_dims(fn, pl->rank, pl->shape, NULL));
    sp->rank = pl->rank;
    sp->shape = pl->shape;
    return SPT_OK;
}

/* The tensor from the parsed entries; the header text hdr[0..hlen) may state an order. */
static spt_status tns_finish(const char *fn, tns_plan *pl, spt__coord_result *res, const char *hdr, size_t hlen,
                             spt_tensor **out) {
    spt_dtype dtype = pl->has_dtype ? pl->dtype : res->any_float ? SPT_FLOAT64 : SPT_INT64;
    const int64_t *shape = pl->shape;
    if (!shape) {
        if (res->n == 0) /* no entries and no shape: every dim 0 */
            for (int64_t k = 0; k < pl->rank; k++) res->maxidx[k] = 0;
        shape = res->maxidx;
    }
    spt_status st = spt__tensor_from_coords(fn, dtype, pl->rank, shape, res, false, out);
    spt__coord_result_free(res);
    if (st == SPT_OK) spt__order_restore_header(*out, hdr, hlen, "#"); /* a stated order, verified */
    return st;
}

spt_status spt__tns_from_bytes(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int base,
                               spt_tensor **out) {
    static const char fn[] = "spt_read_tns";
    spt__coord_result res = {0};
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!buf && len) return spt__err(SPT_EINVAL, "%s: buffer is NULL", fn);
    if (!name) name = "<memory>";
    spt__skip_bom(&buf, &len);
    static const spt_read_opts none = {0};
    if (!opts) opts = &none;
    tns_plan pl;
    const char *first = NULL;
    SPT__TRY(tns_plan_make(fn, name, buf, len, opts, base, &pl, NULL, &first));
    spt__read_progress(&pl.sp.progress, &pl.sp.progress_ctx);
    SPT__TRY(spt__parse_coords(fn, buf, len, &pl.sp, &res));
    return tns_finish(fn, &pl, &res, buf, len, out);
}

/* ---- a stream: parsed a piece at a time (stream.c) ---------------------------------------------- */

spt_status spt__tns_stream(const char *fn, spt__stream *s, const spt_read_opts *opts, int base, spt_tensor **out) {
    spt_status st;
    spt__pieces b = {spt__malloc(SPT__PIECE), 0, SPT__PIECE, false};
    spt__coord_result acc = {0};
    char *hdr = NULL;
    if (!b.p) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    SPT__CHECK(spt__pieces_fill(fn, s, &b, false));
    const char *nb = b.p;
    size_t nl = b.len;
    spt__skip_bom(&nb, &nl);
    if (nl != b.len) memmove(b.p, nb, b.len = nl); /* a byte-order mark before the first line: dropped */
    tns_plan pl;
    const char *first = NULL;
    for (;;) { /* the header and the first entry line, however long */
        bool more = false;
        SPT__CHECK(tns_plan_make(fn, s->name, b.p, b.len, opts, base, &pl, b.eof ? NULL : &more, &first));
        if (!more) break;
        if (first && b.len - (size_t)(first - b.p) >= SPT__MAX_LINE) { /* no end to the first entry line */
            int64_t line = 1;
            for (const char *q = b.p; (q = memchr(q, '\n', (size_t)(first - q))) != NULL; q++) line++;
            st = spt__line_too_long(s->name, line);
            goto fail;
        }
        SPT__CHECK(spt__pieces_fill(fn, s, &b, true));
    }
    size_t hlen = first ? (size_t)(first - b.p) : b.len; /* kept for an order statement */
    if (!(hdr = spt__malloc(hlen ? hlen : 1))) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto fail;
    }
    memcpy(hdr, b.p, hlen);
    SPT__CHECK(spt__pieces_parse(fn, s, &b, &pl.sp, 1, &acc));
    if (!acc.maxidx) { /* an empty text: one empty piece */
        SPT__CHECK(spt__parse_coords(fn, "", 0, &pl.sp, &acc));
    }
    spt__free(b.p);
    b.p = NULL;
    st = tns_finish(fn, &pl, &acc, hdr, hlen, out);
    spt__free(hdr);
    return st;
fail:
    spt__free(b.p);
    spt__free(hdr);
    spt__coord_result_free(&acc);
    return st;
}

spt_status spt_parse_tns(const char *buf, size_t len, const char *name, const spt_read_opts *opts, spt_tensor **out) {
    return spt__tns_from_bytes(buf, len, name, opts, 1, out);
}

spt_status spt_parse_tns_base(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int index_base,
                              spt_tensor **out) {
    return spt__tns_from_bytes(buf, len, name, opts, index_base, out);
}

spt_status spt_read_tns_base(const char *path, const spt_read_opts *opts, int index_base, spt_tensor **out) {
    static const char fn[] = "spt_read_tns";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    static const spt_read_opts none = {0};
    spt__stream s;
    spt__file f;
    bool loaded;
    SPT__TRY(spt__stream_open(fn, path, &s, &f, &loaded));
    spt_status st;
    if (loaded) { /* a regular file (mapped) or a tar member */
        st = spt__tns_from_bytes(f.data, f.len, f.name, opts, index_base, out);
        spt__file_release(&f);
    } else {
        st = spt__tns_stream(fn, &s, opts ? opts : &none, index_base, out);
        spt__stream_close(&s);
    }
    return st;
}

spt_status spt_read_tns(const char *path, const spt_read_opts *opts, spt_tensor **out) {
    return spt_read_tns_base(path, opts, 1, out);
}

spt_status spt_write_tns(const spt_tensor *t, const char *path) { return spt_write_tns_base(t, path, 1); }

spt_status spt_write_tns_base(const spt_tensor *t, const char *path, int index_base) {
    static const char fn[] = "spt_write_tns";
    spt_status st;
    spt__out o;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (index_base != 0 && index_base != 1)
        return spt__err(SPT_EINVAL, "%s: the index base must be 0 or 1, not %d", fn, index_base);
    if (t->dtype == SPT_STRING) return spt__err(SPT_EDTYPE, "%s: .tns files hold numbers, not strings", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    st = spt__out_open(fn, path, true, &o);
    if (st != SPT_OK) return st;
    FILE *fp = o.fp;
    const int64_t R = t->rank;
    fprintf(fp, "# dtype: %s\n# shape:", spt_dtype_name(t->dtype));
    for (int64_t k = 0; k < R; k++) fprintf(fp, " %lld", (long long)t->shape[k]);
    fputc('\n', fp);
    char meta[SPT__META_CAP];
    if (spt__order_meta_format(t, meta, sizeof meta)) fprintf(fp, "# %s\n", meta);
    st = spt__write_entry_lines(fn, t, index_base, fp);
    if (st != SPT_OK) {
        spt__out_abort(&o);
        return st;
    }
    return spt__out_commit(fn, &o);
}
