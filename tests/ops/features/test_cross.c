/* SPDX-License-Identifier: Apache-2.0 */
/* test_cross.c -- tf.sparse.cross: the docstring example, dense/sparse mixes (sparse inputs first),
 * integer features, unsorted sparse rows, empty rows, every check, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static spt_tensor *str_sparse(int64_t rows, int64_t cols, int64_t n, const int64_t *ix, const char *const *v) {
    spt_str s[16];
    for (int64_t i = 0; i < n; i++) s[i] = (spt_str){v[i], (int64_t)strlen(v[i])};
    int64_t shape[2] = {rows, cols};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, shape, n, ix, s, NULL, &t));
    return t;
}
static spt_dense *str_dense(int64_t rows, int64_t cols, const char *const *v) {
    spt_str s[16];
    for (int64_t i = 0; i < rows * cols; i++) s[i] = (spt_str){v[i], (int64_t)strlen(v[i])};
    int64_t shape[2] = {rows, cols};
    return tt_dense(SPT_STRING, 2, shape, s);
}
static void expect_strings(const spt_tensor *t, int64_t n, const char *const *want) {
    assert_int_equal(spt_tensor_nnz(t), n);
    const spt_str *v = spt_tensor_values(t);
    for (int64_t i = 0; i < n; i++) {
        if (v[i].len != (int64_t)strlen(want[i]) || memcmp(v[i].data, want[i], (size_t)v[i].len))
            fail_msg("value %lld is \"%.*s\", expected \"%s\"", (long long)i, (int)v[i].len, v[i].data, want[i]);
    }
}

/* sparse_ops.py docstring: two sparse inputs and a dense one. The dense input is given first here:
 * the sparse inputs still come first in each cross, as TensorFlow orders them. */
static void test_docstring(void **state) {
    (void)state;
    int64_t ia[6] = {0, 0, 1, 0, 1, 1}, id[4] = {0, 0, 1, 0};
    const char *va[3] = {"a", "b", "c"}, *vd[2] = {"d", "e"}, *vf[2] = {"f", "g"};
    spt_tensor *a = str_sparse(2, 2, 3, ia, va), *d = str_sparse(2, 1, 2, id, vd), *o;
    spt_dense *f = str_dense(2, 1, vf);
    spt_cross_input in[3] = {{NULL, f}, {a, NULL}, {d, NULL}};
    ASSERT_OK(spt_cross(in, 3, "_X_", 3, &o));
    int64_t s[2] = {2, 2}, oi[6] = {0, 0, 1, 0, 1, 1};
    assert_memory_equal(spt_tensor_shape(o), s, sizeof s);
    assert_memory_equal(spt_tensor_indices(o), oi, sizeof oi);
    const char *want[3] = {"a_X_d_X_f", "b_X_e_X_g", "c_X_e_X_g"};
    expect_strings(o, 3, want);
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    /* an empty separator */
    ASSERT_OK(spt_cross(in, 3, NULL, 0, &o));
    const char *want2[3] = {"adf", "beg", "ceg"};
    expect_strings(o, 3, want2);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(d);
    spt_dense_free(f);
}

