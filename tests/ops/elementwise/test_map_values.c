/* SPDX-License-Identifier: Apache-2.0 */
/* test_map_values.c -- tf.sparse.map_values: every unary op on float64 and float32 against libm, the
 * integer and complex rules, the two-operand form, errors, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

#include <complex.h>

static spt_tensor *vec_tensor(spt_dtype dt, int64_t n, const void *v) {
    int64_t s[1] = {100}, ix[16];
    for (int64_t i = 0; i < n; i++) ix[i] = 3 * i;
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, 1, s, n, ix, v, NULL, &t));
    return t;
}

static double ref(spt_unary_op op, double x) {
    switch (op) {
    case SPT_OP_ABS: return fabs(x);
    case SPT_OP_NEGATIVE: return -x;
    case SPT_OP_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
    case SPT_OP_SQUARE: return x * x;
    case SPT_OP_SQRT: return sqrt(x);
    case SPT_OP_RSQRT: return 1 / sqrt(x);
    case SPT_OP_EXP: return exp(x);
    case SPT_OP_LOG1P: return log1p(x);
    case SPT_OP_SIN: return sin(x);
    case SPT_OP_TAN: return tan(x);
    case SPT_OP_ASIN: return asin(x);
    case SPT_OP_ATAN: return atan(x);
    case SPT_OP_ASINH: return asinh(x);
    case SPT_OP_ATANH: return atanh(x);
    case SPT_OP_TANH: return tanh(x);
    case SPT_OP_ERF: return erf(x);
    case SPT_OP_FLOOR: return floor(x);
    case SPT_OP_CEIL: return ceil(x);
    case SPT_OP_ROUND: return nearbyint(x); /* default rounding mode: half to even */
    default: return 1;
    }
}

static void test_float_ops(void **state) {
    (void)state;
    double v[6] = {0.25, -0.75, 0.5, -0.5, 2.5, -1.5};
    float vf[6];
    for (int i = 0; i < 6; i++) vf[i] = (float)v[i];
    spt_tensor *t = vec_tensor(SPT_FLOAT64, 6, v), *tf = vec_tensor(SPT_FLOAT32, 6, vf), *o;
    for (int op = 0; op < SPT_NUM_UNARY_OPS; op++) {
        ASSERT_OK(spt_map_values(t, (spt_unary_op)op, &o));
        assert_int_equal(spt_tensor_dtype(o), SPT_FLOAT64);
        assert_memory_equal(spt_tensor_indices(o), spt_tensor_indices(t), 6 * sizeof(int64_t));
        const double *y = spt_tensor_values(o);
        for (int i = 0; i < 6; i++) {
            double want = ref((spt_unary_op)op, v[i]);
            if (isnan(want)) assert_true(isnan(y[i]));
            else assert_true(y[i] == want);
        }
        spt_tensor_free(o);
        ASSERT_OK(spt_map_values(tf, (spt_unary_op)op, &o));
        const float *yf = spt_tensor_values(o);
        for (int i = 0; i < 6; i++) {
            float want = (float)ref((spt_unary_op)op, v[i]);
            if (isnan(want)) assert_true(isnan(yf[i]));
            else assert_true(yf[i] == want);
        }
        spt_tensor_free(o);
    }
    /* names round-trip */
    for (int op = 0; op < SPT_NUM_UNARY_OPS; op++) {
        spt_unary_op back;
        ASSERT_OK(spt_unary_op_from_name(spt_unary_op_name((spt_unary_op)op), &back));
        assert_int_equal(back, op);
    }
    spt_unary_op bad;
    ASSERT_ST(SPT_EINVAL, spt_unary_op_from_name("cosh", &bad));
    assert_null(spt_unary_op_name(SPT_NUM_UNARY_OPS));
    /* round is half to even: 0.5 -> 0, -0.5 -> -0, 2.5 -> 2, -1.5 -> -2 */
    ASSERT_OK(spt_map_values(t, SPT_OP_ROUND, &o));
    const double *r = spt_tensor_values(o);
    assert_true(r[2] == 0 && r[3] == 0 && signbit(r[3]) && r[4] == 2 && r[5] == -2);
    spt_tensor_free(o);
    spt_tensor_free(t);
    spt_tensor_free(tf);
}

