/* SPDX-License-Identifier: Apache-2.0 */
/* encode.c -- compressed outputs: a name ending in .gz, .bz2, .xz or .zst is written through that
 * compressor (libarchive's filters, as a raw stream), between the writer and the output file. */
#include "io.h"

#include <archive.h>
#include <archive_entry.h>
#include <strings.h>

typedef struct packer {
    struct archive *a;
    FILE *raw; /* the output file under the compressor */
    bool failed;
} packer;

static la_ssize_t to_raw(struct archive *a, void *ctx, const void *buf, size_t n) {
    packer *p = ctx;
    (void)a;
    if (fwrite(buf, 1, n, p->raw) != n) {
        p->failed = true;
        return -1;
    }
    return (la_ssize_t)n;
}

static ssize_t cookie_write(void *ctx, const char *buf, size_t n) {
    packer *p = ctx;
    la_ssize_t w = archive_write_data(p->a, buf, n);
    if (w < 0 || (size_t)w != n) {
        p->failed = true;
        return -1;
    }
    return (ssize_t)n;
}

static int cookie_close(void *ctx) {
    packer *p = ctx;
    if (archive_write_close(p->a) != ARCHIVE_OK) p->failed = true;
    archive_write_free(p->a);
    bool failed = p->failed;
    spt__free(p);
    return failed ? -1 : 0;
}

/* The compressor a name asks for: 1 gzip, 2 bzip2, 3 xz, 4 zstd, 0 none. */
static int packer_kind(const char *path) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return 0;
    static const char *const ext[] = {"gz", "bz2", "xz", "zst"};
    for (int k = 0; k < 4; k++)
        if (!strcasecmp(dot + 1, ext[k])) return k + 1;
    return 0;
}

static int add_filter(struct archive *a, int kind) {
    switch (kind) {
    case 1: return archive_write_add_filter_gzip(a);
    case 2: return archive_write_add_filter_bzip2(a);
    case 3: return archive_write_add_filter_xz(a);
    default: return archive_write_add_filter_zstd(a);
    }
}

static spt_status start(const char *fn, packer *p, int kind, const char *path) {
    struct archive_entry *e = archive_entry_new();
    if (!e || !(p->a = archive_write_new())) {
        if (e) archive_entry_free(e);
        return spt__err(SPT_ENOMEM, "%s: out of memory starting the compressor for %s", fn, path);
    }
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_pathname(e, "data");
    int r = add_filter(p->a, kind);
    if (r == ARCHIVE_OK) r = archive_write_set_format_raw(p->a);
    if (r == ARCHIVE_OK) r = archive_write_set_bytes_in_last_block(p->a, 1);
    if (r == ARCHIVE_OK) r = archive_write_open(p->a, p, NULL, to_raw, NULL);
    if (r == ARCHIVE_OK) r = archive_write_header(p->a, e);
    archive_entry_free(e);
    if (r != ARCHIVE_OK) {
        spt_status st = spt__err(SPT_EIO, "%s: cannot start the compressor for %s: %s", fn, path,
                                 archive_error_string(p->a) ? archive_error_string(p->a) : "unknown error");
        archive_write_free(p->a);
        return st;
    }
    return SPT_OK;
}

spt_status spt__out_pack(const char *fn, spt__out *o) {
    int kind = o->is_stdout ? 0 : packer_kind(o->path);
    if (!kind) return SPT_OK;
    packer *p = spt__calloc(1, sizeof *p);
    if (!p) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    p->raw = o->fp;
    spt_status st = start(fn, p, kind, o->path);
    if (st != SPT_OK) {
        spt__free(p);
        return st;
    }
    cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL, .close = cookie_close};
    FILE *f = fopencookie(p, "w", io);
    if (!f) {
        archive_write_free(p->a);
        spt__free(p);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    o->raw = o->fp;
    o->fp = f;
    return SPT_OK;
}

spt_status spt__out_unpack(const char *fn, spt__out *o) {
    if (!o->raw) return SPT_OK;
    int bad = fclose(o->fp);
    o->fp = o->raw;
    o->raw = NULL;
    if (bad) return spt__err(SPT_EIO, "%s: cannot write %s: the compressor failed", fn, o->path);
    return SPT_OK;
}
