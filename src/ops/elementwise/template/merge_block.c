/* SPDX-License-Identifier: Apache-2.0 */
/* template/merge_block.c -- spt_add's blocked merge of two canonical operands (merge_blocks.h) for one
 * dtype. Not compiled on its own: add.c includes it through ops/each_dtype.h once per supported dtype
 * (SPT__T, SPT__KIND), with MERGE_BOTH(x, y) and MERGE_KEEP(s) defined as for template/merge.c. It defines
 *   static void block_<enum>(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv)
 * which merges the two lanes L[0], L[1] (each from its (i, j) to its dend) into the buffer rows bi and
 * values bv, each lane from its own w (advanced past its output). An index held by both operands gives
 * s = MERGE_BOTH(x, y), kept iff MERGE_KEEP(s); an index held by one gives its value. */

/* One step of lane x: the smaller of a[x->i] and b[x->j] (both when equal) into the buffer, chosen
 * without a branch; w advances unless the entry is a dropped sum. */
static inline __attribute__((always_inline)) void SPT__NAME(mb_step)(spt__mb_lane *x, const int64_t *ia,
                                                                    const int64_t *ib, const SPT__T *va,
                                                                    const SPT__T *vb, const int64_t *sh,
                                                                    int64_t *bi, SPT__T *bv, const int64_t R,
                                                                    const spt__mb *m) {
    const int64_t *ra = ia + x->i * R, *rb = ib + x->j * R;
    const uint64_t ka = spt__mb_key(ra, sh, R), kb = spt__mb_key(rb, sh, R);
    const uint64_t mb = -(uint64_t)(kb < ka);
    const int64_t ta = ka <= kb, tb = kb <= ka;
    const int64_t *row = SPT__MB_SEL(ra, rb, mb);
    SPT__T s = *SPT__MB_SEL(va + x->i, vb + x->j, mb);
    int64_t keep = 1;
    if (__builtin_expect(ka == kb, 0)) {
        s = MERGE_BOTH(va[x->i], vb[x->j]);
        keep = (MERGE_KEEP(s)) ? 1 : 0;
    }
    (void)m;
    memcpy(bi + x->w * R, row, (size_t)R * sizeof(int64_t));
    bv[x->w] = s;
    x->w += keep;
    x->i += ta;
    x->j += tb;
}

/* A coinciding pair's value for the vector lanes (merge_simd.c): *o = MERGE_BOTH(*x, *y); 1 when it is
 * kept. */
static int SPT__NAME(block_both)(const spt__mb *m, const void *x, const void *y, void *o) {
    SPT__T s = MERGE_BOTH(*(const SPT__T *)x, *(const SPT__T *)y);
    (void)m;
    memcpy(o, &s, sizeof s);
    return (MERGE_KEEP(s)) ? 1 : 0;
}

/* The merge for rank R (a constant in the common ranks' copies). */
static inline __attribute__((always_inline)) void SPT__NAME(block_rank)(const spt__mb *m, spt__mb_lane *L, int64_t *bi,
                                                                       void *bv, const int64_t R) {
    if (SPT__MB_SIMD(sizeof(SPT__T))) /* the vector lanes first (merge_simd.c) */
        spt__mb_simd_run(m, L, bi, bv, SPT__NAME(block_both));
    const SPT__T *va = m->va, *vb = m->vb;
    SPT__T *bvt = bv;
    const int64_t *ia = m->ia, *ib = m->ib, *sh = m->sh;
    const int64_t na = m->na, nb = m->nb;
    spt__mb_lane L0 = L[0], L1 = L[1];
    for (;;) { /* q steps keep both lanes live: each step takes at most one entry of a and of b, and at
                * most two diagonals */
        int64_t q = (L0.dend - L0.i - L0.j) / 2, t = (L1.dend - L1.i - L1.j) / 2;
        if (t < q) q = t;
        if (na - L0.i < q) q = na - L0.i;
        if (nb - L0.j < q) q = nb - L0.j;
        if (na - L1.i < q) q = na - L1.i;
        if (nb - L1.j < q) q = nb - L1.j;
        if (q < 8) break;
        for (; q > 0; q--) {
            SPT__NAME(mb_step)(&L0, ia, ib, va, vb, sh, bi, bvt, R, m);
            SPT__NAME(mb_step)(&L1, ia, ib, va, vb, sh, bi, bvt, R, m);
        }
    }
    for (int k = 0; k < 2; k++) {
        spt__mb_lane Lx = k ? L1 : L0;
        while (Lx.i + Lx.j < Lx.dend && Lx.i < na && Lx.j < nb)
            SPT__NAME(mb_step)(&Lx, ia, ib, va, vb, sh, bi, bvt, R, m);
        /* one operand exhausted: the other's entries up to the lane's end */
        int64_t n = Lx.dend - Lx.i - Lx.j;
        if (n > 0) {
            const int64_t *src;
            const SPT__T *sv;
            if (Lx.i < na) src = ia + Lx.i * R, sv = va + Lx.i, Lx.i += n;
            else src = ib + Lx.j * R, sv = vb + Lx.j, Lx.j += n;
            memcpy(bi + Lx.w * R, src, (size_t)(n * R) * sizeof(int64_t));
            memcpy(bvt + Lx.w, sv, (size_t)n * sizeof(SPT__T));
            Lx.w += n;
        }
        L[k] = Lx;
    }
}

static void SPT__NAME(block)(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv) {
    switch (m->rank) {
    case 1: SPT__NAME(block_rank)(m, L, bi, bv, 1); break;
    case 2: SPT__NAME(block_rank)(m, L, bi, bv, 2); break;
    case 3: SPT__NAME(block_rank)(m, L, bi, bv, 3); break;
    default: SPT__NAME(block_rank)(m, L, bi, bv, m->rank); break;
    }
}
