/* SPDX-License-Identifier: Apache-2.0 */
/* test_minmax.c -- spt_maximum and spt_minimum (SparseSparseMaximum/Minimum). */
#ifndef SPT_CONFORMANCE
#include "../merge_test_common.h"

#include <math.h>

static void test_basic(void **state) {
    (void)state;
    int64_t shape[1] = {7}, i0[1] = {0}, i1[1] = {1};
    int32_t zero = 0, one = 1;
    spt_tensor *a = mk(SPT_INT32, 1, shape, 1, i0, &zero), *b = mk(SPT_INT32, 1, shape, 1, i0, &one), *o;
    ASSERT_OK(spt_maximum(a, b, &o));
    spt_test_expect_tensor(o, 1, shape, 1, i0, (int32_t[]){1});
    spt_tensor_free(o);
    ASSERT_OK(spt_minimum(a, b, &o));
    spt_test_expect_tensor(o, 1, shape, 1, i0, (int32_t[]){0});
    spt_tensor_free(o);
    spt_tensor_free(b);
    b = mk(SPT_INT32, 1, shape, 1, i1, &zero);
    ASSERT_OK(spt_minimum(a, b, &o)); /* union, zeros kept */
    int64_t wix[2] = {0, 1};
    spt_test_expect_tensor(o, 1, shape, 2, wix, (int32_t[]){0, 0});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_implicit_zero_participates(void **state) {
    (void)state;
    int64_t shape[1] = {4}, aix[2] = {0, 2}, bix[2] = {2, 1};
    double av[2] = {-3, 5}, bv[2] = {7, -1};
    spt_tensor *a = mk(SPT_FLOAT64, 1, shape, 2, aix, av), *b = mk(SPT_FLOAT64, 1, shape, 2, bix, bv), *o;
    int64_t wix[3] = {0, 1, 2};
    ASSERT_OK(spt_minimum(a, b, &o)); /* b is unsorted: sorted first */
    spt_test_expect_tensor(o, 1, shape, 3, wix, (double[]){-3, -1, 5});
    spt_tensor_free(o);
    ASSERT_OK(spt_maximum(a, b, &o));
    spt_test_expect_tensor(o, 1, shape, 3, wix, (double[]){0, 0, 7});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* A NaN on either side gives NaN, in either argument order (TF's SparseSparseMaximum/Minimum; found by
 * tests/tf): index 0 NaN vs 2, index 1 1 vs NaN, index 2 NaN vs the implicit zero, index 3 -1 vs zero. */
static void test_nan(void **state) {
    (void)state;
    int64_t shape[1] = {4}, bix[2] = {0, 1}, wix[4] = {0, 1, 2, 3}, a3[4] = {0, 1, 2, 3};
    double av[4] = {NAN, 1, NAN, -1}, bv[2] = {2, NAN};
    spt_tensor *a = mk(SPT_FLOAT64, 1, shape, 4, a3, av), *b = mk(SPT_FLOAT64, 1, shape, 2, bix, bv), *o;
    for (int mx = 0; mx < 2; mx++)
        for (int swap = 0; swap < 2; swap++) {
            spt_tensor *x = swap ? b : a, *y = swap ? a : b;
            ASSERT_OK(mx ? spt_maximum(x, y, &o) : spt_minimum(x, y, &o));
            assert_int_equal(spt_tensor_nnz(o), 4);
            const double *v = spt_tensor_values(o);
            assert_true(isnan(v[0]) && isnan(v[1]) && isnan(v[2]));
            assert_true(v[3] == (mx ? 0.0 : -1.0));
            assert_memory_equal(spt_tensor_indices(o), wix, sizeof wix);
            spt_tensor_free(o);
        }
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s11[2] = {1, 1}, s2[1] = {2}, s22[2] = {2, 2}, ix0[2] = {0, 0}, i0[1] = {0}, bad[2] = {3, 0};
    int32_t v = 1;
    spt_tensor *a = mk(SPT_INT32, 2, s11, 1, ix0, &v), *b = mk(SPT_INT32, 1, s2, 1, i0, &v), *o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_maximum(a, b, &o));
    assert_null(o);
    ASSERT_MSG("Operands do not have the same ranks");
    spt_tensor_free(a);
    spt_tensor_free(b);
    a = mk(SPT_INT32, 2, s22, 1, ix0, &v);
    b = mk(SPT_INT32, 2, s22, 1, bad, &v);
    ASSERT_ST(SPT_ERANGE, spt_minimum(a, b, &o));
    spt_tensor_free(a);
    spt_tensor_free(b);
    double _Complex z = 1;
    a = mk(SPT_COMPLEX128, 2, s22, 1, ix0, &z);
    ASSERT_ST(SPT_EDTYPE, spt_maximum(a, a, &o));
    spt_tensor_free(a);
    bool t = true;
    a = mk(SPT_BOOL, 2, s22, 1, ix0, &t);
    ASSERT_ST(SPT_EDTYPE, spt_minimum(a, a, &o));
    spt_tensor_free(a);
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {0, 4};
    spt_tensor *a = mk(SPT_UINT8, 2, shape, 0, NULL, NULL), *o;
    ASSERT_OK(spt_maximum(a, a, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
}

static void test_property(void **state) {
    (void)state;
    static const spt_dtype dts[] = {SPT_INT8,   SPT_INT16,  SPT_INT32,  SPT_INT64,   SPT_UINT8,
                                    SPT_UINT16, SPT_UINT32, SPT_UINT64, SPT_FLOAT32, SPT_FLOAT64};
    mt_seed(2718);
    for (int iter = 0; iter < 600; iter++) {
        spt_dtype dt = dts[iter % 10];
        int64_t r = 1 + mt_int(3), shape[3];
        for (int64_t d = 0; d < r; d++) shape[d] = mt_int(12) == 0 ? 0 : 1 + mt_int(4);
        spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(10), false, mt_int(2));
        spt_tensor *b = mt_rand_tensor(dt, r, shape, mt_int(10), false, mt_int(2)), *o;
        ASSERT_OK(spt_maximum(a, b, &o));
        mg_check(MG_MAX, a, b, 0, o);
        spt_tensor_free(o);
        ASSERT_OK(spt_minimum(a, b, &o));
        mg_check(MG_MIN, a, b, 0, o);
        spt_tensor_free(o);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

static void test_threads(void **state) {
    (void)state;
    mg_threads(spt_maximum, SPT_INT64);
    mg_threads(spt_minimum, SPT_FLOAT32);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    mg_sweep(spt_maximum);
    mg_sweep(spt_minimum);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),   cmocka_unit_test(test_implicit_zero_participates),
        cmocka_unit_test(test_errors),  cmocka_unit_test(test_empty),
        cmocka_unit_test(test_nan),     cmocka_unit_test(test_property),
        cmocka_unit_test(test_threads), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

static conf_result sparse_maximum(const conf_case *c) { return conf_binary(c, OP_MAX); }

static conf_result sparse_minimum(const conf_case *c) { return conf_binary(c, OP_MIN); }

CONF_HANDLERS(test_minmax, {"sparse_maximum", sparse_maximum, CONF_OP(spt_maximum)},
              {"sparse_minimum", sparse_minimum, CONF_OP(spt_minimum)},
              {"sparse_sparse_maximum", sparse_maximum, CONF_OP(spt_maximum)},
              {"sparse_sparse_minimum", sparse_minimum, CONF_OP(spt_minimum)})
#endif
