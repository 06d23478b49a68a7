/* SPDX-License-Identifier: Apache-2.0 */
/* npy.c -- NumPy .npy arrays (format 1.0/2.0/3.0) to and from dense arrays. */
#include "io.h"

#include <ctype.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#define HOST_CH '>'
#else
#define HOST_BIG 0
#define HOST_CH '<'
#endif

/* ---- the header dict ----------------------------------------------------------------------------- */

typedef struct hdr {
    char descr[32];
    bool fortran;
    int64_t rank;
    int64_t shape[SPT_MAX_RANK];
    bool has_descr, has_fortran, has_shape;
} hdr;

static void skip_ws(const char **p, const char *e) {
    while (*p < e && isspace((unsigned char)**p)) (*p)++;
}

static bool lit(const char **p, const char *e, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(e - *p) >= n && !memcmp(*p, w, n)) {
        *p += n;
        return true;
    }
    return false;
}

/* A quoted Python string into out (cap); false when malformed or too long. */
static bool pystr(const char **p, const char *e, char *out, size_t cap) {
    if (*p >= e || (**p != '\'' && **p != '"')) return false;
    char q = *(*p)++;
    size_t n = 0;
    while (*p < e && **p != q) {
        if (n + 1 >= cap || **p == '\0') return false; /* a NUL would cut the string short (numpy refuses it) */
        out[n++] = *(*p)++;
    }
    if (*p >= e) return false;
    (*p)++;
    out[n] = 0;
    return true;
}

static spt_status perr(const char *name, const char *what, const char *p, const char *e) {
    char tk[64];
    spt__describe_token(tk, sizeof tk, p, e > p + 20 ? p + 20 : e);
    return spt__err(SPT_EPARSE, "%s: expected %s in the .npy header, found %s", name, what, tk);
}

static spt_status parse_dict(const char *name, const char *p, const char *e, hdr *h) {
    memset(h, 0, sizeof *h);
    skip_ws(&p, e);
    if (!lit(&p, e, "{")) return perr(name, "'{'", p, e);
    for (;;) {
        skip_ws(&p, e);
        if (lit(&p, e, "}")) break;
        char key[32];
        const char *k0 = p;
        if (!pystr(&p, e, key, sizeof key)) return perr(name, "a quoted key", k0, e);
        skip_ws(&p, e);
        if (!lit(&p, e, ":")) return perr(name, "':'", p, e);
        skip_ws(&p, e);
        if (!strcmp(key, "descr")) {
            const char *v0 = p;
            if (!pystr(&p, e, h->descr, sizeof h->descr))
                return v0 < e && *v0 == '[' ? spt__err(SPT_EDTYPE, "%s: structured .npy arrays are not supported", name)
                                            : perr(name, "a dtype string for 'descr'", v0, e);
            h->has_descr = true;
        } else if (!strcmp(key, "fortran_order")) {
            if (lit(&p, e, "True")) h->fortran = true;
            else if (lit(&p, e, "False")) h->fortran = false;
            else return perr(name, "True or False for 'fortran_order'", p, e);
            h->has_fortran = true;
        } else if (!strcmp(key, "shape")) {
            if (!lit(&p, e, "(")) return perr(name, "a tuple for 'shape'", p, e);
            h->rank = 0;
            for (;;) {
                skip_ws(&p, e);
                if (lit(&p, e, ")")) break;
                const char *d0 = p;
                while (p < e && isdigit((unsigned char)*p)) p++;
                int64_t v;
                if (h->rank >= SPT_MAX_RANK) return perr(name, "at most 64 dims", d0, e);
                if (p == d0 || spt__parse_i64(d0, p, &v) != 0)
                    return perr(name, "a dimension (an integer >= 0)", d0, e);
                h->shape[h->rank++] = v;
                skip_ws(&p, e);
                if (lit(&p, e, ",")) continue;
                skip_ws(&p, e);
                if (lit(&p, e, ")")) break;
                return perr(name, "',' or ')' in 'shape'", p, e);
            }
            h->has_shape = true;
        } else return perr(name, "one of the keys 'descr', 'fortran_order', 'shape'", k0, e);
        skip_ws(&p, e);
        if (lit(&p, e, ",")) continue;
        skip_ws(&p, e);
        if (lit(&p, e, "}")) break;
        return perr(name, "',' or '}'", p, e);
    }
    if (!h->has_descr || !h->has_fortran || !h->has_shape)
        return spt__err(
            SPT_EPARSE,
            "%s: expected the keys 'descr', 'fortran_order' and 'shape' in the .npy header, found %s missing", name,
            !h->has_descr     ? "'descr'"
            : !h->has_fortran ? "'fortran_order'"
                              : "'shape'");
    return SPT_OK;
}

