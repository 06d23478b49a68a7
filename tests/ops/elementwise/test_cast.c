/* SPDX-License-Identifier: Apache-2.0 */
/* test_cast.c -- tf.cast on sparse values: every defined conversion rule, every dtype pair round-trips
 * small values, strings, errors. */
#include "../tfsparse_test_util.h"

#include <complex.h>

static spt_tensor *vec_tensor(spt_dtype dt, int64_t n, const void *v) {
    int64_t s[1] = {64}, ix[16];
    for (int64_t i = 0; i < n; i++) ix[i] = 2 * i;
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, 1, s, n, ix, v, NULL, &t));
    return t;
}

static void test_float_to_int(void **state) {
    (void)state;
    double v[9] = {2.9, -2.9, NAN, 1e300, -1e300, 127.99, -128.5, INFINITY, -0.5};
    spt_tensor *t = vec_tensor(SPT_FLOAT64, 9, v), *o;
    ASSERT_OK(spt_cast(t, SPT_INT8, &o));
    int8_t w8[9] = {2, -2, 0, 127, -128, 127, -128, 127, 0};
    assert_memory_equal(spt_tensor_values(o), w8, sizeof w8);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_INT64, &o));
    int64_t w64[9] = {2, -2, 0, INT64_MAX, INT64_MIN, 127, -128, INT64_MAX, 0};
    assert_memory_equal(spt_tensor_values(o), w64, sizeof w64);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_UINT16, &o));
    uint16_t wu[9] = {2, 0, 0, UINT16_MAX, 0, 127, 0, UINT16_MAX, 0};
    assert_memory_equal(spt_tensor_values(o), wu, sizeof wu);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_UINT64, &o));
    uint64_t wu64[9] = {2, 0, 0, UINT64_MAX, 0, 127, 0, UINT64_MAX, 0};
    assert_memory_equal(spt_tensor_values(o), wu64, sizeof wu64);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_BOOL, &o));
    bool wb[9] = {true, true, true, true, true, true, true, true, true};
    assert_memory_equal(spt_tensor_values(o), wb, sizeof wb);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_FLOAT32, &o));
    const float *f = spt_tensor_values(o);
    assert_true(f[0] == 2.9f && isnan(f[2]) && isinf(f[3]) && f[3] > 0 && isinf(f[4]) && f[4] < 0);
    spt_tensor_free(o);
    /* 2^63 exactly saturates to INT64_MAX, 2^63 - 1024 (the largest double below) converts exactly */
    double edge[2] = {9223372036854775808.0, 9223372036854774784.0};
    spt_tensor *e = vec_tensor(SPT_FLOAT64, 2, edge);
    ASSERT_OK(spt_cast(e, SPT_INT64, &o));
    assert_true(((const int64_t *)spt_tensor_values(o))[0] == INT64_MAX &&
                ((const int64_t *)spt_tensor_values(o))[1] == INT64_C(9223372036854774784));
    spt_tensor_free(o);
    spt_tensor_free(e);
    spt_tensor_free(t);
}

