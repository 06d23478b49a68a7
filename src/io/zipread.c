/* SPDX-License-Identifier: Apache-2.0 */
/* zipread.c -- a zip archive's members read in place from its bytes (an .npz): the central directory
 * (zip64 too) checked against the image, stored members handed out where they lie, deflated ones
 * inflated whole by libdeflate; every member's CRC-32 and size checked. */
#include "io.h"

#include <libdeflate.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static spt_status bad(const char *name, const char *what) {
    return spt__err(SPT_EPARSE, "%s: expected a zip archive (.npz), found something else: %s", name, what);
}

/* The end of central directory record (and its zip64 form): the directory's offset, size, entries. */
static spt_status find_dir(const char *name, const unsigned char *u, size_t len, uint64_t *off, uint64_t *size,
                           uint64_t *count) {
    if (len < 22) return bad(name, "shorter than a zip directory");
    size_t at = SIZE_MAX;
    const size_t lo = len - 22 > 65535 ? len - 22 - 65535 : 0;
    for (size_t p = len - 22 + 1; p-- > lo;) /* the last record whose comment reaches the end exactly */
        if (rd32(u + p) == 0x06054b50 && (size_t)rd16(u + p + 20) == len - 22 - p) {
            at = p;
            break;
        }
    if (at == SIZE_MAX) return bad(name, "no end of central directory record");
    const unsigned char *e = u + at;
    if (rd16(e + 4) || rd16(e + 6)) return bad(name, "a multi-disk archive");
    *count = rd16(e + 10);
    *size = rd32(e + 12);
    *off = rd32(e + 16);
    if (*count == 0xFFFF || *size == 0xFFFFFFFF || *off == 0xFFFFFFFF) {
        if (at < 20 || rd32(e - 20) != 0x07064b50) return bad(name, "a zip64 directory without its locator");
        uint64_t z = rd64(e - 20 + 8);
        if (z > at - 20 || at - 20 - z < 56 || rd32(u + z) != 0x06064b50)
            return bad(name, "a bad zip64 directory record");
        *count = rd64(u + z + 32);
        *size = rd64(u + z + 40);
        *off = rd64(u + z + 48);
        at = (size_t)z;
    }
    if (*off > at || *size > at - *off) return bad(name, "a central directory outside the file");
    if (*count > *size / 46) return bad(name, "more entries than the central directory holds");
    return SPT_OK;
}

/* The zip64 extra field (id 1) of a directory entry: the 64-bit values of the fields that are all ones. */
static bool zip64_extra(const unsigned char *x, size_t xl, uint64_t *usize, uint64_t *csize, uint64_t *off) {
    while (xl >= 4) {
        size_t id = rd16(x), n = rd16(x + 2);
        if (n > xl - 4) return false;
        if (id == 1) {
            const unsigned char *p = x + 4, *e = p + n;
            uint64_t *f[3] = {usize, csize, off};
            for (int k = 0; k < 3; k++)
                if (*f[k] == 0xFFFFFFFF) {
                    if (e - p < 8) return false;
                    *f[k] = rd64(p);
                    p += 8;
                }
            return true;
        }
        x += 4 + n;
        xl -= 4 + n;
    }
    return !(*usize == 0xFFFFFFFF || *csize == 0xFFFFFFFF || *off == 0xFFFFFFFF);
}

spt_status spt__zip_open(const char *fn, const char *name, const char *data, size_t len, bool mapped, spt__zip *z) {
    memset(z, 0, sizeof *z);
    const unsigned char *u = (const unsigned char *)data;
    uint64_t off = 0, size = 0, count = 0;
    SPT__TRY(find_dir(name, u, len, &off, &size, &count));
    spt_status st;
    z->e = spt__alloc_array(fn, (int64_t)(count ? count : 1), 1, sizeof *z->e, false, &st);
    if (!z->e) return st;
    z->name = name;
    z->mapped = mapped;
    const unsigned char *p = u + off, *end = p + size;
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < 46 || rd32(p) != 0x02014b50) goto corrupt;
        size_t nl = rd16(p + 28), xl = rd16(p + 30), cl = rd16(p + 32);
        if ((size_t)(end - p - 46) < nl + xl + cl) goto corrupt;
        spt__zip_entry *e = &z->e[i];
        e->flags = rd16(p + 8);
        e->method = rd16(p + 10);
        e->crc = rd32(p + 16);
        e->csize = rd32(p + 20);
        e->usize = rd32(p + 24);
        uint64_t lo = rd32(p + 42);
        e->name = (const char *)p + 46;
        e->nlen = nl;
        if (!zip64_extra(p + 46 + nl, xl, &e->usize, &e->csize, &lo)) goto corrupt;
        /* the local header: its own name and extra lengths say where the data starts */
        if (lo > off || off - lo < 30 || rd32(u + lo) != 0x04034b50) goto corrupt;
        uint64_t start = lo + 30 + rd16(u + lo + 26) + (uint64_t)rd16(u + lo + 28);
        if (start > off || e->csize > off - start) goto corrupt;
        e->data = u + start;
        p += 46 + nl + xl + cl;
        z->n++;
    }
    return SPT_OK;
corrupt:
    spt__free(z->e);
    z->e = NULL;
    return spt__err(SPT_EPARSE,
                    "%s: expected a zip archive (.npz), found something else: a malformed directory entry %zu", name,
                    (size_t)z->n);
}

void spt__zip_close(spt__zip *z) {
    spt__free(z->e);
    memset(z, 0, sizeof *z);
}

const spt__zip_entry *spt__zip_find(const spt__zip *z, const char *m) {
    size_t ml = strlen(m);
    for (size_t i = 0; i < z->n; i++)
        if (z->e[i].nlen == ml && !memcmp(z->e[i].name, m, ml)) return &z->e[i];
    return NULL;
}

