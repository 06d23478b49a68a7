/* SPDX-License-Identifier: Apache-2.0 */
/* template/spgemm_rows.c -- the row kernel of spt_sparse_sparse_matmul for one dtype (ops/products/spgemm.h
 * describes the three accumulators). Not compiled on its own: spgemm.c includes it through
 * ops/each_dtype.h once per supported dtype, with SPT__T (the C type) and SPT__KIND defined; it defines
 *   static void gemm_rows_<enum>(const spt__gemm *g, int64_t rlo, int64_t rhi, spt__gemm_chunk *c) */

/* The accumulation of every product of row r into the accumulator `acc` (the sort list with the
 * products by position, the dense array with its stamps, or the hash table); returns the row's count of
 * list entries (products for the sort, distinct columns otherwise). Inlined with a constant `acc`, so
 * each accumulator gets its own loop. Products are formed in the summation order: A's row entries in
 * their stable sorted order, each B row in its stable order. */
static inline __attribute__((always_inline)) int64_t SPT__NAME(gemm_products)(const spt__gemm *g, int64_t r,
                                                                              int64_t end, spt__gemm_acc acc,
                                                                              spt__gemm_chunk *c, int64_t mask) {
    const SPT__T *av = g->av, *bv = g->bv;
    int64_t cnt = 0, *list = c->list;
    SPT__T *pv = c->pval, *dacc = c->dval, *hv = c->hval;
    int64_t *stamp = c->stamp, *hk = c->hkey;
    for (int64_t e = g->aptr[r]; e < g->aptr[r + 1]; e++) {
        spt__gemm_prefetch(g, e + 8, end, sizeof(SPT__T));
        const int64_t f0 = g->abr[2 * e], f1 = g->abr[2 * e + 1];
        SPT__T a = av[e];
        if (g->conj_a) a = SPT__KOP(CONJ)(SPT__T, a);
        for (int64_t f = f0; f < f1; f++) {
            const int64_t col = g->bcol[f];
            SPT__T b = bv[f];
            if (g->conj_b) b = SPT__KOP(CONJ)(SPT__T, b);
            const SPT__T p = SPT__KOP(MUL)(SPT__T, a, b);
            if (acc == SPT__GEMM_SORT) {
                list[cnt] = col << SPT__GEMM_POS_BITS | cnt;
                pv[cnt++] = p;
            } else if (acc == SPT__GEMM_DENSE) {
                if (stamp[col] != r) {
                    stamp[col] = r;
                    dacc[col] = p;
                    list[cnt++] = col;
                } else dacc[col] = SPT__KOP(ADD)(SPT__T, dacc[col], p);
            } else {
                int64_t h = spt__gemm_hash(col, g->hseed, mask);
                while (hk[h] != -1 && hk[h] != col) h = (h + 1) & mask;
                if (hk[h] == -1) {
                    hk[h] = col;
                    hv[h] = p;
                    list[cnt++] = col;
                } else hv[h] = SPT__KOP(ADD)(SPT__T, hv[h], p);
            }
        }
    }
    return cnt;
}

/* The output cursor of a row: the next index row and value slot, and the row's key. */
typedef struct {
    int64_t *oi, w, rk, lb, lm;
    SPT__T *ov;
} SPT__NAME(gemm_out);

/* Append the index row ([batch,] row, col) and the value v, unless v is zero and zeros are not kept. */
static inline void SPT__NAME(gemm_emit)(const spt__gemm *g, SPT__NAME(gemm_out) * o, int64_t col, SPT__T v) {
    if (!g->keep_zeros && v == (SPT__T)0) return;
    if (o->rk == 3) *o->oi++ = o->lb;
    o->oi[0] = o->lm;
    o->oi[1] = col;
    o->oi += 2;
    o->ov[o->w++] = v;
}