static void test_int_rules(void **state) {
    (void)state;
    int64_t v[4] = {300, -1, INT64_MIN, (INT64_C(1) << 53) + 1};
    spt_tensor *t = vec_tensor(SPT_INT64, 4, v), *o;
    ASSERT_OK(spt_cast(t, SPT_UINT8, &o));
    uint8_t w[4] = {44, 255, 0, 1}; /* modulo 256 */
    assert_memory_equal(spt_tensor_values(o), w, 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_INT16, &o));
    int16_t w16[4] = {300, -1, 0, 1};
    assert_memory_equal(spt_tensor_values(o), w16, sizeof w16);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_UINT64, &o));
    assert_true(((const uint64_t *)spt_tensor_values(o))[1] == UINT64_MAX);
    spt_tensor_free(o);
    /* int64 -> float32 rounds once: 2^53 + 1 -> 2^53 as float32 (no double rounding) */
    int64_t dr[1] = {(INT64_C(1) << 24) + 1};
    spt_tensor *d = vec_tensor(SPT_INT64, 1, dr);
    ASSERT_OK(spt_cast(d, SPT_FLOAT32, &o));
    assert_true(((const float *)spt_tensor_values(o))[0] == 16777216.0f);
    spt_tensor_free(o);
    spt_tensor_free(d);
    ASSERT_OK(spt_cast(t, SPT_COMPLEX128, &o));
    assert_true(((const double complex *)spt_tensor_values(o))[0] == 300);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* complex -> real keeps the real part; bool -> 0/1 */
    float complex c[2] = {2.5f - 3 * I, -7.9f + I};
    t = vec_tensor(SPT_COMPLEX64, 2, c);
    ASSERT_OK(spt_cast(t, SPT_INT32, &o));
    int32_t ci[2] = {2, -7};
    assert_memory_equal(spt_tensor_values(o), ci, sizeof ci);
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_FLOAT64, &o));
    assert_true(((const double *)spt_tensor_values(o))[0] == 2.5);
    spt_tensor_free(o);
    spt_tensor_free(t);
    bool b[2] = {true, false};
    t = vec_tensor(SPT_BOOL, 2, b);
    ASSERT_OK(spt_cast(t, SPT_FLOAT64, &o));
    assert_true(((const double *)spt_tensor_values(o))[0] == 1 && ((const double *)spt_tensor_values(o))[1] == 0);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* Every pair of non-string dtypes carries the small values 0, 1, 5 exactly, and keeps the pattern. */
static void test_all_pairs(void **state) {
    (void)state;
    for (int a = 0; a < SPT_NUM_DTYPES; a++) {
        if (a == SPT_STRING) continue;
        double src[3] = {0, 1, 5};
        spt_tensor *f = vec_tensor(SPT_FLOAT64, 3, src), *t, *o, *back;
        ASSERT_OK(spt_cast(f, (spt_dtype)a, &t));
        for (int b = 0; b < SPT_NUM_DTYPES; b++) {
            if (b == SPT_STRING) continue;
            ASSERT_OK(spt_cast(t, (spt_dtype)b, &o));
            assert_int_equal(spt_tensor_dtype(o), b);
            assert_memory_equal(spt_tensor_indices(o), spt_tensor_indices(f), 3 * sizeof(int64_t));
            ASSERT_OK(spt_cast(o, SPT_FLOAT64, &back));
            const double *y = spt_tensor_values(back);
            bool boolish = a == SPT_BOOL || b == SPT_BOOL;
            assert_true(y[0] == 0 && y[1] == 1 && y[2] == (boolish ? 1 : 5));
            spt_tensor_free(back);
            spt_tensor_free(o);
        }
        spt_tensor_free(t);
        spt_tensor_free(f);
    }
}

static void test_strings_and_errors(void **state) {
    (void)state;
    spt_str s[2] = {{"ab", 2}, {"", 0}};
    spt_tensor *t = vec_tensor(SPT_STRING, 2, s), *o;
    ASSERT_OK(spt_cast(t, SPT_STRING, &o));
    spt_tensor_free(t); /* the copy owns its bytes */
    const spt_str *v = spt_tensor_values(o);
    assert_true(v[0].len == 2 && !memcmp(v[0].data, "ab", 2) && v[1].len == 0);
    ASSERT_ST(SPT_EDTYPE, spt_cast(o, SPT_INT32, &t));
    ASSERT_MSG("spt_cast: cannot cast string to int32");
    assert_null(t);
    spt_tensor_free(o);
    int32_t i[1] = {1};
    t = vec_tensor(SPT_INT32, 1, i);
    ASSERT_ST(SPT_EDTYPE, spt_cast(t, SPT_STRING, &o));
    ASSERT_ST(SPT_EDTYPE, spt_cast(t, (spt_dtype)-3, &o));
    ASSERT_ST(SPT_EINVAL, spt_cast(NULL, SPT_INT8, &o));
    ASSERT_ST(SPT_EINVAL, spt_cast(t, SPT_INT8, NULL));
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_to_int),
        cmocka_unit_test(test_int_rules),
        cmocka_unit_test(test_all_pairs),
        cmocka_unit_test(test_strings_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