static void test_int_and_complex(void **state) {
    (void)state;
    int8_t v[4] = {-128, -3, 0, 12};
    spt_tensor *t = vec_tensor(SPT_INT8, 4, v), *o;
    ASSERT_OK(spt_map_values(t, SPT_OP_ABS, &o));
    int8_t a[4] = {-128, 3, 0, 12}; /* |MIN| wraps to MIN */
    assert_memory_equal(spt_tensor_values(o), a, 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_NEGATIVE, &o));
    int8_t n[4] = {-128, 3, 0, -12};
    assert_memory_equal(spt_tensor_values(o), n, 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_SQUARE, &o));
    int8_t q[4] = {0, 9, 0, (int8_t)144}; /* wraps */
    assert_memory_equal(spt_tensor_values(o), q, 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_SIGN, &o));
    int8_t sg[4] = {-1, -1, 0, 1};
    assert_memory_equal(spt_tensor_values(o), sg, 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_ROUND, &o));
    assert_memory_equal(spt_tensor_values(o), v, 4);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_SQRT, &o));
    ASSERT_MSG("spt_map_values: sqrt is not defined for dtype int8");
    assert_null(o);
    spt_tensor_free(t);
    uint32_t u[2] = {0, 7};
    t = vec_tensor(SPT_UINT32, 2, u);
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_NEGATIVE, &o));
    ASSERT_OK(spt_map_values(t, SPT_OP_SIGN, &o));
    uint32_t us[2] = {0, 1};
    assert_memory_equal(spt_tensor_values(o), us, sizeof us);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* complex: abs gives a real dtype, sqrt is the principal root */
    double complex c[2] = {3 + 4 * I, -4};
    t = vec_tensor(SPT_COMPLEX128, 2, c);
    ASSERT_OK(spt_map_values(t, SPT_OP_ABS, &o));
    assert_int_equal(spt_tensor_dtype(o), SPT_FLOAT64);
    assert_true(((const double *)spt_tensor_values(o))[0] == 5 && ((const double *)spt_tensor_values(o))[1] == 4);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_SQRT, &o));
    const double complex *z = spt_tensor_values(o);
    assert_true(cabs(z[0] - (2 + 1 * I)) < 1e-15 && cabs(z[1] - 2 * I) < 1e-15);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_SIGN, &o));
    z = spt_tensor_values(o);
    assert_true(cabs(z[0] - (0.6 + 0.8 * I)) < 1e-15 && z[1] == -1);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_FLOOR, &o));
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_ERF, &o));
    spt_tensor_free(t);
    /* strings: nothing; bool: ones_like only */
    spt_str s[1] = {{"x", 1}};
    t = vec_tensor(SPT_STRING, 1, s);
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_ONES_LIKE, &o));
    spt_tensor_free(t);
    bool b[2] = {false, true};
    t = vec_tensor(SPT_BOOL, 2, b);
    ASSERT_OK(spt_map_values(t, SPT_OP_ONES_LIKE, &o));
    assert_true(((const bool *)spt_tensor_values(o))[0]);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EDTYPE, spt_map_values(t, SPT_OP_ABS, &o));
    ASSERT_ST(SPT_EINVAL, spt_map_values(t, (spt_unary_op)99, &o));
    ASSERT_ST(SPT_EINVAL, spt_map_values(NULL, SPT_OP_ABS, &o));
    spt_tensor_free(t);
}

static void test_binary(void **state) {
    (void)state;
    int32_t v[4] = {1, 2, 4, 1};
    int64_t s[2] = {3, 3}, ix[8] = {0, 0, 0, 1, 1, 1, 2, 0}, ix2[8] = {0, 0, 0, 1, 1, 2, 2, 0};
    spt_tensor *a, *b, *c, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 4, ix, v, NULL, &a));
    ASSERT_OK(spt_map_values2(a, a, SPT_OP_MULTIPLY, &o));
    int32_t sq[4] = {1, 4, 16, 1};
    spt_test_expect_tensor(o, 2, s, 4, ix, sq);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values2(a, a, SPT_OP_SUBTRACT, &o));
    int32_t z[4] = {0};
    spt_test_expect_tensor(o, 2, s, 4, ix, z);
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values2(a, a, SPT_OP_ADD, &o));
    int32_t d[4] = {2, 4, 8, 2};
    spt_test_expect_tensor(o, 2, s, 4, ix, d);
    spt_tensor_free(o);
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 4, ix2, v, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_map_values2(a, b, SPT_OP_ADD, &o));
    ASSERT_MSG("same indices (entry 2 differs)");
    int64_t s2[2] = {3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s2, 4, ix, v, NULL, &c));
    ASSERT_ST(SPT_EINVAL, spt_map_values2(a, c, SPT_OP_ADD, &o));
    ASSERT_MSG("same dense shape");
    spt_tensor *f;
    ASSERT_OK(spt_cast(a, SPT_FLOAT32, &f));
    ASSERT_ST(SPT_EDTYPE, spt_map_values2(a, f, SPT_OP_ADD, &o));
    ASSERT_ST(SPT_EINVAL, spt_map_values2(a, a, (spt_binary_op)7, &o));
    assert_null(o);
    spt_tensor_free(f);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(c);
}

