/* SPDX-License-Identifier: Apache-2.0 */
/* test_bmm.c -- spt_sparse_dense_bmm (batched sparse x dense, as torch.bmm) against a dense reference. */
#include "../math_test_util.h"

static void check_bmm(const spt_tensor *a, const spt_dense *b, bool adja, bool adjb, const spt_dense *o) {
    spt_dtype dt = spt_tensor_dtype(a);
    const int64_t *as = spt_tensor_shape(a), *bsh = spt_dense_shape(b);
    bool shared = spt_dense_rank(b) == 2;
    int64_t P = as[0], M = as[1 + adja], K = as[2 - adja], b0 = bsh[!shared], b1 = bsh[1 + !shared], N = adjb ? b0 : b1;
    assert_int_equal(spt_dense_rank(o), 3);
    assert_int_equal(spt_dense_shape(o)[0], P);
    assert_int_equal(spt_dense_shape(o)[1], M);
    assert_int_equal(spt_dense_shape(o)[2], N);
    double complex *da = mt_dense_sum(a, NULL);
    for (int64_t p = 0; p < P; p++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                double complex s = 0;
                for (int64_t k = 0; k < K; k++) {
                    double complex x = da[p * as[1] * as[2] + (adja ? k * as[2] + m : m * as[2] + k)];
                    int64_t bo = (shared ? 0 : p * b0 * b1) + (adjb ? n * b1 + k : k * b1 + n);
                    double complex y = mt_get(dt, spt_dense_data(b), bo);
                    s += (adja ? conj(x) : x) * (adjb ? conj(y) : y);
                }
                mt_assert_close(dt, mt_get(dt, spt_dense_data(o), (p * M + m) * N + n), s, "bmm", (p * M + m) * N + n);
            }
    free(da);
}

static void test_random(void **state) {
    (void)state;
    mt_seed(21);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 16; trial++) {
            bool adja = trial & 1, adjb = trial & 2, shared = trial & 4, sorted = trial & 8;
            int64_t P = 1 + mt_int(3), M = mt_int(4), K = 1 + mt_int(narrow ? 2 : 4), N = mt_int(4);
            int64_t sa[3] = {P, adja ? K : M, adja ? M : K}, sb[3] = {P, adjb ? N : K, adjb ? K : N};
            spt_tensor *a = mt_rand_tensor(dt, 3, sa, mt_int(10), !narrow, sorted);
            spt_dense *b;
            ASSERT_OK(spt_dense_new(dt, shared ? 2 : 3, shared ? sb + 1 : sb, &b));
            for (int64_t i = 0; i < spt_dense_size(b); i++) mt_set(dt, spt_dense_data_mut(b), i, mt_value(dt));
            spt_dense *o;
            ASSERT_OK(spt_sparse_dense_bmm(a, b, adja, adjb, &o));
            check_bmm(a, b, adja, adjb, o);
            spt_dense_free(o);
            spt_dense_free(b);
            spt_tensor_free(a);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *a2;
    spt_dense *b, *o = (spt_dense *)1;
    int64_t ix[3] = {0, 1, 5};
    float v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, (int64_t[]){2, 2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 3, (int64_t[]){3, 3, 4}, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_bmm(a, b, false, false, &o));
    assert_null(o);
    ASSERT_MSG("batch sizes differ: 2 vs 3");
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){4, 4}, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_bmm(a, b, false, false, &o));
    ASSERT_MSG("inner dimension does not match: 3 vs. 4");
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 1, (int64_t[]){3}, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_bmm(a, b, false, false, &o));
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 3}, &b));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_dense_bmm(a, b, false, false, &o));
    spt_dense_free(b);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a2));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){3, 3}, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_bmm(a2, b, false, false, &o));
    ASSERT_MSG("rank 3");
    spt_tensor_free(a2);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, (int64_t[]){2, 2, 3}, 1, ix, &v, NULL, &a2));
    ASSERT_ST(SPT_ERANGE, spt_sparse_dense_bmm(a2, b, false, false, &o));
    ASSERT_MSG("out of bounds");
    spt_tensor_free(a2);
    spt_dense_free(b);
    /* output volume overflow: a huge batch of huge matrices, no entries */
    int64_t big = (int64_t)1 << 30;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, (int64_t[]){big, big, 0}, 0, NULL, NULL, NULL, &a2));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){0, big}, &b));
    ASSERT_ST(SPT_EOVERFLOW, spt_sparse_dense_bmm(a2, b, false, false, &o));
    ASSERT_MSG("does not fit");
    spt_tensor_free(a2);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static spt_status call_bmm(mt_call *c) { return spt_sparse_dense_bmm(c->a, c->d, c->flag, false, &c->od); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(9);
    int64_t sa[3] = {8, 100, 100}, sb[3] = {8, 100, 16};
    spt_tensor *a = mt_big_tensor(SPT_FLOAT64, 3, sa, 40000, false);
    spt_dense *b;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 3, sb, &b));
    for (int64_t i = 0; i < spt_dense_size(b); i++)
        mt_set(SPT_FLOAT64, spt_dense_data_mut(b), i, mt_value(SPT_FLOAT64));
    mt_call c = {.op = call_bmm, .a = a, .d = b};
    mt_call_threads(&c);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(10);
    int64_t sa[3] = {2, 3, 4}, sb[3] = {2, 3, 5};
    spt_tensor *a = mt_rand_tensor(SPT_COMPLEX64, 3, sa, 8, true, false);
    spt_dense *b;
    ASSERT_OK(spt_dense_new(SPT_COMPLEX64, 3, sb, &b));
    mt_call c = {.op = call_bmm, .a = a, .d = b, .flag = true};
    mt_call_sweep(&c);
    spt_dense_free(b);
    spt_tensor_free(a);
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