/* Sort accumulator: sort the cnt keys column << POS_BITS | position, sum equal columns in position order. */
static inline void SPT__NAME(gemm_emit_sorted)(const spt__gemm *g, spt__gemm_chunk *c, int64_t cnt,
                                               SPT__NAME(gemm_out) * o) {
    int64_t *list = c->list;
    const SPT__T *pv = c->pval;
    spt__gemm_sort(list, cnt, c->tmp, g->ncols, SPT__GEMM_POS_BITS);
    const int64_t pmask = ((int64_t)1 << SPT__GEMM_POS_BITS) - 1;
    for (int64_t q = 0; q < cnt;) {
        const int64_t col = list[q] >> SPT__GEMM_POS_BITS;
        SPT__T v = pv[list[q] & pmask];
        for (q++; q < cnt && list[q] >> SPT__GEMM_POS_BITS == col; q++)
            v = SPT__KOP(ADD)(SPT__T, v, pv[list[q] & pmask]);
        SPT__NAME(gemm_emit)(g, o, col, v);
    }
}

/* Dense accumulator: the row's columns in order (a scan of the stamps when there are many), then their sums. */
static inline void SPT__NAME(gemm_emit_dense)(const spt__gemm *g, spt__gemm_chunk *c, int64_t r, int64_t cnt,
                                              SPT__NAME(gemm_out) * o) {
    const int64_t N = g->ncols, *stamp = c->stamp;
    int64_t *list = c->list;
    const SPT__T *dacc = c->dval;
    if (cnt > N / 8) { /* many columns: a scan of the stamps is cheaper than a sort */
        cnt = 0;
        for (int64_t q = 0; q < N; q++)
            if (stamp[q] == r) list[cnt++] = q;
    } else spt__gemm_sort(list, cnt, c->tmp, N, 0);
    for (int64_t q = 0; q < cnt; q++) SPT__NAME(gemm_emit)(g, o, list[q], dacc[list[q]]);
}

/* Hash accumulator: the distinct columns sorted, each column's sum found again in the table. */
static inline void SPT__NAME(gemm_emit_hashed)(const spt__gemm *g, spt__gemm_chunk *c, int64_t cnt, int64_t mask,
                                               SPT__NAME(gemm_out) * o) {
    int64_t *list = c->list;
    const int64_t *hk = c->hkey;
    const SPT__T *hv = c->hval;
    spt__gemm_sort(list, cnt, c->tmp, g->ncols, 0);
    for (int64_t q = 0; q < cnt; q++) {
        const int64_t col = list[q];
        int64_t h = spt__gemm_hash(col, g->hseed, mask);
        while (hk[h] != col) h = (h + 1) & mask;
        SPT__NAME(gemm_emit)(g, o, col, hv[h]);
    }
}

static void SPT__NAME(gemm_rows)(const spt__gemm *g, int64_t rlo, int64_t rhi, spt__gemm_chunk *c) {
    const int64_t N = g->ncols, end = g->aptr[rhi];
    for (int64_t r = rlo; r < rhi; r++) {
        const int64_t flops = g->afl[r];
        if (flops == 0) continue;
        const int64_t bound = flops < N ? flops : N;
        const bool dense = N <= g->dense_max && flops >= N / 16;
        const bool sort = !dense && flops <= g->sort_max;
        int64_t hcap = 0;
        if (!dense && !sort) {
            hcap = 16;
            while (hcap < 2 * bound) hcap *= 2;
        }
        if (!spt__gemm_reserve(c, g, sizeof(SPT__T), bound, sort ? flops : bound, hcap, sort ? flops : 0, dense))
            return;
        SPT__NAME(gemm_out) o = {c->idx + c->n * c->rank, c->n, c->rank, g->arid[r] / g->M, g->arid[r] % g->M, c->val};
        if (sort) {
            int64_t cnt = SPT__NAME(gemm_products)(g, r, end, SPT__GEMM_SORT, c, 0);
            SPT__NAME(gemm_emit_sorted)(g, c, cnt, &o);
        } else if (dense) {
            int64_t cnt = SPT__NAME(gemm_products)(g, r, end, SPT__GEMM_DENSE, c, 0);
            SPT__NAME(gemm_emit_dense)(g, c, r, cnt, &o);
        } else {
            const int64_t mask = hcap - 1;
            for (int64_t q = 0; q < hcap; q++) c->hkey[q] = -1;
            int64_t cnt = SPT__NAME(gemm_products)(g, r, end, SPT__GEMM_HASH, c, mask);
            SPT__NAME(gemm_emit_hashed)(g, c, cnt, mask, &o);
        }
        c->n = o.w;
    }
}
