/* SPDX-License-Identifier: Apache-2.0 */
/* template/segment_rows.c -- the segment reductions' chunk pass for one dtype. Not compiled on its own:
 * segment_reduce.c includes it through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it
 * defines seg_<enum>(c, lo, hi, limit): one chunk, positions [lo, hi), in a single streaming pass that also
 * validates: the ids must run non-decreasing from ids[lo] and stay below `limit` (the next chunk's first
 * id, or the row count), every index inside data. The chunk writes only rows [ids[lo], limit), which the
 * caller made disjoint across chunks, so even invalid input neither races nor leaves the output; false on
 * the first violation (the caller then reruns the exact checks for the message). Each segment's rows are
 * summed in position order from zero, then divided by the count (mean) or its square root (sqrt_n) for
 * floats. */
static bool SPT__NAME(seg)(const seg_ctx *c, int64_t lo, int64_t hi, int64_t limit) {
    const SPT__T *d = c->data;
    SPT__T *o = c->out;
    const int64_t w = c->inner, nr = c->nrows;
    int64_t a = lo;
    int64_t s = spt__int_at(c->ids, lo);
    while (a < hi) {
        SPT__T *row = o + s * w;
        int64_t b = a;
        for (; b < hi; b++) {
            const int64_t id = spt__int_at(c->ids, b);
            if (id != s) {
                if (id < s || id >= limit) return false;
                break;
            }
            SEG_PREFETCH(c, d, b, hi, (uintptr_t)w * sizeof(SPT__T));
            const int64_t v = spt__int_at(c->idx, b);
            if ((uint64_t)v >= (uint64_t)nr) return false;
            const SPT__T *src = d + v * w;
            for (int64_t k = 0; k < w; k++) row[k] = SPT__KOP(ADD)(SPT__T, row[k], src[k]);
        }
#if SEG_IS_FLOAT(SPT__KIND)
        if (c->mode != SPT__SEG_SUM) {
            SPT__T div = c->mode == SPT__SEG_MEAN ? (SPT__T)(b - a) : (SPT__T)sqrt((double)(b - a));
            for (int64_t k = 0; k < w; k++) row[k] /= div;
        }
#endif
        if (b < hi) s = spt__int_at(c->ids, b);
        a = b;
    }
    return true;
}
