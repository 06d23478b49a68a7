/* SPDX-License-Identifier: Apache-2.0 */
/* test_cwise_bcast.c -- spt_multiply_dense / spt_divide_dense under numpy broadcasting, against a
 * dense reference. */
#include "../math_test_util.h"

static void test_example(void **state) {
    (void)state;
    /* sparse [2,1] = [[2],[0]] (one entry) times dense [3] = [1,2,3] -> [2,3] with row 0 = [2,4,6] */
    int64_t s21[2] = {2, 1}, ix[2] = {0, 0}, s3[1] = {3};
    double v = 2, d3[3] = {1, 2, 3};
    spt_tensor *a, *o;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s21, 1, ix, &v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 1, s3, d3, &d));
    ASSERT_OK(spt_multiply_dense(a, d, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 3}, 3, (int64_t[]){0, 0, 0, 1, 0, 2}, (double[]){2, 4, 6});
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    ASSERT_OK(spt_divide_dense(a, d, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 3}, 3, (int64_t[]){0, 0, 0, 1, 0, 2}, (double[]){2, 1, 2.0 / 3});
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
}

/* For random shapes that broadcast: the result equals the dense reference at each stored cell, and
 * the stored cells are exactly the broadcast images of the sparse entries. */
static void test_random(void **state) {
    (void)state;
    mt_seed(13);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        for (int trial = 0; trial < 30; trial++) {
            int64_t ra = mt_int(4), rd = mt_int(4), R = ra > rd ? ra : rd, os[3], as[3], ds[3];
            for (int64_t k = 0; k < R; k++) {
                os[k] = 1 + mt_int(3);
                as[k] = mt_int(3) == 0 ? 1 : os[k];
                ds[k] = mt_int(3) == 0 ? 1 : os[k];
                if (as[k] != os[k] && ds[k] != os[k]) ds[k] = os[k];
            }
            spt_tensor *a = mt_rand_tensor(dt, ra, as + (R - ra), mt_int(mt_volume(ra, as + (R - ra)) + 1), false,
                                           trial & 1);
            spt_dense *d;
            ASSERT_OK(spt_dense_new(dt, rd, ds + (R - rd), &d));
            int64_t dv = spt_dense_size(d);
            for (int64_t i = 0; i < dv; i++) {
                double complex x = mt_value(dt);
                if (creal(x) == 0) x += 1; /* no zero divisors */
                mt_set(dt, spt_dense_data_mut(d), i, x);
            }
            for (int op = 0; op < 2; op++) {
                spt_tensor *o;
                ASSERT_OK((op ? spt_divide_dense : spt_multiply_dense)(a, d, &o));
                int64_t F = 1;
                for (int64_t k = 0; k < R; k++) {
                    int64_t ak = k < R - ra ? 1 : as[k];
                    assert_int_equal(spt_tensor_shape(o)[k], ak == 1 ? (k < R - rd ? 1 : ds[k]) > ak ? ds[k] : ak : ak);
                    if (ak == 1 && spt_tensor_shape(o)[k] > 1) F *= spt_tensor_shape(o)[k];
                }
                assert_int_equal(spt_tensor_nnz(o), spt_tensor_nnz(a) * F);
                for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
                    const int64_t *oi = spt_tensor_indices(o) + i * R;
                    /* the sparse entry it comes from: same index in the non-broadcast dims */
                    int64_t src = -1;
                    for (int64_t e = 0; e < spt_tensor_nnz(a) && src < 0; e++) {
                        bool same = true;
                        for (int64_t k = R - ra; k < R; k++)
                            if (as[k] != 1 && spt_tensor_indices(a)[e * ra + k - (R - ra)] != oi[k]) same = false;
                        if (same) src = e;
                    }
                    assert_true(src >= 0);
                    int64_t doff = 0;
                    for (int64_t k = R - rd; k < R; k++) doff = doff * ds[k] + (ds[k] == 1 ? 0 : oi[k]);
                    double complex x = mt_get(dt, spt_tensor_values(a), src), y = mt_get(dt, spt_dense_data(d), doff);
                    double complex want = op ? x / y : x * y;
                    if (op && !spt_dtype_is_float(dt) && !spt_dtype_is_complex(dt)) want = trunc(creal(x) / creal(y));
                    mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), want, op ? "divide" : "multiply", i);
                }
                spt_tensor_free(o);
            }
            spt_dense_free(d);
            spt_tensor_free(a);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *o = (spt_tensor *)1;
    spt_dense *d;
    int64_t ix[2] = {1, 1};
    int32_t v = 7, z[4] = {1, 1, 1, 0};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, (int64_t[]){2, 2}, 1, ix, &v, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_INT32, 1, (int64_t[]){3}, &d));
    ASSERT_ST(SPT_EINVAL, spt_multiply_dense(a, d, &o));
    assert_null(o);
    ASSERT_MSG("do not broadcast: dim 1 is 2 vs 3");
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new_from(SPT_INT32, 2, (int64_t[]){2, 2}, z, &d));
    ASSERT_ST(SPT_EINVAL, spt_divide_dense(a, d, &o));
    ASSERT_MSG("integer division by zero at output index [1,1]");
    ASSERT_OK(spt_multiply_dense(a, d, &o));
    spt_tensor_free(o);
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){2, 2}, &d));
    ASSERT_ST(SPT_EDTYPE, spt_multiply_dense(a, d, &o));
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new_from(SPT_INT32, 0, NULL, &v, &d));
    ASSERT_OK(spt_multiply_dense(a, d, &o)); /* scalar dense: same pattern */
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 2}, 1, ix, (int32_t[]){49});
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, (int64_t[]){1, 1}, 1, (int64_t[]){0, 0}, &v, NULL, &a));
    spt_dense *w;
    ASSERT_OK(spt_dense_wrap(SPT_INT32, 2, (int64_t[]){2, 1}, z, NULL, NULL, &w));
    ASSERT_OK(spt_multiply_dense(a, w, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 1}, 2, (int64_t[]){0, 0, 1, 0}, (int32_t[]){7, 7});
    spt_tensor_free(o);
    spt_dense_free(w);
    spt_tensor_free(a);
}

