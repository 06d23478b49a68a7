/* SPDX-License-Identifier: Apache-2.0 */
/* test_cwise.c -- spt_sparse_dense_cwise_{mul,div,add} (SparseDenseCwise*). */
#ifndef SPT_CONFORMANCE
#include "../math_test_util.h"

typedef spt_status (*cw_fn)(const spt_tensor *, const spt_dense *, spt_tensor **);

static void test_broadcast(void **state) {
    (void)state;
    int64_t shape[2] = {3, 2}, ix[8] = {0, 1, 1, 0, 2, 0, 2, 1}, d2[1] = {2}, d31[2] = {3, 1};
    float v[4] = {1, 2, 3, 4}, row[2] = {2, 4}, col[3] = {1, 2, 4};
    spt_tensor *a, *o;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, shape, 4, ix, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT32, 1, d2, row, &d));
    ASSERT_OK(spt_sparse_dense_cwise_div(a, d, &o));
    spt_test_expect_tensor(o, 2, shape, 4, ix, (float[]){0.25f, 1, 1.5f, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_sparse_dense_cwise_mul(a, d, &o));
    spt_test_expect_tensor(o, 2, shape, 4, ix, (float[]){4, 4, 6, 16});
    spt_tensor_free(o);
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT32, 2, d31, col, &d));
    ASSERT_OK(spt_sparse_dense_cwise_add(a, d, &o));
    spt_test_expect_tensor(o, 2, shape, 4, ix, (float[]){2, 4, 7, 8});
    spt_tensor_free(o);
    spt_dense_free(d);
    /* a scalar dense operand */
    float two = 2;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT32, 0, NULL, &two, &d));
    ASSERT_OK(spt_sparse_dense_cwise_mul(a, d, &o));
    spt_test_expect_tensor(o, 2, shape, 4, ix, (float[]){2, 4, 6, 8});
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
}

