/* SPDX-License-Identifier: Apache-2.0 */
/* reduce.h -- what the reduction engine (reduce.c) and its value loops (template/reduce_kernel.c,
 * instantiated per dtype by reduce_op.h for spt_reduce_sum / spt_reduce_max and their sparse forms)
 * share: the source of the dense-output loops and its key. */
#ifndef SPT_OPS_REDUCE_REDUCE_H
#define SPT_OPS_REDUCE_REDUCE_H

#include "core/stream.h"
#include "ops/kernel.h"

/* A thread's share of a dense output from this many cells up (8-byte cells: 1 MiB) is written by
 * streaming stores (a row sum's output is written once, not read back by the op). */
#define SPT__REDUCE_NT_CELLS ((uint64_t)1 << 17)

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

#endif /* SPT_OPS_REDUCE_REDUCE_H */
