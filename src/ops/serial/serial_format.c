/* SPDX-License-Identifier: Apache-2.0 */
/* serial_format.c -- spt's own binary form of one sparse tensor (the format is documented with
 * spt_pack_sparse in spt.h): the writer and the never-trusting reader shared by
 * serialize_sparse / serialize_many_sparse / deserialize_sparse / deserialize_many_sparse. */
#include "ops/serial/serial_internal.h"

#define SER_MAGIC "SPTS"
#define SER_VERSION 1
#define SER_HEADER 24 /* magic 4, version 2, dtype 1, reserved 1, rank 8, nnz 8 */
#define SER_TRAILER 8 /* Fingerprint64 of everything before it */

static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
/* Little-endian copy of n elements of es bytes (es 1, 2, 4, 8, 16 = two 8-byte halves). */
static bool host_le(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}
static void copy_le(unsigned char *dst, const unsigned char *src, int64_t n, size_t es) {
    size_t part = es == 16 ? 8 : es;
    if (host_le() || part == 1) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    for (int64_t i = 0; i < n * (int64_t)(es / part); i++)
        for (size_t b = 0; b < part; b++) dst[(size_t)i * part + b] = src[(size_t)i * part + part - 1 - b];
}

void spt_bytes_free(void *p) { spt__free(p); }

spt_status spt__serialize_part(const char *fn, const spt_tensor *t, const int64_t *keep, int64_t n, int64_t drop_dims,
                               void **data, size_t *len) {
    *data = NULL;
    *len = 0;
    const int64_t r = t->rank - drop_dims;
    const size_t es = spt_dtype_size(t->dtype);
    /* size: header + shape + indices + values (+ string lengths and bytes) + trailer, all checked */
    size_t total = SER_HEADER + SER_TRAILER, part;
    bool bad = spt__bytes3(r, 1, 8, &part) || spt__add_sz(total, part, &total) || spt__bytes3(n, r, 8, &part) ||
               spt__add_sz(total, part, &total);
    if (t->dtype == SPT_STRING) {
        bad = bad || spt__bytes3(n, 1, 8, &part) || spt__add_sz(total, part, &total);
        for (int64_t k = 0; k < n && !bad; k++) {
            const spt_str *s = (const spt_str *)t->values + (keep ? keep[k] : k);
            bad = spt__add_sz(total, (size_t)s->len, &total);
        }
    } else {
        bad = bad || spt__bytes3(n, 1, es, &part) || spt__add_sz(total, part, &total);
    }
    if (bad) return spt__err(SPT_EOVERFLOW, "%s: the serialized size does not fit in size_t", fn);
    unsigned char *b = spt__malloc(total);
    if (!b) return spt__err(SPT_ENOMEM, "%s: out of memory for %zu serialized bytes", fn, total);
    memcpy(b, SER_MAGIC, 4);
    b[4] = SER_VERSION & 0xff;
    b[5] = SER_VERSION >> 8;
    b[6] = (unsigned char)t->dtype;
    b[7] = 0;
    put_u64(b + 8, (uint64_t)r);
    put_u64(b + 16, (uint64_t)n);
    unsigned char *p = b + SER_HEADER;
    for (int64_t d = 0; d < r; d++, p += 8) put_u64(p, (uint64_t)t->shape[d + drop_dims]);
    for (int64_t k = 0; k < n; k++) {
        const int64_t *ix = t->indices + (keep ? keep[k] : k) * t->rank + drop_dims;
        for (int64_t d = 0; d < r; d++, p += 8) put_u64(p, (uint64_t)ix[d]);
    }
    if (t->dtype == SPT_STRING) {
        for (int64_t k = 0; k < n; k++, p += 8)
            put_u64(p, (uint64_t)((const spt_str *)t->values)[keep ? keep[k] : k].len);
        for (int64_t k = 0; k < n; k++) {
            const spt_str *s = (const spt_str *)t->values + (keep ? keep[k] : k);
            if (s->len) memcpy(p, s->data, (size_t)s->len);
            p += s->len;
        }
    } else if (t->dtype == SPT_BOOL) {
        for (int64_t k = 0; k < n; k++) *p++ = ((const bool *)t->values)[keep ? keep[k] : k] ? 1 : 0;
    } else if (keep) {
        for (int64_t k = 0; k < n; k++, p += es)
            copy_le(p, (const unsigned char *)t->values + (size_t)keep[k] * es, 1, es);
    } else {
        copy_le(p, t->values, n, es);
        p += (size_t)n * es;
    }
    put_u64(p, spt_fingerprint64(b, (size_t)(p - b)));
    *data = b;
    *len = total;
    return SPT_OK;
}

