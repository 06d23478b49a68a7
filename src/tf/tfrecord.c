/* SPDX-License-Identifier: Apache-2.0 */
/* tfrecord.c -- TFRecord files: each record is an 8-byte little-endian length, the masked CRC-32C of
 * those 8 bytes, the data, the masked CRC-32C of the data; the whole stream optionally one zlib or gzip
 * stream. The reader streams through fixed buffers and grows a record's buffer only as its bytes
 * arrive; every fault is SPT_EDATALOSS naming the file and the record's byte offset. */
#include "tf/tf_internal.h"

#include <errno.h>
#include <stdio.h>
#include <zlib.h>

#define IO_CHUNK (256 * 1024)

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
    (void)opaque;
    size_t n;
    return spt__mul_sz(items, size, &n) ? NULL : spt__malloc(n);
}
static void z_free(voidpf opaque, voidpf p) {
    (void)opaque;
    spt__free(p);
}
static int window_bits(spt_tfrecord_compression c) { return c == SPT_TFRECORD_GZIP ? MAX_WBITS + 16 : MAX_WBITS; }

static char *dup_path(const char *path) {
    size_t n = strlen(path) + 1;
    char *p = spt__malloc(n);
    if (p) memcpy(p, path, n);
    return p;
}

/* ---- reader ------------------------------------------------------------------------------------ */

struct spt_tfrecord_reader {
    FILE *f;
    char *path;
    spt_tfrecord_compression comp;
    z_stream z;
    bool z_live, in_eof;
    unsigned char *in;  /* compressed input (ZLIB / GZIP) */
    unsigned char *buf; /* uncompressed bytes [pos, end) not yet consumed */
    size_t pos, end;
    unsigned char *rec; /* the current record */
    size_t rec_cap;
    int64_t offset;    /* uncompressed offset of the next unconsumed byte */
    spt_status sticky; /* after a fault, every read reports it again */
    char sticky_msg[512];
};

static spt_status loss(spt_tfrecord_reader *r, const char *fn, int64_t at, const char *why) {
    snprintf(r->sticky_msg, sizeof r->sticky_msg, "%s: %s: corrupted record at byte %lld: %s", fn, r->path,
             (long long)at, why);
    r->sticky = SPT_EDATALOSS;
    return spt__err(SPT_EDATALOSS, "%s", r->sticky_msg);
}

/* Refill buf with uncompressed bytes: *got 0 at the end of the stream. */
static spt_status refill(spt_tfrecord_reader *r, const char *fn, size_t *got) {
    *got = 0;
    r->pos = r->end = 0;
    if (r->comp == SPT_TFRECORD_NONE) {
        size_t n = fread(r->buf, 1, IO_CHUNK, r->f);
        if (n == 0 && ferror(r->f)) return spt__err(SPT_EIO, "%s: %s: read failed: %s", fn, r->path, strerror(errno));
        r->end = n;
        *got = n;
        return SPT_OK;
    }
    while (*got == 0) {
        if (r->z.avail_in == 0 && !r->in_eof) {
            size_t n = fread(r->in, 1, IO_CHUNK, r->f);
            if (n == 0 && ferror(r->f))
                return spt__err(SPT_EIO, "%s: %s: read failed: %s", fn, r->path, strerror(errno));
            if (n == 0) r->in_eof = true;
            r->z.next_in = r->in;
            r->z.avail_in = (uInt)n;
        }
        if (!r->z_live) { /* after the end of a stream: another member follows, or the file ends */
            if (r->z.avail_in == 0) return SPT_OK;
            if (inflateReset(&r->z) != Z_OK) return loss(r, fn, r->offset, "the compressed stream cannot be restarted");
            r->z_live = true;
        }
        if (r->z.avail_in == 0 && r->in_eof) return loss(r, fn, r->offset, "the compressed stream is truncated");
        r->z.next_out = r->buf;
        r->z.avail_out = IO_CHUNK;
        int zr = inflate(&r->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) r->z_live = false;
        else if (zr == Z_MEM_ERROR) return spt__err(SPT_ENOMEM, "%s: %s: out of memory inflating", fn, r->path);
        else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            char m[160];
            snprintf(m, sizeof m, "damaged compressed data (%s)", r->z.msg ? r->z.msg : "zlib error");
            return loss(r, fn, r->offset, m);
        }
        *got = IO_CHUNK - r->z.avail_out;
        r->end = *got;
    }
    return SPT_OK;
}

