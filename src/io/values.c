/* SPDX-License-Identifier: Apache-2.0 */
/* values.c -- number formatting for the text writers and storing parsed numbers into value arrays. */
#include "io.h"

#include <math.h>
#include <stdlib.h>

/* The decimal digits of v at buf (no terminator); returns their count. */
static int fmt_u64(char *buf, uint64_t v) {
    char tmp[24], *e = tmp + sizeof tmp, *s = e;
    do {
        *--s = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(buf, s, (size_t)(e - s));
    return (int)(e - s);
}

/* a (> 0, under 1e15, not an integer) as r / 10^k with the fewest decimals k and r below 10^15, when one
 * reads back to a (as a float when f32): r and 10^k are exact doubles, so r / 10^k rounds once, as the
 * reader does, and the first k that reads back gives the shortest text -- the digits "%.15g" (or the
 * shortest "%.Ng" for floats) prints, in the fixed notation it uses for 1e-4 <= a < 1e15. 0 when none. */
static int fmt_decimal(char *buf, double a, bool f32) {
    static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    for (int k = 1; k < 16; k++) {
        double m = a * p10[k];
        if (m >= 1e15) break;
        double r = nearbyint(m), back = r / p10[k];
        if (f32 ? (float)back != (float)a : back != a) continue;
        char dig[24];
        int n = fmt_u64(dig, (uint64_t)r), w = 0;
        if (n <= k) { /* 0.000ddd */
            buf[w++] = '0';
            buf[w++] = '.';
            for (int z = 0; z < k - n; z++) buf[w++] = '0';
            memcpy(buf + w, dig, (size_t)n);
            return w + n;
        }
        memcpy(buf, dig, (size_t)(n - k));
        buf[n - k] = '.';
        memcpy(buf + n - k + 1, dig + n - k, (size_t)k);
        return n + 1;
    }
    return 0;
}

int spt__fmt_double(char *buf, size_t cap, double v, bool is_float32) {
    if (isnan(v)) return snprintf(buf, cap, "%s", signbit(v) ? "-nan" : "nan");
    if (isinf(v)) return snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
    const double a = fabs(v);
    if (cap >= 40) { /* the fast paths: integers, and decimals of up to 15 digits in fixed notation */
        int w = signbit(v) ? (buf[0] = '-', 1) : 0, n = 0;
        if (v == floor(v) && a < 1e15) n = fmt_u64(buf + w, (uint64_t)a);
        else if (a >= 1e-4 && a < 1e15) n = fmt_decimal(buf + w, a, is_float32);
        if (n) return buf[w + n] = '\0', w + n;
    } else if (v == floor(v) && a < 1e15) return snprintf(buf, cap, "%.0f", v);
    int n = 0;
    for (int prec = is_float32 ? 6 : 15; prec <= 17; prec++) {
        n = snprintf(buf, cap, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (is_float32 ? (float)back == (float)v : back == v) break;
    }
    return n;
}

#define FMT_BOOL(T, x, buf, cap) snprintf(buf, cap, "%d", (x) ? 1 : 0)
#define FMT_INT(T, x, buf, cap) fmt_i64(buf, cap, (int64_t)(x))
#define FMT_UINT(T, x, buf, cap)                                                                                       \
    ((cap) >= 24 ? fmt_u64(buf, (uint64_t)(x)) : snprintf(buf, cap, "%llu", (unsigned long long)(x)))
#define FMT_FLOAT(T, x, buf, cap) spt__fmt_double(buf, cap, (double)(x), sizeof(T) == 4)
#define FMT_COMPLEX(T, x, buf, cap) fmt_complex(buf, cap, (double)creal(x), (double)cimag(x), sizeof(T) == 8)
#define FMT_STRING(T, x, buf, cap) snprintf(buf, cap, "?")

static int fmt_i64(char *buf, size_t cap, int64_t x) {
    if (cap < 24) return snprintf(buf, cap, "%lld", (long long)x);
    int n = x >= 0 ? fmt_u64(buf, (uint64_t)x) : (buf[0] = '-', 1 + fmt_u64(buf + 1, 0 - (uint64_t)x));
    return buf[n] = '\0', n;
}

static int fmt_complex(char *buf, size_t cap, double re, double im, bool f32) {
    int n = spt__fmt_double(buf, cap, re, f32);
    if (n < 0 || (size_t)n + 2 >= cap) return n;
    buf[n++] = ' ';
    return n + spt__fmt_double(buf + n, cap - (size_t)n, im, f32);
}

int spt__fmt_value(char *buf, size_t cap, spt_dtype d, const void *values, int64_t i) {
    switch (d) {
#define X(E, name, T, KIND)                                                                                            \
    case E:                                                                                                            \
        return FMT_##KIND(T, ((const T *)values)[i], buf, cap);
#include "spt_dtypes.def"
#undef X
    default: return snprintf(buf, cap, "?");
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
#define X(E, name, T, KIND)                                                                                            \
    case E:                                                                                                            \
        ST_##KIND(T, (T *)values + i, v0, v1, isflt);                                                                  \
        break;
#include "spt_dtypes.def"
#undef X
    default: break;
    }
}

/* ---- entry lines ("i j k value"), formatted in parallel ------------------------------------------ */

/* Decimal digits of v into the end of a buffer; returns the start. */
static char *utoa_rev(char *end, uint64_t v) {
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* Format entries [b, e) as lines into buf; returns the bytes written. */
static size_t format_lines(const spt_tensor *t, int64_t b, int64_t e, int base, char *buf) {
    const int64_t R = t->rank;
    char *w = buf;
    for (int64_t i = b; i < e; i++) {
        for (int64_t k = 0; k < R; k++) {
            char tmp[24];
            char *s = utoa_rev(tmp + sizeof tmp, (uint64_t)t->indices[i * R + k] + (uint64_t)base);
            size_t m = (size_t)(tmp + sizeof tmp - s);
            memcpy(w, s, m);
            w += m;
            *w++ = ' ';
        }
        int m = spt__fmt_value(w, 100, t->dtype, t->values, i);
        w += m > 0 ? m : 0;
        *w++ = '\n';
    }
    return (size_t)(w - buf);
}

spt_status spt__write_entry_lines(const char *fn, const spt_tensor *t, int base, FILE *fp) {
    /* blocks of lines are formatted in parallel into per-thread buffers, then written in order */
    spt_status st = SPT_OK;
    const int64_t R = t->rank, n = t->nnz;
    const int64_t linecap = R * 21 + 110;
    int64_t block = (4 << 20) / linecap;
    if (block < 1) block = 1;
    int nth = spt__threads_for(n * 4);
    if (nth < 1) nth = 1;
    char *buf = spt__alloc_array(fn, nth, block * linecap, 1, false, &st);
    if (!buf) return st;
    size_t *len = spt__calloc((size_t)nth, sizeof *len);
    if (!len) {
        spt__free(buf);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    spt_progress_fn prog;
    void *ctx;
    spt__write_progress(&prog, &ctx);
    for (int64_t start = 0; start < n; start += (int64_t)nth * block) {
#pragma omp parallel for num_threads(nth) schedule(static, 1)
        for (int c = 0; c < nth; c++) {
            int64_t b = start + (int64_t)c * block, e = b + block;
            if (b > n) b = n;
            if (e > n) e = n;
            len[c] = format_lines(t, b, e, base, buf + (size_t)c * (size_t)(block * linecap));
        }
        for (int c = 0; c < nth; c++) fwrite(buf + (size_t)c * (size_t)(block * linecap), 1, len[c], fp);
        int64_t done = start + (int64_t)nth * block;
        if (prog && done < n) prog((double)done / (double)n, ctx);
    }
    if (prog) prog(1.0, ctx);
    spt__free(buf);
    spt__free(len);
    return SPT_OK;
}