/* The output is sparse, so its broadcast shape may have any volume: FROSTT nell-1's dims (and a dim of 1)
 * against a dense [1, 3, 1, 1] (the sparse dim of 1 broadcast to 3), rank 6 of 2^62 against a dense scalar-like
 * operand. */
static void test_any_volume(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t nell[4] = {2902330, 1, 25495389, 2143368}, ix[8] = {2902329, 0, 25495388, 2143367, 0, 0, 7, 0};
    double v[2] = {2, 3}, d3[3] = {1, 10, 100};
    spt_tensor *a, *o;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 4, nell, 2, ix, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 4, (int64_t[]){1, 3, 1, 1}, d3, &d));
    ASSERT_OK(spt_multiply_dense(a, d, &o));
    spt_test_expect_tensor(o, 4, (int64_t[]){2902330, 3, 25495389, 2143368}, 6,
                           (int64_t[]){0,       0, 7,        0,       0,       1, 7,        0,
                                       0,       2, 7,        0,       2902329, 0, 25495388, 2143367,
                                       2902329, 1, 25495388, 2143367, 2902329, 2, 25495388, 2143367},
                           (double[]){3, 30, 300, 2, 20, 200});
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
    int64_t r6[6] = {P62, P62, P62, P62, P62, P62}, ix6[6] = {P62 - 1, 0, 5, 0, 0, P62 - 1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 6, r6, 1, ix6, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 1, (int64_t[]){1}, (double[]){4}, &d));
    ASSERT_OK(spt_divide_dense(a, d, &o));
    spt_test_expect_tensor(o, 6, r6, 1, ix6, (double[]){0.5});
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
}

static spt_status call_mul(mt_call *c) { return spt_multiply_dense(c->a, c->d, &c->o); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(8);
    int64_t s[3] = {3, 1, 4}, ds[2] = {5, 1};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 3, s, 6, false, false);
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, ds, &d));
    mt_call c = {.op = call_mul, .a = a, .d = d};
    mt_call_sweep(&c);
    spt_dense_free(d);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),    cmocka_unit_test(test_random),      cmocka_unit_test(test_errors),
        cmocka_unit_test(test_any_volume), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
