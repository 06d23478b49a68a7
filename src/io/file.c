/* SPDX-License-Identifier: Apache-2.0 */
/* file.c -- what every format shares: loading a file, number lexing and formatting,
 * format names, and the format-dispatching spt_read / spt_write. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *spt__display_name(const char *path) { return strcmp(path, "-") ? path : "<stdin>"; }

/* The most bytes read from a stream (stdin, a pipe, a FIFO, a device): SPT_MAX_STREAM_BYTES from the
 * environment (a byte count with an optional K, M, G or T suffix, powers of 1024), else 4 GiB or half
 * the physical memory, whichever is smaller. */
size_t spt__max_stream_bytes(void) {
    const char *e = getenv("SPT_MAX_STREAM_BYTES");
    if (e && *e) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(e, &end, 10);
        int shift = 0;
        if (*end == 'k' || *end == 'K') shift = 10, end++;
        else if (*end == 'm' || *end == 'M') shift = 20, end++;
        else if (*end == 'g' || *end == 'G') shift = 30, end++;
        else if (*end == 't' || *end == 'T') shift = 40, end++;
        if (!errno && end != e && !*end && e[0] != '-') {
            if (v > (SIZE_MAX >> shift)) return SIZE_MAX;
            return (size_t)v << shift;
        }
    }
    size_t lim = (size_t)4 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0 && (uint64_t)pages * (uint64_t)psz / 2 < lim) lim = (size_t)((uint64_t)pages * (uint64_t)psz / 2);
    return lim;
}

static spt_status read_fd(const char *fn, const char *path, int fd, spt__file *f) {
    size_t cap = 1 << 16, len = 0;
    struct stat sb; /* a regular file (stdin redirected from one) has an end: no bound */
    const size_t most = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? SIZE_MAX : spt__max_stream_bytes();
    char *buf = spt__malloc(cap);
    if (!buf) return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, spt__display_name(path));
    for (;;) {
        if (len > most) {
            spt__free(buf);
            return spt__err(SPT_EOVERFLOW,
                            "%s: %s is not a regular file and gives more than %zu bytes; stopped there "
                            "(SPT_MAX_STREAM_BYTES sets the limit)",
                            fn, spt__display_name(path), most);
        }
        if (len == cap) {
            size_t ncap;
            if (spt__mul_sz(cap, 2, &ncap)) {
                spt__free(buf);
                return spt__err(SPT_EOVERFLOW, "%s: %s is too large", fn, spt__display_name(path));
            }
            if (most < SIZE_MAX && ncap > most + 1) ncap = most + 1 > cap ? most + 1 : cap + 1;
            char *nb = spt__realloc(buf, ncap);
            if (!nb) {
                spt__free(buf);
                return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, spt__display_name(path));
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            spt__free(buf);
            return spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, spt__display_name(path), strerror(e));
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    f->buf = buf;
    f->data = buf;
    f->len = len;
    return SPT_OK;
}

/* Seconds to wait for a FIFO's writer: SPT_FIFO_TIMEOUT from the environment (1 .. 86400), else 30. */
static int fifo_timeout(void) {
    const char *v = getenv("SPT_FIFO_TIMEOUT");
    char *e;
    long x = v ? strtol(v, &e, 10) : 0;
    return v && e != v && !*e && x >= 1 && x <= 86400 ? (int)x : 30;
}

/* Whether data or a writer's end came within fifo_timeout() (fd: a FIFO opened O_NONBLOCK for reading;
 * with no writer yet, poll reports nothing). */
static bool fifo_writer(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const long long limit = (long long)fifo_timeout() * 1000;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long left = limit - ((long long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) return false;
        int r = poll(&p, 1, (int)left);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return true; /* let the read report it */
    }
}

spt_status spt__file_load(const char *fn, const char *path, spt__file *f) {
    memset(f, 0, sizeof *f);
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if (!strcmp(path, "-")) return read_fd(fn, path, 0, f);
    /* non-blocking open: a FIFO nobody writes to would block open() for ever */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return spt__err(SPT_EIO, "%s: cannot open %s: %s", fn, path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return spt__err(SPT_EIO, "%s: cannot stat %s: %s", fn, path, strerror(e));
    }
    if (S_ISFIFO(sb.st_mode) && !fifo_writer(fd)) {
        close(fd);
        return spt__err(SPT_EIO, "%s: %s is a FIFO that no writer opened within %d s (SPT_FIFO_TIMEOUT)", fn, path,
                        fifo_timeout());
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        return spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return spt__err(SPT_EIO, "%s: %s is a directory", fn, path);
    }
    spt_status st;
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            (void)madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL | MADV_WILLNEED);
            f->map = m;
            f->maplen = (size_t)sb.st_size;
            f->data = m;
            f->len = (size_t)sb.st_size;
            close(fd);
            return SPT_OK;
        }
    }
    st = read_fd(fn, path, fd, f);
    close(fd);
    return st;
}

