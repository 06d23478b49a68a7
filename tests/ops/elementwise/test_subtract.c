/* SPDX-License-Identifier: Apache-2.0 */
/* test_subtract.c -- spt_subtract: a - b with the union pattern, against a dense reference. */
#include "../math_test_util.h"

static const spt_dtype SUB_DTYPES[] = {SPT_INT8,    SPT_INT16,   SPT_INT32,     SPT_INT64,
                                       SPT_FLOAT32, SPT_FLOAT64, SPT_COMPLEX64, SPT_COMPLEX128};

static void test_example(void **state) {
    (void)state;
    int64_t s[2] = {2, 3}, ia[4] = {0, 0, 1, 2}, ib[4] = {1, 2, 0, 1};
    int32_t va[2] = {5, 7}, vb[2] = {7, 4};
    spt_tensor *a, *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 2, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 2, ib, vb, NULL, &b));
    ASSERT_OK(spt_subtract(a, b, &o)); /* zero difference kept */
    spt_test_expect_tensor(o, 2, s, 3, (int64_t[]){0, 0, 0, 1, 1, 2}, (int32_t[]){5, -4, 0});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_random(void **state) {
    (void)state;
    mt_seed(12);
    for (size_t di = 0; di < sizeof SUB_DTYPES / sizeof SUB_DTYPES[0]; di++) {
        spt_dtype dt = SUB_DTYPES[di];
        for (int trial = 0; trial < 20; trial++) {
            int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(4), 1 + mt_int(4), 1 + mt_int(3)};
            int64_t vol = mt_volume(r, shape);
            spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(vol + 1), false, trial & 4);
            spt_tensor *b = mt_rand_tensor(dt, r, shape, mt_int(vol + 1), false, trial & 8);
            spt_tensor *o;
            ASSERT_OK(spt_subtract(a, b, &o));
            int64_t *ca, *cb;
            double complex *da = mt_dense_sum(a, &ca), *db = mt_dense_sum(b, &cb);
            int64_t j = 0;
            for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
                int64_t off = mt_offset(o, i);
                for (; j < off; j++) assert_false(ca[j] || cb[j]);
                j = off + 1;
                mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), i), da[off] - db[off], "subtract", i);
            }
            for (; j < vol; j++) assert_false(ca[j] || cb[j]);
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
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){3, 3}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_subtract(a, b, &o));
    assert_null(o);
    ASSERT_MSG("spt_subtract: Operands' shapes do not match");
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_UINT8, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EDTYPE, spt_subtract(b, b, &o));
    spt_tensor_free(b);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, (int64_t[]){2, 0}, &(double){1}, NULL, &b));
    ASSERT_ST(SPT_ERANGE, spt_subtract(a, b, &o));
    spt_tensor_free(b);
    spt_tensor_free(a);
}

static spt_status call_sub(mt_call *c) { return spt_subtract(c->a, c->b, &c->o); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(6);
    int64_t s[2] = {5, 6};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT32, 2, s, 14, false, false),
               *b = mt_rand_tensor(SPT_FLOAT32, 2, s, 14, false, true);
    mt_call c = {.op = call_sub, .a = a, .b = b};
    mt_call_sweep(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