spt_status spt__deserialize_one(const char *fn, int64_t item, const void *data, size_t len, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor *t = NULL;
    *out = NULL;
    const unsigned char *b = data;
    if (!data && len > 0) return spt__err(SPT_EINVAL, "%s: serialized[%lld] is NULL", fn, (long long)item);
    if (len < SER_HEADER + SER_TRAILER)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: %zu bytes is shorter than the %d-byte header and checksum",
                        fn, (long long)item, len, SER_HEADER + SER_TRAILER);
    if (memcmp(b, SER_MAGIC, 4) != 0)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: not an spt serialized tensor (bad magic)", fn,
                        (long long)item);
    unsigned version = b[4] | (unsigned)b[5] << 8;
    if (version != SER_VERSION)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: format version %u is not supported (this build reads %d)",
                        fn, (long long)item, version, SER_VERSION);
    uint64_t want = get_u64(b + len - SER_TRAILER), got = spt_fingerprint64(b, len - SER_TRAILER);
    if (want != got)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: checksum mismatch (damaged bytes)", fn, (long long)item);
    if (b[6] >= SPT_NUM_DTYPES || b[7] != 0)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: bad dtype code %u or reserved byte %u", fn, (long long)item,
                        b[6], b[7]);
    const spt_dtype dt = (spt_dtype)b[6];
    const uint64_t ur = get_u64(b + 8), un = get_u64(b + 16);
    if (ur > SPT_MAX_RANK)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: rank %llu exceeds %d", fn, (long long)item,
                        (unsigned long long)ur, SPT_MAX_RANK);
    if (un > (uint64_t)INT64_MAX)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: entry count %llu", fn, (long long)item,
                        (unsigned long long)un);
    const int64_t r = (int64_t)ur, n = (int64_t)un;
    const size_t es = spt_dtype_size(dt), avail = len - SER_HEADER - SER_TRAILER;
    /* every count against the bytes present, before anything is allocated */
    size_t need = 0, part;
    bool bad = spt__bytes3(r, 1, 8, &part) || spt__add_sz(need, part, &need) || spt__bytes3(n, r, 8, &part) ||
               spt__add_sz(need, part, &need) || spt__bytes3(n, 1, dt == SPT_STRING ? 8 : es, &part) ||
               spt__add_sz(need, part, &need);
    if (bad || need > avail || (dt != SPT_STRING && need != avail))
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: rank %lld and %lld entries of %s need %s bytes, %zu present",
                        fn, (long long)item, (long long)r, (long long)n, spt_dtype_name(dt),
                        bad ? "more than size_t" : "other than", avail);
    const unsigned char *p = b + SER_HEADER;
    int64_t shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++, p += 8) {
        uint64_t v = get_u64(p);
        if (v > (uint64_t)INT64_MAX)
            return spt__err(SPT_EPARSE, "%s: serialized[%lld]: shape[%lld] = %llu is negative as int64", fn,
                            (long long)item, (long long)d, (unsigned long long)v);
        shape[d] = (int64_t)v;
    }
    const unsigned char *ixp = p, *vp = p + (size_t)n * (size_t)r * 8;
    if (dt == SPT_STRING) { /* lengths, then exactly that many bytes */
        size_t bytes = 0;
        for (int64_t k = 0; k < n; k++) {
            uint64_t l = get_u64(vp + (size_t)k * 8);
            if (l > avail || spt__add_sz(bytes, (size_t)l, &bytes) || bytes > avail - need)
                return spt__err(SPT_EPARSE, "%s: serialized[%lld]: string %lld of %llu bytes runs past the end", fn,
                                (long long)item, (long long)k, (unsigned long long)l);
        }
        if (bytes != avail - need)
            return spt__err(SPT_EPARSE, "%s: serialized[%lld]: %zu string bytes expected, %zu present", fn,
                            (long long)item, bytes, avail - need);
    }
    SPT__TRY(spt__tensor_alloc_uninit(fn, dt, r, shape, n, NULL, &t));
    for (int64_t i = 0; i < n * r; i++) {
        uint64_t v = get_u64(ixp + (size_t)i * 8);
        if (v >= (uint64_t)shape[i % r]) {
            st = spt__err(SPT_ERANGE,
                          "%s: serialized[%lld]: indices[%lld][%lld] = %lld is outside the shape (dim %lld)", fn,
                          (long long)item, (long long)(i / r), (long long)(i % r), (long long)(int64_t)v,
                          (long long)shape[i % r]);
            goto fail;
        }
        t->indices[i] = (int64_t)v;
    }
    if (dt == SPT_STRING) {
        spt_str *s = t->values;
        const unsigned char *sp = vp + (size_t)n * 8;
        for (int64_t k = 0; k < n; k++) {
            s[k].len = (int64_t)get_u64(vp + (size_t)k * 8);
            s[k].data = (const char *)sp;
            sp += s[k].len;
        }
        SPT__CHECK(spt__arena_adopt_all(&t->strings, s, n));
    } else if (dt == SPT_BOOL) {
        for (int64_t k = 0; k < n; k++) {
            if (vp[k] > 1) {
                st = spt__err(SPT_EPARSE, "%s: serialized[%lld]: bool value %lld is byte %u", fn, (long long)item,
                              (long long)k, vp[k]);
                goto fail;
            }
            ((bool *)t->values)[k] = vp[k] != 0;
        }
    } else if (n > 0) {
        copy_le(t->values, vp, n, es);
    }
    t->flags = SPT__F_VALID;
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}
