/* SPDX-License-Identifier: Apache-2.0 */
/* test_sort.c -- spt_reorder and spt_argsort: seed examples, stability, orders, bounds, big keys. */
#ifndef SPT_CONFORMANCE
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "spt_test.h"

/* the seed / sparse_tensor_test example rows */
static const int64_t ex_ix[15] = {0, 0, 0, 3, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2};
static const int64_t ex_shape[3] = {10, 10, 10};

static void test_argsort_seed(void **state) {
    (void)state;
    spt_tensor *t;
    int32_t v[5] = {0, 1, 2, 3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, ex_shape, 5, ex_ix, v, NULL, &t));
    int64_t perm[5], o012[3] = {0, 1, 2}, o201[3] = {2, 0, 1};
    ASSERT_OK(spt_argsort(t, o012, perm));
    int64_t want1[5] = {0, 4, 3, 2, 1};
    assert_memory_equal(perm, want1, sizeof want1);
    ASSERT_OK(spt_argsort(t, o201, perm));
    int64_t want2[5] = {0, 3, 2, 1, 4};
    assert_memory_equal(perm, want2, sizeof want2);
    spt_tensor_free(t);
}

static void test_reorder_seed_strings(void **state) {
    (void)state;
    spt_str v[5] = {{"hi0", 3}, {"hi1", 3}, {"hi2", 3}, {"hi3", 3}, {"hi4", 3}};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 3, ex_shape, 5, ex_ix, v, NULL, &t));
    ASSERT_ST(SPT_EPRECONDITION, spt_indices_valid(t));
    int64_t o201[3] = {2, 0, 1};
    ASSERT_OK(spt_reorder(t, o201));
    int64_t want_ix[15] = {0, 0, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 0, 0, 2};
    spt_str want_v[5] = {{"hi0", 3}, {"hi3", 3}, {"hi2", 3}, {"hi1", 3}, {"hi4", 3}};
    spt_test_expect_tensor(t, 3, ex_shape, 5, want_ix, want_v);
    assert_int_equal(spt_tensor_order(t)[0], 2);
    assert_true(spt_tensor_known_sorted(t));
    ASSERT_OK(spt_indices_valid(t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t want_ix2[15] = {0, 0, 0, 0, 0, 2, 0, 1, 0, 2, 0, 0, 3, 0, 0};
    spt_str want_v2[5] = {{"hi0", 3}, {"hi4", 3}, {"hi3", 3}, {"hi2", 3}, {"hi1", 3}};
    spt_test_expect_tensor(t, 3, ex_shape, 5, want_ix2, want_v2);
    assert_true(spt_tensor_is_row_major(t, true));
    spt_tensor_free(t);
}

static void test_reorder_stable_duplicates(void **state) {
    (void)state;
    int64_t shape[2] = {3, 3}, ix[10] = {2, 2, 0, 1, 2, 2, 0, 1, 2, 2};
    int16_t v[5] = {10, 20, 30, 40, 50};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT16, 2, shape, 5, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t want_ix[10] = {0, 1, 0, 1, 2, 2, 2, 2, 2, 2};
    int16_t want_v[5] = {20, 40, 10, 30, 50}; /* equal indices keep their relative order */
    spt_test_expect_tensor(t, 2, shape, 5, want_ix, want_v);
    assert_true(spt_tensor_known_sorted(t));
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t)); /* repeated */
    ASSERT_MSG("indices[1] = [0,1] is repeated");
    spt_tensor_free(t);
}

static void test_reorder_errors_leave_tensor(void **state) {
    (void)state;
    int64_t shape[2] = {3, 3}, ix[4] = {2, 2, 0, 5};
    double v[2] = {1, 2};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 2, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reorder(t, NULL));
    ASSERT_MSG("indices[1] = [0,5] is out of bounds");
    int64_t bad[2] = {0, 0}, partial[2] = {0, -1}, oob[2] = {0, 2};
    ASSERT_ST(SPT_EINVAL, spt_reorder(t, bad));
    ASSERT_ST(SPT_EINVAL, spt_reorder(t, partial));
    ASSERT_ST(SPT_EINVAL, spt_reorder(t, oob));
    spt_test_expect_tensor(t, 2, shape, 2, ix, v); /* untouched */
    assert_int_equal(spt_tensor_order(t)[0], -1);
    ASSERT_ST(SPT_EINVAL, spt_reorder(NULL, NULL));
    spt_tensor_free(t);
}

