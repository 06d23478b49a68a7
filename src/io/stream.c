/* SPDX-License-Identifier: Apache-2.0 */
/* stream.c -- text inputs read in pieces: pipes, stdin, FIFOs, and gzip (through zlib, which checks
 * every member's CRC and length), bzip2, xz and zstd streams (through libarchive), so that the .tns
 * parser holds a fixed buffer and the tensor it builds, never the whole text. A regular uncompressed
 * file is mapped instead, and a tar archive loaded whole (its member is chosen from the directory). */
#include "io.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { RAW_CAP = 1 << 20, SNIFF = 263 /* a tar's magic ends at byte 262 */ };

/* ---- the undecoded bytes: what was read while deciding, then the descriptor -------------------- */

static spt_status record(const char *fn, spt__stream *s, const char *p, size_t n) {
    if (s->seen_len + n > s->seen_cap) {
        size_t c = s->seen_cap ? s->seen_cap * 2 : RAW_CAP;
        while (c < s->seen_len + n) c *= 2;
        char *q = spt__realloc(s->seen, c);
        if (!q) return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, s->name);
        s->seen = q;
        s->seen_cap = c;
    }
    memcpy(s->seen + s->seen_len, p, n);
    s->seen_len += n;
    return SPT_OK;
}

/* Up to cap undecoded bytes; 0 at the end; -1 with the error set. */
static ssize_t raw_read(const char *fn, spt__stream *s, char *buf, size_t cap) {
    ssize_t r;
    if (s->pre_pos < s->pre_len) {
        size_t n = s->pre_len - s->pre_pos < cap ? s->pre_len - s->pre_pos : cap;
        memcpy(buf, s->pre + s->pre_pos, n);
        s->pre_pos += n;
        r = (ssize_t)n;
    } else {
        do r = read(s->fd, buf, cap);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
            spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, s->name, strerror(errno));
            return -1;
        }
    }
    if (r > 0 && s->record && record(fn, s, buf, (size_t)r) != SPT_OK) return -1;
    s->in_bytes += (uint64_t)(r > 0 ? r : 0);
    return r;
}

/* ---- gzip through zlib ------------------------------------------------------------------------ */

static spt_status z_fail(spt__stream *s, const z_stream *z, const char *buf, const char *why) {
    return spt__err(SPT_EPARSE, "%s: corrupt or truncated gzip input after %llu decoded bytes: %s", s->name,
                    (unsigned long long)(s->out_bytes + (uint64_t)((const char *)z->next_out - buf)),
                    z->msg ? z->msg : why);
}

static spt_status z_read(const char *fn, spt__stream *s, char *buf, size_t cap, size_t *got) {
    z_stream *z = s->z;
    *got = 0;
    z->next_out = (Bytef *)buf;
    z->avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    while (z->avail_out > 0 && !s->done) {
        if (z->avail_in == 0 && !s->raw_eof) {
            ssize_t r = raw_read(fn, s, s->raw, RAW_CAP);
            if (r < 0) return SPT_EIO;
            if (r == 0) s->raw_eof = true;
            z->next_in = (Bytef *)s->raw;
            z->avail_in = (uInt)r;
        }
        int rc = inflate(z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) { /* a member ends: another may follow (pigz, bgzip); zeros may pad */
            while (z->avail_in > 0 && *z->next_in == 0) z->next_in++, z->avail_in--;
            if (z->avail_in == 0 && !s->raw_eof) {
                ssize_t r = raw_read(fn, s, s->raw, RAW_CAP);
                if (r < 0) return SPT_EIO;
                if (r == 0) s->raw_eof = true;
                z->next_in = (Bytef *)s->raw;
                z->avail_in = (uInt)r;
                continue; /* look again for zeros or a member */
            }
            if (z->avail_in == 0) s->done = true;
            else if (inflateReset(z) != Z_OK) return z_fail(s, z, buf, "cannot restart");
            continue;
        }
        if (rc == Z_BUF_ERROR && z->avail_in == 0 && s->raw_eof) return z_fail(s, z, buf, "the stream ends early");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return rc == Z_MEM_ERROR ? spt__err(SPT_ENOMEM, "%s: out of memory", fn) : z_fail(s, z, buf, "bad data");
    }
    *got = cap - z->avail_out;
    return SPT_OK;
}

