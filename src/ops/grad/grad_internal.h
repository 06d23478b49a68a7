/* SPDX-License-Identifier: Apache-2.0 */
/* grad_internal.h -- what the gradient kernels (src/ops/grad_*.c) share: float value access, argument
 * checks for value-gradient vectors, and a lookup of entries by their index. Internal. */
#ifndef SPT_GRAD_INTERNAL_H
#define SPT_GRAD_INTERNAL_H

#include "ops/kernel.h"
#include "sort/keys.h"

/* Gradients are defined for float32 and float64 values; they are computed in double. */
static inline double spt__gv(spt_dtype dt, const void *p, int64_t i) {
    return dt == SPT_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}
static inline void spt__gs(spt_dtype dt, void *p, int64_t i, double x) {
    if (dt == SPT_FLOAT32) ((float *)p)[i] = (float)x;
    else ((double *)p)[i] = x;
}

/* SPT_EDTYPE unless dt is float32 or float64. */
spt_status spt__grad_dtype(const char *fn, spt_dtype dt);
/* g must be a rank-1 dense of dtype dt and length n: SPT_EINVAL / SPT_EDTYPE naming `what`. */
spt_status spt__grad_vec(const char *fn, const char *what, const spt_dense *g, spt_dtype dt, int64_t n);
/* The arguments of the gradient of a binary op c = op(a, b) over one shape (spt_multiply_grad,
 * spt_maximum_grad, spt_minimum_grad): both outputs cleared, no NULL, a dtype with a gradient, one
 * dtype, rank and shape for all three, grad a vector of c->nnz values of that dtype. */
spt_status spt__grad_binary_args(const char *fn, const spt_tensor *a, const spt_tensor *b, const spt_tensor *c,
                                 const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_val_grad);
/* A new zeroed rank-1 dense of n elements. */
spt_status spt__grad_new_vec(spt_dtype dt, int64_t n, spt_dense **out);

/* The entries of a tensor sorted row-major by the key engine (keys.h), for any volume: indices checked
 * against the shape. Entries are looked up by an index row of the same shape: by its 64-bit linear key
 * when the volume is at most 2^64, else by comparing rows (the keys are then dense ranks). */
typedef struct spt__keyidx {
    const spt_tensor *t;
    spt__keyplan kp;
    uint64_t *keys;
    int64_t *perm; /* NULL = identity */
    int64_t n;
    bool unique, ordinal;
} spt__keyidx;
spt_status spt__keyidx_build(const char *fn, const spt_tensor *t, spt__keyidx *k);
void spt__keyidx_free(spt__keyidx *k);
/* The sorted positions [*lo, return) of the entries whose index is `row` (an empty range when none). */
int64_t spt__keyidx_range(const spt__keyidx *k, const int64_t *row, int64_t *lo);
/* The entry at sorted position p. */
static inline int64_t spt__keyidx_entry(const spt__keyidx *k, int64_t p) { return k->perm ? k->perm[p] : p; }
/* The first entry (in stable sorted order) whose index is `row`, or -1. */
int64_t spt__keyidx_find(const spt__keyidx *k, const int64_t *row);

#endif /* SPT_GRAD_INTERNAL_H */
