/* SPDX-License-Identifier: Apache-2.0 */
/* zipwrite.c -- a zip archive (an .npz) written straight to a file: members stored, each starting on a
 * 64-byte boundary of the file (so that a reader can map them in place), or deflated by libdeflate, the
 * large ones on two threads; zip64 records when a size or offset needs them. */
#include "io.h"

#include <libdeflate.h>
#include <pthread.h>

spt_status spt__zipw_add(const char *fn, spt__zipw *w, const char *name, const char *head, size_t hlen,
                         const void *body, size_t blen, void *own) {
    if (w->n == (int)(sizeof w->m / sizeof w->m[0]) || hlen > sizeof w->m[0].head ||
        strlen(name) >= sizeof w->m[0].name) {
        spt__free(own);
        return spt__err(SPT_EINVAL, "%s: too many or too large members for the archive", fn);
    }
    spt__zipw_member *m = &w->m[w->n++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    memcpy(m->head, head, hlen);
    m->hlen = hlen;
    m->body = body;
    m->blen = blen;
    m->own = own;
    return SPT_OK;
}

void spt__zipw_free(spt__zipw *w) {
    for (int i = 0; i < w->n; i++) {
        spt__free(w->m[i].own);
        spt__free(w->m[i].comp);
    }
    w->n = 0;
}

/* CRC-32 of a member, and its deflated form when w->level > 0 (head and body made one buffer first). */
static spt_status pack(const char *fn, int level, spt__zipw_member *m) {
    m->crc = libdeflate_crc32(libdeflate_crc32(0, m->head, m->hlen), m->body, m->blen);
    m->usize = (uint64_t)m->hlen + m->blen;
    m->csize = m->usize;
    if (level <= 0) return SPT_OK;
    spt_status st;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    char *in = c ? spt__alloc_array(fn, (int64_t)m->usize ? (int64_t)m->usize : 1, 1, 1, false, &st) : NULL;
    size_t bound = c ? libdeflate_deflate_compress_bound(c, (size_t)m->usize) : 0;
    m->comp = in ? spt__malloc(bound) : NULL;
    if (!m->comp) {
        spt__free(in);
        libdeflate_free_compressor(c);
        return spt__err(SPT_ENOMEM, "%s: out of memory compressing %s", fn, m->name);
    }
    memcpy(in, m->head, m->hlen);
    if (m->blen) memcpy(in + m->hlen, m->body, m->blen);
    size_t got = libdeflate_deflate_compress(c, in, (size_t)m->usize, m->comp, bound);
    spt__free(in);
    libdeflate_free_compressor(c);
    if (!got) return spt__err(SPT_ENOMEM, "%s: cannot compress %s", fn, m->name);
    m->csize = got;
    m->method = 8;
    return SPT_OK;
}

typedef struct packjob {
    const char *fn;
    int level;
    spt__zipw_member *m;
    spt_status st;
    char msg[512];
} packjob;
static void *run_pack(void *c) {
    packjob *j = c;
    j->st = pack(j->fn, j->level, j->m);
    if (j->st != SPT_OK) snprintf(j->msg, sizeof j->msg, "%s", spt_last_error());
    return NULL;
}

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xFFFF), put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t clip32(uint64_t v) { return v >= 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)v; }

/* The local header of m at offset `at` (zip64 sizes when large; a padding field placing the data on a
 * 64-byte boundary when stored) into h; returns its length. */
static size_t local_header(const spt__zipw_member *m, uint64_t at, unsigned char *h) {
    const size_t nl = strlen(m->name);
    const bool z64 = m->usize >= 0xFFFFFFFFu || m->csize >= 0xFFFFFFFFu;
    size_t xl = z64 ? 20 : 0, len = 30 + nl + xl;
    size_t pad = m->method == 0 ? (size_t)((64 - (at + len) % 64) % 64) : 0;
    if (pad && pad < 4) pad += 64; /* an extra field takes at least its 4-byte header */
    memset(h, 0, 30);
    put32(h, 0x04034b50);
    put16(h + 4, z64 ? 45 : 20);
    put16(h + 8, m->method);
    put16(h + 12, 0x21); /* 1980-01-01: the archive's bytes do not depend on the clock */
    put32(h + 14, m->crc);
    put32(h + 18, z64 ? 0xFFFFFFFFu : (uint32_t)m->csize);
    put32(h + 22, z64 ? 0xFFFFFFFFu : (uint32_t)m->usize);
    put16(h + 26, (unsigned)nl);
    put16(h + 28, (unsigned)(xl + pad));
    memcpy(h + 30, m->name, nl);
    unsigned char *x = h + 30 + nl;
    if (z64) {
        put16(x, 1), put16(x + 2, 16), put64(x + 4, m->usize), put64(x + 12, m->csize);
        x += 20;
    }
    if (pad) {
        memset(x, 0, pad);
        put16(x, 0xD935), put16(x + 2, (unsigned)(pad - 4)); /* the alignment field of Android's zipalign */
    }
    return len + pad;
}