/* Threaded: 300k float64 values, any thread count gives the libm result. */
static void test_threaded(void **state) {
    (void)state;
    const int64_t n = 300000;
    int64_t s[1] = {n};
    double *v = malloc((size_t)n * sizeof *v);
    int64_t *ix = malloc((size_t)n * sizeof *ix);
    for (int64_t i = 0; i < n; i++) ix[i] = i, v[i] = (double)(i % 1000) / 100 - 5;
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s, n, ix, v, NULL, &t));
    spt_set_num_threads(4);
    ASSERT_OK(spt_map_values(t, SPT_OP_TANH, &o));
    spt_set_num_threads(0);
    const double *y = spt_tensor_values(o);
    for (int64_t i = 0; i < n; i++) assert_true(y[i] == tanh(v[i]));
    spt_tensor_free(o);
    spt_tensor_free(t);
    free(v);
    free(ix);
}

static spt_tensor *sw_in, *sw_out;
static spt_status sw_run(void *p) {
    (void)p;
    return spt_map_values(sw_in, SPT_OP_EXP, &sw_out);
}
static void sw_clean(void *p) {
    (void)p;
    spt_tensor_free(sw_out);
    sw_out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    double v[3] = {1, 2, 3};
    sw_in = vec_tensor(SPT_FLOAT64, 3, v);
    tt_sweep(sw_run, sw_clean, NULL);
    spt_tensor_free(sw_in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_ops), cmocka_unit_test(test_int_and_complex), cmocka_unit_test(test_binary),
        cmocka_unit_test(test_threaded),  cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

static conf_result map_values(const conf_case *c) {
    const char *name = json_string_value(json_object_get(c->args, "op"));
    json_t *a = json_object_get(c->args, "args");
    spt_tensor *x = NULL, *y = NULL, *out = NULL;
    spt_dense *scalar = NULL;
    if (!name || !json_is_array(a) || json_array_size(a) < 1) return conf_fail(c, "malformed map_values case");
    JUDGE(c, conf_sparse(json_array_get(a, 0), false, &x));
    spt_status st;
    spt_unary_op uop;
    if (json_array_size(a) == 1) {
        if (spt_unary_op_from_name(name, &uop) != SPT_OK) {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
        st = spt_map_values(x, uop, &out);
    } else {
        bool add = !strcmp(name, "add"), mul = !strcmp(name, "multiply"), sub = !strcmp(name, "subtract");
        if (!add && !mul && !sub) {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
        json_t *b = json_array_get(a, 1);
        if (json_is_object(b)) { /* fn(sp, sp): the same indices */
            st = conf_sparse(b, false, &y);
            if (st == SPT_OK)
                st = spt_map_values2(x, y, add ? SPT_OP_ADD : mul ? SPT_OP_MULTIPLY : SPT_OP_SUBTRACT, &out);
        } else if (!sub) { /* fn(sp, scalar): the scalar broadcast over the stored values */
            st = conf_dense(b, spt_tensor_dtype(x), &scalar);
            if (st == SPT_OK)
                st = add ? spt_sparse_dense_cwise_add(x, scalar, &out) : spt_sparse_dense_cwise_mul(x, scalar, &out);
        } else {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
    }
    spt_tensor_free(x);
    spt_tensor_free(y);
    spt_dense_free(scalar);
    return conf_finish_sparse(c, st, out);
}

CONF_HANDLERS(test_map_values, {"map_values", map_values, CONF_OP(spt_map_values)})
#endif
