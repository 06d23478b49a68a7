/* SPDX-License-Identifier: Apache-2.0 */
/* tns.c -- parallel .tns read (each rank parses its own byte range of the file with the serial parser)
 * and ordered write (each rank formats its own entries with the serial writer; rank 0 joins the parts
 * in rank order through the common output path). */
#include "priv/mpi_priv.h"
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Read exactly n bytes at offset off (EIO naming the path on failure). */
static spt_status read_at(const char *fn, FILE *fp, const char *path, int64_t off, char *buf, int64_t n) {
    if (n == 0) return SPT_OK;
    if (fseeko(fp, (off_t)off, SEEK_SET) != 0 || fread(buf, 1, (size_t)n, fp) != (size_t)n)
        return spt__err(SPT_EIO, "%s: cannot read %lld bytes at offset %lld of %s", fn, (long long)n, (long long)off,
                        path);
    return SPT_OK;
}

/* The first line start at or after `pos` (>= lo): the byte after the first '\n' at or after pos-1. */
static spt_status line_start(const char *fn, FILE *fp, const char *path, int64_t lo, int64_t pos, int64_t size,
                             int64_t *out) {
    if (pos <= lo) {
        *out = lo;
        return SPT_OK;
    }
    char buf[4096];
    for (int64_t p = pos - 1; p < size;) {
        int64_t n = size - p < (int64_t)sizeof buf ? size - p : (int64_t)sizeof buf;
        SPT__TRY(read_at(fn, fp, path, p, buf, n));
        const char *nl = memchr(buf, '\n', (size_t)n);
        if (nl) {
            *out = p + (nl - buf) + 1;
            return SPT_OK;
        }
        p += n;
    }
    *out = size;
    return SPT_OK;
}

/* The head: the comment/blank lines before the first data line. */
typedef struct head {
    int64_t end;   /* byte offset of the first data line (or the size) */
    int64_t lines; /* lines before it */
    int64_t rank;  /* from the first data line or the shape comment / option; -1 unknown */
    int64_t has_shape, has_dtype, dtype;
    int64_t shape[SPT_MAX_RANK];
} head;

static bool starts_word(const char *p, const char *e, const char *w) {
    size_t n = strlen(w);
    return (size_t)(e - p) >= n && strncasecmp(p, w, n) == 0;
}

static spt_status read_head(const char *fn, FILE *fp, const char *path, int64_t size, const spt_read_opts *opts,
                            head *h) {
    spt_status st = SPT_OK;
    char *buf = NULL;
    int64_t cap = 0, len = 0;
    h->end = size;
    h->lines = 0;
    h->rank = -1;
    /* grow until a data line is complete (or EOF) */
    for (;;) {
        int64_t want = len + 65536 < size ? len + 65536 : size;
        if (want > cap) {
            char *nb = spt__realloc(buf, (size_t)want + 1);
            if (!nb) {
                st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
                goto fail;
            }
            buf = nb;
            cap = want;
        }
        SPT__CHECK(read_at(fn, fp, path, len, buf + len, want - len));
        len = want;
        /* scan complete lines */
        const char *p = buf, *e = buf + len;
        int64_t lines = 0;
        bool found = false, complete = false;
        while (p < e) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            const char *eol = nl ? nl : e;
            const char *q = p;
            while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
            if (q < eol && *q != '#') {
                found = true;
                complete = nl != NULL || len == size;
                h->end = p - buf;
                h->lines = lines;
                break;
            }
            if (q < eol) {
                q++;
                while (q < eol && (*q == ' ' || *q == '\t')) q++;
                if (starts_word(q, eol, "shape:")) h->has_shape = 1;
                if (starts_word(q, eol, "dtype:")) h->has_dtype = 1;
            }
            if (!nl) break;
            p = nl + 1;
            lines++;
        }
        if ((found && complete) || len == size) {
            if (!found) h->lines = lines;
            /* the serial parser on the head (with its first data line) gives rank, dtype and shape */
            int64_t hl = len;
            if (found) {
                const char *nl = memchr(buf + h->end, '\n', (size_t)(len - h->end));
                hl = nl ? nl - buf + 1 : len;
            }
            spt_tensor *t = NULL;
            SPT__CHECK(spt_parse_tns(buf, (size_t)hl, path, opts, &t));
            h->rank = t->rank;
            h->dtype = t->dtype;
            if (opts && opts->has_dtype) h->has_dtype = 1;
            if (opts && opts->shape) h->has_shape = 1;
            for (int64_t k = 0; k < t->rank; k++) h->shape[k] = t->shape[k];
            spt_tensor_free(t);
            break;
        }
    }
