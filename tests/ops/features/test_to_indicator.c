/* SPDX-License-Identifier: Apache-2.0 */
/* test_to_indicator.c -- tf.sparse.to_indicator: ids become the last coordinate of a dense bool. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* sparse_ops_test.py SparseToIndicatorTest.testInt32 (vocab 50), checked cell by cell. */
static void test_int32(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[12] = {0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3};
    int32_t v[6] = {0, 10, 13, 14, 32, 33};
    spt_tensor *t;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 6, ix, v, NULL, &t));
    ASSERT_OK(spt_to_indicator(t, 50, &d));
    assert_int_equal(spt_dense_rank(d), 2);
    assert_int_equal(spt_dense_shape(d)[0], 5);
    assert_int_equal(spt_dense_shape(d)[1], 50);
    const bool *b = spt_dense_data(d);
    int64_t trues = 0;
    for (int64_t i = 0; i < 250; i++) trues += b[i];
    assert_int_equal(trues, 6);
    assert_true(b[0] && b[50 + 10] && b[50 + 13] && b[50 + 14] && b[150 + 32] && b[150 + 33]);
    spt_dense_free(d);
    spt_tensor_free(t);
}

/* Rank 3, uint8 ids, repeated ids allowed, vocab 0, errors. */
static void test_rank3_and_errors(void **state) {
    (void)state;
    int64_t s[3] = {2, 2, 2}, ix[9] = {1, 0, 0, 1, 0, 1, 0, 1, 1};
    uint8_t v[3] = {2, 2, 0};
    spt_tensor *t;
    spt_dense *d = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_UINT8, 3, s, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_to_indicator(t, 3, &d));
    bool want[12] = {false};
    want[(0 * 2 + 1) * 3 + 0] = true;
    want[(1 * 2 + 0) * 3 + 2] = true;
    assert_int_equal(spt_dense_size(d), 12);
    assert_memory_equal(spt_dense_data(d), want, 12);
    spt_dense_free(d);
    ASSERT_ST(SPT_ERANGE, spt_to_indicator(t, 2, &d)); /* id 2 >= 2 */
    assert_null(d);
    ASSERT_MSG("id 2 of entry 0");
    ASSERT_ST(SPT_EINVAL, spt_to_indicator(t, -1, &d));
    ASSERT_ST(SPT_EINVAL, spt_to_indicator(NULL, 3, &d));
    spt_tensor_free(t);
    int8_t nv = -1;
    int64_t s1[1] = {1}, i1[1] = {0};
    ASSERT_OK(spt_tensor_new(SPT_INT8, 1, s1, 1, i1, &nv, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_to_indicator(t, 3, &d));
    spt_tensor_free(t);
    double f = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s1, 1, i1, &f, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_to_indicator(t, 3, &d));
    spt_tensor_free(t);
    int64_t e[2] = {3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, e, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_to_indicator(t, 0, &d)); /* an empty output */
    assert_int_equal(spt_dense_size(d), 0);
    spt_dense_free(d);
    int64_t huge = INT64_MAX / 2;
    ASSERT_ST(SPT_EOVERFLOW, spt_to_indicator(t, huge, &d));
    spt_tensor_free(t);
    /* rank 0: a [vocab_size] vector, as TensorFlow (repeated entries allowed) */
    ASSERT_OK(spt_tensor_new(SPT_INT64, 0, NULL, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_to_indicator(t, 2, &d));
    assert_int_equal(spt_dense_rank(d), 1);
    assert_int_equal(spt_dense_size(d), 2);
    assert_memory_equal(spt_dense_data(d), ((bool[]){false, false}), 2);
    spt_dense_free(d);
    spt_tensor_free(t);
    int64_t r0v[2] = {3, 1};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 0, NULL, 2, NULL, r0v, NULL, &t));
    ASSERT_OK(spt_to_indicator(t, 4, &d));
    assert_int_equal(spt_dense_shape(d)[0], 4);
    assert_memory_equal(spt_dense_data(d), ((bool[]){false, true, false, true}), 4);
    spt_dense_free(d);
    ASSERT_ST(SPT_ERANGE, spt_to_indicator(t, 3, &d)); /* id 3 >= 3 */
    assert_null(d);
    spt_tensor_free(t);
}

/* Property: dense reference built from the definition. */
static void test_property(void **state) {
    (void)state;
    lt_rng g = {2024};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3], vocab = 1 + lt_int(&g, 6);
        lt_rand_shape(&g, r, 1, 4, sh);
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 40, false), *u;
        int64_t n = spt_tensor_nnz(t), os[3];
        int64_t *ids = malloc((size_t)n * 8 + 8);
        for (int64_t i = 0; i < n; i++) ids[i] = lt_int(&g, vocab);
        ASSERT_OK(spt_tensor_new(SPT_INT64, r, sh, n, spt_tensor_indices(t), ids, NULL, &u));
        memcpy(os, sh, sizeof os);
        os[r - 1] = vocab;
        int64_t ov = lt_volume(r, os);
        bool *want = calloc((size_t)ov + 1, 1);
        int64_t idx[3];
        for (int64_t i = 0; i < n; i++) {
            memcpy(idx, spt_tensor_indices(t) + i * r, (size_t)r * 8);
            idx[r - 1] = ids[i];
            want[lt_offset(r, os, idx)] = true;
        }
        spt_dense *d;
        ASSERT_OK(spt_to_indicator(u, vocab, &d));
        assert_int_equal(spt_dense_size(d), ov);
        assert_memory_equal(spt_dense_data(d), want, (size_t)ov);
        spt_dense_free(d);
        free(want);
        free(ids);
        spt_tensor_free(u);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) { return spt_to_indicator(x->in[0], 4, &x->dout[0]); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t s[2] = {2, 3}, ix[6] = {1, 2, 0, 1, 1, 0}, v[3] = {3, 0, 3};
    spt_tensor *a;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 3, ix, v, NULL, &a));
    lt_sweep x = {.op = sweep_op, .in = {a}};
    lt_alloc_sweep(&x);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int32),
        cmocka_unit_test(test_rank3_and_errors),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

static conf_result sparse_to_indicator(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    st = spt_to_indicator(t, json_integer_value(json_object_get(c->args, "vocab_size")), &d);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *dense = exp ? json_object_get(exp, "dense") : NULL;
        r = dense ? conf_expect_dense(c, dense, d, NULL) : CONF_PASS;
    }
    spt_dense_free(d);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_to_indicator, {"sparse_to_indicator", sparse_to_indicator, CONF_OP(spt_to_indicator)})
#endif
