/* SPDX-License-Identifier: Apache-2.0 */
/* tensor_proto.c -- TensorFlow's TensorProto message (field numbers from the public tensor.proto and
 * tensor_shape.proto: dtype 1, tensor_shape 2 {dim 2 {size 1, name 2}, unknown_rank 3}, tensor_content 4,
 * the typed value lists 5..17): written exactly as TensorFlow's Tensor::AsProtoTensorContent writes it,
 * and read as Tensor::FromProto reads it. */
#include "tf/tf_internal.h"

#include <stdio.h>

int spt__tf_dtype_code(spt_dtype d) {
    switch (d) {
    case SPT_BOOL: return 10;
    case SPT_INT8: return 6;
    case SPT_INT16: return 5;
    case SPT_INT32: return 3;
    case SPT_INT64: return 9;
    case SPT_UINT8: return 4;
    case SPT_UINT16: return 17;
    case SPT_UINT32: return 22;
    case SPT_UINT64: return 23;
    case SPT_FLOAT32: return 1;
    case SPT_FLOAT64: return 2;
    case SPT_COMPLEX64: return 8;
    case SPT_COMPLEX128: return 18;
    case SPT_STRING: return 7;
    default: return 0;
    }
}

static int spt_of_code(int code) {
    for (int d = 0; d < SPT_NUM_DTYPES; d++)
        if (spt__tf_dtype_code((spt_dtype)d) == code) return d;
    return -1;
}