/* xorshift for repeatable random data */
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t g_rank;
static const int64_t *g_ord;
static const int64_t *g_ix;
static int cmp_entries(const void *a, const void *b) {
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    for (int64_t k = 0; k < g_rank; k++) {
        int64_t d = g_ord[k];
        if (g_ix[i * g_rank + d] != g_ix[j * g_rank + d]) return g_ix[i * g_rank + d] < g_ix[j * g_rank + d] ? -1 : 1;
    }
    return i < j ? -1 : i > j; /* stable reference */
}

/* t holds the n entries of rank r (index rows ix, values v of es bytes) in the order ref. */
static void expect_ref_order(const spt_tensor *t, const int64_t *ix, const unsigned char *v, const int64_t *ref,
                             int64_t n, int64_t r, size_t es) {
    const int64_t *got = spt_tensor_indices(t);
    const unsigned char *gv = spt_tensor_values(t);
    for (int64_t k = 0; k < n; k++) {
        assert_memory_equal(got + k * r, ix + ref[k] * r, (size_t)r * sizeof(int64_t));
        assert_memory_equal(gv + (size_t)k * es, v + (size_t)ref[k] * es, es);
    }
}

/* Random tensors of rank 1-5 and every dtype size, all orders tried against a stable qsort reference. */
static void test_reorder_property(void **state) {
    (void)state;
    const spt_dtype dts[] = {SPT_BOOL, SPT_INT16, SPT_UINT32, SPT_FLOAT64, SPT_COMPLEX128};
    for (int iter = 0; iter < 200; iter++) {
        int64_t r = 1 + (int64_t)(next() % 5), n = (int64_t)(next() % 300), shape[5], order[5];
        for (int64_t d = 0; d < r; d++) shape[d] = 1 + (int64_t)(next() % (iter % 3 ? 7 : 6000));
        spt_dtype dt = dts[iter % 5];
        size_t es = spt_dtype_size(dt);
        int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix), *ref = malloc((size_t)(n + 1) * sizeof *ref);
        unsigned char *v = malloc((size_t)n * es + 1);
        for (int64_t i = 0; i < n * r; i++) ix[i] = (int64_t)(next() % (uint64_t)shape[i % r]);
        for (size_t b = 0; b < (size_t)n * es; b++) v[b] = (unsigned char)next();
        if (dt == SPT_BOOL)
            for (int64_t i = 0; i < n; i++) v[i] &= 1;
        for (int64_t d = 0; d < r; d++) order[d] = d;
        for (int64_t d = r - 1; d > 0; d--) { /* random permutation */
            int64_t j = (int64_t)(next() % (uint64_t)(d + 1)), tmp = order[d];
            order[d] = order[j];
            order[j] = tmp;
        }
        spt_tensor *t;
        ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, v, NULL, &t));
        ASSERT_OK(spt_reorder(t, order));
        for (int64_t i = 0; i < n; i++) ref[i] = i;
        g_rank = r;
        g_ord = order;
        g_ix = ix;
        qsort(ref, (size_t)n, sizeof *ref, cmp_entries);
        expect_ref_order(t, ix, v, ref, n, r, es);
        ASSERT_OK(spt_validate(t));
        spt_tensor_free(t);
        free(ix);
        free(ref);
        free(v);
    }
}

