/* SPDX-License-Identifier: Apache-2.0 */
/* test_from_dense.c -- spt_from_dense (tf.sparse.from_dense). */
#ifndef SPT_CONFORMANCE
#include <complex.h>
#include <math.h>

#include "spt_test.h"

static void test_docstring_example(void **state) {
    (void)state;
    int64_t shape[1] = {5};
    int64_t data[5] = {0, 0, 3, 0, 1};
    spt_dense *d;
    spt_tensor *t;
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, shape, data, &d));
    ASSERT_OK(spt_from_dense(d, NULL, &t));
    int64_t want_ix[2] = {2, 4}, want_v[2] = {3, 1};
    spt_test_expect_tensor(t, 1, shape, 2, want_ix, want_v);
    assert_true(spt_tensor_is_row_major(t, true));
    assert_true(spt_tensor_known_valid(t));
    ASSERT_OK(spt_indices_valid(t));
    spt_tensor_free(t);
    int64_t dflt = 3; /* entries that differ from a default */
    ASSERT_OK(spt_from_dense(d, &dflt, &t));
    int64_t want_ix2[4] = {0, 1, 3, 4}, want_v2[4] = {0, 0, 0, 1};
    spt_test_expect_tensor(t, 1, shape, 4, want_ix2, want_v2);
    spt_tensor_free(t);
    spt_dense_free(d);
}

static void test_floats_nan_negzero_complex_2d(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3};
    double data[6] = {0.0, -0.0, NAN, 1.5, 0, -2};
    spt_dense *d;
    spt_tensor *t;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, shape, data, &d));
    ASSERT_OK(spt_from_dense(d, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 3); /* NaN kept, -0 dropped */
    const int64_t want_ix[6] = {0, 2, 1, 0, 1, 2};
    assert_memory_equal(spt_tensor_indices(t), want_ix, sizeof want_ix);
    assert_true(isnan(((const double *)spt_tensor_values(t))[0]));
    spt_tensor_free(t);
    spt_dense_free(d);
    float _Complex cz[3] = {0, 1.0f * I, 2};
    int64_t s3[1] = {3};
    ASSERT_OK(spt_dense_new_from(SPT_COMPLEX64, 1, s3, cz, &d));
    ASSERT_OK(spt_from_dense(d, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 2);
    assert_true(cimagf(((const float _Complex *)spt_tensor_values(t))[0]) == 1.0f);
    spt_tensor_free(t);
    spt_dense_free(d);
}

static void test_strings_and_rank0(void **state) {
    (void)state;
    int64_t shape[1] = {3};
    spt_str s[3] = {{"", 0}, {"a\0b", 3}, {"", 0}};
    spt_dense *d;
    spt_tensor *t;
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, shape, s, &d));
    ASSERT_OK(spt_from_dense(d, NULL, &t));
    int64_t want_ix[1] = {1};
    spt_str want_v[1] = {{"a\0b", 3}};
    spt_dense_free(d); /* the tensor owns its bytes */
    spt_test_expect_tensor(t, 1, shape, 1, want_ix, want_v);
    spt_tensor_free(t);
    int16_t x = 4;
    ASSERT_OK(spt_dense_new_from(SPT_INT16, 0, NULL, &x, &d));
    ASSERT_OK(spt_from_dense(d, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 1);
    assert_int_equal(spt_tensor_rank(t), 0);
    spt_tensor_free(t);
    spt_dense_free(d);
}

static spt_dense *g_d;
static spt_tensor *g_t;
static spt_status sweep_fn(void *p) {
    (void)p;
    return spt_from_dense(g_d, NULL, &g_t);
}
static void sweep_free(void *p) {
    (void)p;
    spt_tensor_free(g_t);
    g_t = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    int64_t shape[1] = {3};
    spt_str s[3] = {{"x", 1}, {"", 0}, {"yz", 2}};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, shape, s, &g_d));
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_free, NULL) >= 3);
    spt_set_allocator(NULL, NULL, NULL);
    spt_dense_free(g_d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docstring_example),
        cmocka_unit_test(test_floats_nan_negzero_complex_2d),
        cmocka_unit_test(test_strings_and_rank0),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result from_dense(const conf_case *c) {
    spt_dense *d;
    spt_tensor *t = NULL;
    spt_status st = conf_dense(json_object_get(c->args, "dense"), conf_dtype(c->args, SPT_INT64), &d);
    if (st == SPT_OK) st = spt_from_dense(d, NULL, &t);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_expect_sparse(c, c->expect, t, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    return r;
}

CONF_HANDLERS(test_from_dense, {"from_dense", from_dense, CONF_OP(spt_from_dense)})
#endif