/* Copy up to n bytes of the stream to dst (dst NULL: into the record buffer at `at`, growing it only as
 * bytes arrive); *got < n at the end of the stream. */
static spt_status take(spt_tfrecord_reader *r, const char *fn, unsigned char *dst, size_t at, size_t n, size_t *got) {
    *got = 0;
    while (*got < n) {
        if (r->pos == r->end) {
            size_t more;
            SPT__TRY(refill(r, fn, &more));
            if (!more) return SPT_OK;
        }
        size_t k = r->end - r->pos;
        if (k > n - *got) k = n - *got;
        unsigned char *d = dst;
        if (!d) {
            size_t need = at + *got + k;
            if (need > r->rec_cap) {
                size_t cap = r->rec_cap ? r->rec_cap : 4096;
                while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
                if (cap > at + n) cap = at + n;
                unsigned char *nb = spt__realloc(r->rec, cap);
                if (!nb) return spt__err(SPT_ENOMEM, "%s: %s: out of memory for a record of %zu bytes", fn, r->path, n);
                r->rec = nb;
                r->rec_cap = cap;
            }
            d = r->rec + at;
        }
        memcpy(d + *got, r->buf + r->pos, k);
        r->pos += k;
        *got += k;
        r->offset += (int64_t)k;
    }
    return SPT_OK;
}

spt_status spt_tfrecord_reader_open(const char *path, spt_tfrecord_compression compression, spt_tfrecord_reader **out) {
    static const char fn[] = "spt_tfrecord_reader_open";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if ((unsigned)compression > SPT_TFRECORD_GZIP)
        return spt__err(SPT_EINVAL, "%s: compression %d is not NONE (0), ZLIB (1) or GZIP (2)", fn, (int)compression);
    spt_tfrecord_reader *r = spt__calloc(1, sizeof *r);
    if (!r) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    r->comp = compression;
    r->path = dup_path(path);
    r->buf = spt__malloc(IO_CHUNK);
    if (compression != SPT_TFRECORD_NONE) r->in = spt__malloc(IO_CHUNK);
    if (!r->path || !r->buf || (compression != SPT_TFRECORD_NONE && !r->in)) {
        spt_tfrecord_reader_close(r);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    r->f = fopen(path, "rb");
    if (!r->f) {
        spt_status st = spt__err(SPT_EIO, "%s: cannot open %s: %s", fn, path, strerror(errno));
        spt_tfrecord_reader_close(r);
        return st;
    }
    if (compression != SPT_TFRECORD_NONE) {
        r->z.zalloc = z_alloc;
        r->z.zfree = z_free;
        if (inflateInit2(&r->z, window_bits(compression)) != Z_OK) {
            spt_tfrecord_reader_close(r);
            return spt__err(SPT_ENOMEM, "%s: cannot start zlib", fn);
        }
        r->z_live = true;
    }
    *out = r;
    return SPT_OK;
}

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static spt_status read_one(spt_tfrecord_reader *r, const char *fn, const void **data, size_t *len, bool *eof) {
    *data = NULL;
    *len = 0;
    *eof = false;
    if (r->sticky) return spt__err(r->sticky, "%s", r->sticky_msg);
    const int64_t at = r->offset;
    unsigned char h[12], c[4];
    size_t got;
    SPT__TRY(take(r, fn, h, 0, 12, &got));
    if (got == 0) {
        *eof = true;
        return SPT_OK;
    }
    if (got < 12) return loss(r, fn, at, "truncated record header");
    if (le32(h + 8) != spt__crc32c_masked(h, 8)) return loss(r, fn, at, "the length's checksum does not match");
    const uint64_t n = le64(h);
    if (n > (uint64_t)SIZE_MAX - 8) return loss(r, fn, at, "the length is impossibly large");
    SPT__TRY(take(r, fn, NULL, 0, (size_t)n, &got));
    if (got < n) {
        char m[160];
        snprintf(m, sizeof m, "truncated record: %llu bytes announced, %zu present", (unsigned long long)n, got);
        return loss(r, fn, at, m);
    }
    SPT__TRY(take(r, fn, c, 0, 4, &got));
    if (got < 4) return loss(r, fn, at, "truncated record: the data checksum is missing");
    if (le32(c) != spt__crc32c_masked(r->rec, (size_t)n)) return loss(r, fn, at, "the data's checksum does not match");
    *data = n ? r->rec : (const void *)"";
    *len = (size_t)n;
    return SPT_OK;
}

spt_status spt_tfrecord_read(spt_tfrecord_reader *r, const void **data, size_t *len, bool *eof) {
    static const char fn[] = "spt_tfrecord_read";
    if (!r || !data || !len || !eof) {
        if (data) *data = NULL;
        if (len) *len = 0;
        return spt__err(SPT_EINVAL, "%s: reader, data, len or eof is NULL", fn);
    }
    return read_one(r, fn, data, len, eof);
}

spt_status spt_tfrecord_read_batch(spt_tfrecord_reader *r, int64_t max_records, spt_dense **out) {
    static const char fn[] = "spt_tfrecord_read_batch";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!r) return spt__err(SPT_EINVAL, "%s: reader is NULL", fn);
    if (max_records < 1) return spt__err(SPT_EINVAL, "%s: max_records = %lld must be >= 1", fn, (long long)max_records);
    spt_status st = SPT_OK;
    int64_t n = 0, cap = max_records < 1024 ? max_records : 1024;
    spt_str *s = spt__alloc_array(fn, cap, 1, sizeof *s, false, &st);
    spt__arena arena = {0};
    spt_dense *d = NULL;
    if (!s) return st;
    while (n < max_records) {
        const void *p;
        size_t len;
        bool eof;
        SPT__CHECK(read_one(r, fn, &p, &len, &eof));
        if (eof) break;
        if (n == cap) {
            int64_t nc = cap * 2 < max_records ? cap * 2 : max_records;
            spt_str *ns = spt__realloc(s, (size_t)nc * sizeof *s);
            if (!ns) {
                st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
                goto fail;
            }
            s = ns;
            cap = nc;
        }
        SPT__CHECK(spt__arena_store(&arena, p, (int64_t)len, &s[n].data));
        s[n++].len = (int64_t)len;
    }
    SPT__CHECK(spt_dense_new(SPT_STRING, 1, &n, &d));
    if (n) memcpy(d->data, s, (size_t)n * sizeof *s);
    d->strings = arena; /* the dense adopts the bytes */
    arena.head = NULL;
    *out = d;
fail:
    spt__arena_free(&arena);
    spt__free(s);
    return st;
}

