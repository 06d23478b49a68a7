/* SPDX-License-Identifier: Apache-2.0 */
/* reduce.h -- the value loops of the reductions (spt_reduce_sum / spt_reduce_max and their sparse
 * forms), instantiated once per supported dtype.
 *
 * SPT__DEF_REDUCE(P, E, T, OP, LANES) defines P_seg_E, P_combine_E, P_scatter_E, P_runs_E,
 * P_blocks_E, P_runs_rp_E and P_rows_E (see spt__reduce_kernel in ops/kernel.h) where OP(T, acc, x) is the binary reduction (wrapping add, std::max, ...). Values are
 * visited in storage order (through a stable permutation), so a group's result does not depend on the
 * thread count. With LANES (1: OP is associative up to rounding, as sums are; 0: order matters, as for
 * std::max with NaN or signed zeros) it also defines P_lanes_E, the kernel's `lanes` loop. */
#ifndef SPT_OPS_REDUCE_REDUCE_H
#define SPT_OPS_REDUCE_REDUCE_H

#include "ops/kernel.h"

/* P_lanes_E: the reduction of vals[lo, hi) in 8 interleaved partial results (lane k takes the entries
 * lo + k, lo + k + 8, ...), combined as ((l0 l1) (l2 l3)) ((l4 l5) (l6 l7)), the tail going to lane 0.
 * A fixed grouping, so the result depends only on [lo, hi); the 8 independent chains let the adds
 * overlap instead of waiting on one another, and a software prefetch 4 KiB ahead keeps the reads
 * streaming across page boundaries (one core's hardware prefetch alone reads at about half the copy
 * bandwidth here). */
#define SPT__DEF_REDUCE_LANES(P, E, T, OP)                                                             \
    static void P##_lanes_##E(const void *vals, int64_t lo, int64_t hi, void *acc) {                  \
        const T *v_ = vals;                                                                           \
        if (hi - lo < 16) {                                                                           \
            P##_seg_##E(vals, NULL, lo, hi, acc);                                                     \
            return;                                                                                   \
        }                                                                                             \
        /* eight named accumulators, not an array: an array indexed in a loop was kept on the stack, \
         * each add a store and a reload (about 1 cycle per value, 2x GraphBLAS's sum in cache) */     \
        T l0_ = v_[lo], l1_ = v_[lo + 1], l2_ = v_[lo + 2], l3_ = v_[lo + 3];                         \
        T l4_ = v_[lo + 4], l5_ = v_[lo + 5], l6_ = v_[lo + 6], l7_ = v_[lo + 7];                     \
        int64_t i_ = lo + 8;                                                                          \
        for (; hi - i_ >= 8; i_ += 8) {                                                               \
            if (hi - i_ > (int64_t)(4096 / sizeof(T))) __builtin_prefetch(v_ + i_ + 4096 / sizeof(T));  \
            const T *x_ = v_ + i_;                                                                    \
            l0_ = OP(T, l0_, x_[0]);                                                                  \
            l1_ = OP(T, l1_, x_[1]);                                                                  \
            l2_ = OP(T, l2_, x_[2]);                                                                  \
            l3_ = OP(T, l3_, x_[3]);                                                                  \
            l4_ = OP(T, l4_, x_[4]);                                                                  \
            l5_ = OP(T, l5_, x_[5]);                                                                  \
            l6_ = OP(T, l6_, x_[6]);                                                                  \
            l7_ = OP(T, l7_, x_[7]);                                                                  \
        }                                                                                             \
        for (; i_ < hi; i_++) l0_ = OP(T, l0_, v_[i_]);                                               \
        l0_ = OP(T, l0_, l1_);                                                                        \
        l2_ = OP(T, l2_, l3_);                                                                        \
        l4_ = OP(T, l4_, l5_);                                                                        \
        l6_ = OP(T, l6_, l7_);                                                                        \
        l0_ = OP(T, l0_, l2_);                                                                        \
        l4_ = OP(T, l4_, l6_);                                                                        \
        *(T *)acc = OP(T, l0_, l4_);                                                                  \
    }

