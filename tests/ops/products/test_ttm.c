/* SPDX-License-Identifier: Apache-2.0 */
/* test_ttm.c -- spt_ttm (the mode-n product with a dense matrix) against a dense reference. */
#include "../math_test_util.h"

static void test_random(void **state) {
    (void)state;
    mt_seed(51);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 12; trial++) {
            int64_t N = 1 + trial % 3, shape[3], J = mt_int(4);
            for (int64_t d = 0; d < N; d++) shape[d] = 1 + mt_int(4);
            int64_t mode = mt_int(N);
            spt_tensor *t = mt_rand_tensor(dt, N, shape, mt_int(narrow ? 4 : 14), !narrow, trial & 1);
            spt_dense *u;
            ASSERT_OK(spt_dense_new(dt, 2, (int64_t[]){J, shape[mode]}, &u));
            for (int64_t i = 0; i < spt_dense_size(u); i++) mt_set(dt, spt_dense_data_mut(u), i, mt_value(dt));
            spt_tensor *o;
            ASSERT_OK(spt_ttm(t, u, mode, &o));
            int64_t os[3];
            for (int64_t d = 0; d < N; d++) os[d] = d == mode ? J : shape[d];
            int64_t ovol = mt_volume(N, os);
            double complex *ref = calloc((size_t)ovol + 1, sizeof *ref);
            bool *fib = calloc((size_t)ovol + 1, 1);
            for (int64_t e = 0; e < spt_tensor_nnz(t); e++) {
                const int64_t *ix = spt_tensor_indices(t) + e * N;
                for (int64_t j = 0; j < J; j++) {
                    int64_t off = 0;
                    for (int64_t d = 0; d < N; d++) off = off * os[d] + (d == mode ? j : ix[d]);
                    ref[off] += mt_get(dt, spt_tensor_values(t), e) *
                                mt_get(dt, spt_dense_data(u), j * shape[mode] + ix[mode]);
                    fib[off] = true;
                }
            }
            int64_t cnt = 0;
            for (int64_t c = 0; c < ovol; c++) cnt += fib[c];
            assert_int_equal(spt_tensor_nnz(o), cnt);
            for (int64_t d = 0; d < N; d++) assert_int_equal(spt_tensor_shape(o)[d], os[d]);
            assert_true(spt_tensor_known_sorted(o));
            assert_int_equal(spt_tensor_order(o)[N - 1], mode);
            spt_tensor *chk;
            ASSERT_OK(spt_tensor_clone(o, &chk));
            ASSERT_OK(spt_indices_valid(chk)); /* the recorded order is true */
            spt_tensor_free(chk);
            for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
                int64_t off = mt_offset(o, i);
                assert_true(fib[off]);
                mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), ref[off], "ttm", i);
            }
            free(ref);
            free(fib);
            spt_tensor_free(o);
            spt_dense_free(u);
            spt_tensor_free(t);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t, *o = (spt_tensor *)1;
    spt_dense *u;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, (int64_t[]){0, 1}, &(double){1}, NULL, &t));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){4, 3}, &u));
    ASSERT_ST(SPT_ERANGE, spt_ttm(t, u, -1, &o));
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_ttm(t, u, 0, &o));
    ASSERT_MSG("[J, 2]");
    ASSERT_OK(spt_ttm(t, u, 1, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 4}, 4, (int64_t[]){0, 0, 0, 1, 0, 2, 0, 3}, (double[]){0, 0, 0, 0});
    spt_tensor_free(o);
    spt_dense_free(u);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){4, 3}, &u));
    ASSERT_ST(SPT_EDTYPE, spt_ttm(t, u, 1, &o));
    spt_dense_free(u);
    spt_tensor_free(t);
    /* J so large the result's volume passes INT64_MAX: a sparse result of any volume (here empty) */
    int64_t big = (int64_t)1 << 62;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){4, 0}, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_dense_wrap(SPT_FLOAT64, 2, (int64_t[]){big, 0}, NULL, NULL, NULL, &u));
    ASSERT_OK(spt_ttm(t, u, 1, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){4, big}, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_dense_free(u);
    spt_tensor_free(t);
}

/* A tensor whose volume passes INT64_MAX ([2^62, 3, 2^62]): two fibers of J = 2 entries each, ordered by
 * the other modes then `mode`. */
static void test_any_volume(void **state) {
    (void)state;
    const int64_t P = (int64_t)1 << 62;
    spt_tensor *t, *o;
    spt_dense *u;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){P, 3, P}, 2, (int64_t[]){P - 1, 1, 5, 0, 2, P - 1},
                             (double[]){2, 3}, NULL, &t));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){2, 3}, (double[]){1, 2, 3, 4, 5, 6}, &u));
    ASSERT_OK(spt_ttm(t, u, 1, &o));
    spt_test_expect_tensor(o, 3, (int64_t[]){P, 2, P}, 4,
                           (int64_t[]){0, 0, P - 1, 0, 1, P - 1, P - 1, 0, 5, P - 1, 1, 5}, (double[]){9, 18, 4, 10});
    spt_tensor_free(o);
    spt_dense_free(u);
    spt_tensor_free(t);
}

static spt_status call_ttm(mt_call *c) { return spt_ttm(c->a, c->d, 0, &c->o); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(52);
    int64_t s[3] = {3, 4, 5};
    spt_tensor *t = mt_rand_tensor(SPT_INT16, 3, s, 12, true, false);
    spt_dense *u;
    ASSERT_OK(spt_dense_new(SPT_INT16, 2, (int64_t[]){2, 3}, &u));
    mt_call c = {.op = call_ttm, .a = t, .d = u};
    mt_call_sweep(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

static spt_status call_thr(mt_call *c) { return spt_ttm(c->a, c->d, 1, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(77);
    int64_t s[3] = {200, 300, 100};
    spt_tensor *t = mt_big_tensor(SPT_FLOAT64, 3, s, 200000, false);
    spt_dense *u;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){8, 300}, &u));
    for (int64_t i = 0; i < spt_dense_size(u); i++)
        mt_set(SPT_FLOAT64, spt_dense_data_mut(u), i, mt_value(SPT_FLOAT64));
    mt_call c = {.op = call_thr, .a = t, .d = u};
    mt_call_threads(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),  cmocka_unit_test(test_errors),      cmocka_unit_test(test_any_volume),
        cmocka_unit_test(test_threads), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