const char *spt__tf_dtype_name(int code, char *buf) {
    static const struct {
        int code;
        const char *name;
    } names[] = {{1, "float"},   {2, "double"},    {3, "int32"},    {4, "uint8"},    {5, "int16"},   {6, "int8"},
                 {7, "string"},  {8, "complex64"}, {9, "int64"},    {10, "bool"},    {11, "qint8"},  {12, "quint8"},
                 {13, "qint32"}, {14, "bfloat16"}, {15, "qint16"},  {16, "quint16"}, {17, "uint16"}, {18, "complex128"},
                 {19, "half"},   {20, "resource"}, {21, "variant"}, {22, "uint32"},  {23, "uint64"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == code) return names[i].name;
    snprintf(buf, 24, "DT_%d", code);
    return buf;
}

static bool host_le(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}
/* Append element k of values (dtype es bytes; complex = two parts) little-endian. */
static void put_elem_le(spt__buf *w, const unsigned char *src, size_t es) {
    if (host_le() || es == 1) {
        spt__buf_bytes(w, src, es);
        return;
    }
    size_t part = es == 16 ? 8 : es;
    unsigned char tmp[16];
    for (size_t o = 0; o < es; o += part)
        for (size_t b = 0; b < part; b++) tmp[o + b] = src[o + part - 1 - b];
    spt__buf_bytes(w, tmp, es);
}

static void put_shape(spt__buf *w, int64_t rank, const int64_t *shape) {
    size_t body = 0;
    for (int64_t d = 0; d < rank; d++) {
        size_t dim = shape[d] ? 1 + spt__varint_size((uint64_t)shape[d]) : 0;
        body += 1 + spt__varint_size(dim) + dim;
    }
    spt__buf_tag(w, 2, SPT__PB_LEN);
    spt__buf_varint(w, body);
    for (int64_t d = 0; d < rank; d++) {
        spt__buf_tag(w, 2, SPT__PB_LEN);
        if (!shape[d]) {
            spt__buf_varint(w, 0);
            continue;
        }
        spt__buf_varint(w, 1 + spt__varint_size((uint64_t)shape[d]));
        spt__buf_tag(w, 1, SPT__PB_VARINT);
        spt__buf_varint(w, (uint64_t)shape[d]);
    }
}

void spt__tensor_proto_put(spt__buf *w, spt_dtype dt, int64_t rank, const int64_t *shape, const void *values,
                           const int64_t *pick, int64_t n) {
    spt__buf_tag(w, 1, SPT__PB_VARINT);
    spt__buf_varint(w, (uint64_t)spt__tf_dtype_code(dt));
    put_shape(w, rank, shape);
    if (n == 0) return;
    size_t content = 0;
    if (dt == SPT_STRING) {
        const spt_str *s = values;
        for (int64_t k = 0; k < n; k++) {
            const spt_str *e = s + (pick ? pick[k] : k);
            content += spt__varint_size((uint64_t)e->len) + (size_t)e->len;
        }
    } else {
        content = (size_t)n * spt_dtype_size(dt);
    }
    spt__buf_tag(w, 4, SPT__PB_LEN);
    spt__buf_varint(w, content);
    if (!spt__buf_reserve(w, content)) return;
    if (dt == SPT_STRING) {
        const spt_str *s = values;
        for (int64_t k = 0; k < n; k++) spt__buf_varint(w, (uint64_t)s[pick ? pick[k] : k].len);
        for (int64_t k = 0; k < n; k++) {
            const spt_str *e = s + (pick ? pick[k] : k);
            spt__buf_bytes(w, e->data, (size_t)e->len);
        }
    } else if (dt == SPT_BOOL) {
        const bool *b = values;
        for (int64_t k = 0; k < n; k++) w->b[w->len++] = b[pick ? pick[k] : k] ? 1 : 0;
    } else {
        const size_t es = spt_dtype_size(dt);
        if (!pick && host_le()) {
            spt__buf_bytes(w, values, content);
        } else {
            for (int64_t k = 0; k < n; k++)
                put_elem_le(w, (const unsigned char *)values + (size_t)(pick ? pick[k] : k) * es, es);
        }
    }
}

void spt__tensor_proto_put_index(spt__buf *w, const int64_t *indices, int64_t stride, int64_t skip, int64_t r,
                                 const int64_t *pick, int64_t n) {
    const int64_t shape[2] = {n, r};
    spt__buf_tag(w, 1, SPT__PB_VARINT);
    spt__buf_varint(w, 9);
    put_shape(w, 2, shape);
    if (n == 0 || r == 0) return;
    const size_t content = (size_t)n * (size_t)r * 8;
    spt__buf_tag(w, 4, SPT__PB_LEN);
    spt__buf_varint(w, content);
    if (!spt__buf_reserve(w, content)) return;
    for (int64_t k = 0; k < n; k++) {
        const int64_t *row = indices + (pick ? pick[k] : k) * stride + skip;
        if (host_le()) {
            memcpy(w->b + w->len, row, (size_t)r * 8);
            w->len += (size_t)r * 8;
        } else {
            for (int64_t d = 0; d < r; d++) put_elem_le(w, (const unsigned char *)(row + d), 8);
        }
    }
}

/* ---- reading ----------------------------------------------------------------------------------- */

static spt_status bad(const char *fn, const char *what, const char *field, const char *why) {
    return spt__err(SPT_EPARSE, "%s: %s: TensorProto %s: %s", fn, what, field, why);
}

static spt_status read_shape(const char *fn, const char *what, const unsigned char *p, size_t len, spt__tproto *t) {
    spt__pb r = {p, p + len}, dr;
    spt__pb_field f, g;
    const char *why = NULL;
    int k;
    while ((k = spt__pb_next(&r, &f, &why)) > 0) {
        if (f.num == 3 && f.wire == SPT__PB_VARINT && f.v)
            return bad(fn, what, "tensor_shape", "unknown_rank is set (a tensor needs a known shape)");
        if (f.num != 2) continue;
        if (f.wire != SPT__PB_LEN) return bad(fn, what, "tensor_shape.dim", "wrong wire type");
        if (t->rank == SPT_MAX_RANK) return bad(fn, what, "tensor_shape", "more dims than SPT_MAX_RANK (64)");
        int64_t size = 0;
        dr = (spt__pb){f.data, f.data + f.len};
        int j;
        while ((j = spt__pb_next(&dr, &g, &why)) > 0)
            if (g.num == 1) {
                if (g.wire != SPT__PB_VARINT) return bad(fn, what, "tensor_shape.dim.size", "wrong wire type");
                size = (int64_t)g.v;
            }
        if (j < 0) return bad(fn, what, "tensor_shape.dim", why);
        if (size < 0) {
            char m[64];
            snprintf(m, sizeof m, "dim %lld is %lld", (long long)t->rank, (long long)size);
            return bad(fn, what, "tensor_shape.dim.size", m);
        }
        t->shape[t->rank++] = size;
    }
    if (k < 0) return bad(fn, what, "tensor_shape", why);
    return SPT_OK;
}

/* The typed field of a DataType number, and whether its scalars are fixed 4 / 8 bytes or varints. */
static uint32_t typed_field(int code, int *fixed) {
    *fixed = 0;
    switch (code) {
    case 1: *fixed = 4; return 5;
    case 2: *fixed = 8; return 6;
    case 3:
    case 4:
    case 5:
    case 6:
    case 17: return 7;
    case 7: return 8;
    case 8: *fixed = 4; return 9;
    case 9: return 10;
    case 10: return 11;
    case 18: *fixed = 8; return 12;
    case 22: return 16;
    case 23: return 17;
    default: return 0;
    }
}

/* Store scalar number k (a raw varint or fixed value) of a typed list into element slot `k` of out. */
static void store_scalar(spt_dtype dt, void *out, int64_t k, uint64_t v) {
    switch (dt) {
    case SPT_BOOL: ((bool *)out)[k] = v != 0; break;
    case SPT_INT8: ((int8_t *)out)[k] = (int8_t)(uint8_t)v; break;
    case SPT_INT16: ((int16_t *)out)[k] = (int16_t)(uint16_t)v; break;
    case SPT_INT32: ((int32_t *)out)[k] = (int32_t)(uint32_t)v; break;
    case SPT_UINT8: ((uint8_t *)out)[k] = (uint8_t)v; break;
    case SPT_UINT16: ((uint16_t *)out)[k] = (uint16_t)v; break;
    case SPT_UINT32: ((uint32_t *)out)[k] = (uint32_t)v; break;
    case SPT_INT64:
    case SPT_UINT64: ((uint64_t *)out)[k] = v; break;
    case SPT_FLOAT32:
    case SPT_COMPLEX64: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        ((float *)out)[k] = f;
        break;
    }
    case SPT_FLOAT64:
    case SPT_COMPLEX128: {
        double d;
        memcpy(&d, &v, 8);
        ((double *)out)[k] = d;
        break;
    }
    default: break;
    }
}