static void test_integer_division(void **state) {
    (void)state;
    int64_t shape[1] = {4}, ix[3] = {0, 1, 3}, d1[1] = {1};
    int64_t v[3] = {-7, INT64_MIN, 9}, dv = -2, zero = 0, m1 = -1;
    spt_tensor *a, *o = (spt_tensor *)1;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, shape, 3, ix, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d1, &dv, &d));
    ASSERT_OK(spt_sparse_dense_cwise_div(a, d, &o));
    spt_test_expect_tensor(o, 1, shape, 3, ix, (int64_t[]){3, INT64_MIN / -2, -4}); /* truncation */
    spt_tensor_free(o);
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d1, &m1, &d));
    ASSERT_OK(spt_sparse_dense_cwise_div(a, d, &o)); /* MIN / -1 wraps */
    spt_test_expect_tensor(o, 1, shape, 3, ix, (int64_t[]){7, INT64_MIN, -9});
    spt_tensor_free(o);
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d1, &zero, &d));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_div(a, d, &o));
    assert_null(o);
    ASSERT_MSG("integer division by zero at entry 0");
    spt_dense_free(d);
    spt_tensor_free(a);
    /* floats follow IEEE */
    double fv[1] = {1}, fz = 0;
    int64_t fix[1] = {2};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, shape, 1, fix, fv, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 1, d1, &fz, &d));
    ASSERT_OK(spt_sparse_dense_cwise_div(a, d, &o));
    assert_true(isinf(((const double *)spt_tensor_values(o))[0]));
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s1[1] = {1}, s21[2] = {2, 1}, s1142[4] = {1, 1, 4, 2}, s341[3] = {3, 4, 1}, ix1[1] = {0},
            ix4[8] = {0, 0, 1, 0, 0, 0, 3, 0}, s22[2] = {2, 2}, bad[2] = {0, 2}, s3[1] = {3};
    float v = 1618;
    int32_t iv[2] = {10, 20};
    spt_tensor *a, *o = (spt_tensor *)1;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 1, s1, 1, ix1, &v, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, s21, &d));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_div(a, d, &o));
    assert_null(o);
    ASSERT_MSG("broadcasts dense to sparse only");
    spt_dense_free(d);
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_INT32, 4, s1142, 2, ix4, iv, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_INT32, 3, s341, &d));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_mul(a, d, &o));
    ASSERT_MSG("got incompatible shapes: [1,1,4,2] vs. [3,4,1]");
    spt_dense_free(d);
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s22, 1, bad, &v, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, s22, &d));
    ASSERT_ST(SPT_ERANGE, spt_sparse_dense_cwise_mul(a, d, &o));
    ASSERT_MSG("Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape");
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 1, s3, &d));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_mul(a, d, &o));
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, s1, &d));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_dense_cwise_add(a, d, &o));
    spt_dense_free(d);
    spt_tensor_free(a);
    double _Complex z = 1;
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 1, s1, 1, ix1, &z, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_COMPLEX128, 1, s1, &d));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_dense_cwise_mul(a, d, &o));
    spt_dense_free(d);
    spt_tensor_free(a);
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {0, 3}, d1[1] = {3};
    spt_tensor *a, *o;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_UINT32, 2, shape, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_UINT32, 1, d1, &d));
    ASSERT_OK(spt_sparse_dense_cwise_div(a, d, &o)); /* no entry, no division */
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_dense_free(d);
    /* TensorFlow's one-way rule: a dense 1 against a sparse 0 is refused, a dense 0 against a sparse 0
     * (or 1 when nothing is stored) taken */
    int64_t d13[2] = {1, 3}, d03[2] = {0, 3}, d0[1] = {0}, s31[2] = {3, 1}, ix0[2] = {2, 0};
    ASSERT_OK(spt_dense_new(SPT_UINT32, 2, d13, &d));
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_mul(a, d, &o)); /* [0,3] vs [1,3] */
    assert_null(o);
    ASSERT_MSG("broadcasts dense to sparse only");
    spt_dense_free(d);
    ASSERT_OK(spt_dense_new(SPT_UINT32, 2, d03, &d));
    ASSERT_OK(spt_sparse_dense_cwise_add(a, d, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(a);
    uint32_t one = 1;
    ASSERT_OK(spt_dense_new(SPT_UINT32, 1, d0, &d));
    ASSERT_OK(spt_tensor_new(SPT_UINT32, 2, s31, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_sparse_dense_cwise_mul(a, d, &o)); /* [3,1] vs [0], nothing stored */
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
    ASSERT_OK(spt_tensor_new(SPT_UINT32, 2, s31, 1, ix0, &one, NULL, &a));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_mul(a, d, &o)); /* the entry meets no dense element */
    assert_null(o);
    ASSERT_MSG("meets no element of the dense operand");
    spt_dense_free(d);
    spt_tensor_free(a);
    /* rank 0 sparse: refused, as TensorFlow ("the shape argument requires at least one element") */
    ASSERT_OK(spt_tensor_new(SPT_UINT32, 0, NULL, 1, NULL, &one, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_UINT32, 0, NULL, &d));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_cwise_add(a, d, &o));
    ASSERT_MSG("rank >= 1");
    spt_dense_free(d);
    spt_tensor_free(a);
}

static double complex ref_op(int op, spt_dtype dt, double complex x, double complex y) {
    if (op == 0) return x * y;
    if (op == 2) return x + y;
    if (spt_dtype_is_integer(dt)) return (double)((int64_t)creal(x) / (int64_t)creal(y));
    return x / y;
}

