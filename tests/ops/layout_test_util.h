/* SPDX-License-Identifier: Apache-2.0 */
/* layout_test_util.h -- shared helpers for the layout-op tests (tests/ops/test_<op>.c): a fixed-seed
 * PRNG, random small int64 tensors, dense references, order/flag checks and the allocation-sweep
 * fixture. Header-only (static). */
#ifndef LAYOUT_TEST_UTIL_H
#define LAYOUT_TEST_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

typedef struct {
    uint64_t s;
} lt_rng;

static inline uint64_t lt_next(lt_rng *g) {
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}
/* uniform in [0, n), n > 0 */
static inline int64_t lt_int(lt_rng *g, int64_t n) { return (int64_t)(lt_next(g) % (uint64_t)n); }

static inline int64_t lt_volume(int64_t rank, const int64_t *shape) {
    int64_t v = 1;
    for (int64_t d = 0; d < rank; d++) v *= shape[d];
    return v;
}

/* A random int64 tensor of `shape` with distinct entries (about density * volume of them, values
 * 1..999), in random storage order; if `sorted`, reordered row-major (recorded, known sorted). */
static inline spt_tensor *lt_rand_tensor(lt_rng *g, int64_t rank, const int64_t *shape, int density_pct, bool sorted) {
    int64_t vol = lt_volume(rank, shape), n = 0;
    int64_t *pos = malloc((size_t)(vol > 0 ? vol : 1) * sizeof *pos);
    for (int64_t p = 0; p < vol; p++)
        if (lt_int(g, 100) < density_pct) pos[n++] = p;
    for (int64_t i = n - 1; i > 0; i--) { /* shuffle */
        int64_t j = lt_int(g, i + 1), tmp = pos[i];
        pos[i] = pos[j];
        pos[j] = tmp;
    }
    int64_t *ix = malloc((size_t)(n * rank > 0 ? n * rank : 1) * sizeof *ix);
    int64_t *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) {
        int64_t p = pos[i];
        for (int64_t d = rank - 1; d >= 0; d--) {
            ix[i * rank + d] = p % shape[d];
            p /= shape[d];
        }
        v[i] = 1 + lt_int(g, 999);
    }
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT64, rank, shape, n, ix, v, NULL, &t));
    if (sorted) ASSERT_OK(spt_reorder(t, NULL));
    free(pos);
    free(ix);
    free(v);
    return t;
}

/* A random shape of `rank` with dims in [lo, hi]. */
static inline void lt_rand_shape(lt_rng *g, int64_t rank, int64_t lo, int64_t hi, int64_t *shape) {
    for (int64_t d = 0; d < rank; d++) shape[d] = lo + lt_int(g, hi - lo + 1);
}

/* The dense int64 array of a tensor (malloc'ed, volume elements; duplicates: last wins). */
static inline int64_t *lt_dense(const spt_tensor *t) {
    spt_dense *d;
    ASSERT_OK(spt_to_dense(t, NULL, false, &d));
    int64_t n = spt_dense_size(d);
    int64_t *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    if (n > 0) memcpy(a, spt_dense_data(d), (size_t)n * sizeof *a);
    spt_dense_free(d);
    return a;
}

/* Row-major offset of an index in a shape. */
static inline int64_t lt_offset(int64_t rank, const int64_t *shape, const int64_t *idx) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; d++) off = off * shape[d] + idx[d];
    return off;
}

/* Unravel a row-major offset. */
static inline void lt_unravel(int64_t rank, const int64_t *shape, int64_t off, int64_t *idx) {
    for (int64_t d = rank - 1; d >= 0; d--) {
        idx[d] = off % shape[d];
        off /= shape[d];
    }
}

