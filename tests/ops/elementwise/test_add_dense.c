/* SPDX-License-Identifier: Apache-2.0 */
/* test_add_dense.c -- spt_add_dense (SparseTensorDenseAdd). */
#ifndef SPT_CONFORMANCE
#include "../math_test_util.h"

static void test_basic_and_duplicates(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, ix[6] = {1, 2, 0, 0, 1, 2};
    int32_t v[3] = {5, 1, 7}, dv[6] = {1, 1, 1, 1, 1, 1};
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, shape, 3, ix, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_INT32, 2, shape, dv, &b));
    ASSERT_OK(spt_add_dense(a, b, &o));
    const int32_t *od = spt_dense_data(o);
    int32_t want[6] = {2, 1, 1, 1, 1, 13};
    for (int i = 0; i < 6; i++) assert_int_equal(od[i], want[i]);
    assert_int_equal(((const int32_t *)spt_dense_data(b))[5], 1); /* b untouched */
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s2[1] = {2}, ix[2] = {0, 0}, bad[2] = {1, 3}, neg[2] = {-1, 0};
    double v = 1;
    spt_tensor *a;
    spt_dense *b, *o = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 1, ix, &v, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s32, &b));
    ASSERT_ST(SPT_EINVAL, spt_add_dense(a, b, &o));
    assert_null(o);
    ASSERT_MSG("Dimension 0 does not equal (no broadcasting is supported): sparse side 2 vs dense side 3");
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, s2, &b));
    ASSERT_ST(SPT_EINVAL, spt_add_dense(a, b, &o));
    ASSERT_MSG("Two operands have different ranks; received: 2 and 1");
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, s23, &b));
    ASSERT_ST(SPT_EDTYPE, spt_add_dense(a, b, &o));
    spt_dense_free(b);
    spt_tensor_free(a);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s23, &b));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 1, bad, &v, NULL, &a));
    ASSERT_ST(SPT_ERANGE, spt_add_dense(a, b, &o));
    ASSERT_MSG("Sparse tensor has an invalid index on dimension 1: a_indices(0,1) = 3, dense tensor shape: [2,3]");
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 1, neg, &v, NULL, &a));
    ASSERT_ST(SPT_ERANGE, spt_add_dense(a, b, &o));
    ASSERT_MSG("invalid index on dimension 0");
    spt_tensor_free(a);
    spt_dense_free(b);
    spt_str s = {"a", 1};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s23, 1, ix, &s, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_STRING, 2, s23, &b));
    ASSERT_ST(SPT_EDTYPE, spt_add_dense(a, b, &o));
    spt_tensor_free(a);
    spt_dense_free(b);
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {0, 3}, s2[2] = {2, 2};
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT8, 2, shape, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_INT8, 2, shape, &b));
    ASSERT_OK(spt_add_dense(a, b, &o));
    assert_int_equal(spt_dense_size(o), 0);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_INT8, 2, s2, 0, NULL, NULL, NULL, &a));
    int8_t d[4] = {1, 2, 3, 4};
    ASSERT_OK(spt_dense_new_from(SPT_INT8, 2, s2, d, &b));
    ASSERT_OK(spt_add_dense(a, b, &o));
    assert_memory_equal(spt_dense_data(o), d, 4);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_property(void **state) {
    (void)state;
    mt_seed(8080);
    for (int iter = 0; iter < 600; iter++) {
        spt_dtype dt = MT_NUMERIC[iter % MT_NNUMERIC];
        int64_t r = mt_int(4), shape[3];
        for (int64_t d = 0; d < r; d++) shape[d] = mt_int(12) == 0 ? 0 : 1 + mt_int(4);
        spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(12), true, mt_int(2));
        spt_dense *b, *o;
        ASSERT_OK(spt_dense_new(dt, r, shape, &b));
        int64_t vol = spt_dense_size(b);
        for (int64_t i = 0; i < vol; i++) mt_set(dt, spt_dense_data_mut(b), i, mt_value(dt));
        ASSERT_OK(spt_add_dense(a, b, &o));
        double complex *ref = mt_dense_sum(a, NULL);
        for (int64_t i = 0; i < vol; i++)
            mt_assert_close(dt, mt_get(dt, spt_dense_data(o), i), ref[i] + mt_get(dt, spt_dense_data(b), i),
                            "add_dense", i);
        free(ref);
        spt_dense_free(o);
        spt_dense_free(b);
        spt_tensor_free(a);
    }
}

static spt_status call_add_dense(mt_call *c) { return spt_add_dense(c->a, c->d, &c->od); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(11);
    int64_t shape[2] = {300, 400};
    for (int sorted = 0; sorted < 2; sorted++) {
        spt_tensor *a = mt_big_tensor(SPT_INT64, 2, shape, 200000, sorted);
        spt_dense *b;
        ASSERT_OK(spt_dense_new(SPT_INT64, 2, shape, &b));
        mt_call c = {.op = call_add_dense, .a = a, .d = b};
        mt_call_threads(&c);
        spt_dense_free(b);
        spt_tensor_free(a);
    }
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(3);
    int64_t shape[2] = {4, 5};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT32, 2, shape, 9, true, false);
    spt_dense *b;
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, shape, &b));
    mt_call c = {.op = call_add_dense, .a = a, .d = b};
    mt_call_sweep(&c);
    spt_dense_free(b);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_and_duplicates),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

static conf_result sparse_add_dense(const conf_case *c) {
    spt_tensor *t = NULL;
    spt_dense *d = NULL, *o = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK) st = spt_add_dense(t, d, &o);
    conf_result r = conf_finish(c, st, o, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    spt_dense_free(o);
    return r;
}

CONF_HANDLERS(test_add_dense, {"sparse_add_dense", sparse_add_dense, CONF_OP(spt_add_dense)},
              {"sparse_tensor_dense_add", sparse_add_dense, CONF_OP(spt_add_dense)})
#endif