int64_t spt_tfrecord_reader_offset(const spt_tfrecord_reader *r) { return r ? r->offset : -1; }

void spt_tfrecord_reader_close(spt_tfrecord_reader *r) {
    if (!r) return;
    if (r->f) fclose(r->f);
    if (r->comp != SPT_TFRECORD_NONE && r->z.zalloc) inflateEnd(&r->z);
    spt__free(r->in);
    spt__free(r->buf);
    spt__free(r->rec);
    spt__free(r->path);
    spt__free(r);
}

/* ---- writer ------------------------------------------------------------------------------------ */

struct spt_tfrecord_writer {
    FILE *f;
    char *path;
    spt_tfrecord_compression comp;
    z_stream z;
    bool z_live;
    unsigned char *out;
    spt_status sticky;
};

static spt_status w_fail(spt_tfrecord_writer *w, const char *fn) {
    w->sticky = SPT_EIO;
    return spt__err(SPT_EIO, "%s: %s: write failed: %s", fn, w->path, strerror(errno));
}

static spt_status w_bytes(spt_tfrecord_writer *w, const char *fn, const void *p, size_t n, int flush) {
    if (w->comp == SPT_TFRECORD_NONE) {
        if (n && fwrite(p, 1, n, w->f) != n) return w_fail(w, fn);
        return SPT_OK;
    }
    w->z.next_in = (Bytef *)(uintptr_t)p;
    size_t left = n;
    do {
        uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
        w->z.avail_in = step;
        left -= step;
        int fl = left ? Z_NO_FLUSH : flush;
        do {
            w->z.next_out = w->out;
            w->z.avail_out = IO_CHUNK;
            int zr = deflate(&w->z, fl);
            if (zr == Z_STREAM_ERROR) {
                w->sticky = SPT_EINTERNAL;
                return spt__err(SPT_EINTERNAL, "%s: %s: zlib refused the stream", fn, w->path);
            }
            size_t have = IO_CHUNK - w->z.avail_out;
            if (have && fwrite(w->out, 1, have, w->f) != have) return w_fail(w, fn);
        } while (w->z.avail_out == 0);
    } while (left);
    return SPT_OK;
}