/* A member spt can read: not encrypted, stored (its size the same both ways) or deflated within deflate's
 * greatest ratio (about 1032 : 1), so that no lying size is allocated. */
static spt_status usable(const char *label, const spt__zip_entry *e) {
    if (e->flags & 1) return spt__err(SPT_EPARSE, "%s: expected an unencrypted member, found an encrypted one", label);
    if (e->method != 0 && e->method != 8)
        return spt__err(SPT_EPARSE, "%s: expected a stored or deflated member, found compression method %u", label,
                        e->method);
    const uint64_t bound = e->method == 0 ? e->csize : e->csize * 1040u + 4096u;
    if (e->usize > bound || e->usize > (uint64_t)INT64_MAX / 2 || (e->method == 0 && e->usize != e->csize))
        return spt__err(SPT_EPARSE, "%s: expected at most %llu bytes from %llu compressed bytes, found a claim of %llu",
                        label, (unsigned long long)bound, (unsigned long long)e->csize, (unsigned long long)e->usize);
    return SPT_OK;
}

spt_status spt__zip_head(const char *fn, const char *label, const spt__zip_entry *e, char *buf, size_t cap,
                         size_t *got) {
    (void)fn;
    *got = 0;
    SPT__TRY(usable(label, e));
    size_t want = e->usize < cap ? (size_t)e->usize : cap;
    if (e->method == 0) {
        memcpy(buf, e->data, want);
        *got = want;
        return SPT_OK;
    }
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -15) != Z_OK) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    const unsigned char *in = e->data;
    uint64_t left = e->csize;
    s.next_out = (unsigned char *)buf;
    s.avail_out = (uInt)want;
    int r = Z_OK;
    while (s.avail_out && r == Z_OK) {
        if (!s.avail_in) {
            if (!left) break;
            uInt n = left > (1u << 30) ? (1u << 30) : (uInt)left;
            s.next_in = (unsigned char *)in;
            s.avail_in = n;
            in += n;
            left -= n;
        }
        r = inflate(&s, Z_NO_FLUSH);
    }
    *got = want - s.avail_out;
    inflateEnd(&s);
    if (r != Z_OK && r != Z_STREAM_END)
        return spt__err(SPT_EPARSE, "%s: corrupt deflate data in the first %zu bytes", label, *got);
    return SPT_OK;
}

/* The CRC-32 of n bytes, dropping the pages behind it from this process's mapping (drop) as it goes:
 * a read-only private mapping's pages come back from the page cache if touched again. */
static uint32_t crc_pass(const unsigned char *p, size_t n, bool drop) {
    const size_t step = (size_t)8 << 20;
    uint32_t c = 0;
    for (size_t at = 0; at < n; at += step) {
        size_t k = n - at < step ? n - at : step;
        c = libdeflate_crc32(c, p + at, k);
        if (drop) spt__unmap_behind(p + at, k);
    }
    return c;
}

void spt__unmap_behind(const void *p, size_t n) {
    const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)p + pg - 1) & ~(pg - 1),
                    e = ((uintptr_t)p + n) & ~(pg - 1);
    if (e > a) (void)madvise((void *)a, e - a, MADV_DONTNEED);
}

spt_status spt__zip_extract(const char *fn, const char *label, const spt__zip *z, const spt__zip_entry *e, size_t align,
                            const char **out, char **own, size_t *shift) {
    spt_status st;
    *out = NULL;
    *own = NULL;
    *shift = 0;
    SPT__TRY(usable(label, e));
    if (e->method == 0) {
        /* stored: the bytes where they lie (the pages behind the check are given back when mapped: the
         * caller reads them once more, from the page cache) */
        if (crc_pass(e->data, (size_t)e->usize, z->mapped && e->usize >= ((size_t)32 << 20)) != e->crc)
            return spt__err(SPT_EPARSE, "%s: expected the CRC-32 %08x of the directory, found %08x in the stored bytes",
                            label, (unsigned)e->crc, (unsigned)libdeflate_crc32(0, e->data, (size_t)e->usize));
        *out = (const char *)e->data;
        return SPT_OK;
    }
    /* deflated: into a new buffer, shifted so that the byte at `align` lands on a 64-byte boundary */
    size_t pad = 64, tot;
    if (spt__add_sz((size_t)e->usize, pad, &tot)) return spt__err(SPT_EOVERFLOW, "%s: too large", label);
    char *b = spt__alloc_array(fn, (int64_t)tot, 1, 1, false, &st);
    if (!b) return st;
    size_t sh = (size_t)((64 - ((uintptr_t)b + align) % 64) % 64);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) {
        spt__free(b);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    size_t got = 0;
    enum libdeflate_result r = libdeflate_deflate_decompress(d, e->data, (size_t)e->csize, b + sh, (size_t)e->usize,
                                                             &got);
    libdeflate_free_decompressor(d);
    if (r != LIBDEFLATE_SUCCESS || got != e->usize) {
        spt__free(b);
        return spt__err(SPT_EPARSE, "%s: expected %llu bytes of deflate data, found %s", label,
                        (unsigned long long)e->usize,
                        r == LIBDEFLATE_INSUFFICIENT_SPACE ? "more"
                        : r == LIBDEFLATE_SUCCESS          ? "fewer"
                                                           : "corrupt data");
    }
    uint32_t c = libdeflate_crc32(0, b + sh, (size_t)e->usize);
    if (c != e->crc) {
        spt__free(b);
        return spt__err(SPT_EPARSE, "%s: expected the CRC-32 %08x of the directory, found %08x in the inflated bytes",
                        label, (unsigned)e->crc, (unsigned)c);
    }
    *out = b + sh;
    *own = b;
    *shift = sh;
    return SPT_OK;
}
