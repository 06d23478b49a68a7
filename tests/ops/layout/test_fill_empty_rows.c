/* SPDX-License-Identifier: Apache-2.0 */
/* test_fill_empty_rows.c -- SparseFillEmptyRows: defaults for empty rows, stable bucketing by row,
 * pass-through, indicator and reverse index map. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

static void expect_bools(const spt_dense *d, int64_t n, const bool *want) {
    assert_int_equal(spt_dense_size(d), n);
    for (int64_t i = 0; i < n; i++) assert_int_equal(((const bool *)spt_dense_data(d))[i], want[i]);
}
static void expect_i64(const spt_dense *d, int64_t n, const int64_t *want) {
    assert_int_equal(spt_dense_size(d), n);
    for (int64_t i = 0; i < n; i++) assert_int_equal(((const int64_t *)spt_dense_data(d))[i], want[i]);
}

/* sparse_ops_test.py testFillNumber (and the seed 003 example). */
static void test_fill_number(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[12] = {0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3};
    int32_t v[6] = {0, 10, 13, 14, 32, 33}, dv = -1;
    spt_tensor *t, *o;
    spt_dense *ind, *rev;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 6, ix, v, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    int64_t wi[16] = {0, 0, 1, 0, 1, 3, 1, 4, 2, 0, 3, 2, 3, 3, 4, 0};
    int32_t wv[8] = {0, 10, 13, 14, -1, 32, 33, -1};
    spt_test_expect_tensor(o, 2, s, 8, wi, wv);
    bool wind[5] = {false, false, true, false, true};
    int64_t wrev[6] = {0, 1, 2, 3, 5, 6};
    expect_bools(ind, 5, wind);
    expect_i64(rev, 6, wrev);
    lt_expect_row_major(o); /* it happens to be fully sorted */
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    /* optional outputs */
    ASSERT_OK(spt_fill_empty_rows(t, NULL, &o, NULL, NULL));
    int32_t wv0[8] = {0, 10, 13, 14, 0, 32, 33, 0};
    spt_test_expect_tensor(o, 2, s, 8, wi, wv0);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* The seed-003 reference example: rows 1 and 4 of a [5,6] string tensor are empty. */
static void test_seed003_example(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[8] = {0, 1, 0, 3, 2, 0, 3, 1};
    spt_str v[4] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}}, dv = {"default_value", 13};
    spt_tensor *t, *o;
    spt_dense *ind;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, NULL));
    int64_t wi[12] = {0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0};
    spt_str wv[6] = {{"a", 1}, {"b", 1}, {"default_value", 13}, {"c", 1}, {"d", 1}, {"default_value", 13}};
    bool wind[5] = {false, true, false, false, true};
    spt_test_expect_tensor(o, 2, s, 6, wi, wv);
    expect_bools(ind, 5, wind);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_tensor_free(t);
}

/* testUnordered: columns inside a row keep input order; testNoEmptyRowsAndUnordered. */
static void test_unordered(void **state) {
    (void)state;
    int64_t s[2] = {3, 5}, ix[8] = {2, 3, 2, 2, 0, 1, 0, 3}, v[4] = {1, 3, 2, 4}, dv = -1;
    spt_tensor *t, *o;
    spt_dense *ind, *rev;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    int64_t wi[10] = {0, 1, 0, 3, 1, 0, 2, 3, 2, 2}, wv[5] = {2, 4, -1, 1, 3}, wrev[4] = {3, 4, 0, 1};
    bool wind[3] = {false, true, false};
    spt_test_expect_tensor(o, 2, s, 5, wi, wv);
    expect_bools(ind, 3, wind);
    expect_i64(rev, 4, wrev);
    assert_int_equal(spt_tensor_order(o)[0], -1); /* not row-major sorted: [2,3] before [2,2] */
    assert_true(spt_tensor_known_valid(o));
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
    int64_t s2[2] = {2, 5}, ix2[8] = {1, 2, 1, 3, 0, 1, 0, 3};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s2, 4, ix2, v, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    int64_t wi2[8] = {0, 1, 0, 3, 1, 2, 1, 3}, wv2[4] = {2, 4, 1, 3}, wrev2[4] = {2, 3, 0, 1};
    bool wind2[2] = {false, false};
    spt_test_expect_tensor(o, 2, s2, 4, wi2, wv2);
    expect_bools(ind, 2, wind2);
    expect_i64(rev, 4, wrev2);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
}

