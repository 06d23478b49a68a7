/* SPDX-License-Identifier: Apache-2.0 */
/* test_matmul.c -- spt_sparse_dense_matmul and spt_sparse_dense_matvec (SparseTensorDenseMatMul). */
#ifndef SPT_CONFORMANCE
#include "../math_test_util.h"

static spt_dense *dmat(spt_dtype dt, int64_t r0, int64_t r1, const void *data) {
    int64_t s[2] = {r0, r1};
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(dt, 2, s, data, &d));
    return d;
}

static void expect_f32(const spt_dense *d, int64_t r0, int64_t r1, const float *want) {
    assert_int_equal(spt_dense_rank(d), 2);
    assert_int_equal(spt_dense_shape(d)[0], r0);
    assert_int_equal(spt_dense_shape(d)[1], r1);
    for (int64_t i = 0; i < r0 * r1; i++) assert_true(fabsf(((const float *)spt_dense_data(d))[i] - want[i]) < 1e-5f);
}

static void test_adjoints(void **state) {
    (void)state;
    float bv[6] = {1, 2, 3, 4, 5, 6}, btv[6] = {1, 3, 5, 2, 4, 6};
    const float want[4] = {11, 14, 15, 18};
    spt_tensor *a;
    spt_dense *b, *o;
    int64_t s23[2] = {2, 3}, ix[6] = {0, 0, 0, 2, 1, 2};
    float av[3] = {1, 2, 3};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s23, 3, ix, av, NULL, &a));
    b = dmat(SPT_FLOAT32, 3, 2, bv);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, false, &o));
    expect_f32(o, 2, 2, want);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* A^T with A = [3,2] */
    int64_t s32[2] = {3, 2}, ixt[6] = {0, 0, 2, 0, 2, 1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s32, 3, ixt, av, NULL, &a));
    b = dmat(SPT_FLOAT32, 3, 2, bv);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, true, false, &o));
    expect_f32(o, 2, 2, want);
    spt_dense_free(o);
    spt_dense_free(b);
    b = dmat(SPT_FLOAT32, 2, 3, btv);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, true, true, &o));
    expect_f32(o, 2, 2, want);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_complex_adjoint(void **state) {
    (void)state;
    int64_t s22[2] = {2, 2}, ix[4] = {0, 0, 1, 1};
    float complex av[2] = {1 + 1 * I, 2 - 1 * I}, bv[4] = {1 + 2 * I, 3, 0, 1 * I};
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX64, 2, s22, 2, ix, av, NULL, &a));
    b = dmat(SPT_COMPLEX64, 2, 2, bv);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, true, &o));
    const float complex want[4] = {3 - 1 * I, 0, 6 - 3 * I, -1 - 2 * I};
    for (int i = 0; i < 4; i++) assert_true(cabsf(((const float complex *)spt_dense_data(o))[i] - want[i]) < 1e-5f);
    spt_dense_free(o);
    /* adjoint_a conjugates A */
    ASSERT_OK(spt_sparse_dense_matmul(a, b, true, false, &o));
    const float complex want2[4] = {(1 - 1 * I) * (1 + 2 * I), (1 - 1 * I) * 3, 0, (2 + 1 * I) * (1 * I)};
    for (int i = 0; i < 4; i++) assert_true(cabsf(((const float complex *)spt_dense_data(o))[i] - want2[i]) < 1e-5f);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_duplicates_and_unsorted(void **state) {
    (void)state;
    int64_t s11[2] = {1, 1}, ix[4] = {0, 0, 0, 0};
    float av[2] = {1, 2}, bv[1] = {3};
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s11, 2, ix, av, NULL, &a));
    b = dmat(SPT_FLOAT32, 1, 1, bv);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, false, &o));
    expect_f32(o, 1, 1, (float[]){9});
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* unsorted rows */
    int64_t s32[2] = {3, 2}, uix[8] = {2, 1, 0, 0, 2, 0, 0, 1};
    int32_t iv[4] = {1, 2, 3, 4}, ib[4] = {1, 2, 3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s32, 4, uix, iv, NULL, &a));
    b = dmat(SPT_INT32, 2, 2, ib);
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, false, &o));
    /* A = [[2,4],[0,0],[3,1]] */
    const int32_t want[6] = {14, 20, 0, 0, 6, 10};
    assert_memory_equal(spt_dense_data(o), want, sizeof want);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s32[2] = {3, 2}, ix[2] = {1, 10}, s23[2] = {2, 3}, row7[2] = {7, 0}, s231[3] = {2, 3, 1},
            ix3[3] = {0, 0, 0}, one[1] = {3};
    float v = 10;
    float bv[10] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
    spt_tensor *a;
    spt_dense *b, *o = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s32, 1, ix, &v, NULL, &a));
    b = dmat(SPT_FLOAT32, 2, 5, bv);
    ASSERT_ST(SPT_ERANGE, spt_sparse_dense_matmul(a, b, false, false, &o));
    assert_null(o);
    ASSERT_MSG("k (10) from index[0,1] out of bounds (>=2)");
    spt_dense_free(b);
    spt_tensor_free(a);
    float b34[12] = {0};
    b = dmat(SPT_FLOAT32, 3, 4, b34);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s23, 1, row7, &v, NULL, &a));
    ASSERT_ST(SPT_ERANGE, spt_sparse_dense_matmul(a, b, false, false, &o));
    ASSERT_MSG("m (7) from index[0,0] out of bounds (>=2)");
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, s231, 1, ix3, &v, NULL, &a));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul(a, b, false, false, &o));
    ASSERT_MSG("Tensor 'a_shape' must have 2 elements");
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s32, 0, NULL, NULL, NULL, &a));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul(a, b, false, false, &o));
    ASSERT_MSG("Cannot multiply A and B because inner dimension does not match: 2 vs. 3");
    spt_dense *vec;
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 1, one, &vec));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul(a, vec, false, false, &o));
    ASSERT_MSG("Tensor 'b' is not a matrix");
    spt_dense_free(vec);
    spt_tensor_free(a);
    spt_dense_free(b);
    bool bb = true;
    int64_t s11[2] = {1, 1}, z[2] = {0, 0};
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 2, s11, 1, z, &bb, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_BOOL, 2, s11, &b));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_dense_matmul(a, b, false, false, &o));
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, s11, &b));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_dense_matmul(a, b, false, false, &o));
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_empty(void **state) {
    (void)state;
    int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s30[2] = {3, 0}, bad[2] = {7, 0};
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s34, &b));
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, false, &o));
    assert_int_equal(spt_dense_size(o), 8);
    for (int i = 0; i < 8; i++) assert_true(((const double *)spt_dense_data(o))[i] == 0);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* empty output: still every index is checked */
    double v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 1, bad, &v, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s30, &b));
    ASSERT_ST(SPT_ERANGE, spt_sparse_dense_matmul(a, b, false, false, &o));
    spt_tensor_free(a);
    int64_t ok[2] = {1, 2};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s23, 1, ok, &v, NULL, &a));
    ASSERT_OK(spt_sparse_dense_matmul(a, b, false, false, &o));
    assert_int_equal(spt_dense_size(o), 0);
    assert_int_equal(spt_dense_shape(o)[0], 2);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_matvec(void **state) {
    (void)state;
    int64_t s23[2] = {2, 3}, ix[6] = {0, 0, 0, 2, 1, 1}, n3[1] = {3}, n2[1] = {2};
    int64_t av[3] = {1, 2, 3}, xv[3] = {10, 20, 30}, yv[2] = {5, 7};
    spt_tensor *a;
    spt_dense *x, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s23, 3, ix, av, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, n3, xv, &x));
    ASSERT_OK(spt_sparse_dense_matvec(a, x, false, &o));
    assert_int_equal(spt_dense_rank(o), 1);
    assert_int_equal(spt_dense_shape(o)[0], 2);
    assert_memory_equal(spt_dense_data(o), ((int64_t[]){70, 60}), 16);
    spt_dense_free(o);
    spt_dense_free(x);
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, n2, yv, &x));
    ASSERT_OK(spt_sparse_dense_matvec(a, x, true, &o));
    assert_memory_equal(spt_dense_data(o), ((int64_t[]){5, 21, 10}), 24);
    spt_dense_free(o);
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matvec(a, x, false, &o));
    ASSERT_MSG("inner dimension does not match");
    spt_dense_free(x);
    int64_t s22[2] = {2, 2};
    ASSERT_OK(spt_dense_new(SPT_INT64, 2, s22, &x));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matvec(a, x, false, &o));
    spt_dense_free(x);
    spt_tensor_free(a);
}