/* descr -> dtype, element size in the file, byte order swap needed. */
static spt_status map_descr(const char *name, const char *descr, spt_dtype *dt, size_t *isz, bool *swap, bool *ucs4) {
    *ucs4 = false;
    const char *p = descr;
    char order = '=';
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
    char kind = *p ? *p++ : 0;
    int64_t size = 0;
    if (!*p || spt__parse_i64(p, p + strlen(p), &size) != 0 || size <= 0 || size > (1 << 24)) goto bad;
    *swap = (order == '>' && !HOST_BIG) || (order == '<' && HOST_BIG);
    *isz = (size_t)size;
    switch (kind) {
    case 'b':
        if (size != 1) goto bad;
        *dt = SPT_BOOL;
        return SPT_OK;
    case 'i':
    case 'u': {
        static const spt_dtype si[] = {SPT_INT8, SPT_INT16, SPT_INT32, SPT_INT64};
        static const spt_dtype su[] = {SPT_UINT8, SPT_UINT16, SPT_UINT32, SPT_UINT64};
        int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
        if (k < 0) goto bad;
        *dt = kind == 'i' ? si[k] : su[k];
        return SPT_OK;
    }
    case 'f':
        if (size != 4 && size != 8) goto bad;
        *dt = size == 4 ? SPT_FLOAT32 : SPT_FLOAT64;
        return SPT_OK;
    case 'c':
        if (size != 8 && size != 16) goto bad;
        *dt = size == 8 ? SPT_COMPLEX64 : SPT_COMPLEX128;
        return SPT_OK;
    case 'S':
        *dt = SPT_STRING;
        *swap = false;
        return SPT_OK;
    case 'U': /* NumPy's fixed-width unicode: `size` code points of 4 bytes each, read as UTF-8 */
        *dt = SPT_STRING;
        *isz = (size_t)size * 4;
        *ucs4 = true;
        return SPT_OK;
    default: break;
    }
bad:
    return spt__err(SPT_EDTYPE,
                    "%s: the .npy dtype '%s' is not supported (b1, i1..i8, u1..u8, f4, f8, c8, c16, S<n>, U<n>)", name,
                    descr);
}

static void bswap(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n / 2; i++) {
        unsigned char c = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = c;
    }
}

spt_status spt__npy_head_parse(const char *fn, const char *name, const char *buf, size_t len, spt__npy_head *h) {
    memset(h, 0, sizeof *h);
    const unsigned char *u = (const unsigned char *)buf;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        char tk[64];
        spt__describe_token(tk, sizeof tk, buf, buf + (len < 6 ? len : 6));
        return spt__err(SPT_EPARSE, "%s: expected the .npy magic '\\x93NUMPY', found %s", name,
                        len ? tk : "an empty file");
    }
    unsigned major = u[6];
    size_t hl, hs;
    if (major == 1) {
        hl = (size_t)u[8] | (size_t)u[9] << 8;
        hs = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return spt__err(SPT_EPARSE, "%s: expected a 12-byte .npy preamble, found %zu bytes", name, len);
        hl = (size_t)u[8] | (size_t)u[9] << 8 | (size_t)u[10] << 16 | (size_t)u[11] << 24;
        hs = 12;
    } else return spt__err(SPT_EPARSE, "%s: expected .npy format version 1, 2 or 3, found %u", name, major);
    if (hl > len - hs)
        return spt__err(SPT_EPARSE, "%s: expected a %zu-byte .npy header, found %zu bytes", name, hl, len - hs);
    hdr d;
    SPT__TRY(parse_dict(name, buf + hs, buf + hs + hl, &d));
    h->dtype = SPT_BOOL;
    h->isz = 1;
    SPT__TRY(map_descr(name, d.descr, &h->dtype, &h->isz, &h->swap, &h->ucs4));
    SPT__TRY(spt__check_shape(fn, d.rank, d.shape, &h->vol));
    if (spt__bytes3(h->vol, 1, h->isz, &h->data)) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, d.shape, d.rank);
        return spt__err(SPT_EPARSE, "%s: expected a shape whose %zu-byte elements fit in memory, found %s", name,
                        h->isz, sh);
    }
    h->rank = d.rank;
    memcpy(h->shape, d.shape, sizeof d.shape);
    h->fortran = d.fortran;
    h->hdr = hs + hl;
    return SPT_OK;
}

