/* png.c -- spy plots: the sparsity pattern of two modes of a tensor as a grey PNG, through libpng. */
#include "io.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>

typedef struct png_job {
    FILE *fp;
    int64_t w, h;
    const uint8_t *pix;
    uint8_t *row;
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
    png_set_IHDR(p, info, (png_uint_32)j->w, (png_uint_32)j->h, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    for (int64_t y = 0; y < j->h; y++) png_write_row(p, (png_const_bytep)(j->pix + (size_t)y * (size_t)j->w));
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    return true;
}

spt_status spt_write_spy_png(const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                             const char *path) {
    static const char fn[] = "spt_write_spy_png";
    spt_status st;
    int64_t *cnt = NULL;
    uint8_t *pix = NULL;
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (t->rank < 1) return spt__err(SPT_EINVAL, "%s: a spy plot needs rank >= 1, found rank 0", fn);
    if (t->rank == 1) row_mode = -1, col_mode = 0;
    else if (row_mode < 0 || row_mode >= t->rank || col_mode < 0 || col_mode >= t->rank || row_mode == col_mode)
        return spt__err(SPT_ERANGE, "%s: modes (%lld, %lld) are not two distinct modes of a rank-%lld tensor", fn,
                        (long long)row_mode, (long long)col_mode, (long long)t->rank);
    if (max_side <= 0) max_side = 512;
    if (max_side > 16384) max_side = 16384;
    SPT__TRY(spt__ensure_valid(fn, t));
    int64_t rows = row_mode < 0 ? 1 : t->shape[row_mode], cols = t->shape[col_mode];
    int64_t h = rows < max_side ? rows : max_side, w = cols < max_side ? cols : max_side;
    if (h < 1) h = 1;
    if (w < 1) w = 1;
    cnt = spt__alloc_array(fn, h, w, sizeof(int64_t), true, &st);
    if (!cnt) goto fail;
    pix = spt__alloc_array(fn, h, w, 1, false, &st);
    if (!pix) goto fail;
    const int64_t R = t->rank;
    for (int64_t i = 0; i < t->nnz; i++) {
        int64_t r = row_mode < 0 ? 0 : t->indices[i * R + row_mode], c = t->indices[i * R + col_mode];
        int64_t y = (int64_t)((__int128)r * h / (rows ? rows : 1)), x = (int64_t)((__int128)c * w / (cols ? cols : 1));
        cnt[y * w + x]++;
    }
    /* darkness grows with the log of the count; any entry is clearly visible */
    int64_t mx = 0;
    for (int64_t k = 0; k < h * w; k++)
        if (cnt[k] > mx) mx = cnt[k];
    double lm = log1p((double)mx);
    for (int64_t k = 0; k < h * w; k++) {
        if (!cnt[k]) pix[k] = 255;
        else {
            double f = mx > 1 ? log1p((double)cnt[k]) / lm : 1.0;
            pix[k] = (uint8_t)(160.0 * (1.0 - f));
        }
    }
    spt__out o;
    SPT__CHECK(spt__out_open(fn, path, true, &o));
    png_job j = {o.fp, w, h, pix, NULL};
    if (!png_emit(&j)) {
        spt__out_abort(&o);
        st = spt__err(SPT_EIO, "%s: libpng could not write %s", fn, path);
        goto fail;
    }
    st = spt__out_commit(fn, &o);
fail:
    spt__free(cnt);
    spt__free(pix);
    return st;
}