/* A key that needs all 63 bits: shape whose volume is just under 2^63. */
static void test_reorder_wide_keys(void **state) {
    (void)state;
    const int64_t A = ((int64_t)1 << 31) - 1, B = ((int64_t)1 << 30) - 1;
    int64_t shape[3] = {(int64_t)1 << 31, (int64_t)1 << 30, 3}; /* volume 3 * 2^61: keys need 63 bits */
    int64_t ix[9] = {A, 0, 1, 0, B, 0, A, 0, 0};
    uint8_t v[3] = {1, 2, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_UINT8, 3, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t want[9] = {0, B, 0, A, 0, 0, A, 0, 1};
    uint8_t wv[3] = {2, 3, 1};
    spt_test_expect_tensor(t, 3, shape, 3, want, wv);
    int64_t o[3] = {2, 1, 0};
    ASSERT_OK(spt_reorder(t, o));
    int64_t want2[9] = {A, 0, 0, 0, B, 0, A, 0, 1};
    uint8_t wv2[3] = {3, 2, 1};
    spt_test_expect_tensor(t, 3, shape, 3, want2, wv2);
    spt_tensor_free(t);
}

/* Threads: a large reorder gives the same result with 1 and 2 threads. */
static void test_reorder_threads_identical(void **state) {
    (void)state;
    const int64_t n = 200000, shape[3] = {100, 200, 300};
    int64_t *ix = malloc((size_t)n * 3 * sizeof *ix);
    int64_t *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) ix[i * 3 + d] = (int64_t)(next() % (uint64_t)shape[d]);
        v[i] = i;
    }
    spt_tensor *a, *b;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 3, shape, n, ix, v, NULL, &a));
    ASSERT_OK(spt_tensor_clone(a, &b));
    spt_set_num_threads(1);
    ASSERT_OK(spt_reorder(a, NULL));
    spt_set_num_threads(2);
    ASSERT_OK(spt_reorder(b, NULL));
    spt_set_num_threads(0);
    assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), (size_t)n * 3 * sizeof(int64_t));
    assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b), (size_t)n * sizeof(int64_t));
    const int64_t *s = spt_tensor_indices(a);
    for (int64_t i = 1; i < n; i++) {
        int64_t ka = (s[i * 3 - 3] * 200 + s[i * 3 - 2]) * 300 + s[i * 3 - 1],
                kb = (s[i * 3] * 200 + s[i * 3 + 1]) * 300 + s[i * 3 + 2];
        assert_true(ka <= kb);
    }
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(ix);
    free(v);
}

/* The hybrid sort (n >= 65536: top-digit buckets, each sorted in cache and decoded) against a stable
 * qsort reference, in place and into a new tensor, with 1, 2 and 3 threads: rank 3 and 2 (3 and 4 digit
 * passes per bucket), a small shape (many repeated rows), a constant index (constant digits skipped), a
 * skewed top index (a bucket larger than the per-thread scratch, one that fits, tiny ones sorted by
 * insertion), another order; values of
 * 8 bytes (carried through the sort) and of 4 and 16 (a permutation and a gather). */
static void test_reorder_hybrid_reference(void **state) {
    (void)state;
    enum { NC = 6 };
    const int64_t n = 90000, ranks[NC] = {3, 2, 3, 3, 3, 2};
    const int64_t shapes[NC][3] = {{1000, 1000, 1000}, {1000000, 1000000, 0}, {40, 50, 60},
                                   {1000, 1000, 1000}, {1000, 1000, 1000},    {3000, 70000, 0}};
    const int64_t o10[2] = {1, 0};
    const spt_dtype dts[3] = {SPT_FLOAT64, SPT_INT32, SPT_COMPLEX128};
    int64_t *ix = malloc((size_t)n * 3 * sizeof *ix), *ref = malloc((size_t)n * sizeof *ref);
    unsigned char *v = malloc((size_t)n * 16);
    for (int c = 0; c < NC; c++) {
        const int64_t r = ranks[c], *shape = shapes[c], *order = c == 5 ? o10 : NULL;
        for (int64_t i = 0; i < n * r; i++) {
            const int64_t d = i % r;
            ix[i] = (int64_t)(next() % (uint64_t)shape[d]);
            if (c == 3 && d == 2) ix[i] = 0;     /* the low digits constant */
            if (c == 4 && d == 0 && i / r % 500) /* skewed: 80 % in one bucket, 18 % in another, tiny ones */
                ix[i] = i / r % 5 ? 17 : 900;
        }
        for (size_t b = 0; b < (size_t)n * 16; b++) v[b] = (unsigned char)next();
        int64_t ord[3] = {0, 1, 2};
        if (order) ord[0] = 1, ord[1] = 0;
        for (int64_t i = 0; i < n; i++) ref[i] = i;
        g_rank = r;
        g_ord = ord;
        g_ix = ix;
        qsort(ref, (size_t)n, sizeof *ref, cmp_entries);
        bool uniq = true;
        for (int64_t k = 1; k < n; k++)
            if (!memcmp(ix + ref[k - 1] * r, ix + ref[k] * r, (size_t)r * sizeof(int64_t))) uniq = false;
        assert_int_equal(uniq, c == 1); /* every case but the widest repeats some rows */
        for (int di = 0; di < 3; di++)
            for (int th = 1; th <= 3; th++) {
                const size_t es = spt_dtype_size(dts[di]);
                spt_tensor *t, *o = NULL;
                spt_set_num_threads(th);
                ASSERT_OK(spt_tensor_new(dts[di], r, shape, n, ix, v, NULL, &t));
                ASSERT_OK(spt_reordered(t, order, &o));
                ASSERT_OK(spt_reorder(t, order));
                for (int w = 0; w < 2; w++) {
                    const spt_tensor *x = w ? o : t;
                    expect_ref_order(x, ix, v, ref, n, r, es);
                    assert_true(spt_tensor_known_sorted(x));
                    assert_int_equal((x->flags & SPT__F_UNIQUE) != 0, uniq);
                }
                spt_tensor_free(o);
                spt_tensor_free(t);
            }
    }
    spt_set_num_threads(0);
    free(ix);
    free(ref);
    free(v);
}

