/* SPDX-License-Identifier: Apache-2.0 */
/* template/merge.c -- the value loop of the sparse-sparse union merge (spt_add, spt_subtract, spt_maximum,
 * spt_minimum) for one dtype. Not compiled on its own: an op file includes it through ops/each_dtype.h
 * once per supported dtype (SPT__T, SPT__KIND) after defining
 *   MERGE_FN             the function's name (e.g. SPT__NAME(merge): merge_<enum>)
 *   MERGE_BOTH(x, y)     the value of an index held by both operands
 *   MERGE_AONLY(x), MERGE_BONLY(y)   the value of an index held by one (always kept)
 *   MERGE_KEEP(s)        whether a value s of MERGE_BOTH is kept (it may read m->thresh)
 * It defines
 *   static int64_t MERGE_FN(const spt__merge_ctx *m, int64_t i, int64_t ie, int64_t j, int64_t je, int64_t w,
 *                           bool write)
 * which walks the sorted keys a[i, ie) and b[j, je) in one pass; with `write`, output entry c goes to
 * position w + c (its index row copied from its source). Returns the number of output entries. */

static int64_t MERGE_FN(const spt__merge_ctx *m, int64_t i, int64_t ie, int64_t j, int64_t je, int64_t w, bool write) {
    const SPT__T *va = m->va, *vb = m->vb;
    SPT__T *ov = m->ov;
    const uint64_t *ka = m->ka, *kb = m->kb;
    const int64_t r = m->rank;
    int64_t c = 0;
    while (i < ie || j < je) {
        const int64_t *row;
        SPT__T s;
        if (j >= je || (i < ie && ka[i] < kb[j])) {
            int64_t e = m->pa ? m->pa[i] : i;
            s = MERGE_AONLY(va[e]);
            row = m->ia + e * r;
            i++;
        } else if (i >= ie || kb[j] < ka[i]) {
            int64_t e = m->pb ? m->pb[j] : j;
            s = MERGE_BONLY(vb[e]);
            row = m->ib + e * r;
            j++;
        } else {
            int64_t e = m->pa ? m->pa[i] : i, f = m->pb ? m->pb[j] : j;
            s = MERGE_BOTH(va[e], vb[f]);
            row = m->ia + e * r;
            i++;
            j++;
            if (!(MERGE_KEEP(s))) continue;
        }
        if (write) {
            int64_t *dst = m->oi + (w + c) * r;
            for (int64_t d = 0; d < r; d++) dst[d] = row[d];
            ov[w + c] = s;
        }
        c++;
    }
    return c;
}