/* Integer features in decimal, unsorted sparse rows, a row empty in one input. */
static void test_ints_and_order(void **state) {
    (void)state;
    int64_t s[2] = {3, 3}, ix[8] = {2, 0, 0, 0, 2, 1, 0, 1};
    int64_t v[4] = {-7, 11, 8, 333};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &t));
    const char *dv[3] = {"x", "y", "z"};
    spt_dense *d = str_dense(3, 1, dv);
    spt_cross_input in[2] = {{t, NULL}, {NULL, d}};
    ASSERT_OK(spt_cross(in, 2, "|", 1, &o));
    /* row 0: 11, 333 (storage order); row 1: none; row 2: -7, 8 */
    int64_t oi[8] = {0, 0, 0, 1, 2, 0, 2, 1}, os[2] = {3, 2};
    assert_memory_equal(spt_tensor_indices(o), oi, sizeof oi);
    assert_memory_equal(spt_tensor_shape(o), os, sizeof os);
    const char *want[4] = {"11|x", "333|x", "-7|z", "8|z"};
    expect_strings(o, 4, want);
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(t);
    /* only sparse inputs: rows come from input 0 and must be present in all */
    int64_t s2[2] = {4, 2}, i1[6] = {0, 0, 1, 0, 3, 0}, i2[4] = {3, 0, 3, 1};
    const char *v1[3] = {"p", "q", "r"}, *v2[2] = {"s", "t"};
    spt_tensor *a = str_sparse(4, 2, 3, i1, v1), *b = str_sparse(4, 2, 2, i2, v2);
    (void)s2;
    spt_cross_input in2[2] = {{a, NULL}, {b, NULL}};
    ASSERT_OK(spt_cross(in2, 2, "_", 1, &o));
    const char *want2[2] = {"r_s", "r_t"};
    expect_strings(o, 2, want2);
    assert_int_equal(spt_tensor_indices(o)[0], 3);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s1[2] = {10, 10}, s2[2] = {7, 10}, i0[2] = {0, 0}, v0 = 0;
    spt_tensor *a, *b, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s1, 1, i0, &v0, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s2, 1, i0, &v0, NULL, &b));
    spt_cross_input in[2] = {{a, NULL}, {b, NULL}};
    ASSERT_ST(SPT_EINVAL, spt_cross(in, 2, "_X_", 3, &o));
    assert_null(o);
    ASSERT_MSG("Expected batch size 10 got 7");
    ASSERT_ST(SPT_EINVAL, spt_cross(in, 0, "_X_", 3, &o));
    ASSERT_ST(SPT_EINVAL, spt_cross(NULL, 1, "_X_", 3, &o));
    ASSERT_ST(SPT_EINVAL, spt_cross(in, 1, NULL, 2, &o));
    ASSERT_ST(SPT_EINVAL, spt_cross(in, 1, "_", -1, &o));
    spt_cross_input both[1] = {{a, NULL}};
    spt_dense *d = NULL;
    int64_t ds[1] = {10};
    ASSERT_OK(spt_dense_new(SPT_INT64, 1, ds, &d));
    both[0].dense = d;
    ASSERT_ST(SPT_EINVAL, spt_cross(both, 1, "_", 1, &o));
    spt_cross_input vec[1] = {{NULL, d}};
    ASSERT_ST(SPT_EINVAL, spt_cross(vec, 1, "_", 1, &o));
    ASSERT_MSG("must be a matrix");
    spt_tensor *f;
    ASSERT_OK(spt_cast(a, SPT_FLOAT32, &f));
    spt_cross_input fl[1] = {{f, NULL}};
    ASSERT_ST(SPT_EDTYPE, spt_cross(fl, 1, "_", 1, &o));
    /* an index outside the batch (TensorFlow drops the row silently) */
    int64_t bad[2] = {12, 0};
    spt_tensor *c;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s1, 1, bad, &v0, NULL, &c));
    spt_cross_input bi[1] = {{c, NULL}};
    ASSERT_ST(SPT_ERANGE, spt_cross(bi, 1, "_", 1, &o));
    ASSERT_MSG("spt_cross");
    /* the number of crosses of one row overflows int64: 4 inputs x 2^16 features */
    const int64_t m = 65536;
    int64_t sh[2] = {1, m};
    int64_t *ix = malloc((size_t)(2 * m) * sizeof *ix), *vv = malloc((size_t)m * sizeof *vv);
    for (int64_t k = 0; k < m; k++) ix[2 * k] = 0, ix[2 * k + 1] = k, vv[k] = k;
    spt_tensor *big;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, sh, m, ix, vv, NULL, &big));
    spt_cross_input four[4] = {{big, NULL}, {big, NULL}, {big, NULL}, {big, NULL}};
    ASSERT_ST(SPT_EOVERFLOW, spt_cross(four, 4, "_", 1, &o));
    ASSERT_ST(SPT_EOVERFLOW, spt_cross_hashed(four, 4, 10, 0, &o));
    assert_null(o);
    free(ix);
    free(vv);
    spt_tensor *arr[] = {a, b, f, c, big};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_tensor_free(arr[k]);
    spt_dense_free(d);
}

static spt_cross_input sw_in[2];
static spt_tensor *sw_out;
static spt_status sw_run(void *p) {
    (void)p;
    return spt_cross(sw_in, 2, "_X_", 3, &sw_out);
}
static void sw_clean(void *p) {
    (void)p;
    spt_tensor_free(sw_out);
    sw_out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t ia[6] = {1, 0, 0, 0, 1, 1};
    const char *va[3] = {"a", "b", "c"}, *vf[2] = {"f", "g"};
    spt_tensor *a = str_sparse(2, 2, 3, ia, va);
    spt_dense *f = str_dense(2, 1, vf);
    sw_in[0] = (spt_cross_input){a, NULL};
    sw_in[1] = (spt_cross_input){NULL, f};
    tt_sweep(sw_run, sw_clean, NULL);
    spt_tensor_free(a);
    spt_dense_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docstring),
        cmocka_unit_test(test_ints_and_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

static conf_result cross(const conf_case *c) { return conf_cross_common(c, false); }

CONF_HANDLERS(test_cross, {"sparse_cross", cross, CONF_OP(spt_cross)})
#endif