void spt__file_release(spt__file *f) {
    if (f->map) munmap(f->map, f->maplen);
    spt__free(f->buf);
    memset(f, 0, sizeof *f);
}

/* ---- lexing ------------------------------------------------------------------------------------ */

void spt__describe_token(char *buf, size_t cap, const char *p, const char *end) {
    if (p >= end) {
        snprintf(buf, cap, "end of line");
        return;
    }
    size_t n = (size_t)(end - p);
    int max = 40;
    char tmp[48];
    size_t k = 0;
    for (size_t i = 0; i < n && k < (size_t)max; i++) {
        unsigned char c = (unsigned char)p[i];
        tmp[k++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    tmp[k] = 0;
    snprintf(buf, cap, "'%s%s'", tmp, n > (size_t)max ? "..." : "");
}

int spt__parse_u64(const char *p, const char *e, uint64_t *v) {
    if (p < e && *p == '+') p++;
    if (p >= e) return 1;
    uint64_t x = 0;
    for (; p < e; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9) return 1;
        if (x > (UINT64_MAX - d) / 10) {
            for (p++; p < e; p++)
                if ((unsigned)(*p - '0') > 9) return 1;
            return 2;
        }
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

int spt__parse_i64(const char *p, const char *e, int64_t *v) {
    bool neg = false;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p >= e || *p == '+') return 1;
    uint64_t x;
    int r = spt__parse_u64(p, e, &x);
    if (r) return r;
    if (neg) {
        if (x > (uint64_t)INT64_MAX + 1) return 2;
        *v = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
    } else {
        if (x > (uint64_t)INT64_MAX) return 2;
        *v = (int64_t)x;
    }
    return 0;
}

static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool word_ci(const char *p, const char *e, const char *w) {
    size_t n = strlen(w);
    return (size_t)(e - p) == n && strncasecmp(p, w, n) == 0;
}

int spt__parse_f64(const char *p, const char *e, double *v) {
    const char *s = p;
    bool neg = false;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p >= e) return 1;
    if ((*p | 32) == 'i' || (*p | 32) == 'n') {
        if (word_ci(p, e, "inf") || word_ci(p, e, "infinity")) {
            *v = neg ? -INFINITY : INFINITY;
            return 0;
        }
        if (word_ci(p, e, "nan")) {
            *v = neg ? -NAN : NAN;
            return 0;
        }
        return 1;
    }
    /* Syntax check, collecting up to 19 significant digits for the exact fast path. */
    uint64_t mant = 0;
    int ndig = 0, dropped = 0, frac = 0;
    bool any = false, inexact = false;
    for (; p < e && (unsigned)(*p - '0') <= 9; p++) {
        any = true;
        if (mant == 0 && *p == '0') continue;
        if (ndig < 19) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            ndig++;
        } else {
            dropped++;
            inexact = true;
        }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && (unsigned)(*p - '0') <= 9; p++) {
            any = true;
            if (mant == 0 && *p == '0') {
                frac++;
                continue;
            }
            if (ndig < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                ndig++;
                frac++;
            } else
                inexact = true;
        }
    }
    if (!any) return 1;
    int64_t ex = 0;
    if (p < e && (*p | 32) == 'e') {
        p++;
        bool eneg = false;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p >= e) return 1;
        for (; p < e; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (d > 9) return 1;
            if (ex < 100000) ex = ex * 10 + d;
        }
        if (eneg) ex = -ex;
    }
    if (p != e) return 1;
    int64_t e10 = ex + dropped - frac;
    if (mant == 0) {
        *v = neg ? -0.0 : 0.0;
        return 0;
    }
    if (!inexact && mant < (1ull << 53) && e10 >= -22 && e10 <= 22) {
        double d = (double)mant;
        d = e10 < 0 ? d / pow10_tab[-e10] : d * pow10_tab[e10];
        *v = neg ? -d : d;
        return 0;
    }
    /* Slow path: strtod on a NUL-terminated copy. */
    size_t n = (size_t)(e - s);
    char tmp[512];
    if (n >= sizeof tmp) return 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    errno = 0;
    double d = strtod(tmp, NULL);
    if (errno == ERANGE && isinf(d)) return 2;
    *v = d;
    return 0;
}

/* ---- formatting -------------------------------------------------------------------------------- */

