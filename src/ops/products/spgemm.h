/* SPDX-License-Identifier: Apache-2.0 */
/* spgemm.h -- what spgemm.c and its row kernel template/spgemm_rows.c (Gustavson's row-wise product,
 * instantiated once per supported dtype) share.
 *
 * The row kernel
 *   static void gemm_rows_<enum>(const spt__gemm *g, int64_t rlo, int64_t rhi, spt__gemm_chunk *c)
 * computes the rows [rlo, rhi) of the compressed row form of op(A) times op(B). Each row's
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
#ifndef SPT_OPS_PRODUCTS_SPGEMM_H
#define SPT_OPS_PRODUCTS_SPGEMM_H

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
    int64_t *idx; /* output index rows of `rank` coordinates */
    int64_t rank; /* 2, or 3 (batch first) */
    bool fixed;   /* idx/val are the final output, sized for every row's bound: never grown */
    void *val;    /* output values */
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
bool spt__gemm_reserve(spt__gemm_chunk *c, const spt__gemm *g, size_t es, int64_t need, int64_t lneed, int64_t hneed,
                       int64_t pneed, bool dense);
/* Sort n distinct non-negative keys ascending, keys below ncols << low (tmp: n slots of scratch). The
 * buckets and radix digits use only the bits from `low` up; a radix pass is stable, so keys whose high
 * parts tie keep their input order -- ascending when the low bits are the input position. */
void spt__gemm_sort(int64_t *a, int64_t n, int64_t *tmp, int64_t ncols, int low);
/* The 16-input sorting network behind spt__gemm_sort (its compare-exchanges, in order; for the tests). */
extern const unsigned char spt__gemm_net16[63][2];

/* The accumulator of a row. */
typedef enum { SPT__GEMM_SORT, SPT__GEMM_DENSE, SPT__GEMM_HASH } spt__gemm_acc;

/* Fetch ahead the B row that A's sorted entry e (< end) names: B rows are random accesses. es: the
 * value size. */
static inline void spt__gemm_prefetch(const spt__gemm *g, int64_t e, int64_t end, size_t es) {
    if (e < end) {
        int64_t pf = g->abr[2 * e];
        __builtin_prefetch(g->bcol + pf);
        __builtin_prefetch((const char *)g->bv + (size_t)pf * es);
    }
}

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

#endif /* SPT_OPS_PRODUCTS_SPGEMM_H */
