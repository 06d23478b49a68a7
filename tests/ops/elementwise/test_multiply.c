/* SPDX-License-Identifier: Apache-2.0 */
/* test_multiply.c -- spt_multiply: sparse * sparse with the intersection pattern, against a dense
 * reference. */
#include "../math_test_util.h"

static void test_example(void **state) {
    (void)state;
    /* a = [[1,0,2],[0,3,0]], b = [[5,6,0],[0,7,8]] -> [[5,0,0],[0,21,0]] */
    int64_t s[2] = {2, 3}, ia[6] = {1, 1, 0, 0, 0, 2}, ib[8] = {0, 0, 0, 1, 1, 1, 1, 2};
    double va[3] = {3, 1, 2}, vb[4] = {5, 6, 7, 8};
    spt_tensor *a, *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 3, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 4, ib, vb, NULL, &b));
    ASSERT_OK(spt_multiply(a, b, &o));
    spt_test_expect_tensor(o, 2, s, 2, (int64_t[]){0, 0, 1, 1}, (double[]){5, 21});
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_random_all_dtypes(void **state) {
    (void)state;
    mt_seed(11);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 20; trial++) {
            int64_t r = trial % 4, shape[3] = {1 + mt_int(4), 1 + mt_int(4), 1 + mt_int(3)};
            int64_t vol = mt_volume(r, shape);
            spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(vol + 1), !narrow, trial & 4);
            spt_tensor *b = mt_rand_tensor(dt, r, shape, mt_int(vol + 1), !narrow, trial & 8);
            spt_tensor *o;
            ASSERT_OK(spt_multiply(a, b, &o));
            int64_t *ca, *cb;
            double complex *da = mt_dense_sum(a, &ca), *db = mt_dense_sum(b, &cb);
            int64_t j = 0;
            for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
                int64_t off = mt_offset(o, i);
                for (; j < off; j++) assert_false(ca[j] && cb[j]);
                j = off + 1;
                assert_true(ca[off] && cb[off]);
                mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), da[off] * db[off], "multiply", i);
            }
            for (; j < vol; j++) assert_false(ca[j] && cb[j]);
            free(da);
            free(db);
            free(ca);
            free(cb);
            spt_tensor_free(o);
            spt_tensor_free(a);
            spt_tensor_free(b);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *b, *o = (spt_tensor *)1;
    int64_t ix[2] = {0, 5};
    double v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 4}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_multiply(a, b, &o));
    assert_null(o);
    ASSERT_MSG("got 3 and 4 for dimension 1");
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, (int64_t[]){2}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_multiply(a, b, &o));
    ASSERT_MSG("same rank");
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EDTYPE, spt_multiply(a, b, &o));
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, ix, &v, NULL, &b));
    ASSERT_ST(SPT_ERANGE, spt_multiply(a, b, &o));
    ASSERT_MSG("out of bounds");
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EDTYPE, spt_multiply(b, b, &o));
    spt_tensor_free(b);
    ASSERT_ST(SPT_EINVAL, spt_multiply(a, NULL, &o));
    ASSERT_ST(SPT_EINVAL, spt_multiply(a, a, NULL));
    spt_tensor_free(a);
}

static spt_status call_mul(mt_call *c) { return spt_multiply(c->a, c->b, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(4);
    int64_t s[2] = {500, 400};
    spt_tensor *a = mt_big_tensor(SPT_INT64, 2, s, 150000, false), *b = mt_big_tensor(SPT_INT64, 2, s, 150000, true);
    mt_call c = {.op = call_mul, .a = a, .b = b};
    mt_call_threads(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(6);
    int64_t s[2] = {5, 6};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT32, 2, s, 14, true, false),
               *b = mt_rand_tensor(SPT_FLOAT32, 2, s, 14, true, false);
    mt_call c = {.op = call_mul, .a = a, .b = b};
    mt_call_sweep(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example), cmocka_unit_test(test_random_all_dtypes), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threads), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
