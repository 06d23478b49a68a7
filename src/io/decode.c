/* SPDX-License-Identifier: Apache-2.0 */
/* decode.c -- compressed (gzip, bzip2, xz, zstd) and archived (tar) inputs, recognised by their first
 * bytes and decoded in memory with libarchive; a tar archive yields its one data file (or the member
 * the caller names). */
#include "io.h"

#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>
#include <pthread.h>
#include <strings.h>

static const struct {
    const char *magic;
    size_t n;
    const char *what;
} packs[] = {{"\x1f\x8b", 2, "gzip"},
             {"BZh", 3, "bzip2"},
             {"\xfd"
              "7zXZ\0",
              6, "xz"},
             {"\x28\xb5\x2f\xfd", 4, "zstd"}};

static bool is_tar(const char *p, size_t len) { return len >= 263 && !memcmp(p + 257, "ustar", 5); }

const char *spt__packed_kind(const char *p, size_t len) {
    for (size_t k = 0; k < sizeof packs / sizeof *packs; k++)
        if (len >= packs[k].n && !memcmp(p, packs[k].magic, packs[k].n)) return packs[k].what;
    return is_tar(p, len) ? "tar" : NULL;
}

/* ---- the member to read ------------------------------------------------------------------------ */

/* The member name of this thread (a copy), found through a pthread key and freed when the thread ends:
 * not a _Thread_local buffer, which in a dlopen'ed libspt.so is allocated on a thread's first use with
 * the process ended when that fails. */
#define MEMBER_CAP 4096
static pthread_key_t member_key;
static pthread_once_t member_once = PTHREAD_ONCE_INIT;
static int member_key_ok;

static void member_free(void *p) { spt__free(p); }
static void member_key_init(void) { member_key_ok = pthread_key_create(&member_key, member_free) == 0; }

static const char *want_member_get(void) {
    pthread_once(&member_once, member_key_init);
    return member_key_ok ? pthread_getspecific(member_key) : NULL;
}

