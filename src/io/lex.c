/* SPDX-License-Identifier: Apache-2.0 */
/* lex.c -- number lexing for the text formats: integers, floats, token descriptions. */
#include "io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

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
            } else inexact = true;
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