struct sweep {
    spt_tensor *t;
};
static spt_status sweep_reorder(void *p) {
    struct sweep *s = p;
    spt_str v[5] = {{"hi0", 3}, {"hi1", 3}, {"hi2", 3}, {"hi3", 3}, {"hi4", 3}};
    spt_status st = spt_tensor_new(SPT_STRING, 3, ex_shape, 5, ex_ix, v, NULL, &s->t);
    if (st != SPT_OK) return st;
    int64_t o[3] = {1, 2, 0}, perm[5];
    st = spt_reorder(s->t, o);
    if (st == SPT_OK) st = spt_argsort(s->t, NULL, perm);
    return st;
}
static void sweep_free(void *p) {
    struct sweep *s = p;
    spt_tensor_free(s->t);
    s->t = NULL;
}
static void test_reorder_alloc_sweep(void **state) {
    (void)state;
    struct sweep s = {0};
    assert_true(spt_test_alloc_sweep(sweep_reorder, sweep_free, &s) >= 4);
}

/* spt_reordered against a clone sorted in place by spt_reorder: same entries, values, order and flags,
 * and the input untouched. Sizes cover the small path, the hybrid path (n >= 65536), buckets too large
 * for the per-thread scratch (skewed: most entries share the top digit) and inputs already sorted. */
static void expect_reordered(const spt_tensor *t, const int64_t *order) {
    const int64_t n = spt_tensor_nnz(t), r = spt_tensor_rank(t);
    const size_t es = spt_dtype_size(spt_tensor_dtype(t));
    spt_tensor *in_copy, *ref, *got = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_clone(t, &in_copy));
    ASSERT_OK(spt_tensor_clone(t, &ref));
    ASSERT_OK(spt_reorder(ref, order));
    ASSERT_OK(spt_reordered(t, order, &got));
    spt_test_expect_tensor(got, r, spt_tensor_shape(ref), n, spt_tensor_indices(ref), spt_tensor_values(ref));
    for (int64_t d = 0; d < r; d++) assert_int_equal(spt_tensor_order(got)[d], spt_tensor_order(ref)[d]);
    assert_true(spt_tensor_known_sorted(got));
    assert_true(spt_tensor_known_valid(got));
    ASSERT_OK(spt_validate(got));
    /* the input: untouched */
    spt_test_expect_tensor(t, r, spt_tensor_shape(in_copy), n, spt_tensor_indices(in_copy), spt_tensor_values(in_copy));
    (void)es;
    spt_tensor_free(got);
    spt_tensor_free(ref);
    spt_tensor_free(in_copy);
}