/* What the dense-output loops read: the values, the index rows (rank R), the kept dims K[0..nk) with
 * their extents sh[j] = shape[K[j]] (an entry's output cell is its row-major key over them), and the
 * block prefix K[0..q) (1 <= q < nk) whose leading position in the entries' order makes the blocks:
 * the cells sharing the prefix, `inner` = sh[q] * ... * sh[nk-1] consecutive cells each. */
typedef struct spt__reduce_src {
    const void *vals;
    const int64_t *ix;
    int64_t R, nk, q;
    int64_t K[SPT_MAX_RANK];
    uint64_t sh[SPT_MAX_RANK];
    uint64_t inner;
} spt__reduce_src;

/* The row-major key of row over the kept dims K[a..b) (a < b). */
static inline uint64_t spt__rkey(const spt__reduce_src *s, int64_t a, int64_t b, const int64_t *row) {
    uint64_t k = (uint64_t)row[s->K[a]];
    for (int64_t j = a + 1; j < b; j++) k = k * s->sh[j] + (uint64_t)row[s->K[j]];
    return k;
}

/* Store the zero of T into out cells [w, e) (all bits zero is 0 for every number type here). */
#define SPT__ZERO_CELLS(T, o, w, e)                                                                   \
    do {                                                                                              \
        if ((e) > (w)) memset((o) + (w), 0, (size_t)((e) - (w)) * sizeof(T));                         \
    } while (0)

/* The run loop of P_runs_E over entries (lo, hi) with the key of entry i_ given by KEY: a run of equal
 * keys is reduced into a_ in storage order; at a key change the cells since w_ get 0 and the run's cell
 * its value, then NEW (a statement that sees the next key kk_ and its entry i_) runs (one loop, instantiated
 * for the one-dim key, the general key and the row pointer's build). */
#define SPT__RUNS_LOOP(T, OP, KEY, NEW)                                                               \
    for (int64_t i_ = lo + 1; i_ < hi; i_++) {                                                        \
        uint64_t kk_ = (KEY);                                                                         \
        if (kk_ == k_) {                                                                              \
            a_ = OP(T, a_, v_[i_]);                                                                   \
            continue;                                                                                 \
        }                                                                                             \
        SPT__ZERO_CELLS(T, o_, w_, k_);                                                               \
        o_[k_] = a_;                                                                                  \
        w_ = k_ + 1;                                                                                  \
        NEW;                                                                                          \
        k_ = kk_;                                                                                     \
        a_ = v_[i_];                                                                                  \
    }

/* P_runs_E: the dense output of entries [lo, hi) whose keys are non-decreasing; the caller owns cells
 * [c0, c1) of out (uninitialised), which hold every key of [lo, hi). Each run of equal keys is reduced
 * in storage order into a register (its first value, then OP with the next ones: the same order as
 * seg) and stored once; the cells between runs get 0, so every owned cell is written exactly once.
 * The run boundaries are found inline from the index rows (no key array, no call per run); the one-
 * dim key (row sums, the leading dims of a 3-D tensor) has its own loop.
 * P_blocks_E: the same for entries [lo, hi) non-decreasing in the block prefix K[0..q) only (the key
 * order inside a block is free): a block's cells are zeroed when its first entry is met, then each
 * entry goes to its cell, the first one stored, the next ones OP'ed in storage order (seen: the
 * thread's `inner` first-touch flags, cleared per block); the blocks without entries get 0. */