/* The central directory entry of m (local header at `off`) into h; returns its length. */
static size_t dir_entry(const spt__zipw_member *m, uint64_t off, unsigned char *h) {
    const size_t nl = strlen(m->name);
    unsigned char x[28];
    size_t xl = 4;
    if (m->usize >= 0xFFFFFFFFu) put64(x + xl, m->usize), xl += 8;
    if (m->csize >= 0xFFFFFFFFu) put64(x + xl, m->csize), xl += 8;
    if (off >= 0xFFFFFFFFu) put64(x + xl, off), xl += 8;
    if (xl == 4) xl = 0;
    else put16(x, 1), put16(x + 2, (unsigned)(xl - 4));
    memset(h, 0, 46);
    put32(h, 0x02014b50);
    put16(h + 4, 0x0300 | 45); /* made on unix, zip 4.5 */
    put16(h + 6, xl ? 45 : 20);
    put16(h + 10, m->method);
    put16(h + 14, 0x21);
    put32(h + 16, m->crc);
    put32(h + 20, clip32(m->csize));
    put32(h + 24, clip32(m->usize));
    put16(h + 28, (unsigned)nl);
    put16(h + 30, (unsigned)xl);
    put32(h + 38, (uint32_t)0100644 << 16);
    put32(h + 42, clip32(off));
    memcpy(h + 46, m->name, nl);
    memcpy(h + 46 + nl, x, xl);
    return 46 + nl + xl;
}

/* The end records: zip64 ones when the directory's offset or size needs them, then the classic one. */
static size_t end_records(int n, uint64_t dir_off, uint64_t dir_len, unsigned char *h) {
    size_t k = 0;
    if (dir_off >= 0xFFFFFFFFu || dir_len >= 0xFFFFFFFFu) {
        memset(h, 0, 56 + 20);
        put32(h, 0x06064b50);
        put64(h + 4, 44);
        put16(h + 12, 0x0300 | 45);
        put16(h + 14, 45);
        put64(h + 24, (uint64_t)n);
        put64(h + 32, (uint64_t)n);
        put64(h + 40, dir_len);
        put64(h + 48, dir_off);
        put32(h + 56, 0x07064b50);
        put64(h + 56 + 8, dir_off + dir_len);
        put32(h + 56 + 16, 1);
        k = 76;
    }
    memset(h + k, 0, 22);
    put32(h + k, 0x06054b50);
    put16(h + k + 8, (unsigned)n);
    put16(h + k + 10, (unsigned)n);
    put32(h + k + 12, clip32(dir_len));
    put32(h + k + 16, clip32(dir_off));
    return k + 22;
}

spt_status spt__zipw_write(const char *fn, spt__zipw *w, FILE *fp) {
    /* the largest member on a second thread (it blocks in join), the rest here */
    int big = 0;
    for (int i = 1; i < w->n; i++)
        if (w->m[i].blen > w->m[big].blen) big = i;
    packjob j = {fn, w->level, &w->m[big], SPT_OK, ""};
    pthread_t tid;
    const bool two = w->n > 1 && w->level > 0 && w->m[big].blen > ((size_t)1 << 20) && spt_get_num_threads() > 1 &&
                     pthread_create(&tid, NULL, run_pack, &j) == 0;
    spt_status st = SPT_OK;
    for (int i = 0; i < w->n; i++)
        if (i != big || !two) {
            spt_status s = pack(fn, w->level, &w->m[i]);
            if (st == SPT_OK) st = s;
        }
    if (two) pthread_join(tid, NULL);
    if (st != SPT_OK) return st;
    if (two && j.st != SPT_OK) return spt__err(j.st, "%s", j.msg);
    unsigned char h[64 + 30 + 32 + 20 + 128];
    uint64_t at = 0, off[sizeof w->m / sizeof w->m[0]];
    for (int i = 0; i < w->n; i++) {
        const spt__zipw_member *m = &w->m[i];
        size_t hl = local_header(m, at, h);
        off[i] = at;
        fwrite(h, 1, hl, fp);
        if (m->method) fwrite(m->comp, 1, (size_t)m->csize, fp);
        else {
            fwrite(m->head, 1, m->hlen, fp);
            if (m->blen) fwrite(m->body, 1, m->blen, fp);
        }
        at += hl + m->csize;
    }
    uint64_t dir = at;
    for (int i = 0; i < w->n; i++) {
        size_t hl = dir_entry(&w->m[i], off[i], h);
        fwrite(h, 1, hl, fp);
        at += hl;
    }
    fwrite(h, 1, end_records(w->n, dir, at - dir, h), fp);
    return SPT_OK;
}