fail:
    spt__free(buf);
    return st;
}

/* Rewrite "path:LINE:" in the last error message to the file's line (the chunk starts at line base+1). */
static spt_status fix_line(spt_status st, const char *path, int64_t base) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", spt_last_error());
    size_t pl = strlen(path);
    char *p = strstr(msg, path);
    if (!p || p[pl] != ':') return st;
    char *q = p + pl + 1, *e = NULL;
    long long ln = strtoll(q, &e, 10);
    if (e == q || *e != ':') return st;
    *q = 0;
    return spt__err(st, "%s%lld%s", msg, ln + base, e);
}

spt_status spt_dtensor_read_tns(spt_mpi_ctx *ctx, const char *path, const spt_read_opts *opts, spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_read_tns";
    spt_status st = SPT_OK;
    if (!ctx) return spt__err(SPT_EINVAL, "%s: ctx is NULL", fn);
    const int P = ctx->size, me = ctx->rank;
    FILE *fp = NULL;
    char *chunk = NULL;
    spt_tensor *t = NULL, *sorted = NULL;
    int64_t size = 0;
    head h;
    struct stat sb0;
    memset(&h, 0, sizeof h);
    if (out) *out = NULL;
    if (!out || !path) st = spt__err(SPT_EINVAL, "%s: NULL path or out", fn);
    else if (!strcmp(path, "-")) st = spt__err(SPT_EINVAL, "%s: stdin cannot be read in parallel", fn);
    else if (stat(path, &sb0) == 0 && !S_ISREG(sb0.st_mode)) /* before fopen: a FIFO would block it */
        st = spt__err(SPT_EIO, "%s: %s is not a regular file", fn, path);
    else if (!(fp = fopen(path, "rb"))) st = spt__err(SPT_EIO, "%s: cannot open %s: %s", fn, path, strerror(errno));
    else {
        struct stat sb;
        if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode))
            st = spt__err(SPT_EIO, "%s: %s is not a regular file", fn, path);
        else size = (int64_t)sb.st_size;
    }
    if (st == SPT_OK && me == 0) st = read_head(fn, fp, path, size, opts, &h);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, &h, sizeof h, 0));
    ctx->payload_bytes -= me == 0 ? (int64_t)sizeof h * (P - 1) : 0;
    /* my byte range, cut at line starts */
    int64_t body = size - h.end, lo = 0, hi = 0;
    st = line_start(fn, fp, path, h.end, h.end + (int64_t)(((__int128)body * me) / P), size, &lo);
    if (st == SPT_OK)
        st = line_start(fn, fp, path, h.end, h.end + (int64_t)(((__int128)body * (me + 1)) / P), size, &hi);
    if (st == SPT_OK && hi < lo) hi = lo;
    if (st == SPT_OK) chunk = spt__alloc_array(fn, hi - lo + 1, 1, 1, false, &st);
    if (chunk) st = read_at(fn, fp, path, lo, chunk, hi - lo);
    SPT__AGREE(ctx, fn);
    /* the line number of my first line */
    int64_t nl = 0, base = 0;
    for (int64_t i = 0; i < hi - lo; i++) nl += chunk[i] == '\n';
    int64_t *nls = spt__alloc_array(fn, P, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    st = spt__mpi_allgather_i64(ctx, fn, &nl, 1, nls);
    if (st == SPT_OK) {
        spt__scan_exclusive(nls, P); /* lines before each rank's chunk */
        base = h.lines + nls[me];
    }
    spt__free(nls);
    SPT__AGREE(ctx, fn);
    /* parse my chunk: dtype and shape as the head decided, else inferred and agreed below */
    spt_read_opts o = {0};
    if (h.has_dtype) {
        o.has_dtype = true;
        o.dtype = (spt_dtype)h.dtype;
    }
    if (h.has_shape) {
        o.rank = h.rank;
        o.shape = h.shape;
    }
    if (hi > lo) {
        st = spt_parse_tns(chunk, (size_t)(hi - lo), path, &o, &t);
        if (st != SPT_OK) st = fix_line(st, path, base);
        else if (t->nnz == 0) {
            spt_tensor_free(t); /* comments only: an empty piece of the agreed rank below */
            t = NULL;
        } else if (t->rank != h.rank)
            st = spt__err(SPT_EPARSE, "%s:%lld: expected %lld fields, found %lld", path, (long long)base + 1,
                          (long long)h.rank + 1, (long long)t->rank + 1);
    }
    SPT__AGREE(ctx, fn);
    /* dtype: float64 if any rank saw a non-integer value */
    int64_t agg[1 + SPT_MAX_RANK] = {0};
    agg[0] = t && t->dtype == SPT_FLOAT64 ? 1 : 0;
    for (int64_t k = 0; k < h.rank; k++) agg[1 + k] = t && t->nnz ? t->shape[k] : 0;
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, agg, 1 + h.rank, MPI_MAX));
    spt_dtype dtype = h.has_dtype ? (spt_dtype)h.dtype : agg[0] ? SPT_FLOAT64 : SPT_INT64;
    if (t && t->dtype != dtype) {
        spt_tensor_free(t);
        t = NULL;
        o.has_dtype = true;
        o.dtype = dtype;
        st = spt_parse_tns(chunk, (size_t)(hi - lo), path, &o, &t);
        if (st != SPT_OK) st = fix_line(st, path, base);
    }
    int64_t shape[SPT_MAX_RANK];
    for (int64_t k = 0; k < h.rank; k++) shape[k] = h.has_shape ? h.shape[k] : agg[1 + k];
    if (st == SPT_OK) st = spt__check_dims(fn, h.rank, shape, NULL);
    if (st == SPT_OK && !t) st = spt__tensor_alloc(fn, dtype, h.rank, shape, 0, NULL, &t);
    else if (st == SPT_OK) st = spt_tensor_set_shape(t, shape);
    spt__free(chunk);
    chunk = NULL;
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_sort(ctx, fn, t, NULL, false, &sorted));
    st = spt__dtensor_make(ctx, fn, sorted, out);