int spt__fmt_double(char *buf, size_t cap, double v, bool is_float32) {
    if (isnan(v)) return snprintf(buf, cap, "%s", signbit(v) ? "-nan" : "nan");
    if (isinf(v)) return snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
    if (v == floor(v) && fabs(v) < 1e15) return snprintf(buf, cap, "%.0f", v);
    int n = 0;
    for (int prec = is_float32 ? 6 : 15; prec <= 17; prec++) {
        n = snprintf(buf, cap, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (is_float32 ? (float)back == (float)v : back == v) break;
    }
    return n;
}

#define FMT_BOOL(T, x, buf, cap) snprintf(buf, cap, "%d", (x) ? 1 : 0)
#define FMT_INT(T, x, buf, cap) snprintf(buf, cap, "%lld", (long long)(x))
#define FMT_UINT(T, x, buf, cap) snprintf(buf, cap, "%llu", (unsigned long long)(x))
#define FMT_FLOAT(T, x, buf, cap) spt__fmt_double(buf, cap, (double)(x), sizeof(T) == 4)
#define FMT_COMPLEX(T, x, buf, cap) fmt_complex(buf, cap, (double)creal(x), (double)cimag(x), sizeof(T) == 8)
#define FMT_STRING(T, x, buf, cap) snprintf(buf, cap, "?")

static int fmt_complex(char *buf, size_t cap, double re, double im, bool f32) {
    int n = spt__fmt_double(buf, cap, re, f32);
    if (n < 0 || (size_t)n + 2 >= cap) return n;
    buf[n++] = ' ';
    return n + spt__fmt_double(buf + n, cap - (size_t)n, im, f32);
}

int spt__fmt_value(char *buf, size_t cap, spt_dtype d, const void *values, int64_t i) {
    switch (d) {
#define X(E, name, T, KIND)                                                                        \
    case E:                                                                                        \
        return FMT_##KIND(T, ((const T *)values)[i], buf, cap);
#include "spt_dtypes.def"
#undef X
    default:
        return snprintf(buf, cap, "?");
    }
}

/* Store a parsed number: v0 is an int64 (or uint64 for uint64) bit pattern, or a double when isflt. */
#define ST_BOOL(T, p, v0, v1, f) (*(T *)(p) = (f) ? (double)(v0.d) != 0 : v0.i != 0)
#define ST_INT(T, p, v0, v1, f) (*(T *)(p) = (f) ? (T)v0.d : (T)v0.i)
#define ST_UINT(T, p, v0, v1, f) (*(T *)(p) = (f) ? (T)v0.d : (T)v0.u)
#define ST_FLOAT(T, p, v0, v1, f) (*(T *)(p) = (f) ? (T)v0.d : (T)v0.i)
#define ST_COMPLEX(T, p, v0, v1, f) store_complex((p), sizeof(T), (f) ? v0.d : (double)v0.i, (v1))

/* Build a complex from its parts without arithmetic, so signed zeros survive. */
static void store_complex(void *p, size_t size, double re, double im) {
    if (size == 8) {
        float part[2] = {(float)re, (float)im};
        memcpy(p, part, 8);
    } else {
        double part[2] = {re, im};
        memcpy(p, part, 16);
    }
}
#define ST_STRING(T, p, v0, v1, f) ((void)(p))

void spt__store_value(spt_dtype d, void *values, int64_t i, uint64_t bits, double v1, bool isflt) {
    union {
        uint64_t u;
        int64_t i;
        double d;
    } v0 = {.u = bits};
    switch (d) {
#define X(E, name, T, KIND)                                                                        \
    case E:                                                                                        \
        ST_##KIND(T, (T *)values + i, v0, v1, isflt);                                             \
        break;
#include "spt_dtypes.def"
#undef X
    default:
        break;
    }
}

/* ---- progress -------------------------------------------------------------------------------- */

/* initial-exec: in a dlopen'ed libspt.so a dynamic TLS variable is allocated on a thread's first use,
 * and the C library ends the process when that allocation fails (these 16 bytes fit the static
 * reserve the C library keeps for libraries loaded later) */
static __thread spt_progress_fn progress_fn __attribute__((tls_model("initial-exec")));
static __thread void *progress_ctx __attribute__((tls_model("initial-exec")));

void spt_set_read_progress(spt_progress_fn fn, void *ctx) {
    progress_fn = fn;
    progress_ctx = fn ? ctx : NULL;
}

void spt__read_progress(spt_progress_fn *fn, void **ctx) {
    *fn = progress_fn;
    *ctx = progress_ctx;
}

/* ---- format names and dispatch ----------------------------------------------------------------- */

static const struct {
    const char *name;
    spt_format f;
} format_names[] = {{"tns", SPT_FORMAT_TNS},
                    {"frostt", SPT_FORMAT_TNS},
                    {"mtx", SPT_FORMAT_MTX},
                    {"mm", SPT_FORMAT_MTX},
                    {"npy", SPT_FORMAT_NPY},
                    {"npz", SPT_FORMAT_NPZ},
                    {"npz-scipy-coo", SPT_FORMAT_NPZ_SCIPY_COO},
                    {"scipy-coo", SPT_FORMAT_NPZ_SCIPY_COO},
                    {"npz-scipy-csr", SPT_FORMAT_NPZ_SCIPY_CSR},
                    {"scipy-csr", SPT_FORMAT_NPZ_SCIPY_CSR}};

spt_format spt_format_from_path(const char *path) {
    if (!path) return SPT_FORMAT_AUTO;
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return SPT_FORMAT_AUTO;
    dot++;
    if (!strcasecmp(dot, "tns")) return SPT_FORMAT_TNS;
    if (!strcasecmp(dot, "mtx")) return SPT_FORMAT_MTX;
    if (!strcasecmp(dot, "npy")) return SPT_FORMAT_NPY;
    if (!strcasecmp(dot, "npz")) return SPT_FORMAT_NPZ;
    return SPT_FORMAT_AUTO;
}

spt_status spt_format_from_name(const char *name, spt_format *out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_format_from_name: out is NULL");
    *out = SPT_FORMAT_AUTO;
    if (!name) return spt__err(SPT_EINVAL, "spt_format_from_name: name is NULL");
    for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
        if (!strcasecmp(name, format_names[i].name)) {
            *out = format_names[i].f;
            return SPT_OK;
        }
    return spt__err(SPT_EINVAL,
                    "spt_format_from_name: unknown format '%s' (tns, mtx, npy, npz, npz-scipy-coo, npz-scipy-csr)",
                    name);
}

const char *spt_format_name(spt_format f) {
    switch (f) {
    case SPT_FORMAT_AUTO: return "auto";
    case SPT_FORMAT_TNS: return "tns";
    case SPT_FORMAT_MTX: return "mtx";
    case SPT_FORMAT_NPY: return "npy";
    case SPT_FORMAT_NPZ: return "npz";
    case SPT_FORMAT_NPZ_SCIPY_COO: return "npz-scipy-coo";
    case SPT_FORMAT_NPZ_SCIPY_CSR: return "npz-scipy-csr";
    }
    return "unknown";
}

spt_status spt_read(const char *path, spt_format format, const spt_read_opts *opts, spt_tensor **out) {
    static const char fn[] = "spt_read";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if (format == SPT_FORMAT_AUTO) format = spt_format_from_path(path);
    switch (format) {
    case SPT_FORMAT_TNS: return spt_read_tns(path, opts, out);
    case SPT_FORMAT_MTX: return spt_read_mtx(path, opts, out);
    case SPT_FORMAT_NPZ:
    case SPT_FORMAT_NPZ_SCIPY_COO:
    case SPT_FORMAT_NPZ_SCIPY_CSR: return spt_read_npz(path, opts, out);
    case SPT_FORMAT_NPY: {
        spt_dense *d = NULL;
        SPT__TRY(spt_read_npy(path, &d));
        spt_status st = spt_from_dense(d, NULL, out);
        spt_dense_free(d);
        return st;
    }
    case SPT_FORMAT_AUTO: break;
    }
    return spt__err(SPT_EINVAL, "%s: cannot tell the format of %s from its extension (use .tns, .mtx, .npy or .npz)",
                    fn, spt__display_name(path));
}

spt_status spt_write(const spt_tensor *t, const char *path, spt_format format) {
    static const char fn[] = "spt_write";
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (format == SPT_FORMAT_AUTO) format = spt_format_from_path(path);
    switch (format) {
    case SPT_FORMAT_TNS: return spt_write_tns(t, path);
    case SPT_FORMAT_MTX: return spt_write_mtx(t, path);
    case SPT_FORMAT_NPZ:
    case SPT_FORMAT_NPZ_SCIPY_COO:
    case SPT_FORMAT_NPZ_SCIPY_CSR: return spt_write_npz(t, path, format);
    case SPT_FORMAT_NPY: {
        spt_dense *d = NULL;
        SPT__TRY(spt_to_dense(t, NULL, false, &d));
        spt_status st = spt_write_npy(d, path);
        spt_dense_free(d);
        return st;
    }
    case SPT_FORMAT_AUTO: break;
    }
    return spt__err(SPT_EINVAL, "%s: cannot tell the format of %s from its extension (use .tns, .mtx, .npy or .npz)",
                    fn, path);
}
