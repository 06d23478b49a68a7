/* SPDX-License-Identifier: Apache-2.0 */
/* spgemm.h -- the row kernel of spt_sparse_sparse_matmul (Gustavson's row-wise product), instantiated
 * once per supported dtype by src/ops/spgemm.c.
 *
 * SPT__DEF_SPGEMM(P, T, KIND) defines
 *   static void P_rows(const spt__gemm *g, int64_t rlo, int64_t rhi, spt__gemm_chunk *c)
 * which computes the rows [rlo, rhi) of the compressed row form of op(A) times op(B). Each row's
 * products a_e * b_f (a row entry e of A, f an entry of the B row that e's column names) are combined
 * by one of three accumulators, chosen per row from its product count (its flops) and the output
 * width N:
 *   - sort (rows of at most esc_max products): the products are listed with keys column << 12 |
 *     position, the keys sorted, and equal columns summed in position order (expand, sort, compress);
 *   - dense (flops >= N / 16 and N <= dense_max): an array of the output width with a row stamp per
 *     column, the touched columns then sorted (or found by a scan of the stamps when there are many);
 *   - hash (the rest: long rows of a wide output): open addressing on a seeded 64-bit mix of the
 *     column, sized by the row's products, the distinct columns then sorted.
 * All three sum a column's products in the same order -- A's row entries in their stable sorted order,
 * each B row in its stable order -- so results are bit-identical whichever is chosen and however the
 * rows are chunked. Columns are emitted in ascending order as finished index rows ([batch,] row,
 * column), into the output itself or into the chunk's own buffers. On allocation failure c->st is set
 * and the chunk stops. */
#ifndef SPT_KERNELS_SPGEMM_H
#define SPT_KERNELS_SPGEMM_H

#include "ops/kernel.h"

/* Bits of a sort-accumulator key that hold the product's position within its row: rows of up to
 * 2^SPT__GEMM_POS_BITS products, output widths up to 2^(63 - SPT__GEMM_POS_BITS). */
#define SPT__GEMM_POS_BITS 12

/* The product's operands in compressed row form (over non-empty rows only). */
typedef struct spt__gemm {
    const int64_t *aptr; /* A rows: entries aptr[r] .. aptr[r+1] (sorted positions) */
    const int64_t *afl;  /* per A row: its products (saturating at INT64_MAX) */
    const int64_t *abr;  /* per A entry: the B entries [abr[2e], abr[2e+1]) of the B row its column names */
    const int64_t *arid; /* per A row: its key batch * M + row */
    const int64_t *bcol; /* per B entry (sorted position): its output column */
    const void *av, *bv; /* values in sorted position order */
    bool conj_a, conj_b, keep_zeros;
    int64_t M;         /* rows of op(A): the key's divisor */
    int64_t ncols;     /* output width */
    int64_t dense_max; /* widest output for which a dense accumulator may be used (0: never) */
    int64_t sort_max;  /* most products of a row summed by the sort accumulator (0: never) */
    uint64_t hseed;    /* hash accumulator seed (any value; the result does not depend on it) */
} spt__gemm;

/* One chunk's output and scratch (owned by the chunk; freed by the driver). */
typedef struct spt__gemm_chunk {
    int64_t *idx;  /* output index rows of `rank` coordinates */
    int64_t rank;  /* 2, or 3 (batch first) */
    bool fixed;    /* idx/val are the final output, sized for every row's bound: never grown */
    void *val;     /* output values */
    int64_t n, cap;
    int64_t *hkey; /* hash accumulator keys (-1 = free) */
    void *hval;
    int64_t hcap;
    int64_t *stamp; /* dense accumulator: stamp[c] = row that last touched column c */
    void *dval;
    int64_t *list, *tmp; /* the row's distinct columns or sort keys, and sort scratch */
    int64_t lcap;
    void *pval; /* sort accumulator: the row's products by position */
    int64_t pcap;
    spt_status st;
} spt__gemm_chunk;

/* Make room for `need` more output entries, a list of `lneed` columns or keys, a hash of capacity
 * `hneed` (0: none), `pneed` product values (0: none) and, if `dense`, the dense accumulator; false
 * (c->st set) on failure. */
bool spt__gemm_reserve(spt__gemm_chunk *c, const spt__gemm *g, size_t es, int64_t need, int64_t lneed,
                       int64_t hneed, int64_t pneed, bool dense);
