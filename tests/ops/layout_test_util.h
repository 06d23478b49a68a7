/* layout_test_util.h -- shared helpers for the layout-op tests (tests/ops/test_<op>.c): a fixed-seed
 * PRNG, random small int64 tensors, dense references and order/flag checks. Header-only (static). */
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

#endif