/* Walk the typed list (field num) of message [p, end): count its scalars (out NULL) or store the first
 * `cap` of them. Returns -1 on malformed bytes. */
static int64_t typed_scalars(const unsigned char *p, size_t len, uint32_t num, int fixed, spt_dtype dt, void *out,
                             int64_t cap, const char **why) {
    spt__pb r = {p, p + len};
    spt__pb_field f;
    int64_t k = 0;
    int s;
    while ((s = spt__pb_next(&r, &f, why)) > 0) {
        if (f.num != num) continue;
        if (f.wire == SPT__PB_LEN) { /* packed */
            spt__pb q = {f.data, f.data + f.len};
            while (q.p < q.end) {
                uint64_t v = 0;
                if (fixed) {
                    if ((size_t)(q.end - q.p) < (size_t)fixed) {
                        *why = "packed list cut inside a value";
                        return -1;
                    }
                    for (int i = fixed - 1; i >= 0; i--) v = (v << 8) | q.p[i];
                    q.p += fixed;
                } else if (!spt__pb_varint(&q, &v)) {
                    *why = "truncated varint in a packed list";
                    return -1;
                }
                if (out && k < cap) store_scalar(dt, out, k, v);
                k++;
            }
        } else if ((fixed == 4 && f.wire == SPT__PB_I32) || (fixed == 8 && f.wire == SPT__PB_I64) ||
                   (!fixed && f.wire == SPT__PB_VARINT)) {
            if (out && k < cap) store_scalar(dt, out, k, f.v);
            k++;
        } else {
            *why = "wrong wire type for the value list";
            return -1;
        }
    }
    return s < 0 ? -1 : k;
}

/* The elements from tensor_content (packed little-endian bytes, or varint lengths then bytes for strings). */
static spt_status decode_content(const char *fn, const char *what, const unsigned char *content, size_t content_len,
                                 spt__tproto *t) {
    const int64_t n = t->n;
    const size_t es = spt_dtype_size(t->dtype);
    spt_status st = SPT_OK;
    if (t->dtype == SPT_STRING) {
        spt__pb q = {content, content + content_len};
        uint64_t total = 0;
        for (int64_t i = 0; i < n; i++) {
            uint64_t l;
            if (!spt__pb_varint(&q, &l) || l > content_len) return bad(fn, what, "tensor_content", "bad string length");
            total += l;
        }
        if (total != (uint64_t)(q.end - q.p))
            return bad(fn, what, "tensor_content", "string lengths do not add up to the bytes present");
        t->data = spt__alloc_array(fn, n, 1, sizeof(spt_str), false, &st);
        if (!t->data) return st;
        spt__pb q2 = {content, content + content_len};
        const char *sp = (const char *)q.p;
        for (int64_t i = 0; i < n; i++) {
            uint64_t l = 0;
            spt__pb_varint(&q2, &l);
            ((spt_str *)t->data)[i] = (spt_str){sp, (int64_t)l};
            sp += l;
        }
        return SPT_OK;
    }
    size_t need;
    if (spt__bytes3(n, 1, es, &need) || need != content_len) {
        char m[160];
        snprintf(m, sizeof m, "%zu bytes for %lld elements of %s", content_len, (long long)n, spt_dtype_name(t->dtype));
        return bad(fn, what, "tensor_content", m);
    }
    t->data = spt__alloc_array(fn, n, 1, es, false, &st);
    if (!t->data) return st;
    if (t->dtype == SPT_BOOL) {
        for (int64_t i = 0; i < n; i++) ((bool *)t->data)[i] = content[i] != 0;
    } else if (host_le()) {
        memcpy(t->data, content, need);
    } else {
        size_t part = es == 16 ? 8 : es == 8 && (t->dtype == SPT_COMPLEX64) ? 4 : es;
        unsigned char *o = t->data;
        for (size_t i = 0; i < need; i += part)
            for (size_t j = 0; j < part; j++) o[i + j] = content[i + part - 1 - j];
    }
    return SPT_OK;
}