static spt_status z_start(const char *fn, spt__stream *s) {
    z_stream *z = spt__calloc(1, sizeof *z);
    if (!z) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    if (inflateInit2(z, 15 + 16) != Z_OK) { /* gzip only */
        spt__free(z);
        return spt__err(SPT_ENOMEM, "%s: out of memory starting gzip for %s", fn, s->name);
    }
    s->z = z;
    s->kind = 1;
    return SPT_OK;
}

/* ---- bzip2, xz, zstd through libarchive ------------------------------------------------------- */


static la_ssize_t arc_in(struct archive *a, void *ctx, const void **buf) {
    spt__stream *s = ctx;
    (void)a;
    *buf = s->raw;
    ssize_t r = raw_read("spt_read", s, s->raw, RAW_CAP);
    return r < 0 ? ARCHIVE_FATAL : (la_ssize_t)r;
}

/* Start libarchive on the stream; *tar when the content turns out to be a tar archive. */
static spt_status arc_start(const char *fn, spt__stream *s, bool *tar) {
    struct archive *a = archive_read_new();
    if (!a) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_raw(a);
    s->a = a;
    s->kind = 2;
    struct archive_entry *e;
    if (archive_read_open(a, s, NULL, arc_in, NULL) != ARCHIVE_OK || archive_read_next_header(a, &e) != ARCHIVE_OK)
        return spt__err(SPT_EPARSE, "%s: corrupt or truncated compressed input at its start: %s", s->name,
                        archive_error_string(a) ? archive_error_string(a) : "cannot decode");
    *tar = archive_format(a) != ARCHIVE_FORMAT_RAW;
    return SPT_OK;
}

static spt_status arc_read(spt__stream *s, char *buf, size_t cap, size_t *got) {
    la_ssize_t r = archive_read_data(s->a, buf, cap);
    if (r < 0)
        return spt__err(SPT_EPARSE, "%s: corrupt or truncated compressed input after %llu decoded bytes: %s", s->name,
                        (unsigned long long)s->out_bytes,
                        archive_error_string(s->a) ? archive_error_string(s->a) : "cannot decode");
    *got = (size_t)r;
    return SPT_OK;
}

/* ---- opening ----------------------------------------------------------------------------------- */

/* Up to cap bytes from the decoder (or the plain input), past the bytes looked at already. */
static spt_status decoded_read(const char *fn, spt__stream *s, char *buf, size_t cap, size_t *got) {
    *got = 0;
    spt_status st = SPT_OK;
    if (s->kind == 0) {
        ssize_t r = raw_read(fn, s, buf, cap);
        if (r < 0) return SPT_EIO;
        *got = (size_t)r;
    } else if (s->kind == 1) st = z_read(fn, s, buf, cap, got);
    else st = arc_read(s, buf, cap, got);
    s->out_bytes += *got;
    if (st == SPT_OK && s->out_bytes > s->most)
        return spt__err(SPT_EOVERFLOW,
                        "%s: %s %s more than %zu bytes; stopped there (SPT_MAX_STREAM_BYTES sets the limit)", fn,
                        s->name, s->kind ? "decodes to" : "is not a regular file and gives", s->most);
    return st;
}

spt_status spt__stream_read(const char *fn, spt__stream *s, char *buf, size_t cap, size_t *got) {
    *got = 0;
    if (s->head_pos < s->head_len) {
        size_t n = s->head_len - s->head_pos < cap ? s->head_len - s->head_pos : cap;
        memcpy(buf, s->head + s->head_pos, n);
        s->head_pos += n;
        *got = n;
        return SPT_OK;
    }
    return decoded_read(fn, s, buf, cap, got);
}

