/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_any_volume.c -- the gradient kernels on shapes whose volume passes 2^63 (FROSTT nell-1's
 * dims: 69 key bits; rank 3 of 2^62: 186 bits; and the 64-bit boundary [2^32, 2^32]).
 *
 * Reference: the same entries on a small shape. Every index goes through a strictly increasing map per
 * mode (small index i of dim s to a spread of [0, big dim), s - 1 to big dim - 1), which keeps the
 * lexicographic order of rows and which rows are equal, so every op and every gradient gives the same
 * values in the same entry order on both shapes. The small shape's gradients are themselves checked by
 * the finite-difference tests of the test_grad_* programs. */
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

#define P62 ((int64_t)1 << 62)
#define R 3

static uint64_t rng = 0x2545f4914f6cdd1dull;
static int64_t below(int64_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

static int64_t up(int64_t i, int64_t s, int64_t b) { return i == s - 1 ? b - 1 : i * ((b - 1) / (s - 1)); }

static const int64_t SMALL[R] = {4, 3, 5};

/* A tensor of n random entries of the small shape (distinct when asked), and its image in `big`. */
static void pair(const int64_t *big, int64_t n, bool distinct, spt_tensor **s, spt_tensor **b) {
    int64_t ixs[64 * R], ixb[64 * R], m = 0;
    double v[64];
    for (int64_t i = 0; i < n; i++) {
        int64_t *row = ixs + m * R;
        for (int64_t d = 0; d < R; d++) row[d] = below(SMALL[d]);
        bool seen = false;
        for (int64_t j = 0; j < m && distinct && !seen; j++) seen = !memcmp(ixs + j * R, row, R * sizeof(int64_t));
        if (seen) continue;
        for (int64_t d = 0; d < R; d++) ixb[m * R + d] = up(row[d], SMALL[d], big[d]);
        v[m] = (double)(below(2000) - 1000) / 64;
        m++;
    }
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, R, SMALL, m, ixs, v, NULL, s));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, R, big, m, ixb, v, NULL, b));
}

static spt_dense *vec(int64_t n) {
    spt_dense *g;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, &n, &g));
    double *p = spt_dense_data_mut(g);
    for (int64_t i = 0; i < n; i++) p[i] = (double)(below(200) - 100) / 8;
    return g;
}

static void same(const spt_dense *x, const spt_dense *y) {
    assert_int_equal(spt_dense_size(x), spt_dense_size(y));
    assert_memory_equal(spt_dense_data(x), spt_dense_data(y), (size_t)spt_dense_size(x) * sizeof(double));
}

static void same_values(const spt_tensor *x, const spt_tensor *y) {
    assert_int_equal(spt_tensor_nnz(x), spt_tensor_nnz(y));
    assert_memory_equal(spt_tensor_values(x), spt_tensor_values(y), (size_t)spt_tensor_nnz(x) * sizeof(double));
}

typedef spt_status (*binop)(const spt_tensor *, const spt_tensor *, spt_tensor **);
typedef spt_status (*bingrad)(const spt_tensor *, const spt_tensor *, const spt_tensor *, const spt_dense *,
                              spt_dense **, spt_dense **);

static spt_status add0(const spt_tensor *a, const spt_tensor *b, spt_tensor **o) { return spt_add(a, b, 0, o); }

