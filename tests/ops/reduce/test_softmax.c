/* SPDX-License-Identifier: Apache-2.0 */
/* test_softmax.c -- spt_softmax (SparseSoftmax). */
#ifndef SPT_CONFORMANCE
#include "../math_test_util.h"

static void test_rows(void **state) {
    (void)state;
    int64_t shape[3] = {1, 2, 3}, ix[15] = {0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 0, 1, 2};
    double v[5] = {1, 2, 3, -1, 1};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 5, ix, v, NULL, &t));
    ASSERT_OK(spt_softmax(t, &o));
    const double want[5] = {0.09003057317038043, 0.24472847105479767, 0.6652409557748218, 0.11920292202211755,
                            0.8807970779778825};
    assert_int_equal(spt_tensor_nnz(o), 5);
    assert_memory_equal(spt_tensor_indices(o), ix, sizeof ix);
    for (int i = 0; i < 5; i++) assert_true(fabs(((const double *)spt_tensor_values(o))[i] - want[i]) < 1e-12);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_unsorted_and_duplicates(void **state) {
    (void)state;
    /* unsorted input: the result is sorted with values paired to their indices; duplicates are members */
    int64_t shape[2] = {2, 3}, ix[8] = {1, 2, 0, 1, 1, 0, 0, 1};
    float v[4] = {5, 0, 5, 0};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, shape, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_softmax(t, &o));
    int64_t wix[8] = {0, 1, 0, 1, 1, 0, 1, 2};
    spt_test_expect_tensor(o, 2, shape, 4, wix, (float[]){0.5f, 0.5f, 0.5f, 0.5f});
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s3[1] = {3}, ix[2] = {0, 1}, s22[2] = {2, 2}, bad[2] = {0, 5};
    double v[2] = {1, 2};
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s3, 2, ix, v, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_softmax(t, &o));
    assert_null(o);
    ASSERT_MSG("Input should have rank >= 2");
    spt_tensor_free(t);
    int32_t iv[1] = {1};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s22, 1, ix, iv, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_softmax(t, &o));
    spt_tensor_free(t);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s22, 1, bad, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_softmax(t, &o));
    spt_tensor_free(t);
    ASSERT_ST(SPT_EINVAL, spt_softmax(NULL, &o));
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {3, 0};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, shape, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_softmax(t, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_property(void **state) {
    (void)state;
    mt_seed(55);
    for (int iter = 0; iter < 400; iter++) {
        spt_dtype dt = iter % 2 ? SPT_FLOAT64 : SPT_FLOAT32;
        int64_t r = 2 + mt_int(2), shape[3];
        for (int64_t d = 0; d < r; d++) shape[d] = mt_int(12) == 0 ? 0 : 1 + mt_int(4);
        spt_tensor *t = mt_rand_tensor(dt, r, shape, mt_int(14), true, mt_int(2)), *o;
        ASSERT_OK(spt_softmax(t, &o));
        assert_int_equal(spt_tensor_nnz(o), spt_tensor_nnz(t));
        int64_t n = spt_tensor_nnz(o), last = shape[r - 1];
        for (int64_t i = 0; i < n; i++) {
            /* reference: the members of i's row in the output (itself sorted) */
            int64_t row = mt_offset(o, i) / last;
            double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < spt_tensor_nnz(t); j++)
                if (mt_offset(t, j) / last == row) mx = fmax(mx, creal(mt_get(dt, spt_tensor_values(t), j)));
            for (int64_t j = 0; j < spt_tensor_nnz(t); j++)
                if (mt_offset(t, j) / last == row) sum += exp(creal(mt_get(dt, spt_tensor_values(t), j)) - mx);
            if (i > 0) assert_true(mt_offset(o, i - 1) <= mt_offset(o, i));
            /* the entry's own input value: find the k-th input entry of that cell (stable order) */
            int64_t rank_in_cell = 0;
            for (int64_t j = 0; j < i; j++) rank_in_cell += mt_offset(o, j) == mt_offset(o, i);
            double x = 0;
            for (int64_t j = 0, seen = 0; j < spt_tensor_nnz(t); j++)
                if (mt_offset(t, j) == mt_offset(o, i) && seen++ == rank_in_cell)
                    x = creal(mt_get(dt, spt_tensor_values(t), j));
            mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), exp(x - mx) / sum, "softmax", i);
        }
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status call_softmax(mt_call *c) { return spt_softmax(c->a, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(71);
    int64_t shape[2] = {5000, 60};
    spt_tensor *t = mt_big_tensor(SPT_FLOAT64, 2, shape, 150000, false);
    mt_call c = {.op = call_softmax, .a = t};
    mt_call_threads(&c); /* each row is computed by one thread: identical even for floats */
    spt_tensor_free(t);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(3);
    int64_t shape[2] = {4, 5};
    for (int sorted = 0; sorted < 2; sorted++) {
        spt_tensor *t = mt_rand_tensor(SPT_FLOAT64, 2, shape, 9, true, sorted);
        mt_call c = {.op = call_softmax, .a = t};
        mt_call_sweep(&c);
        spt_tensor_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),        cmocka_unit_test(test_unsorted_and_duplicates),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_empty),
        cmocka_unit_test(test_property),    cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result sparse_softmax(const conf_case *c) {
    spt_tensor *t = NULL, *o = NULL;
    spt_status st = conf_arg_sparse(c, "sp", NULL, &t);
    if (st != SPT_OK) {
        /* TF's kernel checks the shape's rank before the triple's consistency: ask spt_softmax about the
         * shape alone (an empty tensor of that shape); its error, if any, comes first. */
        json_t *sp = json_object_get(c->args, "sp");
        json_t *js = json_object_get(sp, "shape");
        if (!js) js = json_object_get(sp, "dense_shape");
        int64_t shape[SPT_MAX_RANK];
        long r = conf_ints(js, shape, SPT_MAX_RANK);
        spt_tensor *e = NULL;
        if (r >= 0 && spt_tensor_new(conf_dtype(sp, SPT_FLOAT64), r, shape, 0, NULL, NULL, NULL, &e) == SPT_OK) {
            spt_status st2 = spt_softmax(e, &o);
            if (st2 != SPT_OK) st = st2;
            spt_tensor_free(o);
            o = NULL;
        }
        spt_tensor_free(e);
    }
    if (st == SPT_OK) st = spt_softmax(t, &o);
    conf_result r = conf_finish(c, st, NULL, o);
    spt_tensor_free(t);
    spt_tensor_free(o);
    return r;
}

CONF_HANDLERS(test_softmax, {"sparse_softmax", sparse_softmax, CONF_OP(spt_softmax)})
#endif