spt_status spt__stream_peek(const char *fn, spt__stream *s, size_t n, const char **p, size_t *len) {
    size_t have = s->head_len - s->head_pos;
    if (have < n) { /* a new head: what is left of the old one, then decoded bytes up to n or the end */
        char *h = spt__malloc(n);
        if (!h) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        if (have) memcpy(h, s->head + s->head_pos, have);
        spt__free(s->head);
        s->head = h;
        s->head_pos = 0;
        s->head_len = have;
        for (size_t got = 1; got && s->head_len < n; s->head_len += got)
            SPT__TRY(decoded_read(fn, s, h + s->head_len, n - s->head_len, &got));
    }
    *p = s->head + s->head_pos;
    *len = s->head_len - s->head_pos < n ? s->head_len - s->head_pos : n;
    return SPT_OK;
}

void spt__stream_close(spt__stream *s) {
    if (s->z) {
        inflateEnd(s->z);
        spt__free(s->z);
    }
    if (s->a) archive_read_free(s->a);
    if (s->close_fd && s->fd >= 0) close(s->fd);
    spt__free(s->pre);
    spt__free(s->seen);
    spt__free(s->raw);
    spt__free(s->head);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Read up to n bytes from fd into a new buffer (*len of them: fewer at the end). */
static spt_status sniff(const char *fn, spt__stream *s, size_t n, char **out, size_t *len) {
    char *b = spt__malloc(n);
    if (!b) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    size_t k = 0;
    while (k < n) {
        ssize_t r = read(s->fd, b + k, n - k);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            spt__free(b);
            return spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, s->name, strerror(e));
        }
        if (r == 0) break;
        k += (size_t)r;
    }
    *out = b;
    *len = k;
    return SPT_OK;
}

/* Decode the first bytes to see whether a gzip stream holds a tar archive. */
static spt_status gzip_head(const char *fn, spt__stream *s, bool *tar) {
    if (!(s->head = spt__malloc(SNIFF))) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    size_t n = 0, got = 0;
    do {
        SPT__TRY(z_read(fn, s, s->head + n, SNIFF - n, &got));
        n += got;
    } while (got > 0 && n < SNIFF);
    s->head_len = n;
    s->out_bytes = n;
    *tar = n >= SNIFF && !memcmp(s->head + 257, "ustar", 5);
    return SPT_OK;
}

/* The whole input after all (a tar archive): reloaded when regular, else from the bytes seen. */
static spt_status load_whole(const char *fn, const char *path, spt__stream *s, bool regular, spt__file *f) {
    if (regular) return spt__file_load(fn, path, f);
    char *seen = s->seen;
    s->seen = NULL;
    return spt__file_load_rest(fn, path, s->fd, seen, s->seen_len, f);
}

static spt_status start_decoder(const char *fn, const char *path, spt__stream *s, const char *kind, bool regular,
                                spt__file *f, bool *loaded) {
    bool tar = false;
    if (!(s->raw = spt__malloc(RAW_CAP))) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    s->record = !regular;
    if (!strcmp(kind, "gzip")) {
        SPT__TRY(z_start(fn, s));
        SPT__TRY(gzip_head(fn, s, &tar));
    } else SPT__TRY(arc_start(fn, s, &tar));
    s->record = false;
    if (!tar) {
        spt__free(s->seen);
        s->seen = NULL;
        s->seen_len = s->seen_cap = 0;
        return SPT_OK;
    }
    *loaded = true;
    return load_whole(fn, path, s, regular, f);
}

spt_status spt__stream_open(const char *fn, const char *path, spt__stream *s, spt__file *f, bool *loaded) {
    memset(s, 0, sizeof *s);
    memset(f, 0, sizeof *f);
    s->fd = -1;
    *loaded = false;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    s->name = spt__display_name(path);
    s->most = spt__max_text_stream_bytes();
    if (strcmp(path, "-")) {
        SPT__TRY(spt__open_input(fn, path, &s->fd));
        s->close_fd = true;
    } else s->fd = 0;
    struct stat sb;
    bool regular = fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode);
    spt_status st;
    if (regular && strcmp(path, "-")) {
        char head[SNIFF];
        ssize_t r = pread(s->fd, head, sizeof head, 0);
        const char *kind = r > 0 ? spt__packed_kind(head, (size_t)r) : NULL;
        if (!kind || !strcmp(kind, "tar")) {
            *loaded = true;
            st = spt__file_load(fn, path, f); /* mapped */
        } else {
            s->total = (uint64_t)sb.st_size;
            st = start_decoder(fn, path, s, kind, true, f, loaded);
        }
    } else {
        SPT__TRY(sniff(fn, s, SNIFF, &s->pre, &s->pre_len));
        const char *kind = spt__packed_kind(s->pre, s->pre_len);
        if (kind && !strcmp(kind, "tar")) {
            *loaded = true;
            char *pre = s->pre;
            s->pre = NULL;
            st = spt__file_load_rest(fn, path, s->fd, pre, s->pre_len, f);
        } else st = kind ? start_decoder(fn, path, s, kind, false, f, loaded) : SPT_OK;
    }
    if (st != SPT_OK || *loaded) spt__stream_close(s);
    return st;
}