static void test_property(void **state) {
    (void)state;
    mt_seed(909);
    for (int iter = 0; iter < 600; iter++) {
        spt_dtype dt = MT_NUMERIC[iter % MT_NNUMERIC];
        bool adj_a = mt_int(2), adj_b = mt_int(2);
        int64_t m = mt_int(5), k = mt_int(5), n = mt_int(5);
        int64_t ashape[2] = {adj_a ? k : m, adj_a ? m : k}, bshape[2] = {adj_b ? n : k, adj_b ? k : n};
        spt_tensor *a = mt_rand_tensor(dt, 2, ashape, mt_int(12), true, mt_int(2));
        spt_dense *b, *o;
        ASSERT_OK(spt_dense_new(dt, 2, bshape, &b));
        for (int64_t i = 0; i < spt_dense_size(b); i++) mt_set(dt, spt_dense_data_mut(b), i, mt_value(dt));
        ASSERT_OK(spt_sparse_dense_matmul(a, b, adj_a, adj_b, &o));
        assert_int_equal(spt_dense_shape(o)[0], m);
        assert_int_equal(spt_dense_shape(o)[1], n);
        double complex *da = mt_dense_sum(a, NULL);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex s = 0;
                for (int64_t q = 0; q < k; q++) {
                    double complex x = adj_a ? conj(da[q * m + i]) : da[i * k + q];
                    double complex y = adj_b ? conj(mt_get(dt, spt_dense_data(b), j * k + q))
                                             : mt_get(dt, spt_dense_data(b), q * n + j);
                    s += x * y;
                }
                double complex got = mt_get(dt, spt_dense_data(o), i * n + j);
                if (spt_dtype_is_integer(dt)) { /* wrap like the library */
                    unsigned char buf[16];
                    mt_set(dt, buf, 0, (double)(int64_t)creal(s));
                    s = mt_get(dt, buf, 0);
                }
                mt_assert_close(dt, got, s, "matmul", i * n + j);
            }
        free(da);
        spt_dense_free(o);
        spt_dense_free(b);
        spt_tensor_free(a);
    }
}