spt_status spt_set_read_member(const char *member) {
    static const char fn[] = "spt_set_read_member";
    pthread_once(&member_once, member_key_init);
    if (!member_key_ok) return spt__err(SPT_ENOMEM, "%s: no thread-specific key left", fn);
    spt__free(pthread_getspecific(member_key));
    pthread_setspecific(member_key, NULL);
    if (!member || !*member) return SPT_OK;
    size_t n = strlen(member);
    if (n >= MEMBER_CAP)
        return spt__err(SPT_EINVAL, "%s: the member name is %zu bytes long, more than %d", fn, n, MEMBER_CAP - 1);
    char *c = spt__malloc(n + 1);
    if (!c) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(c, member, n + 1);
    if (pthread_setspecific(member_key, c) != 0) {
        spt__free(c);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    return SPT_OK;
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool data_name(const char *p) { return spt_format_from_path(p) != SPT_FORMAT_AUTO; }

/* NAME/NAME.mtx: the SuiteSparse Matrix Collection's main matrix beside its extras (NAME_b.mtx, ...). */
static bool suitesparse_main(const char *p) {
    const char *b = base_name(p), *dot = strrchr(b, '.');
    if (b == p || !dot || strcasecmp(dot, ".mtx")) return false;
    const char *d = b - 1, *ds = d;
    while (ds > p && ds[-1] != '/') ds--;
    return (size_t)(d - ds) == (size_t)(dot - b) && !memcmp(ds, b, (size_t)(dot - b));
}

static bool member_is(const char *entry, const char *want) {
    if (entry[0] == '.' && entry[1] == '/') entry += 2;
    return !strcmp(entry, want) || !strcmp(base_name(entry), want);
}

/* ---- libarchive from memory -------------------------------------------------------------------- */

static spt_status arc_err(const char *fn, const char *name, struct archive *a, const char *what, int64_t at) {
    const char *m = a ? archive_error_string(a) : NULL;
    (void)fn; /* parse errors start with the file's name */
    return spt__err(SPT_EPARSE, "%s: corrupt or truncated %s input after %lld decoded bytes: %s", name, what,
                    (long long)at, m ? m : "cannot decode");
}

/* A reader of data[0..len) (gzip, bzip2, xz, zstd; tar or raw); NULL with the error set. */
static struct archive *open_mem(const char *fn, const char *name, const char *data, size_t len, spt_status *st) {
    struct archive *a = archive_read_new();
    if (!a) {
        *st = spt__err(SPT_ENOMEM, "%s: out of memory opening %s", fn, name);
        return NULL;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_raw(a);
    if (archive_read_open_memory(a, data, len) != ARCHIVE_OK) {
        *st = arc_err(fn, name, a, spt__packed_kind(data, len), 0);
        archive_read_free(a);
        return NULL;
    }
    return a;
}

/* Read the current entry's data into a new spt buffer (at most `most` bytes). */
static spt_status read_entry(const char *fn, const char *name, struct archive *a, const char *what, int64_t size,
                             char **out, size_t *outlen) {
    size_t most = spt__max_stream_bytes(), cap = size > 0 && (uint64_t)size < most ? (size_t)size + 1 : 1 << 20,
           len = 0;
    char *buf = spt__malloc(cap);
    if (!buf) return spt__err(SPT_ENOMEM, "%s: out of memory decoding %s", fn, name);
    for (;;) {
        if (len == cap) {
            if (cap > most) {
                spt__free(buf);
                return spt__err(
                    SPT_EOVERFLOW,
                    "%s: %s decodes to more than %zu bytes; stopped there (SPT_MAX_STREAM_BYTES sets the limit)", fn,
                    name, most);
            }
            size_t ncap = cap > most / 2 ? most + 1 : cap * 2;
            char *nb = spt__realloc(buf, ncap);
            if (!nb) {
                spt__free(buf);
                return spt__err(SPT_ENOMEM, "%s: out of memory decoding %s", fn, name);
            }
            buf = nb;
            cap = ncap;
        }
        la_ssize_t r = archive_read_data(a, buf + len, cap - len);
        if (r < 0) {
            spt_status st = arc_err(fn, name, a, what, (int64_t)len);
            spt__free(buf);
            return st;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    *out = buf;
    *outlen = len;
    return SPT_OK;
}

/* Collect the names of the tar's regular files and choose one; *pick is a new string. */
static spt_status choose_member(const char *fn, const char *name, const char *data, size_t len, char **pick) {
    spt_status st;
    struct archive *a = open_mem(fn, name, data, len, &st);
    if (!a) return st;
    struct archive_entry *e;
    int r, ndata = 0, nmain = 0, nfiles = 0;
    char list[256] = "", first_data[1024] = "", first_main[1024] = "", first_file[1024] = "", found[1024] = "";
    const char *want_member = want_member_get();
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *p = archive_entry_pathname(e);
        if (!p || archive_entry_filetype(e) != AE_IFREG) continue;
        if (nfiles++ == 0) snprintf(first_file, sizeof first_file, "%s", p);
        if (want_member && !found[0] && member_is(p, want_member)) snprintf(found, sizeof found, "%s", p);
        if (data_name(p)) {
            if (ndata++ == 0) snprintf(first_data, sizeof first_data, "%s", p);
            size_t l = strlen(list);
            if (l < sizeof list - 8) snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", p);
            if (suitesparse_main(p) && nmain++ == 0) snprintf(first_main, sizeof first_main, "%s", p);
        }
    }
    st = r == ARCHIVE_EOF ? SPT_OK : arc_err(fn, name, a, "tar", 0);
    archive_read_free(a);
    if (st != SPT_OK) return st;
    const char *c = NULL;
    if (want_member) {
        if (!found[0])
            return spt__err(SPT_EINVAL, "%s: %s has no member '%s' (its data files: %s)", fn, name, want_member,
                            list[0] ? list : "none");
        c = found;
    } else if (ndata == 1) c = first_data;
    else if (ndata > 1 && nmain == 1) c = first_main;
    else if (ndata == 0 && nfiles == 1) c = first_file;
    else if (ndata > 1)
        return spt__err(SPT_EINVAL, "%s: %s holds several data files (%s); name one as the member to read", fn, name,
                        list);
    else return spt__err(SPT_EPARSE, "%s: expected a .tns, .mtx, .npy or .npz member, found none", name);
    size_t n = strlen(c);
    if (!(*pick = spt__malloc(n + 1))) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(*pick, c, n + 1);
    return SPT_OK;
}

/* ---- gzip with libdeflate: several times zlib's speed, CRC and length of every member checked ------- */

/* The first guess of a gzip stream's decoded size: the last member's ISIZE (its size mod 2^32), raised
 * by 4 GiB steps to at least three times the compressed size. */
static size_t gzip_guess(const unsigned char *in, size_t len, size_t most) {
    size_t g = 1 << 16;
    if (len >= 18) {
        uint64_t isz = (uint64_t)in[len - 4] | (uint64_t)in[len - 3] << 8 | (uint64_t)in[len - 2] << 16 |
                       (uint64_t)in[len - 1] << 24;
        while (isz < 3 * (uint64_t)len && isz < (uint64_t)most) isz += (uint64_t)1 << 32;
        /* the trailer can lie: deflate expands at most about 1032 : 1, so a larger claim is not taken as
         * the first buffer (a 30-byte file claiming 3 GB); the decoder grows the buffer past it if need be */
        const uint64_t bound = 1032 * (uint64_t)len + 1024;
        if (isz > bound) isz = bound;
        g = isz > (uint64_t)most ? most : (size_t)isz;
    }
    return g + 1;
}

static bool all_zero(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

static spt_status gunzip_run(const char *name, struct libdeflate_decompressor *d, const char *in, size_t len,
                             char **buf, size_t *cap, size_t *outlen) {
    size_t most = spt__max_stream_bytes(), at = 0, pos = 0;
    while (at < len && !all_zero(in + at, len - at)) { /* members one after another (pigz, bgzip) */
        size_t used = 0, got = 0;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, in + at, len - at, *buf + pos, *cap - pos, &used,
                                                                 &got);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            if (*cap > most)
                return spt__err(
                    SPT_EOVERFLOW,
                    "%s: decodes to more than %zu bytes; stopped there (SPT_MAX_STREAM_BYTES sets the limit)", name,
                    most);
            size_t ncap = *cap > most / 2 ? most + 1 : *cap * 2;
            char *nb = spt__realloc(*buf, ncap);
            if (!nb) return spt__err(SPT_ENOMEM, "%s: out of memory decoding", name);
            *buf = nb;
            *cap = ncap;
            continue;
        }
        if (r != LIBDEFLATE_SUCCESS)
            return spt__err(SPT_EPARSE,
                            "%s: corrupt or truncated gzip input in the member at compressed byte %zu "
                            "(after %zu decoded bytes)%s",
                            name, at, pos, r == LIBDEFLATE_BAD_DATA ? ": bad data or checksum" : "");
        at += used;
        pos += got;
    }
    *outlen = pos;
    return SPT_OK;
}

static spt_status gunzip(const char *fn, const char *name, const char *in, size_t len, char **out, size_t *outlen) {
    size_t cap = gzip_guess((const unsigned char *)in, len, spt__max_stream_bytes());
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    char *buf = d ? spt__malloc(cap) : NULL;
    if (!buf) {
        if (d) libdeflate_free_decompressor(d);
        return spt__err(SPT_ENOMEM, "%s: out of memory decoding %s", fn, name);
    }
    spt_status st = gunzip_run(name, d, in, len, &buf, &cap, outlen);
    libdeflate_free_decompressor(d);
    if (st != SPT_OK) {
        spt__free(buf);
        return st;
    }
    char *nb = spt__realloc(buf, *outlen ? *outlen : 1); /* give back the guess's slack */
    *out = nb ? nb : buf;
    return SPT_OK;
}

/* ---- unpacking -------------------------------------------------------------------------------- */

/* The chosen member of the tar archive data[0..len) (possibly compressed) into *out; *member its name. */
static spt_status untar(const char *fn, const char *name, const char *data, size_t len, char **out, size_t *outlen,
                        char **member) {
    spt_status st;
    struct archive_entry *e;
    SPT__TRY(choose_member(fn, name, data, len, member));
    struct archive *a = open_mem(fn, name, data, len, &st);
    if (!a) goto fail;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
        if (archive_entry_filetype(e) == AE_IFREG && !strcmp(archive_entry_pathname(e), *member)) break;
    int64_t size = r == ARCHIVE_OK && archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
    st = r == ARCHIVE_OK ? read_entry(fn, name, a, "tar", size, out, outlen) : arc_err(fn, name, a, "tar", 0);
    archive_read_free(a);
    if (st == SPT_OK) return SPT_OK;
fail:
    spt__free(*member);
    *member = NULL;
    return st;
}

/* Decode `data` (compressed, or a tar archive, possibly compressed) into *out; *member receives the tar
 * member's name (a new string) or NULL. */
static spt_status unpack(const char *fn, const char *name, const char *data, size_t len, char **out, size_t *outlen,
                         char **member) {
    spt_status st;
    *member = NULL;
    const char *kind = spt__packed_kind(data, len);
    if (kind && !strcmp(kind, "gzip")) {
        char *g = NULL;
        size_t glen = 0;
        SPT__TRY(gunzip(fn, name, data, len, &g, &glen));
        if (!is_tar(g, glen)) {
            *out = g;
            *outlen = glen;
            return SPT_OK;
        }
        st = untar(fn, name, g, glen, out, outlen, member);
        spt__free(g);
        return st;
    }
    struct archive *a = open_mem(fn, name, data, len, &st);
    if (!a) return st;
    struct archive_entry *e;
    if (archive_read_next_header(a, &e) != ARCHIVE_OK) {
        st = arc_err(fn, name, a, kind, 0);
        archive_read_free(a);
        return st;
    }
    bool raw = archive_format(a) == ARCHIVE_FORMAT_RAW;
    if (raw) st = read_entry(fn, name, a, kind, -1, out, outlen);
    archive_read_free(a);
    return raw ? st : untar(fn, name, data, len, out, outlen, member);
}

spt_status spt__file_unpack(const char *fn, const char *path, spt__file *f) {
    char *buf = NULL, *member = NULL;
    size_t len = 0;
    SPT__TRY(unpack(fn, spt__display_name(path), f->data, f->len, &buf, &len, &member));
    const char *shown = spt__display_name(path);
    char *nm = NULL;
    if (member) {
        size_t n = strlen(shown) + strlen(member) + 3;
        if (!(nm = spt__malloc(n))) {
            spt__free(buf);
            spt__free(member);
            return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        }
        snprintf(nm, n, "%s[%s]", shown, member);
    }
    spt__file_release(f);
    f->buf = buf;
    f->data = buf;
    f->len = len;
    f->member = member;
    f->name_buf = nm;
    f->name = nm ? nm : shown;
    return SPT_OK;
}
