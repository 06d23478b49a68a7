/* SPDX-License-Identifier: Apache-2.0 */
/* test_ttv.c -- spt_ttv (tensor times vector along one mode) against a dense reference. */
#include "../math_test_util.h"

static void test_random(void **state) {
    (void)state;
    mt_seed(41);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 12; trial++) {
            int64_t N = 1 + trial % 3, shape[3];
            for (int64_t d = 0; d < N; d++) shape[d] = 1 + mt_int(4);
            int64_t mode = mt_int(N);
            spt_tensor *t = mt_rand_tensor(dt, N, shape, mt_int(narrow ? 4 : 14), !narrow, trial & 1);
            spt_dense *v;
            ASSERT_OK(spt_dense_new(dt, 1, &shape[mode], &v));
            for (int64_t i = 0; i < shape[mode]; i++) mt_set(dt, spt_dense_data_mut(v), i, mt_value(dt));
            spt_tensor *o;
            ASSERT_OK(spt_ttv(t, v, mode, &o));
            /* reference over the kept cells */
            int64_t kept = 1;
            for (int64_t d = 0; d < N; d++) kept *= d == mode ? 1 : shape[d];
            double complex *ref = calloc((size_t)kept, sizeof *ref);
            bool *hit = calloc((size_t)kept, 1);
            for (int64_t e = 0; e < spt_tensor_nnz(t); e++) {
                const int64_t *ix = spt_tensor_indices(t) + e * N;
                int64_t off = 0;
                for (int64_t d = 0; d < N; d++)
                    if (d != mode) off = off * shape[d] + ix[d];
                ref[off] += mt_get(dt, spt_tensor_values(t), e) * mt_get(dt, spt_dense_data(v), ix[mode]);
                hit[off] = true;
            }
            assert_int_equal(spt_tensor_rank(o), N - 1);
            int64_t cnt = 0;
            for (int64_t c = 0; c < kept; c++) cnt += hit[c];
            assert_int_equal(spt_tensor_nnz(o), cnt);
            for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
                int64_t off = mt_offset(o, i);
                assert_true(hit[off]);
                mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), ref[off], "ttv", i);
            }
            free(ref);
            free(hit);
            spt_tensor_free(o);
            spt_dense_free(v);
            spt_tensor_free(t);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t, *o = (spt_tensor *)1;
    spt_dense *v;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, (int64_t[]){0, 3}, &(double){1}, NULL, &t));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){3}, &v));
    ASSERT_ST(SPT_ERANGE, spt_ttv(t, v, 2, &o));
    assert_null(o);
    ASSERT_MSG("mode 2 is out of range");
    ASSERT_ST(SPT_EINVAL, spt_ttv(t, v, 0, &o));
    ASSERT_MSG("length 2");
    ASSERT_ST(SPT_ERANGE, spt_ttv(t, v, 1, &o)); /* the index 3 is outside the shape */
    spt_dense_free(v);
    ASSERT_OK(spt_dense_new(SPT_INT32, 1, (int64_t[]){3}, &v));
    ASSERT_ST(SPT_EDTYPE, spt_ttv(t, v, 1, &o));
    spt_dense_free(v);
    spt_tensor_free(t);
}

static spt_status call_ttv(mt_call *c) { return spt_ttv(c->a, c->d, 1, &c->o); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(42);
    int64_t s[3] = {3, 4, 5};
    spt_tensor *t = mt_rand_tensor(SPT_FLOAT64, 3, s, 12, true, false);
    spt_dense *v;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, &s[1], &v));
    mt_call c = {.op = call_ttv, .a = t, .d = v};
    mt_call_sweep(&c);
    spt_dense_free(v);
    spt_tensor_free(t);
}

static spt_status call_thr(mt_call *c) { return spt_ttv(c->a, c->d, 1, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(77);
    int64_t s[3] = {200, 300, 100};
    spt_tensor *t = mt_big_tensor(SPT_FLOAT64, 3, s, 200000, false);
    spt_dense *u;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){300}, &u));
    for (int64_t i = 0; i < spt_dense_size(u); i++)
        mt_set(SPT_FLOAT64, spt_dense_data_mut(u), i, mt_value(SPT_FLOAT64));
    mt_call c = {.op = call_thr, .a = t, .d = u};
    mt_call_threads(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