static void one_shape(const int64_t *big) {
    binop ops[4] = {add0, spt_multiply, spt_maximum, spt_minimum};
    for (int k = 0; k < 4; k++) {
        const bool distinct = k >= 2; /* maximum / minimum: operands without repeated indices */
        spt_tensor *as, *ab, *bs, *bb, *cs, *cb;
        pair(big, 40, distinct, &as, &ab);
        pair(big, 40, distinct, &bs, &bb);
        ASSERT_OK(ops[k](as, bs, &cs));
        ASSERT_OK(ops[k](ab, bb, &cb));
        same_values(cs, cb);
        spt_dense *g = vec(spt_tensor_nnz(cs)), *gas, *gbs, *gab, *gbb;
        if (k == 0) {
            ASSERT_OK(spt_add_grad(as, bs, cs, g, &gas, &gbs));
            ASSERT_OK(spt_add_grad(ab, bb, cb, g, &gab, &gbb));
        } else {
            bingrad gr = k == 1 ? spt_multiply_grad : k == 2 ? spt_maximum_grad : spt_minimum_grad;
            ASSERT_OK(gr(as, bs, cs, g, &gas, &gbs));
            ASSERT_OK(gr(ab, bb, cb, g, &gab, &gbb));
        }
        same(gas, gab);
        same(gbs, gbb);
        spt_dense_free(gas);
        spt_dense_free(gbs);
        spt_dense_free(gab);
        spt_dense_free(gbb);
        spt_dense_free(g);
        spt_tensor_free(as);
        spt_tensor_free(ab);
        spt_tensor_free(bs);
        spt_tensor_free(bb);
        spt_tensor_free(cs);
        spt_tensor_free(cb);
    }
    /* softmax: groups are all dims but the last */
    spt_tensor *ts, *tb, *ys, *yb;
    pair(big, 50, true, &ts, &tb);
    ASSERT_OK(spt_softmax(ts, &ys));
    ASSERT_OK(spt_softmax(tb, &yb));
    same_values(ys, yb);
    spt_dense *g = vec(spt_tensor_nnz(ys)), *gs, *gb;
    ASSERT_OK(spt_softmax_grad(ys, g, &gs));
    ASSERT_OK(spt_softmax_grad(yb, g, &gb));
    same(gs, gb);
    spt_dense_free(gs);
    spt_dense_free(gb);
    spt_dense_free(g);
    spt_tensor_free(ys);
    spt_tensor_free(yb);
    spt_tensor_free(ts);
    spt_tensor_free(tb);
}

/* concat along an axis whose small dims are kept (the image of the concatenation is the concatenation
 * of the images only where the offsets map alike: the small and big inputs share the axis dim) */
static void concat_shape(const int64_t *big_in) {
    int64_t big[R];
    memcpy(big, big_in, sizeof big);
    big[1] = SMALL[1]; /* the concat axis: same dim on both shapes */
    spt_tensor *s[3], *b[3];
    for (int i = 0; i < 3; i++) pair(big, 12 + 5 * i, false, &s[i], &b[i]);
    spt_tensor *cs, *cb;
    ASSERT_OK(spt_concat((const spt_tensor *const *)s, 3, 1, false, &cs));
    ASSERT_OK(spt_concat((const spt_tensor *const *)b, 3, 1, false, &cb));
    same_values(cs, cb);
    spt_dense *g = vec(spt_tensor_nnz(cs)), *gs[3], *gb[3];
    ASSERT_OK(spt_concat_grad((const spt_tensor *const *)s, 3, 1, false, g, gs));
    ASSERT_OK(spt_concat_grad((const spt_tensor *const *)b, 3, 1, false, g, gb));
    for (int i = 0; i < 3; i++) {
        same(gs[i], gb[i]);
        spt_dense_free(gs[i]);
        spt_dense_free(gb[i]);
        spt_tensor_free(s[i]);
        spt_tensor_free(b[i]);
    }
    spt_dense_free(g);
    spt_tensor_free(cs);
    spt_tensor_free(cb);
}

static void test_nell1(void **state) {
    (void)state;
    const int64_t nell[R] = {2902330, 2143368, 25495389};
    for (int it = 0; it < 20; it++) {
        one_shape(nell);
        concat_shape(nell);
    }
}

static void test_rank3_p62(void **state) {
    (void)state;
    const int64_t p[R] = {P62, P62, P62};
    for (int it = 0; it < 20; it++) {
        one_shape(p);
        concat_shape(p);
    }
}

/* 2^32 x 7 x 2^32: 67 key bits, volume 7 * 2^64 (past the 64-bit key); 2^31 x 7 x 2^30: volume 7 * 2^61
 * (a 64-bit key past INT64_MAX) */
static void test_boundary(void **state) {
    (void)state;
    const int64_t a[R] = {(int64_t)1 << 32, 7, (int64_t)1 << 32}, b[R] = {(int64_t)1 << 31, 7, (int64_t)1 << 30};
    for (int it = 0; it < 10; it++) {
        one_shape(a);
        concat_shape(a);
        one_shape(b);
        concat_shape(b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nell1),
        cmocka_unit_test(test_rank3_p62),
        cmocka_unit_test(test_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
