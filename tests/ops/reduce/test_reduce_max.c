/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce_max.c -- spt_reduce_max and spt_reduce_max_sparse. */
#ifndef SPT_CONFORMANCE
#include "../reduce_test_common.h"

#include <math.h>

static const spt_dtype REAL[] = {SPT_INT8,   SPT_INT16,  SPT_INT32,  SPT_INT64,   SPT_UINT8,
                                 SPT_UINT16, SPT_UINT32, SPT_UINT64, SPT_FLOAT32, SPT_FLOAT64};

static void test_docstring(void **state) {
    (void)state;
    /* tf.sparse.reduce_max docstring: [[1, ?, 2], [?, 3, ?]] */
    int64_t shape[2] = {2, 3}, ix[6] = {0, 0, 0, 2, 1, 1}, a0[1] = {0}, a1[1] = {1}, a01[2] = {0, 1};
    int32_t v[3] = {1, 2, 3};
    spt_tensor *t, *s;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_max(t, a0, 1, false, &d));
    const int32_t *o = spt_dense_data(d);
    assert_true(spt_dense_size(d) == 3 && o[0] == 1 && o[1] == 3 && o[2] == 2);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max(t, a1, 1, true, &d));
    o = spt_dense_data(d);
    assert_true(spt_dense_rank(d) == 2 && spt_dense_shape(d)[1] == 1 && o[0] == 2 && o[1] == 3);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max(t, a01, 2, false, &d));
    assert_int_equal(((const int32_t *)spt_dense_data(d))[0], 3);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max_sparse(t, a1, 1, false, &s));
    int64_t ws[1] = {2}, wix[2] = {0, 1};
    spt_test_expect_tensor(s, 1, ws, 2, wix, (int32_t[]){2, 3});
    spt_tensor_free(s);
    spt_tensor_free(t);
}

/* A cell holding a NaN reduces to NaN whatever the entry order (TF's SparseReduceMax depends on it; found
 * by tests/tf): rows [3.5, NaN, 1], [NaN, 3.5, 1], [1, 3.5, NaN], [2, -1, 0.5]. */
static void test_nan(void **state) {
    (void)state;
    int64_t shape[2] = {4, 3}, ix[24], a1[1] = {1};
    double v[12] = {3.5, NAN, 1, NAN, 3.5, 1, 1, 3.5, NAN, 2, -1, 0.5};
    for (int64_t i = 0; i < 12; i++) ix[2 * i] = i / 3, ix[2 * i + 1] = i % 3;
    spt_tensor *t, *s;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 12, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_max(t, a1, 1, false, &d));
    const double *o = spt_dense_data(d);
    assert_true(isnan(o[0]) && isnan(o[1]) && isnan(o[2]) && o[3] == 2);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max_sparse(t, a1, 1, false, &s));
    assert_int_equal(spt_tensor_nnz(s), 4);
    const double *sv = spt_tensor_values(s);
    assert_true(isnan(sv[0]) && isnan(sv[1]) && isnan(sv[2]) && sv[3] == 2);
    spt_tensor_free(s);
    spt_tensor_free(t);
}

static void test_implicit_zeros_ignored(void **state) {
    (void)state;
    /* a row of negatives has a negative max; an empty row is 0 in the dense output and absent in the sparse */
    int64_t shape[2] = {3, 4}, ix[6] = {0, 1, 0, 3, 2, 2}, a1[1] = {1};
    double v[3] = {-5, -2, -7};
    spt_tensor *t, *s;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_max(t, a1, 1, false, &d));
    const double *o = spt_dense_data(d);
    assert_true(o[0] == -2 && o[1] == 0 && o[2] == -7);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max_sparse(t, a1, 1, false, &s));
    int64_t ws[1] = {3}, wix[2] = {0, 2};
    spt_test_expect_tensor(s, 1, ws, 2, wix, (double[]){-2, -7});
    spt_tensor_free(s);
    spt_tensor_free(t);
}

static void test_errors(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 4}, ix[3] = {0, 1, 2}, a5[1] = {5};
    double v = 1;
    spt_tensor *t, *s = (spt_tensor *)1;
    spt_dense *d = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 1, ix, &v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reduce_max(t, a5, 1, true, &d));
    assert_null(d);
    ASSERT_MSG("Invalid reduction dimension 5, for input with 3 dimensions.");
    spt_tensor_free(t);
    /* complex has no order: not supported */
    double _Complex z = 1;
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 3, shape, 1, ix, &z, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_reduce_max_sparse(t, NULL, 0, false, &s));
    assert_null(s);
    ASSERT_MSG("spt_reduce_max_sparse");
    spt_tensor_free(t);
    int64_t bad[3] = {0, 3, 0};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 1, bad, &v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reduce_max(t, NULL, 0, false, &d));
    spt_tensor_free(t);
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {3, 0}, a0[1] = {0};
    spt_tensor *t, *s;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_UINT16, 2, shape, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reduce_max(t, a0, 1, false, &d));
    assert_int_equal(spt_dense_size(d), 0);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_max_sparse(t, NULL, 0, true, &s));
    assert_int_equal(spt_tensor_nnz(s), 0);
    assert_int_equal(spt_tensor_rank(s), 2);
    spt_tensor_free(s);
    spt_tensor_free(t);
}

static void test_property(void **state) {
    (void)state;
    rt_property(true, spt_reduce_max, spt_reduce_max_sparse, REAL, (int)(sizeof REAL / sizeof REAL[0]));
}
static void test_threads(void **state) {
    (void)state;
    rt_threads(spt_reduce_max, spt_reduce_max_sparse);
}
static void test_alloc_sweep(void **state) {
    (void)state;
    rt_sweep(spt_reduce_max, spt_reduce_max_sparse);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docstring),   cmocka_unit_test(test_implicit_zeros_ignored),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_empty),
        cmocka_unit_test(test_property),    cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep), cmocka_unit_test(test_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result reduce_max(const conf_case *c) { return conf_reduce(c, true, false); }

static conf_result reduce_max_sparse(const conf_case *c) { return conf_reduce(c, true, true); }

CONF_HANDLERS(test_reduce_max, {"sparse_reduce_max", reduce_max, CONF_OP(spt_reduce_max)},
              {"sparse_reduce_max_sparse", reduce_max_sparse, CONF_OP(spt_reduce_max_sparse)})
#endif