static void test_reordered(void **state) {
    (void)state;
    const spt_dtype dts[] = {SPT_BOOL, SPT_INT16, SPT_UINT32, SPT_FLOAT64, SPT_COMPLEX128, SPT_INT64};
    const int64_t sizes[] = {0, 1, 2, 300, 70000};
    for (int si = 0; si < 5; si++)
        for (int di = 0; di < 6; di++)
            for (int skew = 0; skew < (sizes[si] > 1000 ? 2 : 1); skew++) {
                const int64_t n = sizes[si], r = 3, shape[3] = {1000, 1000, 1000};
                const spt_dtype dt = dts[di];
                const size_t es = spt_dtype_size(dt);
                int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix);
                unsigned char *v = malloc((size_t)n * es + 1);
                for (int64_t i = 0; i < n * r; i++)
                    ix[i] = skew && i % r == 0 && i % 7 ? 0 : (int64_t)(next() % (uint64_t)shape[i % r]);
                for (size_t b = 0; b < (size_t)n * es; b++) v[b] = (unsigned char)next();
                if (dt == SPT_BOOL)
                    for (int64_t i = 0; i < n; i++) v[i] &= 1;
                spt_tensor *t;
                ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, v, NULL, &t));
                int64_t o120[3] = {1, 2, 0};
                expect_reordered(t, NULL);
                expect_reordered(t, o120);
                /* a sorted input (known or found sorted): the copy */
                spt_tensor *sorted;
                ASSERT_OK(spt_reordered(t, NULL, &sorted));
                expect_reordered(sorted, NULL);
                spt_tensor *plain;
                ASSERT_OK(spt_tensor_new(dt, r, shape, n, spt_tensor_indices(sorted), spt_tensor_values(sorted), NULL,
                                         &plain)); /* sorted, but not known to be */
                expect_reordered(plain, NULL);
                spt_tensor_free(plain);
                spt_tensor_free(sorted);
                spt_tensor_free(t);
                free(ix);
                free(v);
            }
    /* strings take the clone-and-sort way */
    spt_str sv[5] = {{"hi0", 3}, {"hi1", 3}, {"hi2", 3}, {"hi3", 3}, {"hi4", 3}};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 3, ex_shape, 5, ex_ix, sv, NULL, &t));
    int64_t o201[3] = {2, 0, 1};
    expect_reordered(t, o201);
    spt_tensor_free(t);
}

static void test_reordered_errors(void **state) {
    (void)state;
    int64_t shape[2] = {3, 3}, ix[4] = {2, 2, 0, 5};
    double v[2] = {1, 2};
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 2, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reordered(t, NULL, &o));
    assert_null(o);
    ASSERT_MSG("spt_reordered: indices[1] = [0,5] is out of bounds");
    int64_t bad[2] = {0, 0};
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_reordered(t, bad, &o));
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_reordered(t, NULL, NULL));
    ASSERT_ST(SPT_EINVAL, spt_reordered(NULL, NULL, &o));
    spt_test_expect_tensor(t, 2, shape, 2, ix, v); /* untouched */
    spt_tensor_free(t);
}