spt_status spt_tfrecord_writer_open(const char *path, spt_tfrecord_compression compression, spt_tfrecord_writer **out) {
    static const char fn[] = "spt_tfrecord_writer_open";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if ((unsigned)compression > SPT_TFRECORD_GZIP)
        return spt__err(SPT_EINVAL, "%s: compression %d is not NONE (0), ZLIB (1) or GZIP (2)", fn, (int)compression);
    spt_tfrecord_writer *w = spt__calloc(1, sizeof *w);
    if (!w) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    w->comp = compression;
    w->path = dup_path(path);
    if (compression != SPT_TFRECORD_NONE) w->out = spt__malloc(IO_CHUNK);
    if (!w->path || (compression != SPT_TFRECORD_NONE && !w->out)) {
        spt__free(w->out);
        spt__free(w->path);
        spt__free(w);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    if (compression != SPT_TFRECORD_NONE) {
        w->z.zalloc = z_alloc;
        w->z.zfree = z_free;
        if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits(compression), 9, Z_DEFAULT_STRATEGY) !=
            Z_OK) {
            spt__free(w->out);
            spt__free(w->path);
            spt__free(w);
            return spt__err(SPT_ENOMEM, "%s: cannot start zlib", fn);
        }
        w->z_live = true;
    }
    w->f = fopen(path, "wb");
    if (!w->f) {
        spt_status st = spt__err(SPT_EIO, "%s: cannot create %s: %s", fn, path, strerror(errno));
        if (w->z_live) deflateEnd(&w->z);
        spt__free(w->out);
        spt__free(w->path);
        spt__free(w);
        return st;
    }
    *out = w;
    return SPT_OK;
}

static spt_status write_one(spt_tfrecord_writer *w, const char *fn, const void *data, size_t len) {
    if (w->sticky) return spt__err(w->sticky, "%s: %s: an earlier write failed", fn, w->path);
    unsigned char h[12], c[4];
    for (int i = 0; i < 8; i++) h[i] = (unsigned char)((uint64_t)len >> (8 * i));
    uint32_t m = spt__crc32c_masked(h, 8), d = spt__crc32c_masked(data ? data : "", len);
    for (int i = 0; i < 4; i++) {
        h[8 + i] = (unsigned char)(m >> (8 * i));
        c[i] = (unsigned char)(d >> (8 * i));
    }
    SPT__TRY(w_bytes(w, fn, h, 12, Z_NO_FLUSH));
    SPT__TRY(w_bytes(w, fn, data, len, Z_NO_FLUSH));
    return w_bytes(w, fn, c, 4, Z_NO_FLUSH);
}

spt_status spt_tfrecord_write(spt_tfrecord_writer *w, const char *data, size_t len) {
    static const char fn[] = "spt_tfrecord_write";
    if (!w) return spt__err(SPT_EINVAL, "%s: writer is NULL", fn);
    if (!data && len) return spt__err(SPT_EINVAL, "%s: data is NULL with len %zu", fn, len);
    return write_one(w, fn, data, len);
}

spt_status spt_tfrecord_write_batch(spt_tfrecord_writer *w, const spt_dense *records) {
    static const char fn[] = "spt_tfrecord_write_batch";
    if (!w || !records) return spt__err(SPT_EINVAL, "%s: writer or records is NULL", fn);
    if (records->dtype != SPT_STRING)
        return spt__err(SPT_EDTYPE, "%s: records must be strings, got %s", fn, spt_dtype_name(records->dtype));
    const spt_str *s = records->data;
    for (int64_t i = 0; i < records->size; i++) SPT__TRY(write_one(w, fn, s[i].data, (size_t)s[i].len));
    return SPT_OK;
}

spt_status spt_tfrecord_writer_close(spt_tfrecord_writer *w) {
    static const char fn[] = "spt_tfrecord_writer_close";
    if (!w) return SPT_OK;
    spt_status st = w->sticky ? spt__err(w->sticky, "%s: %s: an earlier write failed", fn, w->path) : SPT_OK;
    if (w->z_live) {
        if (st == SPT_OK) st = w_bytes(w, fn, NULL, 0, Z_FINISH);
        deflateEnd(&w->z);
    }
    if (fclose(w->f) != 0 && st == SPT_OK)
        st = spt__err(SPT_EIO, "%s: %s: close failed: %s", fn, w->path, strerror(errno));
    spt__free(w->out);
    spt__free(w->path);
    spt__free(w);
    return st;
}

void spt_tfrecord_writer_free(spt_tfrecord_writer *w) { (void)spt_tfrecord_writer_close(w); }
