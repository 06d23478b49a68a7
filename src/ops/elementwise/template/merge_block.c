/* SPDX-License-Identifier: Apache-2.0 */
/* template/merge_block.c -- the blocked merge of two canonical operands (merge_blocks.h) for one op and
 * dtype. Not compiled on its own: an op file includes it through ops/each_dtype.h once per supported dtype
 * (SPT__T, SPT__E, SPT__KIND) after defining, besides MERGE_BOTH, MERGE_AONLY, MERGE_BONLY and MERGE_KEEP
 * as for template/merge.c,
 *   MERGE_BLOCK_FN   the entry's name stem (its functions are <stem>_<enum>, <stem>_step_<enum>, ...)
 *   MERGE_IDENTITY   1 when MERGE_AONLY and MERGE_BONLY return their argument (runs are then copied)
 *   MERGE_VOP        the vector lane's form of the one-sided values (SPT__MB_V_*, merge_blocks.h), or
 *                    SPT__MB_V_NONE when the dtype has none
 *   MERGE_ISECT      (optional, defined: an intersection) only coinciding pairs are written; entries
 *                    of one operand alone are passed over (MERGE_VOP must then be SPT__MB_V_NONE)
 * It defines
 *   static void <stem>_<enum>(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv)
 * which merges the two lanes L[0], L[1] (each from its (i, j) to its dend) into the buffer rows bi and
 * values bv, each lane from its own w (advanced past its output). An index held by both operands gives
 * s = MERGE_BOTH(x, y), kept iff MERGE_KEEP(s); an index held by one gives MERGE_AONLY(x) / MERGE_BONLY(y). */

#define MB_N(x) SPT__NAME(SPT__CAT(MERGE_BLOCK_FN, x))
#ifdef MERGE_ISECT
#define MB_ONE_SIDED 0 /* an entry of one operand alone is not kept */
#else
#define MB_ONE_SIDED 1
#endif

/* A coinciding pair's value: *o = MERGE_BOTH(*x, *y); 1 when it is kept. One out-of-line copy that the
 * scalar step and the vector lanes (merge_simd.c) both call: which NaN x + y returns when both are NaN
 * depends on the operand order the compiler picks, so both forms must run the same instructions. */
static __attribute__((noinline)) int MB_N(both)(const spt__mb *m, const void *x, const void *y, void *o) {
    SPT__T s = MERGE_BOTH(*(const SPT__T *)x, *(const SPT__T *)y);
    (void)m;
    memcpy(o, &s, sizeof s);
    return (MERGE_KEEP(s)) ? 1 : 0;
}

/* One step of lane x: the smaller of a[x->i] and b[x->j] (both when equal) into the buffer, chosen
 * without a branch; w advances unless the entry is a dropped value of a coinciding pair. */
static inline __attribute__((always_inline)) void MB_N(step)(spt__mb_lane *x, const int64_t *ia, const int64_t *ib,
                                                             const SPT__T *va, const SPT__T *vb, const int64_t *sh,
                                                             int64_t *bi, SPT__T *bv, const int64_t R,
                                                             const spt__mb *m) {
    const int64_t *ra = ia + x->i * R, *rb = ib + x->j * R;
    const uint64_t ka = spt__mb_key(ra, sh, R), kb = spt__mb_key(rb, sh, R);
    const uint64_t mb = -(uint64_t)(kb < ka);
    const int64_t ta = ka <= kb, tb = kb <= ka;
    const int64_t *row = SPT__MB_SEL(ra, rb, mb);
    SPT__T s;
    if (MERGE_IDENTITY) {
        s = *SPT__MB_SEL(va + x->i, vb + x->j, mb);
    } else {
        const SPT__T sa = MERGE_AONLY(va[x->i]), sb = MERGE_BONLY(vb[x->j]);
        s = mb ? sb : sa;
    }
    int64_t keep = MB_ONE_SIDED;
    if (__builtin_expect(ka == kb, 0)) keep = MB_N(both)(m, va + x->i, vb + x->j, &s);
    memcpy(bi + x->w * R, row, (size_t)R * sizeof(int64_t));
    bv[x->w] = s;
    x->w += keep;
    x->i += ta;
    x->j += tb;
}

/* n entries of one side (a when from_a) from sv into bv: their one-sided values. */
static inline __attribute__((always_inline)) void MB_N(run)(SPT__T *bv, const SPT__T *sv, int64_t n, bool from_a) {
    if (MERGE_IDENTITY) memcpy(bv, sv, (size_t)n * sizeof(SPT__T));
    else if (from_a)
        for (int64_t k = 0; k < n; k++) bv[k] = MERGE_AONLY(sv[k]);
    else
        for (int64_t k = 0; k < n; k++) bv[k] = MERGE_BONLY(sv[k]);
}

/* The merge for rank R (a constant in the common ranks' copies). */
static inline __attribute__((always_inline)) void MB_N(rank)(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv,
                                                             const int64_t R) {
    if (MERGE_VOP != SPT__MB_V_NONE && spt__mb_simd_on(sizeof(SPT__T), MERGE_VOP)) /* the vector lanes first */
        spt__mb_simd_run(m, L, bi, bv, MB_N(both), MERGE_VOP);
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
            MB_N(step)(&L0, ia, ib, va, vb, sh, bi, bvt, R, m);
            MB_N(step)(&L1, ia, ib, va, vb, sh, bi, bvt, R, m);
        }
    }
    for (int k = 0; k < 2; k++) {
        spt__mb_lane Lx = k ? L1 : L0;
        while (Lx.i + Lx.j < Lx.dend && Lx.i < na && Lx.j < nb) MB_N(step)(&Lx, ia, ib, va, vb, sh, bi, bvt, R, m);
        /* one operand exhausted: the other's entries up to the lane's end */
        int64_t n = Lx.dend - Lx.i - Lx.j;
        if (n > 0 && !MB_ONE_SIDED) { /* passed over */
            if (Lx.i < na) Lx.i += n;
            else Lx.j += n;
        } else if (n > 0) {
            const bool from_a = Lx.i < na;
            const int64_t *src = from_a ? ia + Lx.i * R : ib + Lx.j * R;
            const SPT__T *sv = from_a ? va + Lx.i : vb + Lx.j;
            if (from_a) Lx.i += n;
            else Lx.j += n;
            memcpy(bi + Lx.w * R, src, (size_t)(n * R) * sizeof(int64_t));
            MB_N(run)(bvt + Lx.w, sv, n, from_a);
            Lx.w += n;
        }
        L[k] = Lx;
    }
}

static void SPT__NAME(MERGE_BLOCK_FN)(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv) {
    switch (m->rank) {
    case 1: MB_N(rank)(m, L, bi, bv, 1); break;
    case 2: MB_N(rank)(m, L, bi, bv, 2); break;
    case 3: MB_N(rank)(m, L, bi, bv, 3); break;
    default: MB_N(rank)(m, L, bi, bv, m->rank); break;
    }
}

#undef MB_N
#undef MB_ONE_SIDED
