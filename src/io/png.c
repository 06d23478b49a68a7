/* SPDX-License-Identifier: Apache-2.0 */
/* png.c -- spy plots: the sparsity pattern of two modes of a tensor as a PNG with axes, through libpng:
 * grey by the number of entries, or coloured by the sum of their values. The plot keeps the aspect ratio
 * of the two dims (square cells), is framed, and carries tick marks with their 0-based index labels on
 * the left (rows) and top (columns) axes. */
#include "io.h"

#include <complex.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>

typedef struct png_job {
    FILE *fp;
    int64_t w, h;
    int channels; /* 1 grey, 3 RGB */
    const uint8_t *pix;
} png_job;

/* libpng reports errors by longjmp; everything it touches is set up before the setjmp. */
static bool png_emit(png_job *j) {
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!p) return false;
    png_infop info = png_create_info_struct(p);
    if (!info) {
        png_destroy_write_struct(&p, NULL);
        return false;
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        return false;
    }
    png_init_io(p, j->fp);
    png_set_IHDR(p, info, (png_uint_32)j->w, (png_uint_32)j->h, 8,
                 j->channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    const size_t row = (size_t)j->w * (size_t)j->channels;
    for (int64_t y = 0; y < j->h; y++) png_write_row(p, (png_const_bytep)(j->pix + (size_t)y * row));
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    return true;
}

/* ---- axes: a 3x5 digit font, ticks at round steps ---------------------------------------------------- */

/* Digits 0-9, 5 rows of 3 bits each (bit 2 = left column). */
static const uint8_t digit_rows[10][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
};
enum { GLYPH_W = 3, GLYPH_H = 5, GAP = 1, TICK = 3, PAD = 2 };

typedef struct canvas {
    uint8_t *pix;
    int64_t w, h;
} canvas;

static int ndigits(int64_t v) {
    int n = 1;
    while (v >= 10) v /= 10, n++;
    return n;
}

static int64_t label_width(int64_t v) { return (int64_t)ndigits(v) * (GLYPH_W + GAP) - GAP; }

/* Draw the decimal v with its top-left corner at (x, y); pixels outside the canvas are skipped. */
static void draw_number(canvas *c, int64_t x, int64_t y, int64_t v) {
    char s[24];
    int n = snprintf(s, sizeof s, "%lld", (long long)v);
    for (int i = 0; i < n; i++, x += GLYPH_W + GAP)
        for (int r = 0; r < GLYPH_H; r++)
            for (int b = 0; b < GLYPH_W; b++)
                if (digit_rows[s[i] - '0'][r] >> (GLYPH_W - 1 - b) & 1) {
                    int64_t px = x + b, py = y + r;
                    if (px >= 0 && px < c->w && py >= 0 && py < c->h) c->pix[py * c->w + px] = 0;
                }
}

/* ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b near INT64_MAX */
static int64_t cdiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* A round step (1, 2 or 5 times a power of ten) giving at most about `most` ticks over `dim` cells;
 * INT64_MAX (one tick, at 0) past 5 * 10^18. Each call with a smaller `most` gives a larger step. */
static int64_t tick_step(int64_t dim, int64_t most) {
    if (most < 1) most = 1;
    for (int64_t step = 1;; step *= 10) {
        static const int64_t m[3] = {1, 2, 5};
        for (int k = 0; k < 3; k++) /* step <= 10^18: step * 5 fits */
            if (cdiv(dim, step * m[k]) <= most) return step * m[k];
        if (step > INT64_MAX / 10) return INT64_MAX;
    }
}

/* ---- the plot ---------------------------------------------------------------------------------------- */

/* Value i of a numeric tensor as a double (complex: its modulus); generated from the dtype list. */
static double value_at(const spt_tensor *t, int64_t i) {
#define SPY_BOOL(c) (double)((const c *)t->values)[i]
#define SPY_INT(c) (double)((const c *)t->values)[i]
#define SPY_UINT(c) (double)((const c *)t->values)[i]
#define SPY_FLOAT(c) (double)((const c *)t->values)[i]
#define SPY_COMPLEX(c) (double)cabs((double _Complex)((const c *)t->values)[i])
#define SPY_STRING(c) 0.0
    switch (t->dtype) {
#define X(e, name, ctype, kind)                                                                                        \
    case e:                                                                                                            \
        return SPY_##kind(ctype);
#include "spt_dtypes.def"
#undef X
    default: return 0.0;
    }
#undef SPY_BOOL
#undef SPY_INT
#undef SPY_UINT
#undef SPY_FLOAT
#undef SPY_COMPLEX
#undef SPY_STRING
}