/* Pass-through: rows non-decreasing and none empty: the input as it is (columns unsorted). */
static void test_pass_through_strings(void **state) {
    (void)state;
    int64_t s[2] = {2, 4}, ix[6] = {0, 3, 0, 1, 1, 0};
    spt_str v[3] = {{"a", 1}, {"bc", 2}, {"", 0}}, dv = {"dflt", 4};
    spt_tensor *t, *o;
    spt_dense *ind, *rev;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    spt_tensor_free(t);
    spt_test_expect_tensor(o, 2, s, 3, ix, v);
    int64_t wrev[3] = {0, 1, 2};
    bool wind[2] = {false, false};
    expect_i64(rev, 3, wrev);
    expect_bools(ind, 2, wind);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    /* testFillString: empty rows get the (copied) default string */
    int64_t s3[2] = {3, 2}, ix3[2] = {1, 1};
    spt_str v3[1] = {{"x", 1}};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s3, 1, ix3, v3, NULL, &t));
    char buf[5] = "dflt";
    spt_str dv2 = {buf, 4};
    ASSERT_OK(spt_fill_empty_rows(t, &dv2, &o, NULL, NULL));
    buf[0] = 'X';
    int64_t wi3[6] = {0, 0, 1, 1, 2, 0};
    spt_str wv3[3] = {{"dflt", 4}, {"x", 1}, {"dflt", 4}};
    spt_test_expect_tensor(o, 2, s3, 3, wi3, wv3);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_empty_and_errors(void **state) {
    (void)state;
    int64_t s[3] = {3, 2, 2};
    double dv = 7;
    spt_tensor *t, *o = (spt_tensor *)1;
    spt_dense *ind = (spt_dense *)1, *rev = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    int64_t wi[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    double wv[3] = {7, 7, 7};
    spt_test_expect_tensor(o, 3, s, 3, wi, wv);
    assert_int_equal(spt_dense_size(rev), 0);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
    int64_t z[2] = {0, 5};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, z, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    assert_int_equal(spt_tensor_nnz(o), 0);
    assert_int_equal(spt_dense_size(ind), 0);
    spt_tensor_free(o);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
    /* errors */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
    assert_null(o);
    assert_null(ind);
    assert_null(rev);
    ASSERT_MSG("Dense shape cannot be empty");
    spt_tensor_free(t);
    int64_t s2[2] = {2, 5}, ix[8] = {1, 2, 1, 3, 99, 1, 99, 3};
    double v[4] = {1, 3, 2, 4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 4, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_fill_empty_rows(t, &dv, &o, NULL, NULL)); /* testInvalidIndices */
    ASSERT_MSG("indices(2, 0) is invalid: 99 >= 2");
    spt_tensor_free(t);
    int64_t ix2[2] = {1, 5};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 1, ix2, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_fill_empty_rows(t, &dv, &o, NULL, NULL)); /* other columns are checked too */
    ASSERT_MSG("out of bounds");
    ASSERT_ST(SPT_EINVAL, spt_fill_empty_rows(t, &dv, NULL, NULL, NULL));
    ASSERT_ST(SPT_EINVAL, spt_fill_empty_rows(NULL, &dv, &o, NULL, NULL));
    spt_tensor_free(t);
}

/* Property: dense content = input plus defaults at [q,0..] for empty rows; entries grouped by row in
 * input order; reverse map points at each entry's copy. */