#define SPT__DEF_REDUCE_DENSE(P, E, T, OP)                                                            \
    static void P##_runs_##E(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, \
                             void *out) {                                                             \
        const T *v_ = s->vals;                                                                        \
        T *o_ = out;                                                                                  \
        const int64_t R_ = s->R, *ix_ = s->ix;                                                        \
        uint64_t w_ = c0;                                                                             \
        if (lo < hi) {                                                                                \
            uint64_t k_ = spt__rkey(s, 0, s->nk, ix_ + lo * R_);                                      \
            T a_ = v_[lo];                                                                            \
            if (s->nk == 1) {                                                                         \
                const int64_t *c_ = ix_ + s->K[0];                                                    \
                SPT__RUNS_LOOP(T, OP, (uint64_t)c_[i_ * R_], (void)0);                                         \
            } else {                                                                                  \
                SPT__RUNS_LOOP(T, OP, spt__rkey(s, 0, s->nk, ix_ + i_ * R_), (void)0);                         \
            }                                                                                         \
            SPT__ZERO_CELLS(T, o_, w_, k_);                                                           \
            o_[k_] = a_;                                                                              \
            w_ = k_ + 1;                                                                              \
        }                                                                                             \
        SPT__ZERO_CELLS(T, o_, w_, c1);                                                               \
    }                                                                                                 \
    static void P##_blocks_##E(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, \
                               void *out, unsigned char *seen) {                                      \
        const T *v_ = s->vals;                                                                        \
        T *o_ = out, *blk_ = NULL;                                                                    \
        const int64_t R_ = s->R, *ix_ = s->ix, q_ = s->q, nk_ = s->nk;                                \
        const uint64_t inner_ = s->inner;                                                             \
        uint64_t w_ = c0, cur_ = 0;                                                                   \
        if (q_ == 1 && nk_ == 2) { /* one prefix dim, one inner dim (a 3-D tensor's axis 1) */       \
            const int64_t d0_ = s->K[0], d1_ = s->K[1];                                               \
            for (int64_t i_ = lo; i_ < hi; i_++) {                                                    \
                const int64_t *row_ = ix_ + i_ * R_;                                                  \
                const uint64_t pk_ = (uint64_t)row_[d0_], sk_ = (uint64_t)row_[d1_];                  \
                if (!blk_ || pk_ != cur_) {                                                           \
                    cur_ = pk_;                                                                       \
                    SPT__ZERO_CELLS(T, o_, w_, (cur_ + 1) * inner_);                                  \
                    w_ = (cur_ + 1) * inner_;                                                         \
                    blk_ = o_ + cur_ * inner_;                                                        \
                    memset(seen, 0, (size_t)inner_);                                                  \
                }                                                                                     \
                T x_ = v_[i_];                                                                        \
                if (seen[sk_]) x_ = OP(T, blk_[sk_], x_);                                             \
                blk_[sk_] = x_;                                                                       \
                seen[sk_] = 1;                                                                        \
            }                                                                                         \
            lo = hi; /* done */                                                                       \
        }                                                                                             \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                        \
            const int64_t *row_ = ix_ + i_ * R_;                                                      \
            uint64_t pk_ = spt__rkey(s, 0, q_, row_);                                                 \
            if (!blk_ || pk_ != cur_) {                                                               \
                cur_ = pk_;                                                                           \
                SPT__ZERO_CELLS(T, o_, w_, (cur_ + 1) * inner_);                                      \
                w_ = (cur_ + 1) * inner_;                                                             \
                blk_ = o_ + cur_ * inner_;                                                            \
                memset(seen, 0, (size_t)inner_);                                                      \
            }                                                                                         \
            uint64_t sk_ = spt__rkey(s, q_, nk_, row_);                                               \
            T x_ = v_[i_];                                                                            \
            if (seen[sk_]) x_ = OP(T, blk_[sk_], x_);                                                 \
            blk_[sk_] = x_;                                                                           \
            seen[sk_] = 1;                                                                            \
        }                                                                                             \
        SPT__ZERO_CELLS(T, o_, w_, c1);                                                               \
    }

/* P_runs_rp_E: P_runs_E for a one-dim key (row sums of a 2-D tensor sorted row-major) that also writes
 * the row pointer of the cells it owns: rp[r] = the first entry of [lo, hi) whose key is >= r, else
 * hi, for r in [c0, c1) (so chunks owning disjoint cells fill disjoint slots). The sums are exactly
 * those of P_runs_E.
 * P_rows_E: the same sums from the row pointer and the values only (CSR's row sums): cell r is the fold
 * of vals[rp[r], rp[r+1]) in storage order (first value, then OP with the next ones), 0 when empty. */