fail:
    spt_tensor_free(t);
    spt__free(chunk);
    if (fp) fclose(fp);
    return st;
}

/* ---- ordered write -------------------------------------------------------------------------------- */

/* The name of rank q's part: beside the target, short (so that targets named up to NAME_MAX work). */
static void part_name(char *out, size_t cap, const char *path, unsigned long long id, int q) {
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) + 1 : 0;
    snprintf(out, cap, "%.*s.sptpart%llx.%d", dl, path, id, q);
}

/* Remove a "# order: ..." line from the header comments at the start of buf[0..*n) (a part's statement
 * holds for its own entries only); returns the end of the header (where the file's statement goes). */
static size_t drop_order_line(char *buf, size_t *n) {
    size_t p = 0;
    while (p < *n && buf[p] == '#') {
        char *nl = memchr(buf + p, '\n', *n - p);
        size_t e = nl ? (size_t)(nl - buf) + 1 : *n;
        if (e - p >= 8 && !memcmp(buf + p, "# order:", 8)) {
            memmove(buf + p, buf + e, *n - e);
            *n -= e - p;
            continue;
        }
        p = e;
    }
    return p;
}

/* The order statement of the whole distributed tensor (the serial writer's, for the joined entries):
 * every local part is sorted by the partition order; the whole is unique when every part is and each
 * part's last entry is below the next non-empty part's first. Collective. */
static spt_status global_meta(const spt_dtensor *dt, const char *fn, char *meta, size_t cap) {
    spt_status st = SPT_OK;
    const spt_tensor *t = dt->local;
    const int64_t R = t->rank, n = t->nnz, W = 2 + 2 * R;
    const int P = dt->ctx->size;
    meta[0] = 0;
    int64_t *mine = spt__malloc((size_t)W * sizeof *mine), *all = spt__malloc((size_t)(W * P) * sizeof *all);
    if (!mine || !all) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto done;
    }
    mine[0] = n > 0;
    bool lu = (t->flags & SPT__F_UNIQUE) != 0;
    if (!lu && (t->flags & SPT__F_SORTED) && spt__order_defined(R, t->order)) {
        lu = true; /* a sorted part whose flag was not kept: unique when no two neighbours are equal */
        for (int64_t i = 1; i < n && lu; i++)
            lu = spt__cmp_rows(t->indices + (i - 1) * R, t->indices + i * R, R, t->order) != 0;
    }
    mine[1] = lu;
    for (int64_t k = 0; k < R; k++) {
        mine[2 + k] = n > 0 ? t->indices[k] : 0;
        mine[2 + R + k] = n > 0 ? t->indices[(n - 1) * R + k] : 0;
    }
    st = spt__mpi_allgather_i64(dt->ctx, fn, mine, W, all);
    if (st != SPT_OK) goto done;
    bool sorted = (t->flags & SPT__F_SORTED) && spt__order_defined(R, t->order), unique = true;
    const int64_t *prev_last = NULL;
    for (int q = 0; q < P; q++) {
        const int64_t *r = all + (int64_t)q * W;
        if (!r[0]) continue;
        if (!r[1]) unique = false;
        if (prev_last && spt__cmp_rows(prev_last, r + 2, R, t->order) >= 0) unique = false;
        prev_last = r + 2 + R;
    }
    spt_tensor whole = *t;
    whole.flags = SPT__F_VALID | (sorted ? SPT__F_SORTED : 0u) | (sorted && unique ? SPT__F_UNIQUE : 0u);
    spt__order_meta_format(&whole, meta, cap);