/* Sort n distinct non-negative keys ascending, keys below ncols << low (tmp: n slots of scratch). The
 * buckets and radix digits use only the bits from `low` up; a radix pass is stable, so keys whose high
 * parts tie keep their input order -- ascending when the low bits are the input position. */
void spt__gemm_sort(int64_t *a, int64_t n, int64_t *tmp, int64_t ncols, int low);

/* Fetch ahead the B row that A's sorted entry e (< end) names: B rows are random accesses. */
#define SPT__GEMM_PREFETCH(g, e, end, T)                                              \
    do {                                                                              \
        if ((e) < (end)) {                                                            \
            int64_t pf_ = (g)->abr[2 * (e)];                                          \
            __builtin_prefetch((g)->bcol + pf_);                                      \
            __builtin_prefetch((const char *)(g)->bv + (size_t)pf_ * sizeof(T));      \
        }                                                                             \
    } while (0)

/* Slot of column c: a full 64-bit mix of c and the call's seed, so that structured columns (multiples
 * of a power of two: a multiplicative hash kept only their middle bits, all zero for multiples of
 * 2^44, and every column of a row probed into one chain -- quadratic) spread, and a column set
 * crafted against one seed does not carry over to another call. */
static inline int64_t spt__gemm_hash(int64_t c, uint64_t seed, int64_t mask) {
    uint64_t x = (uint64_t)c ^ seed;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (int64_t)(x & (uint64_t)mask);
}
#define SPT__GEMM_HASH(c, mask) spt__gemm_hash((c), g->hseed, (mask))

/* Append the index row ([batch,] row, colv) and the value v to the chunk's output (oi_: the next row). */
#define SPT__GEMM_EMIT(colv, v)                               \
    do {                                                      \
        if (rk_ == 3) *oi_++ = lb_;                           \
        oi_[0] = lm_;                                         \
        oi_[1] = (colv);                                      \
        oi_ += 2;                                             \
        ov_[w_++] = (v);                                      \
    } while (0)

/* The products of row r_: BODY runs with col_ (int64_t) and p_ (T) for each, in the summation order. */
#define SPT__GEMM_PRODUCTS(T, KIND, BODY)                                        \
    for (int64_t e_ = g->aptr[r_]; e_ < g->aptr[r_ + 1]; e_++) {                 \
        SPT__GEMM_PREFETCH(g, e_ + 8, end_, T);                                   \
        const int64_t f0_ = g->abr[2 * e_], f1_ = g->abr[2 * e_ + 1];            \
        T a_ = av_[e_];                                                          \
        if (g->conj_a) a_ = SPT__CONJ_##KIND(T, a_);                             \
        for (int64_t f_ = f0_; f_ < f1_; f_++) {                                 \
            const int64_t col_ = g->bcol[f_];                                    \
            T b_ = bv_[f_];                                                      \
            if (g->conj_b) b_ = SPT__CONJ_##KIND(T, b_);                         \
            const T p_ = SPT__MUL_##KIND(T, a_, b_);                             \
            BODY                                                                 \
        }                                                                        \
    }