/* UCS-4 code points (byte order `swap` from the host's) to UTF-8; false for an invalid code point.
 * out has room for 4 bytes per code point. */
static bool ucs4_to_utf8(const unsigned char *s, size_t n, bool swap, char *out, size_t *olen) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b[4];
        memcpy(b, s + 4 * i, 4);
        if (swap) bswap(b, 4);
        uint32_t c;
        memcpy(&c, b, 4);
        if (c < 0x80) out[k++] = (char)c;
        else if (c < 0x800) {
            out[k++] = (char)(0xC0 | c >> 6);
            out[k++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c < 0xE000) return false;
            out[k++] = (char)(0xE0 | c >> 12);
            out[k++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[k++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x110000) {
            out[k++] = (char)(0xF0 | c >> 18);
            out[k++] = (char)(0x80 | (c >> 12 & 0x3F));
            out[k++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[k++] = (char)(0x80 | (c & 0x3F));
        } else return false;
    }
    *olen = k;
    return true;
}

spt_status spt__npy_parse(const char *fn, const char *name, const char *buf, size_t len, spt_dense **out) {
    spt_status st;
    spt_dense *d = NULL;
    char *utf = NULL;
    *out = NULL;
    const unsigned char *u = (const unsigned char *)buf;
    spt__npy_head hd;
    SPT__TRY(spt__npy_head_parse(fn, name, buf, len, &hd));
    const spt_dtype dt = hd.dtype;
    const size_t isz = hd.isz;
    const bool swap = hd.swap;
    const int64_t vol = hd.vol;
    struct {
        int64_t rank, *shape;
        bool fortran;
    } h = {hd.rank, hd.shape, hd.fortran};
    size_t have = len - hd.hdr;
    if (hd.data != have) {
        char sh[SPT__IDXBUF];
        spt__fmt_index(sh, sizeof sh, hd.shape, hd.rank);
        return spt__err(SPT_EPARSE, "%s: expected %lld elements of %zu bytes for shape %s, found %zu bytes of data",
                        name, (long long)vol, isz, sh, have);
    }
    if (hd.ucs4) {
        utf = spt__malloc(isz);
        if (!utf) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    const size_t hs = hd.hdr, hl = 0;
    const unsigned char *src = u + hs + hl;
    SPT__CHECK(spt__dense_new(fn, dt, h.rank, h.shape, &d));
    size_t es = spt_dtype_size(dt);
    /* element k of the file goes to C-order position pos(k) */
    int64_t idx[SPT_MAX_RANK] = {0};
    bool fortran = h.fortran && h.rank > 1;
    for (int64_t k = 0; k < vol; k++) {
        int64_t pos = k;
        if (fortran) {
            pos = 0;
            for (int64_t a = 0; a < h.rank; a++) pos = pos * h.shape[a] + idx[a];
            for (int64_t a = 0; a < h.rank; a++) { /* Fortran order: first index fastest */
                if (++idx[a] < h.shape[a]) break;
                idx[a] = 0;
            }
        }
        const unsigned char *s = src + (size_t)k * isz;
        if (hd.ucs4) {
            size_t n = isz / 4, ol = 0;
            while (n > 0 && !memcmp(s + 4 * (n - 1), "\0\0\0\0", 4)) n--;
            if (!ucs4_to_utf8(s, n, swap, utf, &ol)) {
                st = spt__err(SPT_EPARSE, "%s: expected unicode code points in element %lld, found an invalid one",
                              name, (long long)k);
                goto fail;
            }
            SPT__CHECK(spt_dense_set_string(d, pos, utf, (int64_t)ol));
        } else if (dt == SPT_STRING) {
            size_t n = isz;
            while (n > 0 && s[n - 1] == 0) n--;
            SPT__CHECK(spt_dense_set_string(d, pos, (const char *)s, (int64_t)n));
        } else {
            unsigned char *t = (unsigned char *)d->data + (size_t)pos * es;
            memcpy(t, s, es);
            if (swap) {
                if (spt_dtype_is_complex(dt)) {
                    bswap(t, es / 2);
                    bswap(t + es / 2, es / 2);
                } else bswap(t, es);
            }
            if (dt == SPT_BOOL) *t = *t != 0;
        }
    }
    spt__free(utf);
    *out = d;
    return SPT_OK;
fail:
    spt__free(utf);
    spt_dense_free(d);
    return st;
}

static const char *descr_of(spt_dtype d, char *buf, size_t cap, size_t strlen_max) {
    switch (d) {
    case SPT_BOOL: return "|b1";
    case SPT_INT8: return "|i1";
    case SPT_UINT8: return "|u1";
    case SPT_STRING: snprintf(buf, cap, "|S%zu", strlen_max ? strlen_max : 1); return buf;
    default: break;
    }
    char k = spt_dtype_is_complex(d)                     ? 'c'
             : spt_dtype_is_float(d)                     ? 'f'
             : spt_dtype_is_integer(d) && d >= SPT_UINT8 ? 'u'
                                                         : 'i';
    snprintf(buf, cap, "%c%c%zu", HOST_CH, k, spt_dtype_size(d));
    return buf;
}

/* The .npy 1.0 header (magic, length, dict padded to a multiple of 64 bytes) of an array into head
 * (room for NPY_HDR_CAP bytes); *hlen its length, *isz the bytes per element in the file, *body the
 * bytes of the data. */
#define NPY_HDR_CAP SPT__NPY_HDR_CAP
spt_status spt__npy_header(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data,
                           bool fortran, char *head, size_t *hlen, size_t *isz, size_t *body) {
    int64_t vol;
    SPT__TRY(spt__check_shape(fn, rank, shape, &vol));
    size_t smax = 0;
    if (dtype == SPT_STRING)
        for (int64_t i = 0; i < vol; i++)
            if ((size_t)((const spt_str *)data)[i].len > smax) smax = (size_t)((const spt_str *)data)[i].len;
    char dbuf[32];
    const char *descr = descr_of(dtype, dbuf, sizeof dbuf, smax);
    *isz = dtype == SPT_STRING ? (smax ? smax : 1) : spt_dtype_size(dtype);
    if (spt__bytes3(vol, 1, *isz, body)) return spt__err(SPT_EOVERFLOW, "%s: the array is too large", fn);
    char dict[64 * 24 + 128];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr,
                     fortran ? "True" : "False");
    for (int64_t k = 0; k < rank; k++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[k], rank == 1 ? "" : " ");
    if (rank > 1) n -= 2, n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    else n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    size_t total_h = 10 + (size_t)n + 1;
    size_t pad = (64 - total_h % 64) % 64;
    size_t hl = (size_t)n + pad + 1;
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)(hl & 0xff);
    head[9] = (char)(hl >> 8);
    memcpy(head + 10, dict, (size_t)n);
    memset(head + 10 + n, ' ', pad);
    head[10 + hl - 1] = '\n';
    *hlen = 10 + hl;
    return SPT_OK;
}