#define SPT__DEF_REDUCE_ROWS(P, E, T, OP)                                                             \
    static void P##_runs_rp_##E(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, \
                                void *out, uint32_t *rp) {                                             \
        const T *v_ = s->vals;                                                                        \
        T *o_ = out;                                                                                  \
        const int64_t R_ = s->R, *c_ = s->ix + s->K[0];                                               \
        uint64_t w_ = c0;                                                                             \
        if (lo < hi) {                                                                                \
            uint64_t k_ = (uint64_t)c_[lo * R_];                                                      \
            T a_ = v_[lo];                                                                            \
            for (uint64_t r_ = w_; r_ <= k_; r_++) rp[r_] = (uint32_t)lo;                            \
            SPT__RUNS_LOOP(T, OP, (uint64_t)c_[i_ * R_],                                              \
                           for (uint64_t r_ = w_; r_ <= kk_; r_++) rp[r_] = (uint32_t)i_);             \
            SPT__ZERO_CELLS(T, o_, w_, k_);                                                           \
            o_[k_] = a_;                                                                              \
            w_ = k_ + 1;                                                                              \
        }                                                                                             \
        for (uint64_t r_ = w_; r_ < c1; r_++) rp[r_] = (uint32_t)hi;                                            \
        SPT__ZERO_CELLS(T, o_, w_, c1);                                                               \
    }                                                                                                 \
    static void P##_rows_##E(const void *vals, const uint32_t *rp, uint64_t r0, uint64_t r1, void *out) { \
        const T *v_ = vals;                                                                           \
        T *o_ = out;                                                                                  \
        for (uint64_t r_ = r0; r_ < r1; r_++) {                                                       \
            int64_t i_ = (int64_t)rp[r_];                                                             \
            const int64_t e_ = (int64_t)rp[r_ + 1];                                                            \
            if (i_ == e_) {                                                                           \
                o_[r_] = (T)0;                                                                        \
                continue;                                                                             \
            }                                                                                         \
            T a_ = v_[i_];                                                                            \
            for (i_++; i_ < e_; i_++) a_ = OP(T, a_, v_[i_]);                                         \
            o_[r_] = a_;                                                                              \
        }                                                                                             \
    }

#define SPT__DEF_REDUCE(P, E, T, OP, LANES)                                                                  \
    static void P##_seg_##E(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *acc) {  \
        const T *v_ = vals;                                                                           \
        T a_;                                                                                         \
        if (perm) {                                                                                   \
            a_ = v_[perm[lo]];                                                                        \
            for (int64_t i_ = lo + 1; i_ < hi; i_++) a_ = OP(T, a_, v_[perm[i_]]);                     \
        } else {                                                                                      \
            a_ = v_[lo];                                                                              \
            for (int64_t i_ = lo + 1; i_ < hi; i_++) a_ = OP(T, a_, v_[i_]);                           \
        }                                                                                             \
        *(T *)acc = a_;                                                                               \
    }                                                                                                 \
    static void P##_combine_##E(void *acc, const void *x) { *(T *)acc = OP(T, *(T *)acc, *(const T *)x); } \
    static void P##_scatter_##E(const void *vals, const uint64_t *keys, int64_t lo, int64_t hi, void *out, \
                                unsigned char *seen) {                                                \
        const T *v_ = vals;                                                                           \
        T *o_ = out;                                                                                  \
        for (int64_t i_ = lo; i_ < hi; i_++) {                                                        \
            uint64_t k_ = keys[i_];                                                                   \
            if (seen[k_]) o_[k_] = OP(T, o_[k_], v_[i_]);                                             \
            else {                                                                                    \
                o_[k_] = v_[i_];                                                                      \
                seen[k_] = 1;                                                                         \
            }                                                                                         \
        }                                                                                             \
    }                                                                                                 \
    SPT__WHEN(LANES, SPT__DEF_REDUCE_LANES(P, E, T, OP))                                              \
    SPT__DEF_REDUCE_DENSE(P, E, T, OP)                                                                \
    SPT__DEF_REDUCE_ROWS(P, E, T, OP)                                                                 \
    static const spt__reduce_kernel P##_kernel_##E = {P##_seg_##E, P##_combine_##E, P##_scatter_##E,      \
                                                      SPT__PICK(LANES, P##_lanes_##E, NULL), P##_runs_##E, \
                                                      P##_blocks_##E, P##_runs_rp_##E, P##_rows_##E};

#endif /* SPT_OPS_REDUCE_REDUCE_H */