/* The tensor equals the dense reference `want` of `shape`. */
static inline void lt_expect_dense(const spt_tensor *t, int64_t rank, const int64_t *shape, const int64_t *want) {
    assert_int_equal(spt_tensor_rank(t), rank);
    for (int64_t d = 0; d < rank; d++) assert_int_equal(spt_tensor_shape(t)[d], shape[d]);
    int64_t *got = lt_dense(t), n = lt_volume(rank, shape);
    for (int64_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
    free(got);
}

/* The flags a tensor claims are true: it validates, and if known sorted its entries are
 * non-decreasing in its order. */
static inline void lt_check_claims(const spt_tensor *t) {
    spt_tensor *c;
    ASSERT_OK(spt_tensor_clone(t, &c));
    ASSERT_OK(spt_validate(c));
    spt_tensor_free(c);
    if (!spt_tensor_known_sorted(t)) return;
    const int64_t r = spt_tensor_rank(t), *ord = spt_tensor_order(t), *ix = spt_tensor_indices(t);
    for (int64_t i = 1; i < spt_tensor_nnz(t); i++) {
        int c2 = 0;
        for (int64_t k = 0; k < r && c2 == 0; k++) {
            int64_t a = ix[(i - 1) * r + ord[k]], b = ix[i * r + ord[k]];
            c2 = a < b ? -1 : a > b ? 1 : 0;
        }
        assert_true(c2 <= 0);
    }
}

/* The tensor is in row-major order, recorded and known. */
static inline void lt_expect_row_major(const spt_tensor *t) {
    assert_true(spt_tensor_is_row_major(t, true));
    lt_check_claims(t);
}

/* A zeroed int64 dense reference of `vol` cells (malloc'ed, at least one cell). */
static inline int64_t *lt_zeros(int64_t vol) { return calloc((size_t)(vol > 0 ? vol : 1), sizeof(int64_t)); }

/* Copy the dense array `src` of shape `from` into `dst` of shape `to`, each cell moving by `shift`
 * (per dim); cells that land outside `to` are dropped -- and, if `dropped_zero`, asserted to be 0. */
static inline void lt_shift_copy(int64_t rank, const int64_t *from, const int64_t *src, const int64_t *shift,
                                 const int64_t *to, int64_t *dst, bool dropped_zero) {
    int64_t idx[8], vol = lt_volume(rank, from);
    for (int64_t x = 0; x < vol; x++) {
        lt_unravel(rank, from, x, idx);
        bool in = true;
        for (int64_t d = 0; d < rank; d++) {
            idx[d] += shift[d];
            in = in && idx[d] >= 0 && idx[d] < to[d];
        }
        if (in) dst[lt_offset(rank, to, idx)] = src[x];
        else if (dropped_zero) assert_int_equal(src[x], 0);
    }
}

/* The dense concatenation of `k` dense pieces (`dn[i]` of shape `sh[i]`) along `axis` into a new
 * reference of shape `to`; frees each dn[i]. */
static inline int64_t *lt_concat_dense(int64_t rank, int64_t k, int64_t (*sh)[3], int64_t **dn, int64_t axis,
                                       const int64_t *to) {
    int64_t *want = lt_zeros(lt_volume(rank, to)), shift[3] = {0, 0, 0};
    for (int64_t i = 0; i < k; i++) {
        lt_shift_copy(rank, sh[i], dn[i], shift, to, want, false);
        shift[axis] += sh[i][axis];
        free(dn[i]);
    }
    return want;
}

/* The allocation sweep (spt_test_alloc_sweep) of one op call: `op` reads `in`/`arg` and writes its
 * results into `out`/`dout`; every result slot is freed (and reset) after each run. */
typedef struct lt_sweep lt_sweep;
struct lt_sweep {
    spt_status (*op)(lt_sweep *x);
    const spt_tensor *in[3];
    int64_t arg;
    spt_tensor *out[3];
    spt_dense *dout[2];
};

static inline spt_status lt_sweep_run(void *p) {
    lt_sweep *x = p;
    return x->op(x);
}

static inline void lt_sweep_cleanup(void *p) {
    lt_sweep *x = p;
    for (int k = 0; k < 3; k++) {
        spt_tensor_free(x->out[k]);
        x->out[k] = NULL;
    }
    for (int k = 0; k < 2; k++) {
        spt_dense_free(x->dout[k]);
        x->dout[k] = NULL;
    }
}

/* Run the sweep; it must see failing runs. */
static inline void lt_alloc_sweep(lt_sweep *x) {
    assert_true(spt_test_alloc_sweep(lt_sweep_run, lt_sweep_cleanup, x) > 0);
}

/* The sweep input most layout tests use: a 2x3 string tensor of 3 entries, unsorted. */
static inline spt_tensor *lt_sweep_strings(void) {
    int64_t s[2] = {2, 3}, ix[6] = {1, 2, 0, 1, 1, 0};
    spt_str v[3] = {{"ab", 2}, {"c", 1}, {"", 0}};
    spt_tensor *a;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 3, ix, v, NULL, &a));
    return a;
}

/* The whole sweep test of a one-input op on lt_sweep_strings() (made after the counting allocator
 * is installed: it is freed through it). */
static inline void lt_sweep_one(spt_status (*op)(lt_sweep *x)) {
    spt_test_alloc_install();
    spt_tensor *a = lt_sweep_strings();
    lt_sweep x = {.op = op, .in = {a}};
    lt_alloc_sweep(&x);
    spt_tensor_free(a);
}

#endif