/* The elements from the typed value fields (int_val, float_val, ..., string_val); a shorter list repeats its last
 * value, as TensorFlow does, up to SPT__TPROTO_FILL_MAX elements. */
static spt_status decode_typed(const char *fn, const char *what, const unsigned char *b, size_t len, spt__tproto *t) {
    const int64_t n = t->n;
    const size_t es = spt_dtype_size(t->dtype);
    spt_status st = SPT_OK;
    spt__pb_field f;
    const char *why = NULL;
    int k;
    int fixed;
    uint32_t num = typed_field(t->code, &fixed);
    const bool cplx = t->dtype == SPT_COMPLEX64 || t->dtype == SPT_COMPLEX128;
    int64_t have = 0;
    if (t->dtype == SPT_STRING) {
        spt__pb q = {b, b + len};
        while ((k = spt__pb_next(&q, &f, &why)) > 0)
            if (f.num == 8) {
                if (f.wire != SPT__PB_LEN) return bad(fn, what, "string_val", "wrong wire type");
                have++;
            }
    } else {
        have = typed_scalars(b, len, num, fixed, t->dtype, NULL, 0, &why);
        if (have < 0) return bad(fn, what, "value list", why);
        if (cplx) have /= 2;
    }
    if (n > have && n > SPT__TPROTO_FILL_MAX) {
        char m[160];
        snprintf(m, sizeof m,
                 "the shape holds %lld elements but %lld values are present (spt repeats the last value up "
                 "to %lld elements only)",
                 (long long)n, (long long)have, (long long)SPT__TPROTO_FILL_MAX);
        return bad(fn, what, "value list", m);
    }
    t->data = spt__alloc_array(fn, n, 1, es, true, &st);
    if (!t->data) return st;
    if (n == 0 || have == 0) return SPT_OK; /* zeros, "" for strings */
    const int64_t take = have < n ? have : n;
    if (t->dtype == SPT_STRING) {
        spt__pb q = {b, b + len};
        int64_t i = 0;
        while (i < take && spt__pb_next(&q, &f, &why) > 0)
            if (f.num == 8) ((spt_str *)t->data)[i++] = (spt_str){(const char *)f.data, (int64_t)f.len};
    } else {
        typed_scalars(b, len, num, fixed, t->dtype, t->data, cplx ? 2 * take : take, &why);
    }
    for (int64_t i = take; i < n; i++) spt__copy_elem(t->data, i, t->data, take - 1, es);
    return SPT_OK;
}

spt_status spt__tproto_decode(const char *fn, const char *what, const void *bytes, size_t len, spt__tproto *t) {
    memset(t, 0, sizeof *t);
    const unsigned char *b = bytes;
    spt__pb r = {b, b + len};
    spt__pb_field f;
    const char *why = NULL;
    const unsigned char *content = NULL;
    size_t content_len = 0;
    bool has_content = false;
    int k;
    while ((k = spt__pb_next(&r, &f, &why)) > 0) {
        if (f.num == 1) {
            if (f.wire != SPT__PB_VARINT) return bad(fn, what, "dtype", "wrong wire type");
            t->code = (int)(uint32_t)f.v;
        } else if (f.num == 2) {
            if (f.wire != SPT__PB_LEN) return bad(fn, what, "tensor_shape", "wrong wire type");
            SPT__TRY(read_shape(fn, what, f.data, f.len, t)); /* repeated occurrences merge: dims append */
        } else if (f.num == 4) {
            if (f.wire != SPT__PB_LEN) return bad(fn, what, "tensor_content", "wrong wire type");
            content = f.data;
            content_len = f.len;
            has_content = f.len > 0;
        }
    }
    if (k < 0) return bad(fn, what, "field", why);
    int d = spt_of_code(t->code);
    if (d < 0) {
        char nb[24];
        return spt__err(t->code == 0 ? SPT_EPARSE : SPT_EDTYPE, "%s: %s: TensorProto dtype %s is not one spt has", fn,
                        what, spt__tf_dtype_name(t->code, nb));
    }
    t->dtype = (spt_dtype)d;
    int64_t n = 1;
    for (int64_t i = 0; i < t->rank; i++)
        if (spt__mul_i64(n, t->shape[i], &n)) return bad(fn, what, "tensor_shape", "the element count overflows int64");
    t->n = n;
    return has_content ? decode_content(fn, what, content, content_len, t) : decode_typed(fn, what, b, len, t);
}

void spt__tproto_free(spt__tproto *t) {
    spt__free(t->data);
    t->data = NULL;
}