typedef struct stream_src {
    const char *fn;
    spt__stream *s;
} stream_src;
static spt_status stream_src_read(void *ctx, char *buf, size_t cap, size_t *got) {
    stream_src *c = ctx;
    return spt__stream_read(c->fn, c->s, buf, cap, got);
}

spt_status spt__stream_spool(const char *fn, spt__stream *s, spt__file *f) {
    memset(f, 0, sizeof *f);
    stream_src c = {fn, s};
    spt_status st = spt__spool(fn, s->name, stream_src_read, &c, f);
    if (st != SPT_OK) spt__file_release(f);
    else f->name = s->name;
    return st;
}

/* ---- parsing a stream a piece at a time --------------------------------------------------------- */

spt_status spt__line_too_long(const char *name, int64_t line) {
    return spt__err(SPT_EPARSE, "%s:%lld: expected an end of line within %d bytes, found none", name, (long long)line,
                    SPT__MAX_LINE);
}

/* Fill b from the stream (growing it first when `grow`). */
spt_status spt__pieces_fill(const char *fn, spt__stream *s, spt__pieces *b, bool grow) {
    if (grow) {
        size_t c;
        if (spt__mul_sz(b->cap, 2, &c)) return spt__err(SPT_EOVERFLOW, "%s: %s: a line too long", fn, s->name);
        char *q = spt__realloc(b->p, c);
        if (!q) return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, s->name);
        b->p = q;
        b->cap = c;
    }
    while (b->len < b->cap && !b->eof) {
        size_t got;
        SPT__TRY(spt__stream_read(fn, s, b->p + b->len, b->cap - b->len, &got));
        if (!got) b->eof = true;
        b->len += got;
    }
    return SPT_OK;
}

static void report(spt__stream *s, spt_progress_fn prog, void *ctx) {
    if (prog && s->total) prog(s->in_bytes >= s->total ? 1.0 : (double)s->in_bytes / (double)s->total, ctx);
}

/* Parse b's complete lines (all of it at the end), one piece after another, into acc. */
spt_status spt__pieces_parse(const char *fn, spt__stream *s, spt__pieces *b, spt__coord_spec *sp, int64_t line,
                             spt__coord_result *acc) {
    spt_progress_fn prog;
    void *ctx;
    spt__read_progress(&prog, &ctx);
    for (;;) {
        size_t end = b->len;
        if (!b->eof) {
            const char *nl = memrchr(b->p, '\n', b->len);
            if (!nl) { /* a line longer than the buffer */
                if (b->len >= SPT__MAX_LINE) return spt__line_too_long(s->name, line);
                SPT__TRY(spt__pieces_fill(fn, s, b, true));
                continue;
            }
            end = (size_t)(nl - b->p) + 1;
        }
        spt__coord_result part;
        sp->first_line = line;
        SPT__TRY(spt__parse_coords(fn, b->p, end, sp, &part));
        line += part.lines;
        SPT__TRY(spt__coord_result_append(fn, sp, acc, &part));
        memmove(b->p, b->p + end, b->len - end);
        b->len -= end;
        report(s, prog, ctx);
        if (b->eof && !b->len) break;
        SPT__TRY(spt__pieces_fill(fn, s, b, false));
    }
    if (prog) prog(1.0, ctx);
    return SPT_OK;
}