done:
    spt__free(mine);
    spt__free(all);
    return st;
}

spt_status spt_dtensor_write_tns(const spt_dtensor *dt, const char *path) {
    static const char fn[] = "spt_dtensor_write_tns";
    spt_status st = SPT_OK;
    if (!dt) return spt__err(SPT_EINVAL, "%s: dtensor is NULL", fn);
    spt_mpi_ctx *ctx = dt->ctx;
    const int P = ctx->size, me = ctx->rank;
    char part[4200] = "", name[4200];
    FILE *in = NULL;
    char *buf = NULL;
    spt__out o;
    bool out_open = false;
    if (!path) st = spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    else if (!strcmp(path, "-")) st = spt__err(SPT_EINVAL, "%s: stdout is not supported in parallel", fn);
    else if (strlen(path) > 4000) st = spt__err(SPT_EINVAL, "%s: path too long", fn);
    SPT__AGREE(ctx, fn);
    /* each rank formats its own entries with the serial writer, into a part file named after rank 0's id */
    unsigned long long id = 0;
    if (me == 0) id = (unsigned long long)getpid() << 24 ^ (unsigned long long)time(NULL);
    SPT__MPI(fn, MPI_Bcast(&id, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm), "MPI_Bcast");
    part_name(part, sizeof part, path, id, me);
    st = spt_write_tns(dt->local, part);
    SPT__AGREE(ctx, fn);
    char meta[SPT__META_CAP];
    st = global_meta(dt, fn, meta, sizeof meta);
    SPT__AGREE(ctx, fn);
    /* rank 0 joins the parts in rank order through the common output path (src/io/out.c), so the
     * target is written as every serial writer writes it; ranks > 0 drop their header comments */
    if (me == 0) {
        buf = spt__malloc(1 << 20);
        if (!buf) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        if (st == SPT_OK) {
            st = spt__out_open(fn, path, false, &o);
            out_open = st == SPT_OK;
        }
        for (int q = 0; q < P && st == SPT_OK; q++) {
            part_name(name, sizeof name, path, id, q);
            in = fopen(name, "rb");
            if (!in) {
                st = spt__err(SPT_EIO, "%s: cannot open %s: %s", fn, name, strerror(errno));
                break;
            }
            bool skipping = q > 0, bol = true, first = true;
            size_t n;
            while (st == SPT_OK && (n = fread(buf, 1, 1 << 20, in)) > 0) {
                size_t s = 0;
                if (q == 0 && first) { /* the header, with the whole tensor's order statement */
                    size_t h = drop_order_line(buf, &n);
                    if (fwrite(buf, 1, h, o.fp) != h || (meta[0] && fprintf(o.fp, "# %s\n", meta) < 0))
                        st = spt__err(SPT_EIO, "%s: cannot write %s", fn, path);
                    s = h;
                }
                first = false;
                while (skipping && s < n) {
                    if (bol && buf[s] != '#') {
                        skipping = false;
                        break;
                    }
                    bol = buf[s] == '\n';
                    s++;
                }
                if (n > s && fwrite(buf + s, 1, n - s, o.fp) != n - s)
                    st = spt__err(SPT_EIO, "%s: cannot write %s", fn, path);
            }
            if (ferror(in)) st = spt__err(SPT_EIO, "%s: cannot read %s", fn, name);
            fclose(in);
            in = NULL;
        }
        if (out_open) {
            if (st == SPT_OK) st = spt__out_commit(fn, &o);
            else spt__out_abort(&o);
            out_open = false;
        }
    }
    SPT__AGREE(ctx, fn);
fail:
    if (in) fclose(in);
    if (out_open) spt__out_abort(&o);
    if (part[0]) remove(part);
    spt__free(buf);
    return st;
}