static void test_property(void **state) {
    (void)state;
    static const spt_dtype dts[] = {SPT_INT8,   SPT_INT16,  SPT_INT32,  SPT_INT64,   SPT_UINT8,
                                    SPT_UINT16, SPT_UINT32, SPT_UINT64, SPT_FLOAT32, SPT_FLOAT64};
    cw_fn fns[3] = {spt_sparse_dense_cwise_mul, spt_sparse_dense_cwise_div, spt_sparse_dense_cwise_add};
    mt_seed(1234);
    for (int iter = 0; iter < 900; iter++) {
        spt_dtype dt = dts[iter % 10];
        int op = iter / 10 % 3;
        int64_t r = 1 + mt_int(3), shape[3], dr = mt_int(r + 1), dshape[3];
        for (int64_t k = 0; k < r; k++) shape[k] = 1 + mt_int(4);
        for (int64_t j = 0; j < dr; j++) dshape[j] = mt_int(2) ? shape[r - dr + j] : 1;
        spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(10), true, mt_int(2)), *o;
        spt_dense *d;
        ASSERT_OK(spt_dense_new(dt, dr, dshape, &d));
        for (int64_t i = 0; i < spt_dense_size(d); i++) {
            double complex x = mt_value(dt);
            if (op == 1 && creal(x) == 0) x = 3; /* no division by zero here */
            mt_set(dt, spt_dense_data_mut(d), i, x);
        }
        ASSERT_OK(fns[op](a, d, &o));
        for (int64_t i = 0; i < spt_tensor_nnz(a); i++) {
            int64_t off = 0;
            for (int64_t j = 0; j < dr; j++) {
                int64_t k = r - dr + j, c = dshape[j] == 1 ? 0 : spt_tensor_indices(a)[i * r + k];
                off = off * dshape[j] + c;
            }
            double complex want = ref_op(op, dt, mt_get(dt, spt_tensor_values(a), i),
                                         mt_get(dt, spt_dense_data(d), off));
            /* unsigned results wrap: compare modulo the type */
            double complex got = mt_get(dt, spt_tensor_values(o), i);
            if (mt_unsigned(dt) || spt_dtype_is_integer(dt)) {
                unsigned char buf[16];
                mt_set(dt, buf, 0, want);
                want = mt_get(dt, buf, 0);
            }
            mt_assert_close(dt, got, want, "cwise", i);
        }
        if (spt_tensor_nnz(a) && r)
            assert_memory_equal(spt_tensor_indices(o), spt_tensor_indices(a), (size_t)(spt_tensor_nnz(a) * r) * 8);
        spt_tensor_free(o);
        spt_dense_free(d);
        spt_tensor_free(a);
    }
}

static spt_status call_div(mt_call *c) { return spt_sparse_dense_cwise_div(c->a, c->d, &c->o); }
static spt_status call_mul(mt_call *c) { return spt_sparse_dense_cwise_mul(c->a, c->d, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(17);
    int64_t shape[2] = {300, 400}, d1[1] = {400};
    spt_tensor *a = mt_big_tensor(SPT_INT32, 2, shape, 200000, false);
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_INT32, 1, d1, &d));
    for (int64_t i = 0; i < 400; i++) ((int32_t *)spt_dense_data_mut(d))[i] = (int32_t)(i % 7) + 1;
    mt_call c = {.op = call_div, .a = a, .d = d};
    mt_call_threads(&c);
    spt_dense_free(d);
    spt_tensor_free(a);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(3);
    int64_t shape[2] = {4, 5}, d1[1] = {5};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 2, shape, 9, true, false);
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, d1, &d));
    mt_call c = {.op = call_mul, .a = a, .d = d};
    mt_call_sweep(&c);
    spt_dense_free(d);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast),   cmocka_unit_test(test_integer_division), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),       cmocka_unit_test(test_property),         cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

static conf_result cwise_mul(const conf_case *c) { return conf_cwise(c, 0); }

static conf_result cwise_div(const conf_case *c) { return conf_cwise(c, 1); }

static conf_result cwise_add(const conf_case *c) { return conf_cwise(c, 2); }

CONF_HANDLERS(test_cwise, {"sparse_dense_cwise_mul", cwise_mul, CONF_OP(spt_sparse_dense_cwise_mul)},
              {"sparse_dense_cwise_div", cwise_div, CONF_OP(spt_sparse_dense_cwise_div)},
              {"sparse_dense_cwise_add", cwise_add, CONF_OP(spt_sparse_dense_cwise_add)})
#endif