struct sweep_big {
    spt_tensor *src, *out;
};
static spt_status sweep_reordered(void *p) {
    struct sweep_big *s = p;
    return spt_reordered(s->src, NULL, &s->out);
}
static void sweep_reordered_free(void *p) {
    struct sweep_big *s = p;
    assert_true(s->out == NULL || spt_tensor_known_sorted(s->out));
    spt_tensor_free(s->out);
    s->out = NULL;
}
static void test_reordered_alloc_sweep(void **state) {
    (void)state;
    /* hybrid size; float64 (values are the payload) and float32 (a permutation and a gather) */
    const int64_t n = 70000, shape[2] = {5000, 5000};
    int64_t *ix = malloc((size_t)n * 2 * sizeof *ix);
    double *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < 2 * n; i++) ix[i] = (int64_t)(next() % 5000);
    for (int64_t i = 0; i < n; i++) v[i] = (double)i;
    for (int k = 0; k < 2; k++) {
        struct sweep_big s = {0};
        ASSERT_OK(spt_tensor_new(k ? SPT_FLOAT32 : SPT_FLOAT64, 2, shape, n, ix, v, NULL, &s.src));
        assert_true(spt_test_alloc_sweep(sweep_reordered, sweep_reordered_free, &s) >= 3);
        spt_tensor_free(s.src);
    }
    free(ix);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argsort_seed),
        cmocka_unit_test(test_reorder_seed_strings),
        cmocka_unit_test(test_reorder_stable_duplicates),
        cmocka_unit_test(test_reorder_errors_leave_tensor),
        cmocka_unit_test(test_reorder_property),
        cmocka_unit_test(test_reorder_wide_keys),
        cmocka_unit_test(test_reorder_threads_identical),
        cmocka_unit_test(test_reorder_hybrid_reference),
        cmocka_unit_test(test_reorder_alloc_sweep),
        cmocka_unit_test(test_reordered),
        cmocka_unit_test(test_reordered_errors),
        cmocka_unit_test(test_reordered_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result st_dim_comparator_sort(const conf_case *c) {
    json_t *a = c->args;
    json_t *sp = json_pack("{s:O,s:[],s:O,s:s}", "indices", json_object_get(a, "indices"), "values", "shape",
                           json_object_get(a, "shape"), "dtype", "int64");
    /* values: one per row */
    json_t *vals = json_object_get(sp, "values");
    for (size_t i = 0; i < json_array_size(json_object_get(a, "indices")); i++)
        json_array_append_new(vals, json_integer((json_int_t)i));
    spt_tensor *t;
    spt_status st = conf_sparse(sp, false, &t);
    json_decref(sp);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK], perm[64];
    conf_ints(json_object_get(a, "order"), order, SPT_MAX_RANK);
    st = spt_argsort(t, order, perm);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[64];
        long n = conf_ints(json_object_get(c->expect, "permutation"), want, 64);
        r = CONF_PASS;
        for (long i = 0; i < n && r == CONF_PASS; i++)
            if (perm[i] != want[i])
                r = conf_fail(c, "perm[%ld] = %lld, expected %lld", i, (long long)perm[i], (long long)want[i]);
    }
    spt_tensor_free(t);
    return r;
}

static conf_result h_argsort(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n), perm[64];
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK && spt_tensor_nnz(t) > 64) st = SPT_EINTERNAL;
    if (st == SPT_OK) st = spt_argsort(t, order, perm);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[64];
        long m = conf_ints(json_object_get(json_object_get(c->root, "result"), "permutation"), want, 64);
        r = CONF_PASS;
        for (long i = 0; i < m && r == CONF_PASS; i++)
            if (perm[i] != want[i])
                r = conf_fail(c, "perm[%ld] = %lld, expected %lld", i, (long long)perm[i], (long long)want[i]);
    }
    spt_tensor_free(t);
    free(order);
    return r;
}

static conf_result st_reorder(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK];
    conf_ints(json_object_get(c->args, "order"), order, SPT_MAX_RANK);
    st = spt_reorder(t, order);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        r = conf_expect_sparse(c, c->expect, t, NULL);
        if (r == CONF_PASS && json_is_true(json_object_get(c->expect, "indices_valid")) &&
            spt_indices_valid(t) != SPT_OK)
            r = conf_fail(c, "IndicesValid failed after reorder: %s", spt_last_error());
    }
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_reorder(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    if (st == SPT_OK) st = spt_reorder(t, NULL);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = c->bad_input ? json_object_get(c->root, "result") : c->expect;
        r = exp ? conf_expect_sparse(c, exp, t, NULL) : CONF_PASS;
        int64_t dims[2];
        if (r == CONF_PASS && exp && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
            (dims[0] != spt_tensor_nnz(t) || dims[1] != spt_tensor_rank(t)))
            r = conf_fail(c, "indices dims differ");
    }
    spt_tensor_free(t);
    return r;
}

/* ---- order, reorder, argsort, group ---- */

static conf_result h_reorder(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n);
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK) st = spt_reorder(t, order);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        r = res ? conf_expect_sparse(c, res, t, NULL) : CONF_PASS;
        if (r == CONF_PASS && !spt_tensor_known_sorted(t)) r = conf_fail(c, "not flagged sorted after reorder");
    }
    spt_tensor_free(t);
    free(order);
    return r;
}

CONF_HANDLERS(test_sort, {"st_dim_comparator_sort", st_dim_comparator_sort, CONF_OP(spt_argsort)},
              {"st_reorder", st_reorder, CONF_OP(spt_reorder)},
              {"sparse_reorder", sparse_reorder, CONF_OP(spt_reorder)},
              {"spt_reorder", h_reorder, CONF_OP(spt_reorder)}, {"spt_argsort", h_argsort, CONF_OP(spt_argsort)})
#endif