#define SPT__DEF_SPGEMM(P, T, KIND)                                                                        \
    static void P##_rows(const spt__gemm *g, int64_t rlo, int64_t rhi, spt__gemm_chunk *c) {               \
        const T *av_ = g->av, *bv_ = g->bv;                                                               \
        const int64_t N_ = g->ncols, end_ = g->aptr[rhi], rk_ = c->rank;                                  \
        for (int64_t r_ = rlo; r_ < rhi; r_++) {                                                          \
            const int64_t flops_ = g->afl[r_];                                                            \
            if (flops_ == 0) continue;                                                                    \
            const int64_t bound_ = flops_ < N_ ? flops_ : N_;                                             \
            const bool dense_ = N_ <= g->dense_max && flops_ >= N_ / 16;                                 \
            const bool sort_ = !dense_ && flops_ <= g->sort_max;                                          \
            int64_t hcap_ = 0;                                                                            \
            if (!dense_ && !sort_) {                                                                      \
                hcap_ = 16;                                                                               \
                while (hcap_ < 2 * bound_) hcap_ *= 2;                                                    \
            }                                                                                             \
            if (!spt__gemm_reserve(c, g, sizeof(T), bound_, sort_ ? flops_ : bound_, hcap_,              \
                                   sort_ ? flops_ : 0, dense_))                                          \
                return;                                                                                   \
            int64_t cnt_ = 0, *list_ = c->list, w_ = c->n, *oi_ = c->idx + w_ * rk_;                      \
            const int64_t lb_ = g->arid[r_] / g->M, lm_ = g->arid[r_] % g->M;                             \
            T *ov_ = c->val;                                                                              \
            if (sort_) {                                                                                  \
                T *pv_ = c->pval;                                                                         \
                SPT__GEMM_PRODUCTS(T, KIND, {                                                             \
                    list_[cnt_] = col_ << SPT__GEMM_POS_BITS | cnt_;                                      \
                    pv_[cnt_++] = p_;                                                                     \
                })                                                                                        \
                spt__gemm_sort(list_, cnt_, c->tmp, N_, SPT__GEMM_POS_BITS);                             \
                const int64_t pmask_ = ((int64_t)1 << SPT__GEMM_POS_BITS) - 1;                            \
                for (int64_t q_ = 0; q_ < cnt_;) {                                                        \
                    const int64_t col_ = list_[q_] >> SPT__GEMM_POS_BITS;                                 \
                    T v_ = pv_[list_[q_] & pmask_];                                                       \
                    for (q_++; q_ < cnt_ && list_[q_] >> SPT__GEMM_POS_BITS == col_; q_++)                \
                        v_ = SPT__ADD_##KIND(T, v_, pv_[list_[q_] & pmask_]);                             \
                    if (!g->keep_zeros && v_ == (T)0) continue;                                           \
                    SPT__GEMM_EMIT(col_, v_);                                                             \
                }                                                                                         \
            } else if (dense_) {                                                                          \
                int64_t *stamp_ = c->stamp;                                                               \
                T *acc_ = c->dval;                                                                        \
                SPT__GEMM_PRODUCTS(T, KIND, {                                                             \
                    if (stamp_[col_] != r_) {                                                     \
                        stamp_[col_] = r_;                                                        \
                        acc_[col_] = p_;                                                          \
                        list_[cnt_++] = col_;                                                     \
                    } else                                                                        \
                        acc_[col_] = SPT__ADD_##KIND(T, acc_[col_], p_);                          \
                })                                                                                        \
                if (cnt_ > N_ / 8) { /* many columns: a scan of the stamps is cheaper than a sort */      \
                    cnt_ = 0;                                                                             \
                    for (int64_t q_ = 0; q_ < N_; q_++)                                                   \
                        if (stamp_[q_] == r_) list_[cnt_++] = q_;                                         \
                } else                                                                                    \
                    spt__gemm_sort(list_, cnt_, c->tmp, N_, 0);                                           \
                for (int64_t q_ = 0; q_ < cnt_; q_++) {                                                   \
                    T v_ = acc_[list_[q_]];                                                               \
                    if (!g->keep_zeros && v_ == (T)0) continue;                                           \
                    SPT__GEMM_EMIT(list_[q_], v_);                                                        \
                }                                                                                         \
            } else {                                                                                      \
                int64_t *hk_ = c->hkey, mask_ = hcap_ - 1;                                                \
                T *hv_ = c->hval;                                                                         \
                for (int64_t q_ = 0; q_ < hcap_; q_++) hk_[q_] = -1;                                      \
                SPT__GEMM_PRODUCTS(T, KIND, {                                                             \
                    int64_t h_ = SPT__GEMM_HASH(col_, mask_);                                     \
                    while (hk_[h_] != -1 && hk_[h_] != col_) h_ = (h_ + 1) & mask_;               \
                    if (hk_[h_] == -1) {                                                          \
                        hk_[h_] = col_;                                                           \
                        hv_[h_] = p_;                                                             \
                        list_[cnt_++] = col_;                                                     \
                    } else                                                                        \
                        hv_[h_] = SPT__ADD_##KIND(T, hv_[h_], p_);                                \
                })                                                                                        \
                spt__gemm_sort(list_, cnt_, c->tmp, N_, 0);                                               \
                for (int64_t q_ = 0; q_ < cnt_; q_++) {                                                   \
                    const int64_t col_ = list_[q_];                                                       \
                    int64_t h_ = SPT__GEMM_HASH(col_, mask_);                                             \
                    while (hk_[h_] != col_) h_ = (h_ + 1) & mask_;                                        \
                    const T v_ = hv_[h_];                                                                 \
                    if (!g->keep_zeros && v_ == (T)0) continue;                                           \
                    SPT__GEMM_EMIT(col_, v_);                                                             \
                }                                                                                         \
            }                                                                                             \
            c->n = w_;                                                                                    \
        }                                                                                                 \
    }

#endif /* SPT_KERNELS_SPGEMM_H */