/* The colour of a cell whose values sum to v, |v| <= mx: white towards red (v > 0) or blue (v < 0),
 * linear in |v| / mx from a visible minimum; light grey for entries that cancel; green for NaN. */
static void value_colour(double v, double mx, uint8_t rgb[3]) {
    if (isnan(v)) {
        rgb[0] = 0, rgb[1] = 160, rgb[2] = 0;
        return;
    }
    if (v == 0 || !(mx > 0)) {
        rgb[0] = rgb[1] = rgb[2] = 200;
        return;
    }
    double a = fabs(v) / mx;
    a = 0.3 + 0.7 * (a > 1 || isnan(a) ? 1 : a); /* inf / inf and inf / finite: full colour */
    uint8_t fade = (uint8_t)(255.0 * (1.0 - a)), full = (uint8_t)(255.0 - 75.0 * a);
    if (v > 0) rgb[0] = full, rgb[1] = fade, rgb[2] = fade;
    else rgb[0] = fade, rgb[1] = fade, rgb[2] = full;
}

static spt_status spy(const char *fn, const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                      bool colour, const char *path) {
    spt_status st;
    int64_t *cnt = NULL;
    double *sum = NULL;
    uint8_t *pix = NULL, *rgb = NULL;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (t->rank < 1) return spt__err(SPT_EINVAL, "%s: a spy plot needs rank >= 1, found rank 0", fn);
    if (colour && t->dtype == SPT_STRING)
        return spt__err(SPT_EDTYPE, "%s: colouring by value needs a numeric dtype, found string", fn);
    if (t->rank == 1) row_mode = -1, col_mode = 0;
    else if (row_mode < 0 || row_mode >= t->rank || col_mode < 0 || col_mode >= t->rank || row_mode == col_mode)
        return spt__err(SPT_ERANGE, "%s: modes (%lld, %lld) are not two distinct modes of a rank-%lld tensor", fn,
                        (long long)row_mode, (long long)col_mode, (long long)t->rank);
    if (max_side <= 0) max_side = 512;
    if (max_side > 16384) max_side = 16384;
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t rows = row_mode < 0 ? 1 : t->shape[row_mode], cols = t->shape[col_mode];
    const int64_t r1 = rows > 0 ? rows : 1, c1 = cols > 0 ? cols : 1, big = r1 > c1 ? r1 : c1;
    /* square cells: `zoom` pixels per cell when the dims fit, else `bin` cells per pixel */
    const int64_t zoom = big <= max_side ? max_side / big : 1, bin = big <= max_side ? 1 : cdiv(big, max_side);
    const int64_t gh = cdiv(r1, bin), gw = cdiv(c1, bin); /* the grid of bins */
    const int64_t ph = gh * zoom, pw = gw * zoom;
    cnt = spt__alloc_array(fn, gh, gw, sizeof(int64_t), true, &st);
    if (!cnt) goto fail;
    if (colour && !(sum = spt__alloc_array(fn, gh, gw, sizeof(double), true, &st))) goto fail;
    const int64_t R = t->rank;
    for (int64_t i = 0; i < t->nnz; i++) {
        int64_t r = row_mode < 0 ? 0 : t->indices[i * R + row_mode], c = t->indices[i * R + col_mode];
        cnt[(r / bin) * gw + c / bin]++;
        if (sum) sum[(r / bin) * gw + c / bin] += value_at(t, i);
    }
    /* the frame around the plot, ticks and labels outside it */
    const int64_t rstep = tick_step(r1, ph / (GLYPH_H + 4) + 1);
    int64_t cstep = tick_step(c1, 8);
    while (cstep < c1 && (cstep / bin) * zoom < label_width(c1 - 1) + 3) cstep = tick_step(c1, cdiv(c1, cstep) - 1);
    const int64_t left = label_width(r1 - 1) + TICK + 2 * PAD + 1, top = GLYPH_H + TICK + 2 * PAD + 1;
    const int64_t right = label_width(c1 - 1) / 2 + PAD + 1, bottom = PAD + 1;
    canvas cv = {NULL, left + pw + right, top + ph + bottom};
    pix = spt__alloc_array(fn, cv.h, cv.w, 1, false, &st);
    if (!pix) goto fail;
    cv.pix = pix;
    memset(pix, 255, (size_t)cv.w * (size_t)cv.h);
    /* darkness grows with the log of the count; any entry is clearly visible */
    int64_t mx = 0;
    for (int64_t k = 0; k < gh * gw; k++)
        if (cnt[k] > mx) mx = cnt[k];
    const double lm = log1p((double)mx);
    for (int64_t gy = 0; gy < gh; gy++)
        for (int64_t gx = 0; gx < gw; gx++) {
            int64_t k = cnt[gy * gw + gx];
            if (!k) continue;
            uint8_t g = (uint8_t)(160.0 * (1.0 - (mx > 1 ? log1p((double)k) / lm : 1.0)));
            for (int64_t y = 0; y < zoom; y++)
                memset(pix + (size_t)(top + gy * zoom + y) * (size_t)cv.w + (size_t)(left + gx * zoom), g,
                       (size_t)zoom);
        }
    for (int64_t x = left - 1; x <= left + pw; x++) pix[(top - 1) * cv.w + x] = pix[(top + ph) * cv.w + x] = 0;
    for (int64_t y = top - 1; y <= top + ph; y++) pix[y * cv.w + left - 1] = pix[y * cv.w + left + pw] = 0;
    for (int64_t v = 0; v < r1; v += rstep) { /* row ticks: the middle of cell v's pixel row */
        int64_t y = top + (v / bin) * zoom + zoom / 2;
        for (int64_t k = 1; k <= TICK; k++) pix[y * cv.w + left - 1 - k] = 0;
        draw_number(&cv, left - 1 - TICK - PAD - label_width(v), y - GLYPH_H / 2, v);
        if (v > INT64_MAX - rstep) break;
    }
    for (int64_t v = 0; v < c1; v += cstep) { /* column ticks */
        int64_t x = left + (v / bin) * zoom + zoom / 2;
        for (int64_t k = 1; k <= TICK; k++) pix[(top - 1 - k) * cv.w + x] = 0;
        draw_number(&cv, x - label_width(v) / 2, top - 1 - TICK - PAD - GLYPH_H, v);
        if (v > INT64_MAX - cstep) break;
    }
    if (colour) { /* the grey canvas (frame, ticks, labels) as RGB, then each occupied cell's colour */
        rgb = spt__alloc_array(fn, cv.h * cv.w, 3, 1, false, &st);
        if (!rgb) goto fail;
        for (int64_t k = 0; k < cv.h * cv.w; k++) rgb[3 * k] = rgb[3 * k + 1] = rgb[3 * k + 2] = pix[k];
        double vmx = 0;
        for (int64_t k = 0; k < gh * gw; k++)
            if (cnt[k] && fabs(sum[k]) > vmx) vmx = fabs(sum[k]);
        for (int64_t gy = 0; gy < gh; gy++)
            for (int64_t gx = 0; gx < gw; gx++) {
                if (!cnt[gy * gw + gx]) continue;
                uint8_t c3[3];
                value_colour(sum[gy * gw + gx], vmx, c3);
                for (int64_t y = 0; y < zoom; y++)
                    for (int64_t x = 0; x < zoom; x++)
                        memcpy(rgb +
                                   3 * ((size_t)(top + gy * zoom + y) * (size_t)cv.w + (size_t)(left + gx * zoom + x)),
                               c3, 3);
            }
    }
    spt__out o;
    SPT__CHECK(spt__out_open(fn, path, true, &o));
    png_job j = {o.fp, cv.w, cv.h, colour ? 3 : 1, colour ? rgb : pix};
    if (!png_emit(&j)) {
        spt__out_abort(&o);
        st = spt__err(SPT_EIO, "%s: libpng could not write %s", fn, path);
        goto fail;
    }
    st = spt__out_commit(fn, &o);
fail:
    spt__free(cnt);
    spt__free(sum);
    spt__free(pix);
    spt__free(rgb);
    return st;
}

spt_status spt_write_spy_png(const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                             const char *path) {
    return spy("spt_write_spy_png", t, row_mode, col_mode, max_side, false, path);
}

spt_status spt_write_spy_png_values(const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                                    const char *path) {
    return spy("spt_write_spy_png_values", t, row_mode, col_mode, max_side, true, path);
}
