/* SPDX-License-Identifier: Apache-2.0 */
/* template/merge_lane.c -- the vector lanes of the merge engine's block merge (merge_blocks.h), the part
 * every instruction set shares: the keys of a window of each operand computed up front (the vector steps
 * compare them), the two lanes' interleaved loop, and the scalar step between vector steps (at a coinciding
 * pair or a window's end; its one-sided values by fix1, the same operations as the op's template). Not
 * compiled on its own: merge_simd512.c (AVX-512) and merge_simd256.c (AVX2) include it inside their target
 * region after defining LANE_ENTRY (the entry's name, declared in merge_blocks.h), and define after it
 *   static inline bool vstep(const spt__mb *m, lane_st *s, int64_t *bi, uint64_t *ov, const int64_t R,
 *                            const int vop)
 * their vector step: several entries at once exactly as the scalar steps would write them, or false. */

#define KW 1024 /* keys per operand and window: 4 x 8 KiB on the stack for the two lanes */

/* The one-sided value of one entry (from b when fb), as the ops' templates compute it. */
static inline __attribute__((always_inline)) uint64_t fix1(int vop, bool fb, uint64_t bits) {
    double x;
    int64_t y;
    float _Complex z;
    memcpy(&x, &bits, 8);
    memcpy(&y, &bits, 8);
    memcpy(&z, &bits, 8);
    switch (vop) {
    case SPT__MB_V_NEGB_F64: x = fb ? 0 - x : x; break;
    case SPT__MB_V_NEGB_I64:
        y = fb ? (int64_t)((uint64_t)0 - (uint64_t)y) : y;
        memcpy(&x, &y, 8);
        break;
    case SPT__MB_V_NEGB_C64:
        z = fb ? (float _Complex)(0 - z) : z;
        memcpy(&x, &z, 8);
        break;
    case SPT__MB_V_MAX_F64: x = fb ? SPT__MAXV_NAN(0.0, x) : SPT__MAXV_NAN(x, 0.0); break;
    case SPT__MB_V_MIN_F64: x = fb ? SPT__MINV_NAN(0.0, x) : SPT__MINV_NAN(x, 0.0); break;
    case SPT__MB_V_MAX_I64:
        y = fb ? SPT__MAXV((int64_t)0, y) : SPT__MAXV(y, (int64_t)0);
        memcpy(&x, &y, 8);
        break;
    case SPT__MB_V_MIN_I64:
        y = fb ? SPT__MINV((int64_t)0, y) : SPT__MINV(y, (int64_t)0);
        memcpy(&x, &y, 8);
        break;
    default: return bits;
    }
    memcpy(&bits, &x, 8);
    return bits;
}

static inline __attribute__((always_inline)) void keys_of(const int64_t *ix, const int64_t *sh, int64_t n, uint64_t *k,
                                                          const int64_t R) {
#pragma omp simd
    for (int64_t p = 0; p < n; p++) k[p] = spt__mb_key(ix + p * R, sh, R);
}

static void keys_window(const int64_t *ix, const int64_t *sh, int64_t R, int64_t n, uint64_t *k) {
    switch (R) {
    case 1: keys_of(ix, sh, n, k, 1); break;
    case 2: keys_of(ix, sh, n, k, 2); break;
    case 3: keys_of(ix, sh, n, k, 3); break;
    default: keys_of(ix, sh, n, k, R); break;
    }
}


/* A lane's position and its key window: keys of a[i0, i0 + la) and b[j0, j0 + lb). */
typedef struct {
    int64_t i, j, w, dend, i0, j0, la, lb;
    uint64_t *ka, *kb;
} lane_st;

/* A new window at the lane's position; false when the lane has ended or an operand is used up. */
static inline __attribute__((always_inline)) bool refill(const spt__mb *m, lane_st *s, const int64_t R) {
    const int64_t left = s->dend - s->i - s->j, na = m->na, nb = m->nb;
    if (left <= 0 || s->i >= na || s->j >= nb) return false;
    s->la = na - s->i < left ? (na - s->i < KW ? na - s->i : KW) : (left < KW ? left : KW);
    s->lb = nb - s->j < left ? (nb - s->j < KW ? nb - s->j : KW) : (left < KW ? left : KW);
    keys_window(m->ia + s->i * R, m->sh, R, s->la, s->ka);
    keys_window(m->ib + s->j * R, m->sh, R, s->lb, s->kb);
    s->i0 = s->i;
    s->j0 = s->j;
    return true;
}