spt_status spt__npy_build(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data,
                          char **out, size_t *outlen) {
    spt_status st;
    *out = NULL;
    *outlen = 0;
    char head[NPY_HDR_CAP];
    size_t hlen, isz, body, tot;
    SPT__TRY(spt__npy_header(fn, dtype, rank, shape, data, false, head, &hlen, &isz, &body));
    if (spt__add_sz(hlen, body, &tot)) return spt__err(SPT_EOVERFLOW, "%s: the array is too large", fn);
    char *b = spt__alloc_array(fn, (int64_t)tot, 1, 1, false, &st);
    if (!b) return st;
    memcpy(b, head, hlen);
    char *w = b + hlen;
    if (dtype == SPT_STRING) {
        memset(w, 0, body);
        for (size_t i = 0; i < body / isz; i++) {
            const spt_str *s = (const spt_str *)data + i;
            if (s->len) memcpy(w + i * isz, s->data, (size_t)s->len);
        }
    } else if (body) memcpy(w, data, body);
    *out = b;
    *outlen = tot;
    return SPT_OK;
}

static void unmap_release(void *m) { spt__map_unref(m); }

/* The array of a mapped .npy file kept where it lies when the bytes allow (a numeric dtype in the host's
 * byte order, C order, aligned for its element, bool bytes 0 or 1, the size the header implies): a
 * dense array over a copy-on-write private mapping, which it owns. false (and nothing made) otherwise. */