/* a (adjoint when flag) times d; and a times d (adjoint when flag). */
static spt_status call_matmul_adj_a(mt_call *c) { return spt_sparse_dense_matmul(c->a, c->d, c->flag, false, &c->od); }
static spt_status call_matmul_adj_b(mt_call *c) { return spt_sparse_dense_matmul(c->a, c->d, false, c->flag, &c->od); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(1001);
    int64_t shape[2] = {3000, 2000}, bs[2] = {2000, 8}, bts[2] = {3000, 8};
    const spt_dtype dts[2] = {SPT_INT32, SPT_FLOAT64};
    for (int di = 0; di < 2; di++)
        for (int sorted = 0; sorted < 2; sorted++)
            for (int adj = 0; adj < 2; adj++) {
                spt_tensor *a = mt_big_tensor(dts[di], 2, shape, 100000, sorted);
                spt_dense *b;
                ASSERT_OK(spt_dense_new(dts[di], 2, adj ? bts : bs, &b));
                for (int64_t i = 0; i < spt_dense_size(b); i++)
                    mt_set(dts[di], spt_dense_data_mut(b), i, mt_value(dts[di]));
                mt_call c = {.op = call_matmul_adj_a, .a = a, .d = b, .flag = adj};
                mt_call_threads(&c); /* per-element storage order: identical even for floats */
                spt_dense_free(b);
                spt_tensor_free(a);
            }
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(3);
    int64_t shape[2] = {4, 5}, bs[2] = {5, 3};
    spt_tensor *a = mt_rand_tensor(SPT_COMPLEX128, 2, shape, 9, true, false);
    spt_dense *b;
    ASSERT_OK(spt_dense_new(SPT_COMPLEX128, 2, bs, &b));
    mt_call c = {.op = call_matmul_adj_b, .a = a, .d = b, .flag = false};
    mt_call_sweep(&c);
    spt_dense_free(b);
    int64_t bt[2] = {3, 5};
    ASSERT_OK(spt_dense_new(SPT_COMPLEX128, 2, bt, &b));
    mt_call c2 = {.op = call_matmul_adj_b, .a = a, .d = b, .flag = true};
    mt_call_sweep(&c2);
    spt_dense_free(b);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adjoints),
        cmocka_unit_test(test_complex_adjoint),
        cmocka_unit_test(test_duplicates_and_unsorted),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_matvec),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"

static conf_result sparse_tensor_dense_matmul(const conf_case *c) {
    spt_tensor *t = NULL;
    spt_dense *d = NULL, *o = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK)
        st = spt_sparse_dense_matmul(t, d, json_is_true(json_object_get(c->args, "adjoint_a")),
                                     json_is_true(json_object_get(c->args, "adjoint_b")), &o);
    conf_result r = conf_finish(c, st, o, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    spt_dense_free(o);
    return r;
}

CONF_HANDLERS(test_matmul, {"sparse_tensor_dense_matmul", sparse_tensor_dense_matmul, CONF_OP(spt_sparse_dense_matmul)})
#endif