static inline __attribute__((always_inline)) bool vstep(const spt__mb *m, lane_st *s, int64_t *bi, uint64_t *ov,
                                                        const int64_t R, const int vop);

/* One step of a lane: LANE_W entries by the vector step, or one by the scalar one; false when the window
 * is used up (or the lane has ended). */
static inline __attribute__((always_inline)) bool step(const spt__mb *m, lane_st *s, int64_t *bi, uint64_t *ov,
                                                       spt__mb_both_fn both, const int64_t R, const int vop) {
    if (vstep(m, s, bi, ov, R, vop)) return true;
    const int64_t *ia = m->ia, *ib = m->ib;
    const uint64_t *va = m->va, *vb = m->vb; /* 8-byte values, moved as bits */
    const int64_t i = s->i, j = s->j, w = s->w, ai = i - s->i0, bj = j - s->j0, left = s->dend - i - j;
    /* one scalar step, its keys in the window */
    if (left <= 0 || ai >= s->la || bj >= s->lb) return false;
    const uint64_t x = s->ka[ai], y = s->kb[bj];
    if (x < y) {
        for (int64_t d = 0; d < R; d++) bi[w * R + d] = ia[i * R + d];
        ov[w] = fix1(vop, false, va[i]);
        s->w = w + 1;
        s->i = i + 1;
    } else if (y < x) {
        for (int64_t d = 0; d < R; d++) bi[w * R + d] = ib[j * R + d];
        ov[w] = fix1(vop, true, vb[j]);
        s->w = w + 1;
        s->j = j + 1;
    } else {
        for (int64_t d = 0; d < R; d++) bi[w * R + d] = ia[i * R + d];
        s->w = w + both(m, va + i, vb + j, ov + w);
        s->i = i + 1;
        s->j = j + 1;
    }
    return true;
}

/* Both lanes, their steps interleaved (two independent dependency chains), then whichever is left. */
static inline __attribute__((always_inline)) void run_rank(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv,
                                                           spt__mb_both_fn both, const int64_t R, const int vop) {
    uint64_t keys[4][KW];
    uint64_t *ov = bv;
    lane_st s0 = {L[0].i, L[0].j, L[0].w, L[0].dend, 0, 0, 0, 0, keys[0], keys[1]};
    lane_st s1 = {L[1].i, L[1].j, L[1].w, L[1].dend, 0, 0, 0, 0, keys[2], keys[3]};
    bool l0 = refill(m, &s0, R), l1 = refill(m, &s1, R);
    while (l0 && l1) {
        if (!step(m, &s0, bi, ov, both, R, vop)) l0 = refill(m, &s0, R);
        if (!step(m, &s1, bi, ov, both, R, vop)) l1 = refill(m, &s1, R);
    }
    while (l0)
        if (!step(m, &s0, bi, ov, both, R, vop)) l0 = refill(m, &s0, R);
    while (l1)
        if (!step(m, &s1, bi, ov, both, R, vop)) l1 = refill(m, &s1, R);
    L[0].i = s0.i, L[0].j = s0.j, L[0].w = s0.w;
    L[1].i = s1.i, L[1].j = s1.j, L[1].w = s1.w;
}

/* The rank's copy for one-sided values moved as they are (vop ID, add) or transformed. */
static inline __attribute__((always_inline)) void run_vop(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv,
                                                          spt__mb_both_fn both, const int64_t R, int vop) {
    if (vop == SPT__MB_V_ID) run_rank(m, L, bi, bv, both, R, SPT__MB_V_ID);
    else run_rank(m, L, bi, bv, both, R, vop);
}

/* The two lanes of a block (L[0], L[1]). */
void LANE_ENTRY(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both, int vop) {
    switch (m->rank) {
    case 1: run_vop(m, L, bi, bv, both, 1, vop); break;
    case 2: run_vop(m, L, bi, bv, both, 2, vop); break;
    case 3: run_vop(m, L, bi, bv, both, 3, vop); break;
    default: run_vop(m, L, bi, bv, both, m->rank, vop); break;
    }
}