static void test_property(void **state) {
    (void)state;
    lt_rng g = {1618};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3];
        lt_rand_shape(&g, r, 1, 5, sh);
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 25, lt_int(&g, 2)), *o;
        spt_dense *ind, *rev;
        int64_t dv = -5;
        ASSERT_OK(spt_fill_empty_rows(t, &dv, &o, &ind, &rev));
        int64_t vol = lt_volume(r, sh), rows = sh[0], n = spt_tensor_nnz(t), *want = lt_dense(t), idx[3] = {0, 0, 0};
        int64_t *cnt = calloc((size_t)rows, sizeof *cnt);
        for (int64_t i = 0; i < n; i++) cnt[spt_tensor_indices(t)[i * r]]++;
        for (int64_t q = 0; q < rows; q++) {
            assert_int_equal(((const bool *)spt_dense_data(ind))[q], cnt[q] == 0);
            if (cnt[q] == 0) {
                idx[0] = q;
                want[lt_offset(r, sh, idx)] = dv;
            }
        }
        (void)vol;
        lt_expect_dense(o, r, sh, want);
        lt_check_claims(o);
        const int64_t *rm = spt_dense_data(rev), *oi = spt_tensor_indices(o);
        for (int64_t i = 0; i < n; i++) {
            assert_memory_equal(oi + rm[i] * r, spt_tensor_indices(t) + i * r, (size_t)r * 8);
            assert_int_equal(((const int64_t *)spt_tensor_values(o))[rm[i]],
                             ((const int64_t *)spt_tensor_values(t))[i]);
            if (i > 0 && spt_tensor_indices(t)[i * r] == spt_tensor_indices(t)[(i - 1) * r])
                assert_true(rm[i] > rm[i - 1]);
        }
        for (int64_t k = 1; k < spt_tensor_nnz(o); k++) assert_true(oi[(k - 1) * r] <= oi[k * r]);
        free(cnt);
        free(want);
        spt_tensor_free(o);
        spt_dense_free(ind);
        spt_dense_free(rev);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) {
    spt_str dv = {"zz", 2};
    return spt_fill_empty_rows(x->in[0], &dv, &x->out[0], &x->dout[0], &x->dout[1]);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t s[2] = {4, 3}, ix[6] = {3, 2, 0, 1, 3, 0};
    spt_str v[3] = {{"ab", 2}, {"c", 1}, {"", 0}};
    spt_tensor *a;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 3, ix, v, NULL, &a));
    lt_sweep x = {.op = sweep_op, .in = {a}};
    lt_alloc_sweep(&x);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_number),      cmocka_unit_test(test_unordered),
        cmocka_unit_test(test_seed003_example),  cmocka_unit_test(test_pass_through_strings),
        cmocka_unit_test(test_empty_and_errors), cmocka_unit_test(test_property),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_fill_empty_rows(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_dense *dv = NULL, *ind = NULL, *rev = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    st = conf_dense(json_object_get(c->args, "default_value"), spt_tensor_dtype(t), &dv);
    if (st == SPT_OK && spt_dense_rank(dv) != 0)
        st = spt__err(SPT_EINVAL, "spt_fill_empty_rows: default_value must be a scalar, saw rank %lld",
                      (long long)spt_dense_rank(dv));
    if (st == SPT_OK) st = spt_fill_empty_rows(t, spt_dense_data(dv), &out, &ind, &rev);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        r = conf_layout_sparse(c, exp, out);
        json_t *je = exp ? json_object_get(exp, "empty_row_indicator") : NULL;
        if (r == CONF_PASS && je)
            r = conf_expect_values(c, je, SPT_BOOL, spt_dense_data(ind), spt_dense_size(ind), NULL);
        json_t *jr = exp ? json_object_get(exp, "reverse_index_map") : NULL;
        if (r == CONF_PASS && jr)
            r = conf_expect_values(c, jr, SPT_INT64, spt_dense_data(rev), spt_dense_size(rev), NULL);
    }
    spt_tensor_free(out);
    spt_dense_free(dv);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_fill_empty_rows, {"sparse_fill_empty_rows", sparse_fill_empty_rows, CONF_OP(spt_fill_empty_rows)})
#endif
