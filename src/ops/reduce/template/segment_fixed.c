/* SPDX-License-Identifier: Apache-2.0 */
/* template/segment_fixed.c -- the segment reductions' chunk pass for float32 / float64 rows of a fixed
 * width: the pass of template/segment_rows.c with the segment's sum held in a local accumulator of
 * SEG_W lanes (registers) and stored once; the same additions in the same order. Not compiled on its
 * own: segment_reduce.c includes it once per (type, width) with SEG_FN (the function's name), SEG_FT (the
 * float type) and SEG_W (the width) defined. */
static bool SEG_FN(const seg_ctx *c, int64_t lo, int64_t hi, int64_t limit) {
    const SEG_FT *d = c->data;
    SEG_FT *o = c->out;
    const int64_t nr = c->nrows;
    int64_t a = lo;
    int64_t s = spt__int_at(c->ids, lo);
    while (a < hi) {
        SEG_FT acc[SEG_W];
        for (int k = 0; k < SEG_W; k++) acc[k] = 0;
        int64_t b = a;
        for (; b < hi; b++) {
            const int64_t id = spt__int_at(c->ids, b);
            if (id != s) {
                if (id < s || id >= limit) return false;
                break;
            }
            SEG_PREFETCH(c, d, b, hi, SEG_W * sizeof(SEG_FT));
            const int64_t v = spt__int_at(c->idx, b);
            if ((uint64_t)v >= (uint64_t)nr) return false;
            const SEG_FT *src = d + v * SEG_W;
            for (int k = 0; k < SEG_W; k++) acc[k] += src[k];
        }
        if (c->mode != SPT__SEG_SUM) {
            SEG_FT div = c->mode == SPT__SEG_MEAN ? (SEG_FT)(b - a) : (SEG_FT)sqrt((double)(b - a));
            for (int k = 0; k < SEG_W; k++) acc[k] /= div;
        }
        memcpy(o + s * SEG_W, acc, sizeof acc);
        if (b < hi) s = spt__int_at(c->ids, b);
        a = b;
    }
    return true;
}