static bool npy_map(const char *fn, spt__file *f, spt_dense **out) {
    spt__npy_head h;
    if (!f->map || spt__read_copy() || spt__npy_head_parse(fn, f->name, f->data, f->len, &h) != SPT_OK) return false;
    const char *p = f->data + h.hdr;
    const size_t es = spt_dtype_size(h.dtype);
    if (h.dtype == SPT_STRING || h.ucs4 || h.swap || (h.fortran && h.rank > 1) || h.vol == 0 ||
        f->len - h.hdr != h.data || (uintptr_t)p % (es > 8 ? 8 : es))
        return false;
    if (h.dtype == SPT_BOOL)
        for (size_t i = 0; i < h.data; i++)
            if ((unsigned char)p[i] > 1) return false;
    if (!spt__map_writable(p, h.data)) return false;
    spt__map *m = spt__file_share(f);
    if (!m) return false;
    if (spt_dense_wrap(h.dtype, h.rank, h.shape, (void *)p, unmap_release, m, out) != SPT_OK) {
        f->map = m->addr; /* the mapping goes back to f, whose bytes the caller parses instead */
        f->maplen = m->len;
        spt__free(m);
        return false;
    }
    return true;
}

spt_status spt_read_npy(const char *path, spt_dense **out) {
    static const char fn[] = "spt_read_npy";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__file f;
    SPT__TRY(spt__file_load_magic(fn, path, "\x93NUMPY", 6, "NumPy .npy", &f));
    if (npy_map(fn, &f, out)) {
        spt__file_release(&f);
        return SPT_OK;
    }
    spt_status st = spt__npy_parse(fn, f.name, f.data, f.len, out);
    spt__file_release(&f);
    return st;
}

spt_status spt_write_npy(const spt_dense *d, const char *path) {
    static const char fn[] = "spt_write_npy";
    if (!d || !path) return spt__err(SPT_EINVAL, "%s: NULL array or path", fn);
    /* the header, then the data straight from the array (no second copy of it) */
    char head[NPY_HDR_CAP];
    size_t hlen, isz, body;
    SPT__TRY(spt__npy_header(fn, d->dtype, d->rank, d->shape, d->data, false, head, &hlen, &isz, &body));
    spt__out o;
    SPT__TRY(spt__out_open(fn, path, true, &o));
    fwrite(head, 1, hlen, o.fp);
    if (d->dtype == SPT_STRING) {
        static const char zeros[256];
        for (size_t i = 0; i < body / isz; i++) {
            const spt_str *s = (const spt_str *)d->data + i;
            size_t len = (size_t)s->len;
            if (len) fwrite(s->data, 1, len, o.fp);
            for (size_t k = len; k < isz; k += sizeof zeros)
                fwrite(zeros, 1, isz - k < sizeof zeros ? isz - k : sizeof zeros, o.fp);
        }
    } else if (body) fwrite(d->data, 1, body, o.fp);
    return spt__out_commit(fn, &o);
}
