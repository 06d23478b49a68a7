/* SPDX-License-Identifier: Apache-2.0 */
/* template/isect.c -- spt_multiply's intersection for one dtype. Not compiled on its own: multiply.c
 * includes it through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it defines
 * isect_<enum>(m, i, ie, j, je, w, write), which walks a[i, ie) and b[j, je) (sorted keys) and, for each
 * key held by both, sums each side's run and writes the product at w + count (when write). Returns the
 * count. */
static int64_t SPT__NAME(isect)(const isect_ctx *m, int64_t i, int64_t ie, int64_t j, int64_t je, int64_t w,
                                bool write) {
    const SPT__T *av = m->va, *bv = m->vb;
    SPT__T *out = m->ov;
    int64_t c = 0;
    while (i < ie && j < je) {
        uint64_t k = m->ka[i];
        if (k < m->kb[j]) {
            i++;
            continue;
        }
        if (m->kb[j] < k) {
            j++;
            continue;
        }
        int64_t first = m->pa ? m->pa[i] : i;
        SPT__T x = (SPT__T)0, y = (SPT__T)0;
        for (; i < ie && m->ka[i] == k; i++) x = SPT__KOP(ADD)(SPT__T, x, av[m->pa ? m->pa[i] : i]);
        for (; j < je && m->kb[j] == k; j++) y = SPT__KOP(ADD)(SPT__T, y, bv[m->pb ? m->pb[j] : j]);
        if (write) {
            memcpy(m->oi + (w + c) * m->rank, m->ia + first * m->rank, (size_t)m->rank * sizeof(int64_t));
            out[w + c] = SPT__KOP(MUL)(SPT__T, x, y);
        }
        c++;
    }
    return c;
}
